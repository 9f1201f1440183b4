// The server over real sockets with a hand-made SITE (no index build needed): negotiation,
// validators, ranges and path safety; starting and stopping.

#include <gtest/gtest.h>

#include "server_test_util.hpp"

namespace vwheel::server {
namespace {

using namespace test;  // NOLINT(google-build-using-namespace)

// ---------------------------------------------------------------------------------------------
// A hand-made SITE.

class SiteTest : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    site_ = dir_ / "site";
    write(site_ / "simple/index.html", "<html>projects</html>\n");
    write(site_ / "simple/index.json", R"({"meta":{"api-version":"1.1"},"projects":[{"name":"pkg"}]})");
    write(site_ / "simple/pkg/index.html", "<html>pkg page</html>\n");
    write(site_ / "simple/pkg/index.json", R"({"meta":{"api-version":"1.1"},"name":"pkg","files":[]})");
    write(site_ / "files/pkg/small.txt", "0123456789");
    big_.resize(3 * 1024 * 1024 + 17);
    for (std::size_t i = 0; i < big_.size(); ++i) big_[i] = static_cast<char>('a' + (i * 7 + i / 251) % 26);
    write(site_ / "files/pkg/pkg-1.0-py3-none-any.whl", big_);
    write(site_ / "files/pkg/pkg-1.0-py3-none-any.whl.metadata", "Metadata-Version: 2.1\nName: pkg\n");
    write(site_ / ".vwheel/state.json", "{\"secret\": true}");
    write(dir_ / "outside/secret.txt", "TOP SECRET");
    fs::create_symlink("../../../outside/secret.txt", site_ / "files/pkg/escape.txt");
    fs::create_symlink(dir_ / "outside", site_ / "files/outside-dir");
    fs::create_symlink("small.txt", site_ / "files/pkg/alias.txt");
    fs::create_symlink("../../.vwheel/state.json", site_ / "files/pkg/state.json");
    ServeOptions options;
    options.site = site_;
    start(options);
  }

  fs::path site_;
  std::string big_;
};

TEST_F(SiteTest, NegotiatesProjectPages) {
  auto html = client_->Get("/simple/pkg/");
  ASSERT_TRUE(html);
  EXPECT_EQ(html->status, 200);
  EXPECT_EQ(html->body, "<html>pkg page</html>\n");
  EXPECT_EQ(html->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_EQ(html->get_header_value("Vary"), "Accept");

  auto json = client_->Get("/simple/pkg/", {{"Accept", "application/vnd.pypi.simple.v1+json, text/html;q=0.1"}});
  ASSERT_TRUE(json);
  EXPECT_EQ(json->status, 200);
  EXPECT_EQ(json->get_header_value("Content-Type"), "application/vnd.pypi.simple.v1+json");
  EXPECT_NE(json->body.find("\"name\":\"pkg\""), std::string::npos);
  EXPECT_NE(json->get_header_value("ETag"), html->get_header_value("ETag"));

  auto v1html = client_->Get("/simple/", {{"Accept", "application/vnd.pypi.simple.v1+html"}});
  ASSERT_TRUE(v1html);
  EXPECT_EQ(v1html->get_header_value("Content-Type"), "application/vnd.pypi.simple.v1+html");
  EXPECT_EQ(v1html->body, "<html>projects</html>\n");

  auto latest = client_->Get("/simple/", {{"Accept", "application/vnd.pypi.simple.latest+json"}});
  ASSERT_TRUE(latest);
  EXPECT_EQ(latest->get_header_value("Content-Type"), "application/vnd.pypi.simple.v1+json");

  auto query = client_->Get("/simple/pkg/?format=application/vnd.pypi.simple.v1%2Bjson");
  ASSERT_TRUE(query);
  EXPECT_EQ(query->get_header_value("Content-Type"), "application/vnd.pypi.simple.v1+json");

  auto refused = client_->Get("/simple/pkg/", {{"Accept", "application/xml, text/html;q=0"}});
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 406);
}

