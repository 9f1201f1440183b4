#include "server/connection.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "server/tls.hpp"

namespace vwheel::server {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// While other connections wait for a worker, an idle keep-alive connection gives its worker up
// after this long (a client with a next request ready sends it at once).
constexpr milliseconds kBusyIdle{100};
// How often an idle connection looks whether others wait.
constexpr milliseconds kIdleSlice{50};
// After a response that ends the connection: how long unread request bytes are drained, so that
// closing does not reset the connection before the client read the response. Shorter for the
// 503 to a connection over its address's cap, which a flood of connections could repeat.
constexpr milliseconds kLinger{500};
constexpr milliseconds kRefusalLinger{100};

// Set by the post-routing handler when a response carries `Connection: close` (a handler refused
// a request before reading its body): the connection loop of this thread then ends.
thread_local bool t_close_requested = false;
// Set when a read of the current request ran past its deadline.
thread_local bool t_timed_out = false;

int poll_timeout(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left + 1, 60'000));
}

std::string peer_address(int sock, int* port) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getpeername(sock, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return {};
  char text[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&addr);
    ::inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
    if (port != nullptr) *port = ntohs(in->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&addr);
    ::inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
    if (port != nullptr) *port = ntohs(in6->sin6_port);
  }
  return text;
}

// The socket side of one connection for httplib's request processing: reads are buffered (the
// buffer outlives each request, so pipelined requests are kept) and every wait is bounded by the
// current deadline and ends at once when the server stops.
class ConnectionStream final : public httplib::Stream {
 public:
  ConnectionStream(int sock, int stop_fd, const ConnectionLimits& limits, SSL* ssl)
      : sock_(sock), stop_fd_(stop_fd), limits_(limits), ssl_(ssl) {}

  /// The TLS handshake, by `deadline`; false when it failed or ran past it.
  bool handshake(Clock::time_point deadline) {
    for (;;) {
      switch (tls_accept(ssl_)) {
        case TlsWant::Done:
          return true;
        case TlsWant::Read:
          if (!wait(POLLIN, deadline)) return false;
          break;
        case TlsWant::Write:
          if (!wait(POLLOUT, deadline)) return false;
          break;
        case TlsWant::Fail:
          return false;
      }
    }
  }

  /// Waits for the first byte of the next request until `deadline` (or at once when one is
  /// buffered); then starts the header deadline. After a first request, an idle connection gives
  /// its worker up early while `others_wait()` (clients retry a request on a reused connection
  /// that closes; a fresh connection is not cut short so). A fresh connection's header deadline
  /// counts from its accept (`header_deadline`), so one that sends nothing at all is cut off like
  /// one that trickles.
  bool next_request(Clock::time_point deadline, bool reused, const std::function<bool()>& others_wait,
                    std::optional<Clock::time_point> header_deadline = std::nullopt) {
    if (header_deadline) deadline = std::min(deadline, *header_deadline);
    if (begin_ == end_) {
      for (;;) {
        // Others wait for a worker: keep this one only briefly; otherwise look again every slice.
        const bool yield = reused && others_wait();
        auto until = std::min(deadline, Clock::now() + kIdleSlice);
        if (yield) until = std::min(until, idle_since_ + kBusyIdle);
        if (wait(POLLIN, until)) break;
        if (failed_ || Clock::now() >= deadline) return false;
        if (yield && Clock::now() >= idle_since_ + kBusyIdle) return false;
      }
      if (!fill(deadline)) return false;
    }
    in_headers_ = true;
    deadline_ = header_deadline ? *header_deadline : Clock::now() + limits_.header_timeout;
    return true;
  }
  /// The headers were read: from now on each wait may last the body timeout.
  void headers_done() { in_headers_ = false; }
  /// A response was written: the idle time starts.
  void request_done() {
    in_headers_ = false;
    idle_since_ = Clock::now();
  }

