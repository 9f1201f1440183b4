// The HTTP client against real sockets on 127.0.0.1: a cpp-httplib server for ordinary answers, and
// a raw socket server with scripted bytes for dropped connections, truncated bodies and stalls.

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <dlfcn.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <fmt/format.h>
#include <httplib.h>

#include "vwheel/core/growing_file.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/http/client.hpp"

namespace vwheel::http {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string make_data(std::size_t n, unsigned seed) {
  std::string s(n, '\0');
  std::uint32_t x = seed * 2654435761U + 12345U;
  for (auto& c : s) {
    x = x * 1664525U + 1013904223U;
    c = static_cast<char>(x >> 24);
  }
  return s;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("vwheel-http-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  static int& counter() {
    static int n = 0;
    return n;
  }
};

/// Gives access to the listening socket, to raise httplib's listen backlog of 5 (a full backlog
/// delays connections by a second, which the short test stall timeout would count as a stall).
class BigBacklogServer : public httplib::Server {
 public:
  void raise_backlog(int backlog) { (void)::listen(svr_sock_, backlog); }
};

/// cpp-httplib on a random port; routes are added before start().
struct HttpServer {
  BigBacklogServer svr;
  int port = 0;
  std::thread thread;

  HttpServer() {
    svr.new_task_queue = [] { return new httplib::ThreadPool(64); };
    svr.set_keep_alive_timeout(1);
  }
  void start() {
    port = svr.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port, 0);
    svr.raise_backlog(128);
    thread = std::thread([this] { svr.listen_after_bind(); });
    for (int i = 0; i < 500 && !svr.is_running(); ++i) std::this_thread::sleep_for(2ms);
  }
  ~HttpServer() {
    svr.stop();
    if (thread.joinable()) thread.join();
  }
  [[nodiscard]] std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port) + path;
  }
};

bool send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

/// A server that reads one request per connection and lets the test write whatever bytes it wants.
class RawServer {
 public:
  using Handler = std::function<void(RawServer&, int fd, const std::string& request, int index)>;

  explicit RawServer(Handler handler) : handler_(std::move(handler)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd_, 64) != 0) {
      throw std::runtime_error("cannot listen");
    }
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { loop(); });
  }
  ~RawServer() {
    stop_ = true;
    thread_.join();
    for (auto& t : conns_) t.join();
    ::close(fd_);
  }
  RawServer(const RawServer&) = delete;
  RawServer& operator=(const RawServer&) = delete;

  [[nodiscard]] std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  [[nodiscard]] bool stopping() const { return stop_; }
  /// Sleeps up to `d`, returning early when the server stops.
  void sleep(std::chrono::milliseconds d) const {
    const auto until = std::chrono::steady_clock::now() + d;
    while (!stop_ && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(10ms);
  }
  std::vector<std::string> requests() {
    std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  void loop() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      const int index = count_++;
      conns_.emplace_back([this, c, index] {
        timeval tv{5, 0};
        ::setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        std::string req;
        char buf[4096];
        while (req.find("\r\n\r\n") == std::string::npos) {
          const ssize_t n = ::recv(c, buf, sizeof buf, 0);
          if (n <= 0) break;
          req.append(buf, static_cast<std::size_t>(n));
        }
        {
          std::lock_guard lock(mutex_);
          requests_.push_back(req);
        }
        handler_(*this, c, req, index);
        ::shutdown(c, SHUT_RDWR);
        ::close(c);
      });
    }
  }

  Handler handler_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> count_{0};
  std::thread thread_;
  std::vector<std::thread> conns_;
  std::mutex mutex_;
  std::vector<std::string> requests_;
};

/// "Range: bytes=N-" in a raw request, or -1.
long long range_start(const std::string& request) {
  const auto p = request.find("Range: bytes=");
  if (p == std::string::npos) return -1;
  return std::stoll(request.substr(p + 13));
}

Options test_options() {
  Options o;
  o.retries = 2;
  o.backoff = 10ms;
  o.connect_timeout = 2s;
  o.stall_timeout = 1s;
  return o;
}