// A site built by another tool may have one page file only: pip, which asks for JSON first, gets
// the HTML; a client that accepts only what is missing gets 406; `?format=` for it too.
TEST_F(SiteTest, PagesWithOneFileServeIt) {
  write(site_ / "simple/htmlonly/index.html", "<html>html only</html>\n");
  write(site_ / "simple/jsononly/index.json", R"({"meta":{"api-version":"1.1"},"name":"jsononly","files":[]})");
  const httplib::Headers pip{
      {"Accept", "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html; q=0.1, text/html; q=0.01"}};
  auto r = client_->Get("/simple/htmlonly/", pip);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/vnd.pypi.simple.v1+html");
  EXPECT_EQ(r->body, "<html>html only</html>\n");
  r = client_->Get("/simple/jsononly/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/vnd.pypi.simple.v1+json");
  r = client_->Get("/simple/htmlonly/", {{"Accept", "application/vnd.pypi.simple.v1+json"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 406);
  EXPECT_NE(r->body.find("text/html"), std::string::npos) << r->body;
  r = client_->Get("/simple/htmlonly/?format=application/vnd.pypi.simple.v1%2Bjson");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 406);
  fs::create_directories(site_ / "simple/empty");
  r = client_->Get("/simple/empty/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
}

TEST_F(SiteTest, RedirectsToTheSlashAndNormalizedForms) {
  auto r = client_->Get("/simple/pkg");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 301);
  EXPECT_EQ(r->get_header_value("Location"), "/simple/pkg/");
  r = client_->Get("/simple");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 301);
  EXPECT_EQ(r->get_header_value("Location"), "/simple/");
  r = client_->Get("/simple/PKG/?x=1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 301);
  EXPECT_EQ(r->get_header_value("Location"), "/simple/pkg/?x=1");
  r = client_->Get("/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 301);
  EXPECT_EQ(r->get_header_value("Location"), "/simple/");
  r = client_->Get("/simple/nope/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
}

TEST_F(SiteTest, FilesHaveTypesAndValidators) {
  auto whl = client_->Head("/files/pkg/pkg-1.0-py3-none-any.whl");
  ASSERT_TRUE(whl);
  EXPECT_EQ(whl->status, 200);
  EXPECT_EQ(whl->get_header_value("Content-Type"), "application/octet-stream");
  EXPECT_EQ(whl->get_header_value("Content-Length"), std::to_string(big_.size()));
  EXPECT_EQ(whl->get_header_value("Accept-Ranges"), "bytes");
  EXPECT_TRUE(whl->body.empty());
  auto md = client_->Get("/files/pkg/pkg-1.0-py3-none-any.whl.metadata");
  ASSERT_TRUE(md);
  EXPECT_EQ(md->get_header_value("Content-Type"), "text/plain; charset=utf-8");
  EXPECT_FALSE(md->get_header_value("Last-Modified").empty());
  auto full = client_->Get("/files/pkg/pkg-1.0-py3-none-any.whl");
  ASSERT_TRUE(full);
  EXPECT_EQ(full->status, 200);
  EXPECT_TRUE(full->body == big_);  // streamed, not cached
}

TEST_F(SiteTest, EtagGives304UntilTheFileChanges) {
  auto first = client_->Get("/simple/pkg/");
  ASSERT_TRUE(first);
  const auto etag = first->get_header_value("ETag");
  ASSERT_FALSE(etag.empty());
  EXPECT_EQ(etag.front(), '"');
  // 304s go over a raw socket: they carry the Content-Length a 200 would have (RFC 9110 8.6),
  // which httplib's own client then waits for.
  const int port = server_->port();
  auto get = [&](const std::string& header) {
    return raw_request(port, "GET /simple/pkg/ HTTP/1.1\r\nHost: x\r\n" + header + "\r\nConnection: close\r\n\r\n");
  };
  const auto again = get("If-None-Match: " + etag);
  EXPECT_EQ(status_of(again), 304) << again;
  EXPECT_NE(again.find("ETag: " + etag), std::string::npos) << again;
  EXPECT_EQ(again.substr(again.find("\r\n\r\n") + 4), "");
  EXPECT_EQ(status_of(get("If-None-Match: \"a\", W/" + etag)), 304);
  EXPECT_EQ(status_of(get("If-None-Match: \"nope\"")), 200);
  EXPECT_EQ(status_of(get("If-Modified-Since: " + first->get_header_value("Last-Modified"))), 304);
  EXPECT_EQ(status_of(get("If-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT")), 200);
  // If-None-Match wins over If-Modified-Since.
  EXPECT_EQ(status_of(get("If-None-Match: \"nope\"\r\nIf-Modified-Since: " + first->get_header_value("Last-Modified"))),
            200);

  // A rebuilt page (written and renamed, as build_site does) is a new version, never the cached one.
  ASSERT_TRUE(write_file_atomic(site_ / "simple/pkg/index.html", "<html>pkg page v2</html>\n"));
  auto changed = client_->Get("/simple/pkg/", {{"If-None-Match", etag}});
  ASSERT_TRUE(changed) << httplib::to_string(changed.error());
  EXPECT_EQ(changed->status, 200);
  EXPECT_EQ(changed->body, "<html>pkg page v2</html>\n");
  EXPECT_NE(changed->get_header_value("ETag"), etag);
}

TEST_F(SiteTest, RangesOnSmallAndLargeFiles) {
  auto r = client_->Get("/files/pkg/small.txt", {{"Range", "bytes=2-4"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 206);
  EXPECT_EQ(r->body, "234");
  EXPECT_EQ(r->get_header_value("Content-Range"), "bytes 2-4/10");
  r = client_->Get("/files/pkg/small.txt", {{"Range", "bytes=-3"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 206);
  EXPECT_EQ(r->body, "789");
  r = client_->Get("/files/pkg/small.txt", {{"Range", "bytes=7-"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "789");
  r = client_->Get("/files/pkg/small.txt", {{"Range", "bytes=10-"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 416);
  EXPECT_EQ(r->get_header_value("Content-Range"), "bytes */10");
  r = client_->Get("/files/pkg/small.txt", {{"Range", "bytes=0-1,4-5"}});  // several: served whole
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "0123456789");

  const std::uint64_t at = 2 * 1024 * 1024 + 5;
  r = client_->Get("/files/pkg/pkg-1.0-py3-none-any.whl",
                   {{"Range", "bytes=" + std::to_string(at) + "-" + std::to_string(at + 99999)}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 206);
  EXPECT_EQ(r->body.size(), 100000U);
  EXPECT_TRUE(r->body == big_.substr(at, 100000));
  EXPECT_EQ(r->get_header_value("Content-Range"),
            "bytes " + std::to_string(at) + "-" + std::to_string(at + 99999) + "/" + std::to_string(big_.size()));
  r = client_->Get("/files/pkg/pkg-1.0-py3-none-any.whl", {{"Range", "bytes=-10"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 206);
  EXPECT_TRUE(r->body == big_.substr(big_.size() - 10));
  r = client_->Get("/files/pkg/pkg-1.0-py3-none-any.whl", {{"Range", "bytes=999999999-"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 416);
  EXPECT_EQ(r->get_header_value("Content-Range"), "bytes */" + std::to_string(big_.size()));
  auto head = client_->Head("/files/pkg/pkg-1.0-py3-none-any.whl", {{"Range", "bytes=0-9"}});
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 206);
  EXPECT_EQ(head->get_header_value("Content-Length"), "10");

  // If-Range: the range applies only to the same version.
  const auto etag = client_->Head("/files/pkg/small.txt")->get_header_value("ETag");
  r = client_->Get("/files/pkg/small.txt", {{"Range", "bytes=0-1"}, {"If-Range", etag}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 206);
  r = client_->Get("/files/pkg/small.txt", {{"Range", "bytes=0-1"}, {"If-Range", "\"old\""}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "0123456789");
}

TEST_F(SiteTest, NothingOutsideTheRootOrHidden) {
  const int port = server_->port();
  auto get = [&](const std::string& target) {
    return raw_request(port, "GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  };
  for (const char* target :
       {"/simple/../../etc/passwd", "/../outside/secret.txt", "/%2e%2e/outside/secret.txt",
        "/files/%2e%2e%2f%2e%2e%2foutside/secret.txt", "/files/..%2f..%2foutside/secret.txt", "/.vwheel/state.json",
        "/%2evwheel/state.json", "/files/pkg/escape.txt", "/files/outside-dir/secret.txt", "/files/pkg/state.json",
        "/files/pkg/small.txt%00.whl", "/files\\pkg\\small.txt", "http://x/etc/passwd"}) {
    const auto response = get(target);
    const int status = status_of(response);
    EXPECT_GE(status, 400) << target << "\n" << response;
    EXPECT_LT(status, 500) << target << "\n" << response;
    EXPECT_EQ(response.find("TOP SECRET"), std::string::npos) << target;
    EXPECT_EQ(response.find("secret\": true"), std::string::npos) << target;
  }
  // A symlink that stays inside the root is followed.
  auto alias = client_->Get("/files/pkg/alias.txt");
  ASSERT_TRUE(alias);
  EXPECT_EQ(alias->status, 200);
  EXPECT_EQ(alias->body, "0123456789");
  // Percent-escapes of plain names are decoded, once.
  auto escaped = client_->Get("/files/pkg/%73mall.txt");
  ASSERT_TRUE(escaped);
  EXPECT_EQ(escaped->body, "0123456789");
  EXPECT_EQ(status_of(get("/files/pkg/%2573mall.txt")), 404);
  EXPECT_EQ(status_of(get("/files/%252e%252e/%252e%252e/outside/secret.txt")), 404);
}

TEST_F(SiteTest, HostileHeadersAndMethods) {
  const int port = server_->port();
  const auto huge = raw_request(port, "GET /simple/ HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(100 * 1024, 'a') +
                                          "\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(status_of(huge) / 100, 4) << huge.substr(0, 200);
  std::string many = "GET /simple/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n";
  for (int i = 0; i < 500; ++i) many += "X-H" + std::to_string(i) + ": v\r\n";
  EXPECT_EQ(status_of(raw_request(port, many + "\r\n")), 431);
  const auto long_line =
      raw_request(port, "GET /" + std::string(20000, 'a') + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(status_of(long_line), 414);
  EXPECT_EQ(status_of(raw_request(
                port, "PUT /simple/ HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")),
            405);
  EXPECT_EQ(
      status_of(raw_request(port, "DELETE /files/pkg/small.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")),
      405);
  const auto post = raw_request(port,
                                "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n"
                                "Content-Length: 4\r\nConnection: close\r\n\r\n--b-");
  EXPECT_EQ(status_of(post), 405);  // a SITE takes no uploads
  EXPECT_EQ(status_of(raw_request(port, "GARBAGE\r\n\r\n")), 400);
  // The server still answers.
  auto ok = client_->Get("/simple/");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_TRUE(fs::exists(site_ / "files/pkg/small.txt"));
}

TEST_F(SiteTest, StopEndsWaitClosesConnectionsAndThePort) {
  const int port = server_->port();
  // An idle keep-alive connection: one request answered in full, the connection left open.
  const int idle = connect_to(port);
  ASSERT_GE(idle, 0);
  const std::string request = "GET /files/pkg/small.txt HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_EQ(::send(idle, request.data(), request.size(), MSG_NOSIGNAL), static_cast<ssize_t>(request.size()));
  std::string answer;
  char buf[4096];
  while (answer.find("0123456789") == std::string::npos) {
    const ssize_t got = ::recv(idle, buf, sizeof buf, 0);
    ASSERT_GT(got, 0) << answer;
    answer.append(buf, static_cast<std::size_t>(got));
  }
  ASSERT_EQ(status_of(answer), 200) << answer;
  // wait() blocks until stop(), called from another thread; the 60 s bound is a hang guard only.
  std::promise<void> waited;
  auto done = waited.get_future();
  std::thread waiter([&] {
    server_->wait();
    waited.set_value();
  });
  EXPECT_EQ(done.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout) << "wait() before stop()";
  server_->stop();
  const bool ended = done.wait_for(std::chrono::seconds(60)) == std::future_status::ready;
  if (!ended) waiter.detach();  // reported below; joining would hang the test
  ASSERT_TRUE(ended) << "wait() did not return after stop()";
  waiter.join();
  // The idle connection was closed by the server (an orderly end, not a receive timeout).
  timeval tv{30, 0};
  ::setsockopt(idle, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char byte = 0;
  errno = 0;
  const ssize_t n = ::recv(idle, &byte, 1, 0);
  EXPECT_TRUE(n == 0 || (n < 0 && errno == ECONNRESET)) << "recv: " << n << " " << std::strerror(errno);
  ::close(idle);
  // Nothing listens on the port any more.
  const int again = connect_to(port);
  EXPECT_EQ(again, -1) << "the port still accepts connections after stop()";
  if (again >= 0) ::close(again);
}

TEST(ServerStart, RefusesBadOptions) {
  ServeOptions none;
  EXPECT_FALSE(Server::start(none));
  ServeOptions token;
  token.site = fs::temp_directory_path();
  token.upload_token = "x";
  auto r = Server::start(token);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("--wheels"), std::string::npos);
  ServeOptions missing;
  missing.site = "/nonexistent/vwheel-site";
  EXPECT_FALSE(Server::start(missing));
  ServeOptions no_deadline;
  no_deadline.site = fs::temp_directory_path();
  no_deadline.connections.header_timeout = std::chrono::milliseconds(0);
  r = Server::start(no_deadline);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "the connection timeouts must be positive");
  ServeOptions no_requests;
  no_requests.site = fs::temp_directory_path();
  no_requests.connections.keep_alive_requests = 0;
  r = Server::start(no_requests);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "the requests per connection must be at least 1");
}

// A request cut off half-way does not hold stop() up: every worker waiting on a client wakes at
// once (the header deadline here is far longer than the failsafe).
TEST(ServerStop, DoesNotWaitForAHalfSentRequest) {
  ServeOptions options;
  options.site = fs::temp_directory_path();
  options.connections.header_timeout = std::chrono::hours(1);
  options.connections.body_timeout = std::chrono::hours(1);
  auto s = Server::start(options);
  ASSERT_TRUE(s) << s.error().message;
  const int c = connect_to((*s)->port());
  ASSERT_GE(c, 0);
  timeval tv{60, 0};
  ::setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  // A first request is answered, so a worker holds the connection; the second is never finished.
  const std::string requests = "GET /missing HTTP/1.1\r\nHost: x\r\n\r\nGET /simple/ HTTP/1.1\r\nHost: x\r\n";
  ASSERT_EQ(::send(c, requests.data(), requests.size(), MSG_NOSIGNAL), static_cast<ssize_t>(requests.size()));
  std::string answer;
  char buf[4096];
  while (answer.find("Not Found\n") == std::string::npos) {
    const ssize_t n = ::recv(c, buf, sizeof buf, 0);
    ASSERT_GT(n, 0) << answer;
    answer.append(buf, static_cast<std::size_t>(n));
  }
  EXPECT_EQ(status_of(answer), 404);
  auto stopped = std::async(std::launch::async, [&] {
    (*s)->stop();
    (*s)->wait();
  });
  EXPECT_EQ(stopped.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  char byte = 0;
  EXPECT_EQ(::recv(c, &byte, 1, 0), 0);  // closed without an answer to the second request
  ::close(c);
}

}  // namespace
}  // namespace vwheel::server
