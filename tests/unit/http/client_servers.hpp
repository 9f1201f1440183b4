#pragma once
// Servers on 127.0.0.1 for the HTTP client's tests (test_client_get.cpp,
// test_client_download.cpp): cpp-httplib for ordinary answers, and a raw socket server with
// scripted bytes for dropped connections, truncated bodies and stalls; and the client they use.

#include <arpa/inet.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include "vwheel/core/growing_file.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/http/client.hpp"

namespace vwheel::http::test {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

inline std::string make_data(std::size_t n, unsigned seed) {
  std::string s(n, '\0');
  std::uint32_t x = seed * 2654435761U + 12345U;
  for (auto& c : s) {
    x = x * 1664525U + 1013904223U;
    c = static_cast<char>(x >> 24);
  }
  return s;
}

inline std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct TempDir {
  fs::path path;
  TempDir() {
    path =
        fs::temp_directory_path() / ("vwheel-http-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
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

inline bool send_all(int fd, std::string_view data) {
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
inline long long range_start(const std::string& request) {
  const auto p = request.find("Range: bytes=");
  if (p == std::string::npos) return -1;
  return std::stoll(request.substr(p + 13));
}

inline Options test_options() {
  Options o;
  o.retries = 2;
  o.backoff = 10ms;
  o.connect_timeout = 2s;
  o.stall_timeout = 1s;
  return o;
}

inline Client make_client(Options o = test_options()) {
  auto c = Client::create(std::move(o));
  if (!c) throw std::runtime_error(c.error().message);
  return std::move(*c);
}

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// ---------------------------------------------------------------------------------------------

}  // namespace vwheel::http::test
