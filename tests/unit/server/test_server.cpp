// The server over real sockets: a hand-made SITE (no index build needed) for negotiation,
// validators, ranges and path safety; a folder of wheels for uploads.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <future>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

// Debian's shared libcpp-httplib is built with these (`pkg-config --cflags cpp-httplib`), and the
// classes' layout depends on them; the test links it through vwheel_server but does not get its
// compile flags.
#ifndef CPPHTTPLIB_OPENSSL_SUPPORT
#define CPPHTTPLIB_OPENSSL_SUPPORT
#endif
#ifndef CPPHTTPLIB_ZLIB_SUPPORT
#define CPPHTTPLIB_ZLIB_SUPPORT
#endif
#ifndef CPPHTTPLIB_BROTLI_SUPPORT
#define CPPHTTPLIB_BROTLI_SUPPORT
#endif
#include <httplib.h>

#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/server/server.hpp"
#include "vwheel/wheel/record.hpp"
#include "vwheel/zip/zip.hpp"

namespace vwheel::server {
namespace {
namespace fs = std::filesystem;

void write(const fs::path& path, const std::string& content) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << content;
}

// A connected TCP socket to the server (-1 when the connection is refused).
int connect_to(int port) {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(s);
    return -1;
  }
  return s;
}

// Sends `request` as is and reads one response (until the connection closes or the
// Content-Length is complete).
std::string raw_request(int port, const std::string& request) {
  const int s = connect_to(port);
  if (s < 0) return "<connect failed>";
  timeval tv{5, 0};
  ::setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t n = ::send(s, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may answer and stop reading early
    sent += static_cast<std::size_t>(n);
  }
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::recv(s, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
    const auto end = out.find("\r\n\r\n");
    if (end == std::string::npos) continue;
    std::string head = out.substr(0, end);
    for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const auto cl = head.find("\r\ncontent-length:");
    const bool no_body = head.rfind("http/1.1 304", 0) == 0 || head.rfind("http/1.1 204", 0) == 0;
    const std::size_t length = cl == std::string::npos || no_body ? 0 : std::stoul(head.substr(cl + 17));
    if (out.size() >= end + 4 + length) break;
  }
  ::close(s);
  return out;
}

int status_of(const std::string& response) {
  if (response.rfind("HTTP/1.1 ", 0) != 0 || response.size() < 12) return -1;
  return std::stoi(response.substr(9, 3));
}

// Every file below `dir` with its size and modification time.
std::map<std::string, std::pair<std::uintmax_t, std::int64_t>> snapshot(const fs::path& dir) {
  std::map<std::string, std::pair<std::uintmax_t, std::int64_t>> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const auto rel = fs::relative(e.path(), dir).string();
    if (e.is_regular_file())
      out[rel] = {e.file_size(), e.last_write_time().time_since_epoch().count()};
    else
      out[rel] = {0, 0};
  }
  return out;
}

class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vwheel-server-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    client_.reset();  // closes the keep-alive connection, so the server's worker is free at once
    server_.reset();
    fs::remove_all(dir_);
  }

  void start(ServeOptions options) {
    options.port = 0;
    options.threads = 4;
    auto s = Server::start(options);
    ASSERT_TRUE(s) << s.error().message;
    server_ = std::move(*s);
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
    client_->set_url_encode(false);
    client_->set_keep_alive(true);
  }

  fs::path dir_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<httplib::Client> client_;
};

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

// ---------------------------------------------------------------------------------------------
// Uploads into a folder of wheels.

std::string make_wheel_bytes(const fs::path& dir, const std::string& filename, const std::string& variant_json = {}) {
  const auto dash = filename.find('-');
  const auto dash2 = filename.find('-', dash + 1);
  const std::string name = filename.substr(0, dash);
  const std::string version = filename.substr(dash + 1, dash2 - dash - 1);
  const std::string di = name + "-" + version + ".dist-info";
  std::vector<std::pair<std::string, std::string>> files = {
      {name + "/__init__.py", "VALUE = 1\n"},
      {di + "/METADATA", "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n"},
      {di + "/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"},
  };
  if (!variant_json.empty()) files.emplace_back(di + "/variant.json", variant_json);
  zip::WritePlan plan;
  std::string record;
  for (auto& [member, data] : files) {
    record += wheel::record_line(member, data);
    zip::NewMember m;
    m.name = member;
    m.data = data;
    plan.members.emplace_back(std::move(m));
  }
  record += di + "/RECORD,,\n";
  zip::NewMember r;
  r.name = di + "/RECORD";
  r.data = record;
  plan.members.emplace_back(std::move(r));
  fs::create_directories(dir);
  const auto path = dir / filename;
  auto ok = zip::write_archive(nullptr, plan, path);
  EXPECT_TRUE(ok) << (ok ? "" : ok.error().message);
  auto bytes = read_file(path);
  fs::remove(path);
  return bytes ? *bytes : std::string();
}

