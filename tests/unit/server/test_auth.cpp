// `index serve --read-auth`: the htpasswd parser (pure) and the password checks (libxcrypt).
// The hashes below were made with `openssl passwd -5/-6 -salt ...` and `htpasswd -B -C 4`.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "server/auth.hpp"
#include "server/http.hpp"

namespace vwheel::server {
namespace {

constexpr const char* kPassword = "secret pw";
constexpr const char* kSha256 = "$5$saltsalt$vCVzagwpKquSflhQxH0D10Fgy2Km11eLAozR93EkXT6";
constexpr const char* kSha256Rounds = "$5$rounds=1000$abc$g9civ9CexQnQuZbSvK9noEC1hBH7wp1Gkm94yG5jc24";
constexpr const char* kSha512 =
    "$6$saltsalt$zM85MwF7wzNFxhHekCkSASe1NaC/xUx1S2eoXlbcx1w6LkHRO4n1DK7q.d/HKoYFUjJ10GWDs5jLq2A53OAzU1";
constexpr const char* kBcrypt = "$2y$04$tTEy/WirJ.Wh3ci4lvHzEel60d4/O4yFwu25tizpQfysr65Yn3tmu";

std::string basic(const std::string& user_colon_password) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  const auto& in = user_colon_password;
  for (std::size_t i = 0; i < in.size(); i += 3) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    if (i + 2 < in.size()) v |= static_cast<unsigned char>(in[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < in.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += i + 2 < in.size() ? kAlphabet[v & 63] : '=';
  }
  return "Basic " + out;
}

TEST(Htpasswd, ReadsBcryptAndShaCryptSkippingCommentsAndBlankLines) {
  const std::string text = std::string("# team readers\n\nalice:") + kBcrypt + "\r\n  \nbob:" + kSha256 +
                           "\ncarol:" + kSha512 + "\ndave:" + kSha256Rounds +
                           "\nerin:" + "$2b$04$tTEy/WirJ.Wh3ci4lvHzEel60d4/O4yFwu25tizpQfysr65Yn3tmu";
  auto entries = parse_htpasswd(text, "users.htpasswd");
  ASSERT_TRUE(entries) << entries.error().message;
  ASSERT_EQ(entries->size(), 5U);
  EXPECT_EQ((*entries)[0].user, "alice");
  EXPECT_EQ((*entries)[0].hash, kBcrypt);
  EXPECT_EQ((*entries)[0].line, 3U);
  EXPECT_EQ((*entries)[1].user, "bob");
  EXPECT_EQ((*entries)[1].line, 5U);
  EXPECT_EQ((*entries)[2].hash, kSha512);
  EXPECT_EQ((*entries)[3].hash, kSha256Rounds);
  EXPECT_EQ((*entries)[4].user, "erin");
}

struct Refused {
  std::string line;
  std::string expected;  // in the message
};

class HtpasswdRefuses : public ::testing::TestWithParam<Refused> {};

TEST_P(HtpasswdRefuses, WithOneLineNamingFileLineAndUserButNotTheHash) {
  const auto& p = GetParam();
  auto entries = parse_htpasswd(std::string("# c\nalice:") + kBcrypt + "\n" + p.line + "\n", "/etc/idx/users");
  ASSERT_FALSE(entries);
  const auto& m = entries.error().message;
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  EXPECT_TRUE(m.starts_with("/etc/idx/users:3: ")) << m;
  EXPECT_NE(m.find(p.expected), std::string::npos) << m;
  const auto colon = p.line.find(':');
  if (colon != std::string::npos && colon + 1 < p.line.size()) {
    EXPECT_EQ(m.find(p.line.substr(colon + 1)), std::string::npos) << "the hash or password is quoted: " << m;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Lines, HtpasswdRefuses,
    ::testing::Values(Refused{"bob:$apr1$abcd$NLw/IRgjEiY5X5tz3PKbx/",
                              "user `bob`: an Apache MD5 (`$apr1$`) hash; accepted: bcrypt "
                              "(`htpasswd -B`)"},
                      Refused{"bob:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=", "user `bob`: a SHA-1 (`{SHA}`) hash"},
                      Refused{"bob:hunter2", "user `bob`: plain text"}, Refused{"bob:$1$abc$defghij", "MD5-crypt"},
                      Refused{"bob:$2y$04$short", "user `bob`: a malformed hash"},
                      Refused{"bob:$5$saltsalt$tooShort", "a malformed hash"},
                      Refused{"bob:$6$saltsalt$vCVzagwpKquSflhQxH0D10Fgy2Km11eLAozR93EkXT6", "a malformed hash"},
                      Refused{"bob:", "user `bob`: plain text"}, Refused{"no colon here", "expected `user:hash`"},
                      Refused{std::string(":") + kSha256, "the user name is empty"},
                      Refused{std::string("alice:") + kSha256, "user `alice` is also on line 2"}));

TEST(Htpasswd, AFileWithoutUsersIsRefused) {
  auto entries = parse_htpasswd("# nobody yet\n\n", "users");
  ASSERT_FALSE(entries);
  EXPECT_EQ(entries.error().message, "users: no `user:hash` line");
}

TEST(BasicCredentials, SplitsAtTheFirstColon) {
  auto c = basic_credentials(basic("alice:pa:ss"));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->user, "alice");
  EXPECT_EQ(c->password, "pa:ss");
  EXPECT_FALSE(basic_credentials("Bearer abc"));
  EXPECT_FALSE(basic_credentials("Basic !!!"));
  EXPECT_FALSE(basic_credentials(basic("no-colon")));
}

TEST(VerifyCrypt, AcceptsTheRightPasswordOnly) {
  for (const char* hash : {kSha256, kSha256Rounds, kSha512, kBcrypt}) {
    EXPECT_TRUE(verify_crypt(kPassword, hash)) << hash;
    EXPECT_FALSE(verify_crypt("secret pW", hash)) << hash;
    EXPECT_FALSE(verify_crypt("secret pw ", hash)) << hash;
    EXPECT_FALSE(verify_crypt("", hash)) << hash;
    // crypt stops at a NUL: a password with one must not pass as its prefix.
    EXPECT_FALSE(verify_crypt(std::string(kPassword) + std::string(1, '\0') + "x", hash)) << hash;
  }
  // The last character of the stored hash changed: computed and stored differ.
  std::string tampered = kSha256;
  tampered.back() = tampered.back() == 'A' ? 'B' : 'A';
  EXPECT_FALSE(verify_crypt(kPassword, tampered));
  EXPECT_FALSE(verify_crypt(kPassword, "*0"));
}

class AuthenticatorTest : public ::testing::TestWithParam<bool> {
 protected:
  Authenticator make() {
    auto entries = parse_htpasswd(std::string("alice:") + kBcrypt + "\nbob:" + kSha512 + "\n", "users");
    EXPECT_TRUE(entries);
    return Authenticator(std::move(*entries), GetParam());
  }
};

TEST_P(AuthenticatorTest, NamesTheUserOfRightCredentialsOnly) {
  auto auth = make();
  for (int round = 0; round < 2; ++round) {  // the second round is answered from the cache, if any
    EXPECT_EQ(auth.check(basic("alice:secret pw")), "alice");
    EXPECT_EQ(auth.check(basic("bob:secret pw")), "bob");
    EXPECT_EQ(auth.check(basic("alice:secret pW")), std::nullopt);
    EXPECT_EQ(auth.check(basic("bob:")), std::nullopt);
    // A user not in the file, with a password that is right for another one.
    EXPECT_EQ(auth.check(basic("mallory:secret pw")), std::nullopt);
    EXPECT_EQ(auth.check(basic("Alice:secret pw")), std::nullopt);
    EXPECT_EQ(auth.check(""), std::nullopt);
    EXPECT_EQ(auth.check("Bearer secret pw"), std::nullopt);
  }
}

INSTANTIATE_TEST_SUITE_P(Cache, AuthenticatorTest, ::testing::Bool(),
                         [](const auto& param) { return param.param ? "cached" : "uncached"; });

}  // namespace
}  // namespace vwheel::server