Client make_client(Options o = test_options()) {
  auto c = Client::create(std::move(o));
  if (!c) throw std::runtime_error(c.error().message);
  return std::move(*c);
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// ---------------------------------------------------------------------------------------------
// get()

class Get : public ::testing::Test {
 protected:
  void SetUp() override {
    server.svr.Get("/hello", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("hello world", "text/plain; charset=utf-8");
    });
    server.svr.Get("/gone", [this](const httplib::Request&, httplib::Response& res) {
      ++gone_hits;
      res.status = 404;
      res.set_content("no such page", "text/plain");
    });
    server.svr.Get("/etag", [this](const httplib::Request& req, httplib::Response& res) {
      const std::string accept = req.get_header_value("Accept");
      const std::string tag = "\"v1-" + std::to_string(accept.size()) + "\"";
      res.set_header("ETag", tag);
      if (req.get_header_value("If-None-Match") == tag) {
        ++not_modified;
        res.status = 304;
        return;
      }
      ++full;
      res.set_content("page for " + (accept.empty() ? std::string("*/*") : accept), "application/json");
    });
    server.svr.Get("/slow/(\\d+)", [this](const httplib::Request& req, httplib::Response& res) {
      const int now = ++current;
      int seen = max_seen.load();
      while (now > seen && !max_seen.compare_exchange_weak(seen, now)) {
      }
      {
        // A barrier instead of a sleep: each request waits until 8 are in flight at once, then
        // all go. A client that sends one at a time leaves the first waiting until the guard
        // (for a hang only) and the test sees max_seen below 8.
        std::unique_lock lock(slow_mutex);
        slow_cv.notify_all();
        slow_cv.wait_for(lock, 20s, [this] { return slow_released || current >= kSlowBarrier; });
        slow_released = true;
      }
      --current;
      res.set_content("item " + req.matches[1].str(), "text/plain");
    });
    server.svr.Get("/flaky", [this](const httplib::Request&, httplib::Response& res) {
      if (++flaky_hits < 3) {
        res.status = 503;
        return;
      }
      res.set_content("finally", "text/plain");
    });
    // Cache-Control as the test sets it; counts full answers and 304s.
    server.svr.Get("/fresh", [this](const httplib::Request& req, httplib::Response& res) {
      res.set_header("ETag", "\"f1\"");
      {
        std::lock_guard guard(headers_mutex);
        if (!cache_control.empty()) res.set_header("Cache-Control", cache_control);
        if (!age.empty()) res.set_header("Age", age);
      }
      if (req.get_header_value("If-None-Match") == "\"f1\"") {
        ++fresh_304;
        res.status = 304;
        return;
      }
      ++fresh_full;
      res.set_content("fresh body", "text/plain");
    });
    server.svr.Get("/redirect", [](const httplib::Request&, httplib::Response& res) { res.set_redirect("/hello"); });
    server.svr.Get("/to-file", [](const httplib::Request&, httplib::Response& res) {
      res.set_redirect("file:///etc/passwd");
    });
    server.svr.Get("/data", [this](const httplib::Request& req, httplib::Response& res) {
      if (ignore_ranges) const_cast<httplib::Request&>(req).ranges.clear();
      res.set_content(data, "application/octet-stream");
    });
    server.start();
  }

  HttpServer server;
  std::atomic<int> gone_hits{0}, not_modified{0}, full{0}, current{0}, max_seen{0}, flaky_hits{0};
  static constexpr int kSlowBarrier = 8;
  std::mutex slow_mutex;
  std::condition_variable slow_cv;
  bool slow_released = false;
  std::atomic<bool> ignore_ranges{false};
  std::string data = make_data(100000, 7);
  std::mutex headers_mutex;
  std::string cache_control, age;
  std::atomic<int> fresh_full{0}, fresh_304{0};

  void set_cache_headers(std::string cc, std::string a = "") {
    std::lock_guard guard(headers_mutex);
    cache_control = std::move(cc);
    age = std::move(a);
  }
};

TEST_F(Get, PlainBody) {
  auto client = make_client();
  auto r = client.get({server.url("/hello")});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "hello world");
  EXPECT_EQ(r->content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(r->url, server.url("/hello"));
  EXPECT_FALSE(r->from_cache);
}

TEST_F(Get, NotFoundIsAnErrorWithoutRetry) {
  auto client = make_client();
  auto r = client.get({server.url("/gone")});
  ASSERT_FALSE(r);
  EXPECT_TRUE(contains(r.error().message, server.url("/gone"))) << r.error().message;
  EXPECT_TRUE(contains(r.error().message, "404")) << r.error().message;
  EXPECT_EQ(gone_hits, 1);
}

TEST_F(Get, NotFoundOkIsAnAnswer) {
  TempDir tmp;
  auto o = test_options();
  o.cache_dir = tmp.path;
  auto client = make_client(o);
  Request req{server.url("/gone")};
  req.not_found_ok = true;
  auto r = client.get(req);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->status, 404);
  EXPECT_TRUE(r->body.empty());
  EXPECT_EQ(gone_hits, 1);
  // Not cached: asked again.
  ASSERT_TRUE(client.get(req));
  EXPECT_EQ(gone_hits, 2);
}

TEST_F(Get, RetriesServerErrors) {
  auto client = make_client();
  auto r = client.get({server.url("/flaky")});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->body, "finally");
  EXPECT_EQ(flaky_hits, 3);
}

TEST_F(Get, GivesUpAfterRetries) {
  auto o = test_options();
  o.retries = 1;
  auto client = make_client(o);
  auto r = client.get({server.url("/flaky")});
  ASSERT_FALSE(r);
  EXPECT_TRUE(contains(r.error().message, "503")) << r.error().message;
  EXPECT_TRUE(contains(r.error().message, "2 attempts")) << r.error().message;
}

TEST_F(Get, FollowsRedirects) {
  auto client = make_client();
  auto r = client.get({server.url("/redirect")});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->body, "hello world");
  EXPECT_EQ(r->url, server.url("/hello"));
}

TEST_F(Get, RefusesRedirectsToFileUrls) {
  auto client = make_client();
  auto r = client.get({server.url("/to-file")});
  ASSERT_FALSE(r);
  EXPECT_TRUE(contains(r.error().message, server.url("/to-file"))) << r.error().message;
}

TEST_F(Get, CacheRevalidatesWithEtag) {
  TempDir tmp;
  auto o = test_options();
  o.cache_dir = tmp.path;
  auto client = make_client(o);
  const Request req{server.url("/etag"), {"Accept: application/json"}};
  auto first = client.get(req);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_FALSE(first->from_cache);
  EXPECT_EQ(first->body, "page for application/json");
  EXPECT_TRUE(fs::exists(tmp.path / "http"));

  auto second = client.get(req);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_TRUE(second->from_cache);
  EXPECT_EQ(second->body, "page for application/json");
  EXPECT_EQ(second->content_type, "application/json");
  EXPECT_EQ(second->status, 200);
  EXPECT_EQ(full, 1);
  EXPECT_EQ(not_modified, 1);

  // Another Accept header is another cache entry.
  auto other = client.get({server.url("/etag"), {"Accept: text/html"}});
  ASSERT_TRUE(other);
  EXPECT_FALSE(other->from_cache);
  EXPECT_EQ(other->body, "page for text/html");
  EXPECT_EQ(full, 2);

  // use_cache = false neither reads nor revalidates.
  auto uncached = client.get({server.url("/etag"), {"Accept: application/json"}, false});
  ASSERT_TRUE(uncached);
  EXPECT_FALSE(uncached->from_cache);
  EXPECT_EQ(full, 3);
}