const char* kVariantX =
    R"({"default-priorities": {"namespace": ["x86_64"]}, "variants": {"v3": {"x86_64": {"level": ["v3"]}}}})";
const char* kVariantXConflict =
    R"({"default-priorities": {"namespace": ["x86_64"]}, "variants": {"v3": {"x86_64": {"level": ["v4"]}}}})";

std::string multipart(const std::string& boundary, const std::vector<std::pair<std::string, std::string>>& fields,
                      const std::string& filename, const std::string& content) {
  std::string body;
  for (const auto& [name, value] : fields) {
    body += "--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n" + value + "\r\n";
  }
  if (!filename.empty()) {
    body += "--" + boundary + "\r\nContent-Disposition: form-data; name=\"content\"; filename=\"" + filename +
            "\"\r\nContent-Type: application/octet-stream\r\n\r\n" + content + "\r\n";
  }
  body += "--" + boundary + "--\r\n";
  return body;
}

class UploadTest : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    wheels_ = dir_ / "wheels";
    fs::create_directories(wheels_);
    const auto plain = make_wheel_bytes(dir_ / "tmp", "pkg-1.0-py3-none-any.whl");
    write(wheels_ / "pkg-1.0-py3-none-any.whl", plain);
    ServeOptions options;
    options.wheels = wheels_;
    options.upload_token = "s3cret";
    options.max_upload_size = 64 * 1024;
    start(options);
  }

  httplib::Result upload(const std::string& filename, const std::string& content,
                         std::vector<std::pair<std::string, std::string>> extra = {},
                         const std::string& auth = "Bearer s3cret", const std::string& path = "/legacy/") {
    std::vector<std::pair<std::string, std::string>> fields = {{":action", "file_upload"},
                                                               {"protocol_version", "1"},
                                                               {"name", "pkg"},
                                                               {"version", "1.0"},
                                                               {"filetype", "bdist_wheel"},
                                                               {"pyversion", "py3"},
                                                               {"sha256_digest", sha256_hex(content)}};
    for (auto& [k, v] : extra) {
      bool replaced = false;
      for (auto& f : fields) {
        if (f.first == k) {
          f.second = v;
          replaced = true;
        }
      }
      if (!replaced) fields.emplace_back(k, v);
    }
    httplib::Headers headers;
    if (!auth.empty()) headers.emplace("Authorization", auth);
    return client_->Post(path, headers, multipart("XyZzY", fields, filename, content),
                         "multipart/form-data; boundary=XyZzY");
  }

  fs::path wheels_;
};

TEST_F(UploadTest, AuthIsRequired) {
  const auto before = snapshot(dir_);
  const auto bytes = make_wheel_bytes(dir_ / "tmp", "pkg-2.0-py3-none-any.whl");
  auto none = upload("pkg-2.0-py3-none-any.whl", bytes, {{"version", "2.0"}}, "");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  EXPECT_NE(none->get_header_value("WWW-Authenticate").find("Basic"), std::string::npos);
  auto wrong = upload("pkg-2.0-py3-none-any.whl", bytes, {{"version", "2.0"}}, "Bearer nope");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 403);
  // base64("__token__:wrong")
  auto basic_wrong = upload("pkg-2.0-py3-none-any.whl", bytes, {{"version", "2.0"}}, "Basic X190b2tlbl9fOndyb25n");
  ASSERT_TRUE(basic_wrong);
  EXPECT_EQ(basic_wrong->status, 403);
  EXPECT_EQ(snapshot(dir_), before);
}

