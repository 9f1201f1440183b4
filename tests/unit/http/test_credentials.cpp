// Credentials in URLs: remembered per origin and sent with every request to it, never stored in
// the cache nor shown in an error (issue 51).

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "client_servers.hpp"
#include "vwheel/http/credentials.hpp"

namespace vwheel::http {
namespace {

using namespace test;  // NOLINT(google-build-using-namespace)

TEST(Credentials, SentToTheSameOriginOnly) {
  remember_credentials("https://alice:s3cret@Creds-Test.invalid/simple/");
  // The same origin: another path, the host in another case, the default port spelled out.
  EXPECT_EQ(with_credentials("https://creds-test.invalid/files/a.whl"),
            "https://alice:s3cret@creds-test.invalid/files/a.whl");
  EXPECT_EQ(with_credentials("HTTPS://creds-test.invalid:443/x"), "HTTPS://alice:s3cret@creds-test.invalid:443/x");
  // Another scheme, port or host.
  EXPECT_EQ(with_credentials("http://creds-test.invalid/x"), "http://creds-test.invalid/x");
  EXPECT_EQ(with_credentials("https://creds-test.invalid:8443/x"), "https://creds-test.invalid:8443/x");
  EXPECT_EQ(with_credentials("https://other.invalid/x"), "https://other.invalid/x");
  EXPECT_EQ(with_credentials("https://creds-test.invalid.evil/x"), "https://creds-test.invalid.evil/x");
  // A URL with its own userinfo keeps it; one without an authority gets none.
  EXPECT_EQ(with_credentials("https://bob:pw@creds-test.invalid/x"), "https://bob:pw@creds-test.invalid/x");
  EXPECT_EQ(with_credentials("file:///tmp/x.whl"), "file:///tmp/x.whl");
  // IPv6 hosts: the port is after the brackets.
  remember_credentials("http://tok@[::1]:9/simple/");
  EXPECT_EQ(with_credentials("http://[::1]:9/a.whl"), "http://tok@[::1]:9/a.whl");
  EXPECT_EQ(with_credentials("http://[::1]/a.whl"), "http://[::1]/a.whl");
}

// The order of lookup (issue 54): a URL's password, .netrc, the keyring, the environment, a URL's
// username alone.
TEST(CredentialLookup, TheUrlsPasswordComesFirst) {
  CredentialCandidates c;
  c.url_username = "alice";
  c.url_password = "from-url";
  c.netrc = NetrcEntry{"h", "bob", "from-netrc", false};
  c.env_password = "from-env";
  bool asked = false;
  auto chosen = choose_credentials(c, [&](const std::string&) {
    asked = true;
    return std::optional<std::string>("from-keyring");
  });
  ASSERT_TRUE(chosen);
  EXPECT_EQ(chosen->username, "alice");
  EXPECT_EQ(chosen->password, "from-url");
  EXPECT_EQ(chosen->source, "the URL");
  EXPECT_FALSE(asked);
}

TEST(CredentialLookup, NetrcBeforeTheKeyringAndTheEnvironment) {
  CredentialCandidates c;
  c.url_username = "alice";
  c.netrc = NetrcEntry{"h", "", "from-netrc", false};
  c.env_username = "env-user";
  c.env_password = "from-env";
  bool asked = false;
  auto chosen = choose_credentials(c, [&](const std::string&) {
    asked = true;
    return std::optional<std::string>("from-keyring");
  });
  ASSERT_TRUE(chosen);
  EXPECT_EQ(chosen->username, "alice");  // the netrc entry has no login: the URL's username
  EXPECT_EQ(chosen->password, "from-netrc");
  EXPECT_EQ(chosen->source, "netrc");
  EXPECT_FALSE(asked);
}

TEST(CredentialLookup, TheKeyringForTheUrlsUsernameThenTheEnvironments) {
  CredentialCandidates c;
  c.url_username = "alice";
  c.env_username = "env-user";
  c.env_password = "from-env";
  std::string asked_for;
  const KeyringLookup keyring = [&](const std::string& user) {
    asked_for = user;
    return user == "alice" ? std::optional<std::string>("from-keyring") : std::nullopt;
  };
  auto chosen = choose_credentials(c, keyring);
  ASSERT_TRUE(chosen);
  EXPECT_EQ(asked_for, "alice");
  EXPECT_EQ(chosen->password, "from-keyring");
  EXPECT_EQ(chosen->source, "keyring");
  // Without a username in the URL the keyring is asked for the environment's; it has none for
  // it, so the environment's password is sent.
  c.url_username.clear();
  chosen = choose_credentials(c, keyring);
  ASSERT_TRUE(chosen);
  EXPECT_EQ(asked_for, "env-user");
  EXPECT_EQ(chosen->username, "env-user");
  EXPECT_EQ(chosen->password, "from-env");
  EXPECT_EQ(chosen->source, "environment");
}

TEST(CredentialLookup, NoKeyringWithoutAUsernameNorWhenDisabled) {
  CredentialCandidates c;
  bool asked = false;
  const KeyringLookup keyring = [&](const std::string&) {
    asked = true;
    return std::optional<std::string>("x");
  };
  EXPECT_FALSE(choose_credentials(c, keyring));
  EXPECT_FALSE(asked);
  c.url_username = "alice";
  auto chosen = choose_credentials(c, {});  // --keyring-provider disabled
  ASSERT_TRUE(chosen);
  EXPECT_EQ(chosen->username, "alice");
  EXPECT_EQ(chosen->password, "");
  EXPECT_EQ(chosen->source, "the URL");
}

TEST(CredentialLookup, IndexEnvironmentPrefix) {
  EXPECT_EQ(index_env_prefix("private"), "VWHEEL_INDEX_PRIVATE_");
  EXPECT_EQ(index_env_prefix("my-index.v2"), "VWHEEL_INDEX_MY_INDEX_V2_");
}

TEST(CredentialLookup, OnlyAnIndexsOriginIsLookedUpAndTheHintSaysWhere) {
  setenv("NETRC", "/nonexistent/netrc", 1);  // not the machine's ~/.netrc, which would come first
  setenv("VWHEEL_INDEX_LOOKUP_TEST_USERNAME", "eve", 1);
  setenv("VWHEEL_INDEX_LOOKUP_TEST_PASSWORD", "p@ss:word", 1);
  CredentialSettings settings;
  settings.indexes.push_back({"https://lookup-test.invalid/simple/", "lookup-test"});
  use_credential_settings(settings);
  // Percent-encoded for the URL; the same origin only.
  EXPECT_EQ(with_credentials("https://lookup-test.invalid/files/a.whl"),
            "https://eve:p%40ss%3Aword@lookup-test.invalid/files/a.whl");
  EXPECT_EQ(with_credentials("https://files.lookup-test.invalid/a.whl"), "https://files.lookup-test.invalid/a.whl");
  EXPECT_EQ(with_credentials("http://lookup-test.invalid/a.whl"), "http://lookup-test.invalid/a.whl");
  const auto hint = credentials_hint("https://lookup-test.invalid/simple/x/");
  EXPECT_NE(hint.find("credentials looked for in: the URL, $NETRC (/nonexistent/netrc), "), std::string::npos) << hint;
  EXPECT_NE(hint.find("keyring: disabled, VWHEEL_INDEX_LOOKUP_TEST_USERNAME"), std::string::npos) << hint;
  EXPECT_EQ(hint.find("p@ss"), std::string::npos);
  EXPECT_NE(credentials_hint("https://files.lookup-test.invalid/a.whl").find("no index given for this host"),
            std::string::npos);
  unsetenv("VWHEEL_INDEX_LOOKUP_TEST_USERNAME");
  unsetenv("VWHEEL_INDEX_LOOKUP_TEST_PASSWORD");
  unsetenv("NETRC");
}

class CredentialsClient : public ::testing::Test {
 protected:
  void SetUp() override {
    auto guarded = [this](const std::string& body) {
      return [this, body](const httplib::Request& req, httplib::Response& res) {
        if (req.get_header_value("Authorization") != "Basic YWxpY2U6czNjcmV0") {  // alice:s3cret
          ++refused;
          res.status = 401;
          res.set_header("WWW-Authenticate", "Basic realm=\"test\"");
          return;
        }
        res.set_content(body, "text/html");
      };
    };
    server.svr.Get("/simple/pkg/", guarded("<a href=\"../../files/pkg.whl\">pkg.whl</a>"));
    server.svr.Get("/files/pkg.whl", guarded("wheel bytes"));
    server.start();
  }
  [[nodiscard]] std::string with_userinfo(const std::string& path) const {
    return "http://alice:s3cret@127.0.0.1:" + std::to_string(server.port) + path;
  }
  HttpServer server;
  std::atomic<int> refused{0};
  TempDir dir;
};

TEST_F(CredentialsClient, UsedForTheOriginAndNeverStored) {
  Options o;
  o.cache_dir = dir.path / "cache";
  auto client = Client::create(o);
  ASSERT_TRUE(client);
  auto page = client->get({with_userinfo("/simple/pkg/")});
  ASSERT_TRUE(page) << page.error().message;
  EXPECT_EQ(page->url, server.url("/simple/pkg/"));  // what links are resolved against: no userinfo
  // A file the page links, on the same host, without userinfo: the credentials go with it.
  auto file = client->get({server.url("/files/pkg.whl")});
  ASSERT_TRUE(file) << file.error().message;
  EXPECT_EQ(file->body, "wheel bytes");
  auto downloaded = client->download({{server.url("/files/pkg.whl"), dir.path / "pkg.whl"}});
  ASSERT_TRUE(downloaded[0]) << downloaded[0].error().message;
  EXPECT_EQ(refused.load(), 0);
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(*o.cache_dir)) {
    if (!entry.is_regular_file()) continue;
    ++files;
    EXPECT_EQ(read_all(entry.path()).find("s3cret"), std::string::npos) << entry.path();
    EXPECT_EQ(entry.path().string().find("s3cret"), std::string::npos);
  }
  EXPECT_GT(files, 0);
}

TEST_F(CredentialsClient, ErrorsShowTheUrlRedacted) {
  auto client = Client::create({});
  ASSERT_TRUE(client);
  auto missing = client->get({with_userinfo("/simple/missing/")});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message.find("s3cret"), std::string::npos) << missing.error().message;
  EXPECT_NE(missing.error().message.find("alice:****@127.0.0.1"), std::string::npos) << missing.error().message;

  auto bad = client->download({{with_userinfo("/files/pkg.whl"), dir.path / "bad.whl", std::string(64, '0')}});
  ASSERT_FALSE(bad[0]);
  EXPECT_EQ(bad[0].error().message.find("s3cret"), std::string::npos) << bad[0].error().message;
  EXPECT_NE(bad[0].error().message.find("alice:****@127.0.0.1"), std::string::npos) << bad[0].error().message;
}

}  // namespace
}  // namespace vwheel::http