TEST_F(Get, HeadGivesTheValidatorsWithoutTheBodyAndIsNeverCached) {
  TempDir tmp;
  auto o = test_options();
  o.cache_dir = tmp.path;
  auto client = make_client(o);
  Request req{server.url("/etag"), {"Accept: application/json"}};
  req.head = true;
  for (int i = 0; i < 2; ++i) {
    auto r = client.get(req);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->status, 200);
    EXPECT_FALSE(r->from_cache);
    EXPECT_EQ(r->body, "");
    EXPECT_EQ(r->etag, "\"v1-16\"");
    ASSERT_TRUE(r->content_length);
    EXPECT_EQ(*r->content_length, std::string("page for application/json").size());
  }
  EXPECT_EQ(not_modified, 0);  // never sent with If-None-Match
  EXPECT_FALSE(fs::exists(tmp.path / "http"));
}

// A server refusing HEAD (S3's URLs signed for GET answer 403; others 405 or 501) is asked with a
// GET of the first byte instead: the same validators, and the size from the Content-Range. One
// that ignores the range is cut off after its headers: its Content-Length is the file's size.
TEST(HeadRefused, IsAskedAgainWithAGetOfTheFirstByte) {
  const std::uint64_t size = 50'000'000;  // never sent: the answer ends with its headers
  for (const bool honours_range : {true, false}) {
    for (const char* refusal : {"405 Method Not Allowed", "403 Forbidden", "501 Not Implemented"}) {
      RawServer server([&](RawServer& srv, int fd, const std::string& req, int) {
        if (req.rfind("HEAD ", 0) == 0) {
          send_all(fd, fmt::format("HTTP/1.1 {}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", refusal));
          return;
        }
        if (honours_range && range_start(req) == 0) {
          send_all(fd, fmt::format("HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-0/{}\r\nContent-Length: 1\r\n"
                                   "ETag: \"e1\"\r\nLast-Modified: Tue, 01 Dec 2026 10:00:00 GMT\r\n"
                                   "Connection: close\r\n\r\nP",
                                   size));
          return;
        }
        send_all(fd, fmt::format("HTTP/1.1 200 OK\r\nContent-Length: {}\r\nETag: \"e1\"\r\n"
                                 "Last-Modified: Tue, 01 Dec 2026 10:00:00 GMT\r\nConnection: close\r\n\r\n",
                                 size));
        for (int i = 0; i < 100 && !srv.stopping(); ++i) {
          if (!send_all(fd, std::string(64 << 10, 'P'))) return;  // the client hangs up early
        }
      });
      auto client = make_client();
      Request req(server.url("/f.whl"), {}, false);
      req.head = true;
      auto r = client.get(req);
      ASSERT_TRUE(r) << refusal << ": " << r.error().message;
      EXPECT_EQ(r->body, "");
      EXPECT_EQ(r->etag, "\"e1\"");
      EXPECT_EQ(r->last_modified, "Tue, 01 Dec 2026 10:00:00 GMT");
      ASSERT_TRUE(r->content_length) << refusal;
      EXPECT_EQ(*r->content_length, size) << refusal << (honours_range ? " (range honoured)" : " (range ignored)");
      const auto requests = server.requests();
      ASSERT_EQ(requests.size(), 2U) << refusal;
      EXPECT_EQ(requests[0].rfind("HEAD ", 0), 0U);
      EXPECT_EQ(requests[1].rfind("GET ", 0), 0U);
      EXPECT_EQ(range_start(requests[1]), 0);
    }
  }
}