TEST_F(UploadTest, AcceptsAWheelWithBasicAuthAndRefusesItTwice) {
  const auto bytes = make_wheel_bytes(dir_ / "tmp", "pkg-2.0-py3-none-any.whl");
  // base64("__token__:s3cret")
  auto ok = upload("pkg-2.0-py3-none-any.whl", bytes, {{"version", "2.0"}}, "Basic X190b2tlbl9fOnMzY3JldA==", "/");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200) << ok->body;
  EXPECT_TRUE(fs::exists(wheels_ / "pkg-2.0-py3-none-any.whl"));
  EXPECT_EQ(read_file(wheels_ / "pkg-2.0-py3-none-any.whl").value_or(""), bytes);
  auto page = client_->Get("/simple/pkg/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("pkg-2.0-py3-none-any.whl"), std::string::npos) << page->body;
  // No temporary files are left behind.
  EXPECT_TRUE(fs::is_empty(wheels_ / ".vwheel-upload"));

  const auto before = snapshot(dir_);
  auto again = upload("pkg-2.0-py3-none-any.whl", bytes, {{"version", "2.0"}});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 409);
  EXPECT_EQ(snapshot(dir_), before);
}

TEST_F(UploadTest, RefusesBadFormsAndFiles) {
  const auto bytes = make_wheel_bytes(dir_ / "tmp", "pkg-2.0-py3-none-any.whl");
  const auto before = snapshot(dir_);
  struct Case {
    std::string filename;
    std::string content;
    std::vector<std::pair<std::string, std::string>> extra;
    int status;
  };
  const std::vector<Case> cases = {
      {"../pkg-2.0-py3-none-any.whl", bytes, {{"version", "2.0"}}, 400},
      {"sub/pkg-2.0-py3-none-any.whl", bytes, {{"version", "2.0"}}, 400},
      {".pkg-2.0-py3-none-any.whl", bytes, {{"version", "2.0"}}, 400},
      {"pkg-2.0.whl", bytes, {{"version", "2.0"}}, 400},
      {"pkg-2.0-py3-none-any.exe", bytes, {{"version", "2.0"}}, 400},
      {"pkg-2.0-py3-none-any.whl", bytes, {{"version", "2.0"}, {"sha256_digest", std::string(64, '0')}}, 400},
      {"pkg-2.0-py3-none-any.whl", bytes, {{"version", "3.0"}}, 400},
      {"pkg-2.0-py3-none-any.whl", bytes, {{"version", "2.0"}, {"name", "other"}}, 400},
      {"pkg-2.0-py3-none-any.whl", bytes, {{"version", "2.0"}, {":action", "remove_file"}}, 400},
      {"pkg-2.0-py3-none-any.whl", "not a zip at all", {{"version", "2.0"}}, 400},
      {"pkg-2.0-py3-none-any.whl", std::string(70 * 1024, 'x'), {{"version", "2.0"}}, 413},
      {"", "", {{"version", "2.0"}}, 400},
  };
  for (const auto& c : cases) {
    auto r = upload(c.filename, c.content, c.extra);
    ASSERT_TRUE(r) << c.filename;
    EXPECT_EQ(r->status, c.status) << c.filename << ": " << r->body;
    EXPECT_EQ(r->body.find('\n'), r->body.size() - 1) << "one line: " << r->body;
    EXPECT_EQ(r->body.find(".vwheel-upload"), std::string::npos) << "no temporary paths: " << r->body;
  }
  EXPECT_EQ(snapshot(dir_), before);
}