  /// A wait ended on its deadline, an error or a stop: the connection cannot go on.
  [[nodiscard]] bool broken() const noexcept { return failed_ || timed_out_; }

  bool is_readable() const override { return begin_ != end_ || wait(POLLIN, io_deadline()); }
  bool is_writable() const override { return wait(POLLOUT, io_deadline()); }

  ssize_t read(char* ptr, size_t size) override {
    if (begin_ == end_) {
      const auto deadline = io_deadline();
      if (!wait(POLLIN, deadline) || !fill(deadline)) {
        if (!failed_) {
          timed_out_ = true;
          t_timed_out = true;
        }
        return -1;
      }
    }
    const std::size_t n = std::min(size, end_ - begin_);
    std::memcpy(ptr, buffer_.data() + begin_, n);
    begin_ += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (failed_) return -1;  // stopping, or the socket failed
    if (ssl_ != nullptr) return write_tls(ptr, size);
    std::size_t sent = 0;
    while (sent < size) {
      const ssize_t n = ::send(sock_, ptr + sent, size - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) {
        sent += static_cast<std::size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        if (wait(POLLOUT, Clock::now() + limits_.body_timeout)) continue;
        timed_out_ = true;
      }
      return -1;
    }
    return static_cast<ssize_t>(sent);
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override { ip = peer_address(sock_, &port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    ip.clear();
    port = 0;
    if (::getsockname(sock_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return;
    char text[INET6_ADDRSTRLEN] = {};
    if (addr.ss_family == AF_INET) {
      const auto* in = reinterpret_cast<const sockaddr_in*>(&addr);
      ::inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
      port = ntohs(in->sin_port);
    } else if (addr.ss_family == AF_INET6) {
      const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&addr);
      ::inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
      port = ntohs(in6->sin6_port);
    }
    ip = text;
  }
  socket_t socket() const override { return sock_; }

 private:
  [[nodiscard]] Clock::time_point io_deadline() const {
    return in_headers_ ? deadline_ : Clock::now() + limits_.body_timeout;
  }

  ssize_t write_tls(const char* ptr, size_t size) {
    std::size_t sent = 0;
    while (sent < size) {
      std::size_t n = 0;
      const auto next = tls_write(ssl_, ptr + sent, size - sent, n);
      if (next == TlsWant::Done) {
        sent += n;
        continue;
      }
      if (next == TlsWant::Fail) {
        failed_ = true;
        return -1;
      }
      if (!wait(next == TlsWant::Read ? POLLIN : POLLOUT, Clock::now() + limits_.body_timeout)) {
        timed_out_ = !failed_;
        return -1;
      }
    }
    return static_cast<ssize_t>(sent);
  }

  // True once the socket is ready for `events` (or TLS holds decrypted bytes to read); false on
  // the deadline, an error or a stop.
  bool wait(short events, Clock::time_point deadline) const {
    if (events == POLLIN && ssl_ != nullptr && tls_pending(ssl_)) return true;
    for (;;) {
      std::array<pollfd, 2> fds{{{sock_, events, 0}, {stop_fd_, POLLIN, 0}}};
      const int r = ::poll(fds.data(), fds.size(), poll_timeout(deadline));
      if (r < 0) {
        if (errno == EINTR) continue;
        failed_ = true;
        return false;
      }
      if (fds[1].revents != 0) {
        failed_ = true;
        return false;
      }
      if (fds[0].revents != 0) return true;
      if (Clock::now() >= deadline) return false;
    }
  }

  // Reads what arrived (after a wait for POLLIN); TLS may need more bytes for a whole record, or
  // to write, first: it waits for them until `deadline`.
  bool fill(Clock::time_point deadline) {
    while (ssl_ != nullptr) {
      std::size_t n = 0;
      const auto next = tls_read(ssl_, buffer_.data(), buffer_.size(), n);
      if (next == TlsWant::Done) {
        begin_ = 0;
        end_ = n;
        return true;
      }
      if (next == TlsWant::Fail) {
        failed_ = true;
        return false;
      }
      if (!wait(next == TlsWant::Read ? POLLIN : POLLOUT, deadline)) return false;
    }
    for (;;) {
      const ssize_t n = ::recv(sock_, buffer_.data(), buffer_.size(), 0);
      if (n > 0) {
        begin_ = 0;
        end_ = static_cast<std::size_t>(n);
        return true;
      }
      if (n < 0 && errno == EINTR) continue;
      failed_ = true;
      return false;
    }
  }

  int sock_;
  int stop_fd_;
  const ConnectionLimits& limits_;
  SSL* ssl_;  // null for plain HTTP
  // A TLS record's most plaintext: one read empties a record.
  std::array<char, 16384> buffer_{};
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  bool in_headers_ = false;
  mutable bool failed_ = false;
  bool timed_out_ = false;
  Clock::time_point deadline_{};
  Clock::time_point idle_since_ = Clock::now();
};

// Half-closes, drains what the client still sends for a moment (closing with unread bytes would
// reset the connection and could discard the response in flight), and closes.
void linger_close(int sock, milliseconds linger) {
  ::shutdown(sock, SHUT_WR);
  const auto deadline = Clock::now() + linger;
  std::array<char, 4096> scratch{};
  for (;;) {
    pollfd fd{sock, POLLIN, 0};
    const int r = ::poll(&fd, 1, poll_timeout(deadline));
    if (r <= 0) break;
    const ssize_t n = ::recv(sock, scratch.data(), scratch.size(), MSG_DONTWAIT);
    if (n <= 0 && !(n < 0 && errno == EINTR)) break;
    if (Clock::now() >= deadline) break;
  }
  ::close(sock);
}

// Over TLS the connection is closed without an answer (a handshake per refusal would make a flood
// of connections costlier to refuse).
void refuse_busy(int sock, const std::string& address, bool tls) {
  if (tls) {
    ::close(sock);
    return;
  }
  const std::string body = fmt::format("503 too many connections from {}; retry later\n", address);
  const std::string response = fmt::format(
      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n"
      "Retry-After: 1\r\nConnection: close\r\n\r\n{}",
      body.size(), body);
  (void)::send(sock, response.data(), response.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  linger_close(sock, kRefusalLinger);
}

}  // namespace

bool request_timed_out() noexcept { return t_timed_out; }

WorkerPool::WorkerPool(std::size_t threads) {
  threads_.reserve(threads);
  for (std::size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
}

WorkerPool::~WorkerPool() { WorkerPool::shutdown(); }

void WorkerPool::enqueue(std::function<void()> fn) {
  {
    std::lock_guard lock(mutex_);
    jobs_.push_back(std::move(fn));
    pending_.store(jobs_.size(), std::memory_order_relaxed);
  }
  cond_.notify_one();
}

void WorkerPool::shutdown() {
  {
    std::lock_guard lock(mutex_);
    if (shutdown_ && threads_.empty()) return;
    shutdown_ = true;
  }
  cond_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

void WorkerPool::work() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      cond_.wait(lock, [this] { return shutdown_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // shut down, and every accepted connection was handled
      job = std::move(jobs_.front());
      jobs_.pop_front();
      pending_.store(jobs_.size(), std::memory_order_relaxed);
    }
    job();
  }
}

ConnectionServer::ConnectionServer(ConnectionLimits limits, std::size_t threads) : limits_(limits) {
  stop_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (stop_fd_ < 0) throw std::runtime_error(fmt::format("eventfd: {}", std::strerror(errno)));
  threads = std::max<std::size_t>(threads, 1);
  new_task_queue = [this, threads] {
    auto* pool = new WorkerPool(threads);
    pool_ = pool;
    return pool;
  };
  // What the `Keep-Alive` header announces.
  set_keep_alive_max_count(std::max<std::size_t>(limits_.keep_alive_requests, 1));
  set_keep_alive_timeout(std::max<time_t>(1, std::chrono::duration_cast<std::chrono::seconds>(
                                                 limits_.keep_alive_timeout).count()));
  set_post_routing_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.get_header_value("Connection") == "close") t_close_requested = true;
  });
}

ConnectionServer::~ConnectionServer() {
  close_waiting();
  if (stop_fd_ >= 0) ::close(stop_fd_);
}

void ConnectionServer::set_tls(std::shared_ptr<const TlsContext> tls) { tls_ = std::move(tls); }

void ConnectionServer::raise_backlog(int backlog) { (void)::listen(svr_sock_, backlog); }

void ConnectionServer::stop_all() {
  stopping_ = true;
  const std::uint64_t one = 1;
  (void)!::write(stop_fd_, &one, sizeof one);
  stop();
}

void ConnectionServer::close_waiting() {
  std::lock_guard lock(peers_mutex_);
  for (auto& [address, peer] : peers_) {
    for (const int sock : peer.waiting) ::close(sock);
    peer.waiting.clear();
  }
}

bool ConnectionServer::process_and_close_socket(socket_t sock) {
  if (stopping_) {
    ::close(sock);
    return false;
  }
  const std::string address = peer_address(sock, nullptr);
  bool admitted = false;
  {
    std::lock_guard lock(peers_mutex_);
    auto& peer = peers_[address];
    if (limits_.per_ip == 0 || peer.active < limits_.per_ip) {
      ++peer.active;
      admitted = true;
    } else if (peer.waiting.size() < limits_.per_ip_waiting) {
      peer.waiting.push_back(sock);  // served by the worker of one of its connections, as that ends
      return true;
    }
  }
  if (!admitted) {
    refuse_busy(sock, address, tls_ != nullptr);
    return false;
  }
  for (int current = sock; current >= 0;) {
    serve_connection(current, address);
    std::lock_guard lock(peers_mutex_);
    auto& peer = peers_[address];
    if (!peer.waiting.empty() && !stopping_) {
      current = peer.waiting.front();
      peer.waiting.pop_front();
    } else {
      current = -1;
      if (--peer.active == 0 && peer.waiting.empty()) peers_.erase(address);
    }
  }
  return true;
}

void ConnectionServer::serve_connection(int sock, const std::string& address) {
  const auto first_headers_by = Clock::now() + limits_.header_timeout;
  SSL* ssl = tls_ ? tls_->new_session(sock) : nullptr;
  ConnectionStream stream(sock, stop_fd_, limits_, ssl);
  // The handshake counts against the deadline of the first request's headers.
  if (tls_ && (ssl == nullptr || !stream.handshake(first_headers_by))) {
    tls_close(ssl);
    ::close(sock);
    return;
  }
  // Connections accepted but not yet given a worker, or this address's connections over its cap.
  const auto others_wait = [this, &address] {
    if (pool_ != nullptr && pool_->pending() > 0) return true;
    if (limits_.per_ip == 0) return false;
    std::lock_guard lock(peers_mutex_);
    const auto it = peers_.find(address);
    return it != peers_.end() && !it->second.waiting.empty();
  };
  bool answered_last = false;
  for (std::size_t count = 1; !stopping_; ++count) {
    const auto header_deadline = count == 1 ? std::optional(first_headers_by) : std::nullopt;
    if (!stream.next_request(Clock::now() + limits_.keep_alive_timeout, count > 1, others_wait, header_deadline)) break;
    t_close_requested = false;
    t_timed_out = false;
    const bool last = count >= limits_.keep_alive_requests;
    bool closed = false;
    const bool ok = process_request(stream, last, closed, [&](httplib::Request&) { stream.headers_done(); });
    stream.request_done();
    if (!ok || closed || last || t_close_requested || stream.broken()) {
      answered_last = ok && !stream.broken();
      break;
    }
  }
  tls_close(ssl);
  if (answered_last && !stopping_) {
    linger_close(sock, kLinger);
  } else {
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
  }
}

}  // namespace vwheel::server