// A HEAD refused for a reason that is not about the method (404) is not asked again.
TEST(HeadRefused, NotFoundIsAnErrorWithoutAnotherRequest) {
  RawServer server([&](RawServer&, int fd, const std::string&, int) {
    send_all(fd, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
  });
  auto client = make_client();
  Request req(server.url("/f.whl"), {}, false);
  req.head = true;
  auto r = client.get(req);
  ASSERT_FALSE(r);
  EXPECT_TRUE(contains(r.error().message, "404")) << r.error().message;
  EXPECT_EQ(server.requests().size(), 1U);
}

TEST_F(Get, FreshAnswersAreReusedWithoutAsking) {
  TempDir tmp;
  auto o = test_options();
  o.cache_dir = tmp.path;
  set_cache_headers("max-age=600, public");
  auto client = make_client(o);
  ASSERT_TRUE(client.get({server.url("/fresh")}));
  EXPECT_EQ(fresh_full, 1);
  for (int i = 0; i < 3; ++i) {
    auto again = client.get({server.url("/fresh")});
    ASSERT_TRUE(again) << again.error().message;
    EXPECT_TRUE(again->from_cache);
    EXPECT_EQ(again->body, "fresh body");
  }
  EXPECT_EQ(fresh_full + fresh_304, 1) << "a fresh entry must not be revalidated";

  // --refresh asks again (a 304 here), and the answer is fresh for the next client.
  auto r = o;
  r.refresh = true;
  auto refreshing = make_client(r);
  auto revalidated = refreshing.get({server.url("/fresh")});
  ASSERT_TRUE(revalidated);
  EXPECT_TRUE(revalidated->from_cache);
  EXPECT_EQ(fresh_304, 1);
  ASSERT_TRUE(make_client(o).get({server.url("/fresh")}));
  EXPECT_EQ(fresh_full + fresh_304, 2);
}

TEST_F(Get, StaleOrUncacheableAnswersAreRevalidated) {
  TempDir tmp;
  auto o = test_options();
  o.cache_dir = tmp.path;
  auto client = make_client(o);
  // no-cache, max-age=0, and an Age as old as max-age: each asks every time (304s).
  for (const auto& [cc, a] : std::vector<std::pair<std::string, std::string>>{
           {"no-cache", ""}, {"max-age=0", ""}, {"max-age=60", "60"}, {"", ""}}) {
    set_cache_headers(cc, a);
    fs::remove_all(tmp.path / "http");
    fresh_full = 0;
    fresh_304 = 0;
    ASSERT_TRUE(client.get({server.url("/fresh")}));
    ASSERT_TRUE(client.get({server.url("/fresh")}));
    ASSERT_TRUE(client.get({server.url("/fresh")}));
    EXPECT_EQ(fresh_full, 1) << cc;
    EXPECT_EQ(fresh_304, 2) << cc;
  }
  // A 304 that grants a max-age makes the entry fresh from then on.
  set_cache_headers("max-age=600");
  ASSERT_TRUE(client.get({server.url("/fresh")}));
  EXPECT_EQ(fresh_304, 3);
  ASSERT_TRUE(client.get({server.url("/fresh")}));
  EXPECT_EQ(fresh_304, 3);
  EXPECT_EQ(fresh_full, 1);
}

bool libcurl_loaded() { return ::dlopen("libcurl.so.4", RTLD_NOW | RTLD_NOLOAD) != nullptr; }

TEST_F(Get, NoTransferNeedsNoLibcurl) {
  // ctest runs each test in a process of its own, where nothing has loaded libcurl yet. The cache
  // entry is written as the client stores it (a JSON line, then the body), fresh for 10 minutes,
  // so that this process never needs libcurl to fill it. (No fork: a child of this threaded
  // process could deadlock, e.g. under ASan.)
  if (libcurl_loaded()) GTEST_SKIP() << "libcurl is already loaded in this process (run this test alone, as ctest does)";
  TempDir tmp;
  auto o = test_options();
  o.cache_dir = tmp.path;
  const auto url = server.url("/fresh");
  const auto expires = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::system_clock::now().time_since_epoch() + std::chrono::minutes(10))
                           .count();
  fs::create_directories(tmp.path / "http");
  std::ofstream(tmp.path / "http" / sha256_hex(url + "\n")) << fmt::format(
      R"({{"url":"{0}","effective_url":"{0}","etag":"\"f1\"","last_modified":"","content_type":"text/plain","status":200,"expires":{1}}})"
      "\nfresh body",
      url, expires);
  auto client = make_client(o);
  auto r = client.get({url});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->from_cache);
  EXPECT_EQ(r->body, "fresh body");
  EXPECT_FALSE(libcurl_loaded()) << "a cached answer loaded libcurl";
  EXPECT_EQ(fresh_full + fresh_304, 0);
  // The first request that needs the network loads it.
  ASSERT_TRUE(client.get({server.url("/hello")}));
  EXPECT_TRUE(libcurl_loaded());
}

TEST_F(Get, OfflineUsesOnlyTheCache) {
  TempDir tmp;
  auto o = test_options();
  o.cache_dir = tmp.path;
  {
    auto client = make_client(o);
    ASSERT_TRUE(client.get({server.url("/etag")}));
  }
  o.offline = true;
  auto client = make_client(o);
  const int before = full + not_modified;
  auto hit = client.get({server.url("/etag")});
  ASSERT_TRUE(hit) << hit.error().message;
  EXPECT_TRUE(hit->from_cache);
  EXPECT_EQ(hit->body, "page for */*");
  EXPECT_EQ(full + not_modified, before);

  auto miss = client.get({server.url("/hello")});
  ASSERT_FALSE(miss);
  EXPECT_EQ(miss.error().message, "offline: " + server.url("/hello") + " is not in the cache");

  auto dl = client.download({{server.url("/hello"), tmp.path / "x"}});
  ASSERT_FALSE(dl[0]);
  EXPECT_TRUE(contains(dl[0].error().message, "offline")) << dl[0].error().message;
}

TEST_F(Get, ManyRunConcurrentlyInOrder) {
  auto client = make_client();
  std::vector<Request> reqs;
  for (int i = 0; i < 20; ++i) reqs.push_back({server.url("/slow/" + std::to_string(i))});
  reqs.push_back({server.url("/gone")});
  auto rs = client.get_many(reqs);
  ASSERT_EQ(rs.size(), 21U);
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(rs[i]) << rs[i].error().message;
    EXPECT_EQ(rs[i]->body, "item " + std::to_string(i));
  }
  EXPECT_FALSE(rs[20]);
  // The requests met at the server's barrier: at least 8 were in flight at once.
  EXPECT_GE(max_seen, kSlowBarrier);
}

TEST_F(Get, FileUrls) {
  TempDir tmp;
  const auto file = tmp.path / "page with space.html";
  std::ofstream(file) << "<html>local</html>";
  auto client = make_client();
  auto r = client.get({"file://" + tmp.path.string() + "/page%20with%20space.html"});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->body, "<html>local</html>");
  auto missing = client.get({"file://" + tmp.path.string() + "/nope.html"});
  ASSERT_FALSE(missing);
  EXPECT_TRUE(contains(missing.error().message, "nope.html")) << missing.error().message;

  auto range = client.get_range("file://" + tmp.path.string() + "/page%20with%20space.html", 6, 5);
  ASSERT_TRUE(range) << range.error().message;
  EXPECT_EQ(range->body, "local");
  EXPECT_EQ(range->offset, 6U);
  EXPECT_EQ(range->total_size, 18U);
  auto suffix = client.get_suffix("file://" + tmp.path.string() + "/page%20with%20space.html", 7);
  ASSERT_TRUE(suffix);
  EXPECT_EQ(suffix->body, "</html>");
  EXPECT_EQ(suffix->offset, 11U);
}