TEST_F(UploadTest, RefusesMalformedMultipart) {
  const auto before = snapshot(dir_);
  const int port = server_->port();
  const std::vector<std::string> bodies = {
      "--b\r\nContent-Disposition: form-data; name=\":action\"\r\n\r\nfile_upload\r\n--b\r\nbroken",
      "garbage without any boundary",
      "--b\r\nContent-Disposition: form-data; name=\"content\"; filename=\"pkg-3.0-py3-none-any.whl\"\r\n\r\nPK",
      "--b\r\nNo-Disposition: x\r\n\r\nvalue\r\n--b--\r\n",
  };
  for (const auto& body : bodies) {
    const auto response = raw_request(port,
                                      "POST /legacy/ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret\r\n"
                                      "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: " +
                                          std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
    EXPECT_EQ(status_of(response), 400) << body << "\n" << response;
  }
  const auto no_boundary =
      raw_request(port,
                  "POST / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret\r\n"
                  "Content-Type: multipart/form-data\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc");
  EXPECT_EQ(status_of(no_boundary), 400) << no_boundary;
  const auto not_multipart =
      raw_request(port,
                  "POST / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret\r\n"
                  "Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");
  EXPECT_EQ(status_of(not_multipart), 400) << not_multipart;
  const auto elsewhere =
      raw_request(port,
                  "POST /simple/ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret\r\n"
                  "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(status_of(elsewhere), 404) << elsewhere;
  EXPECT_EQ(snapshot(dir_), before);
}

TEST_F(UploadTest, VariantWheelsMustMerge) {
  const auto v3 = make_wheel_bytes(dir_ / "tmp", "pkg-1.0-py3-none-any-v3.whl", kVariantX);
  auto ok = upload("pkg-1.0-py3-none-any-v3.whl", v3);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200) << ok->body;
  auto variants = client_->Get("/files/pkg/pkg-1.0-variants.json");
  ASSERT_TRUE(variants);
  EXPECT_EQ(variants->status, 200);
  EXPECT_EQ(variants->get_header_value("Content-Type"), "application/json");
  EXPECT_NE(variants->body.find("\"v3\""), std::string::npos) << variants->body;

  // Same label, other properties, another wheel of the same version: cannot be merged.
  const auto before = snapshot(dir_);
  const auto conflict = make_wheel_bytes(dir_ / "tmp", "pkg-1.0-cp312-none-any-v3.whl", kVariantXConflict);
  auto refused = upload("pkg-1.0-cp312-none-any-v3.whl", conflict);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 400) << refused->body;
  EXPECT_EQ(snapshot(dir_), before);

  // An invalid variant.json.
  const auto broken = make_wheel_bytes(dir_ / "tmp", "pkg-1.0-cp311-none-any-v3.whl", "{not json");
  auto invalid = upload("pkg-1.0-cp311-none-any-v3.whl", broken);
  ASSERT_TRUE(invalid);
  EXPECT_EQ(invalid->status, 400) << invalid->body;
  EXPECT_EQ(snapshot(dir_), before);
}

TEST_F(UploadTest, ExpectContinueIsAnsweredBeforeTheBody) {
  const int port = server_->port();
  const std::string head =
      "POST /legacy/ HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n"
      "Content-Length: 1000000\r\nExpect: 100-continue\r\nConnection: close\r\n";
  // No body is sent: the refusal must come from the headers alone.
  EXPECT_EQ(status_of(raw_request(port, head + "\r\n")), 401);
  EXPECT_EQ(status_of(raw_request(port, head + "Authorization: Bearer nope\r\n\r\n")), 403);
  const auto big = raw_request(port,
                               "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n"
                               "Content-Length: 99999999999\r\nExpect: 100-continue\r\nAuthorization: Bearer s3cret\r\n"
                               "Connection: close\r\n\r\n");
  EXPECT_EQ(status_of(big), 413) << big;
  const auto go = raw_request(port, head + "Authorization: Bearer s3cret\r\n\r\n");
  EXPECT_EQ(go.rfind("HTTP/1.1 100 Continue\r\n", 0), 0U) << go;
}

TEST_F(UploadTest, ReadersNeverSeeAHalfBuiltPage) {
  std::atomic<bool> done{false};
  std::atomic<int> reads{0};
  std::atomic<int> bad{0};
  std::string first_bad;
  std::mutex bad_mutex;
  auto reader = [&] {
    httplib::Client c("127.0.0.1", server_->port());
    while (!done) {
      auto r = c.Get("/simple/pkg/", {{"Accept", "application/vnd.pypi.simple.v1+json"}});
      bool ok = r && r->status == 200;
      if (ok) {
        auto page = nlohmann::json::parse(r->body, nullptr, false);
        ok = !page.is_discarded() && page["name"] == "pkg" && page["files"].is_array() && !page["files"].empty();
      }
      ++reads;
      if (!ok) {
        ++bad;
        std::lock_guard lock(bad_mutex);
        if (first_bad.empty()) first_bad = r ? std::to_string(r->status) + " " + r->body : "no response";
      }
    }
  };
  std::thread t1(reader);
  std::thread t2(reader);
  for (int i = 0; i < 8; ++i) {
    const std::string version = "3." + std::to_string(i);
    const std::string filename = "pkg-" + version + "-py3-none-any.whl";
    const auto bytes = make_wheel_bytes(dir_ / "tmp", filename);
    auto r = upload(filename, bytes, {{"version", version}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << r->body;
  }
  done = true;
  t1.join();
  t2.join();
  EXPECT_GT(reads.load(), 8);
  EXPECT_EQ(bad.load(), 0) << first_bad;
  auto page = client_->Get("/simple/pkg/");
  ASSERT_TRUE(page);
  EXPECT_NE(page->body.find("pkg-3.7-py3-none-any.whl"), std::string::npos);
}

}  // namespace
}  // namespace vwheel::server
