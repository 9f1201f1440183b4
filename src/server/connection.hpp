#pragma once
// cpp-httplib's server with our own per-connection loop. httplib 0.11 (Debian 12) gives each
// worker to one connection for as long as bytes trickle in (its read timeout restarts with every
// byte) or keep-alive requests repeat, and reads requests through a buffer that its keep-alive
// check does not look into, so a pipelined second request waits until the idle timeout. This
// class overrides the server's per-socket entry point (the virtual `process_and_close_socket`)
// and runs httplib's request processing (`process_request`) over its own stream, which enforces
// the ConnectionLimits: a total deadline for the request line and headers, a pause limit while a
// body is read or a response written, an idle limit between requests and a request count per
// connection, pipelined requests answered in order, a cap on connections per client address, and
// a stop that wakes every waiting worker at once.

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <httplib.h>

#include "server/tls.hpp"
#include "vwheel/server/server.hpp"

namespace vwheel::server {

/// The worker pool, which also tells how many connections wait for a worker.
class WorkerPool final : public httplib::TaskQueue {
 public:
  explicit WorkerPool(std::size_t threads);
  ~WorkerPool() override;
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;
  void enqueue(std::function<void()> fn) override;
  void shutdown() override;
  /// Connections accepted and not yet taken by a worker.
  [[nodiscard]] std::size_t pending() const noexcept { return pending_.load(std::memory_order_relaxed); }

 private:
  void work();
  std::vector<std::thread> threads_;
  std::deque<std::function<void()>> jobs_;
  std::mutex mutex_;
  std::condition_variable cond_;
  std::atomic<std::size_t> pending_{0};
  bool shutdown_ = false;
};

/// True when a read of the request being handled on this thread gave up on its deadline (for a
/// handler to answer 408 rather than "malformed").
[[nodiscard]] bool request_timed_out() noexcept;

/// httplib::Server with deadlines and caps per connection (see the file comment).
class ConnectionServer : public httplib::Server {
 public:
  ConnectionServer(ConnectionLimits limits, std::size_t threads);
  ~ConnectionServer() override;
  ConnectionServer(const ConnectionServer&) = delete;
  ConnectionServer& operator=(const ConnectionServer&) = delete;

  /// Serves HTTPS with this certificate (before the server starts).
  void set_tls(std::shared_ptr<const TlsContext> tls);
  /// Raises httplib's listen backlog of 5.
  void raise_backlog(int backlog);
  /// Stops accepting, wakes every worker waiting on a client (their connections close), and lets
  /// httplib's listen loop end.
  void stop_all();
  /// Closes the connections still waiting for their address's turn (after the listen loop ended).
  void close_waiting();

 private:
  struct Peer {
    std::size_t active = 0;
    std::deque<int> waiting;  ///< sockets over the cap, served as the address's connections end
  };

  bool process_and_close_socket(socket_t sock) override;
  void serve_connection(int sock, const std::string& address);

  ConnectionLimits limits_;
  std::shared_ptr<const TlsContext> tls_;  // null: plain HTTP
  WorkerPool* pool_ = nullptr;             // owned by httplib (new_task_queue), alive while connections run
  int stop_fd_ = -1;                       // an eventfd, readable once stopping
  std::atomic<bool> stopping_{false};
  std::mutex peers_mutex_;
  std::unordered_map<std::string, Peer> peers_;
};

}  // namespace vwheel::server