TEST_F(Get, Ranges) {
  auto client = make_client();
  auto r = client.get_range(server.url("/data"), 1000, 500);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->whole);
  EXPECT_EQ(r->offset, 1000U);
  EXPECT_EQ(r->total_size, data.size());
  EXPECT_EQ(r->body, data.substr(1000, 500));

  auto s = client.get_suffix(server.url("/data"), 300);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->offset, data.size() - 300);
  EXPECT_EQ(s->body, data.substr(data.size() - 300));

  auto big = client.get_suffix(server.url("/data"), 1000000);  // longer than the file
  ASSERT_TRUE(big) << big.error().message;
  EXPECT_EQ(big->offset, 0U);
  EXPECT_EQ(big->body, data);

  ignore_ranges = true;
  auto w = client.get_range(server.url("/data"), 1000, 500);
  ASSERT_TRUE(w) << w.error().message;
  EXPECT_TRUE(w->whole);
  EXPECT_EQ(w->offset, 0U);
  EXPECT_EQ(w->body, data);

  auto bad = client.get_range(server.url("/gone"), 0, 10);
  ASSERT_FALSE(bad);
  EXPECT_TRUE(contains(bad.error().message, "404"));
}

TEST_F(Get, SuffixesMustBeHonouredRanges) {
  auto client = make_client();
  auto both = client.get_suffixes({server.url("/data"), server.url("/gone")}, {300, 10});
  ASSERT_EQ(both.size(), 2U);
  ASSERT_TRUE(both[0]) << both[0].error().message;
  EXPECT_FALSE(both[0]->whole);
  EXPECT_EQ(both[0]->offset, data.size() - 300);
  EXPECT_EQ(both[0]->total_size, data.size());
  EXPECT_EQ(both[0]->body, data.substr(data.size() - 300));
  ASSERT_FALSE(both[1]);
  EXPECT_TRUE(contains(both[1].error().message, "404"));

  // A server that ignores the range: an error, not the whole file.
  ignore_ranges = true;
  auto ignored = client.get_suffixes({server.url("/data")}, {300});
  ASSERT_FALSE(ignored[0]);
  EXPECT_TRUE(contains(ignored[0].error().message, "ignores Range requests (HTTP 200)")) << ignored[0].error().message;
}

TEST(GetLimits, BodyOver64MiBIsAnError) {
  HttpServer server;
  server.svr.Get("/huge", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string((std::size_t{64} << 20) + 1, 'x'), "application/octet-stream");
  });
  server.start();
  auto o = test_options();
  o.stall_timeout = 5s;
  auto client = make_client(o);
  auto r = client.get({server.url("/huge")});
  ASSERT_FALSE(r);
  EXPECT_TRUE(contains(r.error().message, "64 MiB")) << r.error().message;
}

// ---------------------------------------------------------------------------------------------
// download()

class Download : public ::testing::Test {
 protected:
  static std::string content(int i) { return make_data(20000 + static_cast<std::size_t>(i) * 997, static_cast<unsigned>(i)); }

  void SetUp() override {
    server.svr.Get("/files/(\\d+)", [this](const httplib::Request& req, httplib::Response& res) {
      ++file_hits;
      res.set_content(content(std::stoi(req.matches[1].str())), "application/octet-stream");
    });
    server.svr.Get("/gone", [this](const httplib::Request&, httplib::Response& res) {
      ++gone_hits;
      res.status = 404;
      res.set_content("gone", "text/plain");
    });
    server.svr.Get("/once500", [this](const httplib::Request&, httplib::Response& res) {
      if (++once_hits == 1) {
        res.status = 500;
        res.set_content("oops", "text/plain");
        return;
      }
      res.set_content(content(3), "application/octet-stream");
    });
    server.svr.Get("/ranged", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard lock(mutex);
      range_headers.push_back(req.get_header_value("Range"));
      res.set_content(content(5), "application/octet-stream");
    });
    server.start();
  }

  void expect_no_file(const fs::path& dest) {
    EXPECT_FALSE(fs::exists(dest)) << dest;
  }

  HttpServer server;
  TempDir tmp;
  std::atomic<int> file_hits{0}, gone_hits{0}, once_hits{0};
  std::mutex mutex;
  std::vector<std::string> range_headers;
};

TEST_F(Download, ThirtyFilesAtOnce) {
  auto client = make_client();
  std::vector<DownloadRequest> reqs;
  for (int i = 0; i < 30; ++i) {
    const auto c = content(i);
    reqs.push_back({server.url("/files/" + std::to_string(i)), tmp.path / "sub" / fmt::format("f{}.whl", i),
                    sha256_hex(c), i % 2 == 0 ? std::optional<std::uint64_t>(c.size()) : std::nullopt});
  }
  std::vector<int> done_calls(30, 0);
  std::vector<std::uint64_t> last_progress(30, 0);
  const auto caller = std::this_thread::get_id();
  bool other_thread = false;
  auto rs = client.download(
      reqs,
      [&](const Progress& p) {
        other_thread |= std::this_thread::get_id() != caller;
        last_progress.at(p.index) = p.done;
      },
      [&](std::size_t i, const Result<Downloaded>& r) {
        other_thread |= std::this_thread::get_id() != caller;
        ++done_calls.at(i);
        EXPECT_TRUE(r);
        if (r) {
          EXPECT_TRUE(fs::exists(r->path));  // already in place when reported
        }
      });
  EXPECT_FALSE(other_thread);
  for (int i = 0; i < 30; ++i) {
    ASSERT_TRUE(rs[i]) << rs[i].error().message;
    const auto c = content(i);
    EXPECT_EQ(rs[i]->path, reqs[i].dest);
    EXPECT_EQ(rs[i]->sha256, sha256_hex(c));
    EXPECT_EQ(rs[i]->size, c.size());
    EXPECT_EQ(rs[i]->attempts, 1U);
    EXPECT_FALSE(rs[i]->resumed);
    EXPECT_EQ(read_all(reqs[i].dest), c);
    EXPECT_FALSE(fs::exists(reqs[i].dest.string() + ".part"));
    EXPECT_EQ(done_calls[i], 1);
    EXPECT_EQ(last_progress[i], c.size());
  }
  EXPECT_EQ(file_hits, 30);
}

// A callback that throws ends download() with its exception while other transfers still run:
// none of them may stay in libcurl's multi handle pointing at its destroyed job, or the next
// download on the same client would drive them (a use after free under ASan).
TEST_F(Download, AnExceptionFromACallbackLeavesTheClientUsable) {
  auto client = make_client();
  std::vector<DownloadRequest> reqs;
  for (int i = 0; i < 8; ++i) {
    reqs.push_back({server.url("/files/" + std::to_string(i)), tmp.path / "a" / fmt::format("f{}.whl", i),
                    sha256_hex(content(i)), std::nullopt});
  }
  EXPECT_THROW(
      (void)client.download(reqs, {}, [](std::size_t, const Result<Downloaded>&) { throw std::runtime_error("x"); }),
      std::runtime_error);
  for (auto& r : reqs) r.dest = tmp.path / "b" / r.dest.filename();
  auto rs = client.download(reqs);
  for (int i = 0; i < 8; ++i) {
    ASSERT_TRUE(rs[i]) << rs[i].error().message;
    EXPECT_EQ(read_all(reqs[i].dest), content(i));
  }
}

TEST_F(Download, HashMismatchLeavesNothing) {
  auto client = make_client();
  const auto dest = tmp.path / "bad.whl";
  const std::string wrong(64, 'a');
  auto rs = client.download({{server.url("/files/1"), dest, wrong}});
  ASSERT_FALSE(rs[0]);
  const auto& msg = rs[0].error().message;
  EXPECT_TRUE(contains(msg, server.url("/files/1"))) << msg;
  EXPECT_TRUE(contains(msg, wrong)) << msg;
  EXPECT_TRUE(contains(msg, sha256_hex(content(1)))) << msg;
  EXPECT_EQ(file_hits, 2);  // retried once
  expect_no_file(dest);
  expect_no_file(dest.string() + ".part");
}

TEST_F(Download, SizeMismatchLeavesNothing) {
  auto client = make_client();
  const auto dest = tmp.path / "bad.whl";
  auto rs = client.download({{server.url("/files/1"), dest, std::nullopt, 5}});
  ASSERT_FALSE(rs[0]);
  EXPECT_TRUE(contains(rs[0].error().message, "size")) << rs[0].error().message;
  expect_no_file(dest);
  expect_no_file(dest.string() + ".part");
}

TEST_F(Download, UppercaseHashAccepted) {
  auto client = make_client();
  std::string h = sha256_hex(content(2));
  for (auto& c : h) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  auto rs = client.download({{server.url("/files/2"), tmp.path / "f.whl", h}});
  ASSERT_TRUE(rs[0]) << rs[0].error().message;
}

TEST_F(Download, RetriesAfter500) {
  auto client = make_client();
  const auto dest = tmp.path / "f.whl";
  auto rs = client.download({{server.url("/once500"), dest, sha256_hex(content(3))}});
  ASSERT_TRUE(rs[0]) << rs[0].error().message;
  EXPECT_EQ(rs[0]->attempts, 2U);
  EXPECT_EQ(read_all(dest), content(3));  // the error page was not written
}

TEST_F(Download, NotFoundIsNotRetried) {
  auto client = make_client();
  const auto dest = tmp.path / "f.whl";
  auto rs = client.download({{server.url("/gone"), dest}});
  ASSERT_FALSE(rs[0]);
  EXPECT_TRUE(contains(rs[0].error().message, "404")) << rs[0].error().message;
  EXPECT_TRUE(contains(rs[0].error().message, server.url("/gone"))) << rs[0].error().message;
  EXPECT_EQ(gone_hits, 1);
  expect_no_file(dest);
  expect_no_file(dest.string() + ".part");
}

TEST_F(Download, ResumesAnExistingPartFile) {
  auto client = make_client();
  const auto dest = tmp.path / "f.whl";
  const auto c = content(5);
  std::ofstream(dest.string() + ".part", std::ios::binary) << c.substr(0, 12345);
  auto rs = client.download({{server.url("/ranged"), dest, sha256_hex(c), c.size()}});
  ASSERT_TRUE(rs[0]) << rs[0].error().message;
  EXPECT_TRUE(rs[0]->resumed);
  EXPECT_EQ(read_all(dest), c);
  ASSERT_EQ(range_headers.size(), 1U);
  EXPECT_EQ(range_headers[0], "bytes=12345-");
  expect_no_file(dest.string() + ".part");
}

TEST_F(Download, StalePartFileIsReplaced) {
  auto client = make_client();
  const auto dest = tmp.path / "f.whl";
  const auto c = content(5);
  std::ofstream(dest.string() + ".part", std::ios::binary) << "garbage that is not the start";
  auto rs = client.download({{server.url("/ranged"), dest, sha256_hex(c)}});
  ASSERT_TRUE(rs[0]) << rs[0].error().message;  // the mismatch is retried once, from the start
  EXPECT_FALSE(rs[0]->resumed);
  EXPECT_EQ(read_all(dest), c);
}

TEST_F(Download, FromFileUrl) {
  auto client = make_client();
  const auto src = tmp.path / "src.whl";
  const auto c = content(9);
  std::ofstream(src, std::ios::binary) << c;
  const auto dest = tmp.path / "out" / "dst.whl";
  auto rs = client.download({{"file://" + src.string(), dest, sha256_hex(c), c.size()}});
  ASSERT_TRUE(rs[0]) << rs[0].error().message;
  EXPECT_EQ(read_all(dest), c);
}

/// A server of `c` (ETag "x1") that drops the first connection after `dropped_at` bytes and
/// answers a range request with the rest; with `refuse_first`, the very first request gets a 503.
RawServer::Handler drops_then_resumes(const std::string& c, std::size_t dropped_at, bool refuse_first = false) {
  return [&c, dropped_at, refuse_first](RawServer&, int fd, const std::string& req, int index) {
    if (refuse_first && index == 0) {
      send_all(fd, "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      return;
    }
    const long long start = range_start(req);
    if (start < 0) {
      send_all(fd, fmt::format("HTTP/1.1 200 OK\r\nContent-Length: {}\r\nAccept-Ranges: bytes\r\nETag: \"x1\"\r\n"
                               "Connection: close\r\n\r\n",
                               c.size()));
      send_all(fd, std::string_view(c).substr(0, dropped_at));  // then the connection drops
      return;
    }
    const auto s = static_cast<std::size_t>(start);
    send_all(fd, fmt::format("HTTP/1.1 206 Partial Content\r\nContent-Range: bytes {}-{}/{}\r\nContent-Length: {}\r\n"
                             "Connection: close\r\n\r\n",
                             s, c.size() - 1, c.size(), c.size() - s));
    send_all(fd, std::string_view(c).substr(s));
  };
}

TEST(DownloadRaw, DroppedConnectionResumesWithRange) {
  const auto c = make_data(50000, 11);
  RawServer server(drops_then_resumes(c, 20000));
  TempDir tmp;
  auto client = make_client();
  const auto dest = tmp.path / "f.whl";
  auto rs = client.download({{server.url("/f.whl"), dest, sha256_hex(c)}});
  ASSERT_TRUE(rs[0]) << rs[0].error().message;
  EXPECT_TRUE(rs[0]->resumed);
  EXPECT_EQ(rs[0]->attempts, 2U);
  EXPECT_EQ(read_all(dest), c);
  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 2U);
  EXPECT_EQ(range_start(reqs[1]), 20000);
  EXPECT_TRUE(contains(reqs[1], "If-Range: \"x1\"")) << reqs[1];
}

TEST(DownloadRaw, TruncatedThenRangeIgnoredRestartsFromZero) {
  const auto c = make_data(30000, 12);
  RawServer server([&](RawServer&, int fd, const std::string&, int index) {
    send_all(fd, fmt::format("HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", c.size()));
    send_all(fd, index == 0 ? std::string_view(c).substr(0, 1000) : std::string_view(c));
  });
  TempDir tmp;
  auto client = make_client();
  const auto dest = tmp.path / "f.whl";
  auto rs = client.download({{server.url("/f.whl"), dest, sha256_hex(c)}});
  ASSERT_TRUE(rs[0]) << rs[0].error().message;
  EXPECT_FALSE(rs[0]->resumed);
  EXPECT_EQ(rs[0]->attempts, 2U);
  EXPECT_EQ(read_all(dest), c);
  EXPECT_EQ(range_start(server.requests().at(1)), 1000);
}

TEST(DownloadRaw, AlwaysTruncatedFailsWithCause) {
  RawServer server([&](RawServer&, int fd, const std::string&, int) {
    send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 5000\r\nConnection: close\r\n\r\n");
    send_all(fd, std::string(100, 'x'));
  });
  TempDir tmp;
  auto client = make_client();
  const auto dest = tmp.path / "f.whl";
  auto rs = client.download({{server.url("/f.whl"), dest}});
  ASSERT_FALSE(rs[0]);
  const auto& msg = rs[0].error().message;
  EXPECT_TRUE(contains(msg, server.url("/f.whl"))) << msg;
  EXPECT_TRUE(contains(msg, "3 attempts")) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
  EXPECT_FALSE(fs::exists(dest));
}

TEST(DownloadRaw, TruncatedGetIsRetried) {
  RawServer server([&](RawServer&, int fd, const std::string&, int index) {
    if (index == 0) {
      send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 5000\r\nConnection: close\r\n\r\nshort");
    } else {
      send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 4\r\nConnection: close\r\n\r\nfull");
    }
  });
  auto client = make_client();
  auto r = client.get({server.url("/page")});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->body, "full");
}

TEST(DownloadRaw, StallIsRetriedThenAClearError) {
  RawServer server([&](RawServer& s, int fd, const std::string&, int) {
    send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 5000\r\nConnection: close\r\n\r\n");
    send_all(fd, std::string(100, 'x'));
    s.sleep(8s);
  });
  TempDir tmp;
  auto o = test_options();
  o.retries = 1;
  auto client = make_client(o);
  const auto dest = tmp.path / "f.whl";
  const auto t0 = std::chrono::steady_clock::now();
  auto rs = client.download({{server.url("/f.whl"), dest}});
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  ASSERT_FALSE(rs[0]);
  const auto& msg = rs[0].error().message;
  EXPECT_TRUE(contains(msg, "stalled")) << msg;
  EXPECT_TRUE(contains(msg, "2 attempts")) << msg;
  EXPECT_LT(elapsed, 6s);
  EXPECT_EQ(server.requests().size(), 2U);
  EXPECT_FALSE(fs::exists(dest));
}

TEST(DownloadRaw, ConnectionRefusedIsRetried) {
  int port = 0;
  {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.sin_port);
    ::close(fd);  // nothing listens there now
  }
  TempDir tmp;
  auto client = make_client();
  const auto url = fmt::format("http://127.0.0.1:{}/f.whl", port);
  auto rs = client.download({{url, tmp.path / "f.whl"}});
  ASSERT_FALSE(rs[0]);
  EXPECT_TRUE(contains(rs[0].error().message, url)) << rs[0].error().message;
  EXPECT_TRUE(contains(rs[0].error().message, "3 attempts")) << rs[0].error().message;
}

// Bytes in the file from `from` to its end (SEEK_DATA/SEEK_HOLE: what was written, not holes).
std::uint64_t data_bytes_after(const fs::path& p, std::uint64_t from) {
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open " + p.string());
  const auto end = static_cast<std::uint64_t>(::lseek(fd, 0, SEEK_END));
  std::uint64_t data = 0;
  for (auto at = static_cast<off_t>(from); static_cast<std::uint64_t>(at) < end;) {
    const off_t start = ::lseek(fd, at, SEEK_DATA);
    if (start < 0) break;  // only a hole is left
    const off_t stop = ::lseek(fd, start, SEEK_HOLE);
    data += static_cast<std::uint64_t>(stop - start);
    at = stop;
  }
  ::close(fd);
  return data;
}

// A reader that reads each byte once (an install unpacking a download it does not keep) takes
// the bytes from memory and gives them back, so they are never written; a dropped connection
// halfway (after a 503, with `refused_first`) must not end that: before, each attempt closed the
// part file, which wrote what was held and stopped the holding, so everything after the resume
// went to the disk.
void expect_held_through_a_resume(bool refused_first) {
  const std::size_t mib = std::size_t{1} << 20;
  const auto c = make_data(6 * mib + 123, 21);
  const std::size_t dropped_at = 3 * mib + 500;
  RawServer server(drops_then_resumes(c, dropped_at, refused_first));
  TempDir tmp;
  const auto dest = tmp.path / "f.whl";
  const auto part = fs::path(dest.string() + ".part");
  DownloadRequest request{server.url("/f.whl"), dest, sha256_hex(c), c.size()};
  request.growing = std::make_shared<GrowingFile>();
  GrowingFile& growing = *request.growing;
  const auto generation = growing.generation();
  growing.read_once(generation);
  std::string got;
  std::string failure;
  std::thread reader([&] {
    int fd = -1;
    const auto read_file = [&](char* buf, std::size_t len, std::uint64_t offset) -> Result<void> {
      if (fd < 0) fd = ::open(part.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0 || ::pread(fd, buf, len, static_cast<off_t>(offset)) != static_cast<ssize_t>(len)) {
        return fail("cannot read the part file");
      }
      return {};
    };
    std::string buf(64 << 10, '\0');
    for (std::uint64_t at = 0; at < c.size() && failure.empty();) {
      const auto len = std::min<std::uint64_t>(buf.size(), c.size() - at);
      if (auto r = growing.read(buf.data(), len, at, generation, read_file); !r) {
        failure = r.error().message;
        break;
      }
      got.append(buf.data(), len);
      growing.release(at, at + len, generation);
      at += len;
    }
    growing.done_reading(generation);
    if (fd >= 0) ::close(fd);
  });
  auto client = make_client();
  auto rs = client.download({request});
  growing.finish(rs[0] ? Result<void>{} : fail(rs[0].error().message));
  reader.join();
  ASSERT_TRUE(rs[0]) << rs[0].error().message;
  ASSERT_TRUE(failure.empty()) << failure;
  EXPECT_EQ(rs[0]->attempts, refused_first ? 3U : 2U);
  EXPECT_TRUE(rs[0]->resumed);
  EXPECT_EQ(got, c);
  // What the reader gave back was not written after the resume either (all of it, unless the
  // reader was kept from running for GrowingFile::kStallMs, which a loaded machine may do once).
  const auto resumed_part = c.size() - dropped_at;
  EXPECT_LT(data_bytes_after(dest, dropped_at), resumed_part / 2) << "the resumed bytes went to the disk";
}

TEST(DownloadRaw, AResumedDownloadIsStillHeldInMemory) { expect_held_through_a_resume(false); }

TEST(DownloadRaw, ADownloadRefusedFirstIsStillHeldInMemory) { expect_held_through_a_resume(true); }

// ---------------------------------------------------------------------------------------------
// ProgressDisplay

TEST(ProgressDisplay, LinesForFinishedFiles) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    ProgressDisplay d({"a.whl", "b.whl"}, ProgressDisplay::Style::automatic, f);
    EXPECT_EQ(d.style(), ProgressDisplay::Style::lines);  // not a terminal
    d.update({0, 10, 100});
    Downloaded ok;
    ok.size = 1536;
    d.done(0, ok);
    d.done(1, fail("x"));
    d.finish();
  }
  std::rewind(f);
  char buf[256] = {};
  const auto n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  EXPECT_EQ(std::string(buf, n), "Downloaded a.whl (1.5 KiB)\n");
}

TEST(ProgressDisplay, BarsAreErased) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    ProgressDisplay d({"a.whl"}, ProgressDisplay::Style::bars, f);
    d.update({0, 50, 100});
    d.finish();
  }
  std::rewind(f);
  char buf[1024] = {};
  const auto n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  const std::string out(buf, n);
  EXPECT_TRUE(contains(out, "a.whl")) << out;
  EXPECT_TRUE(contains(out, "[############------------]")) << out;
  EXPECT_TRUE(contains(out, "\x1b[2K")) << out;
}

TEST(ProgressDisplay, FormatSize) {
  EXPECT_EQ(format_size(12), "12 B");
  EXPECT_EQ(format_size(1536), "1.5 KiB");
  EXPECT_EQ(format_size(std::uint64_t{150} << 20), "150 MiB");
}

}  // namespace
}  // namespace vwheel::http
