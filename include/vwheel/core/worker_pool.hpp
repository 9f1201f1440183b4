#pragma once
/// \file
/// A fixed set of threads for tasks (one wheel each) that run loops (one item per member): any
/// thread with nothing of its own helps with the items of a loop under way. With one worker per
/// wheel, a torch install's largest wheel was unpacked on one core while the other, done with the
/// small wheels, waited (bench/install_torch_graph.sh on two cores: 5.8, 5.8 and 6.8 s, each
/// ending with 2.5 s on one core; sharing the members, 4.3, 4.3 and 6.0 s, both busy to the end).

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

namespace vwheel {

class WorkerPool {
 public:
  /// Starts `threads` threads (at least one).
  explicit WorkerPool(unsigned threads);
  /// Waits for every task submitted (see `wait`), then stops the threads.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// Queues `task`, which must not throw. A task that `may_wait` (on bytes still arriving over
  /// the network) goes after every queued task that does not, and the threads take it only when
  /// nothing else is left for them.
  void submit(std::function<void()> task, bool may_wait = false);

  /// Calls `fn(i)` for every `i` in `[0, count)`, in that order of starting, on the calling thread
  /// and on any of the pool's threads that has nothing else to do; returns once every call has
  /// returned. Callable from a task or from outside the pool; `fn` must not throw. Items that
  /// `may_wait` are helped with only when no other loop's items or task are waiting. While its
  /// last items run elsewhere, the calling thread helps with other loops' items that do not wait.
  void for_each(std::size_t count, const std::function<void(std::size_t)>& fn, bool may_wait = false);

  /// Waits until every task submitted so far has returned.
  void wait();

  /// The number of threads.
  [[nodiscard]] unsigned size() const noexcept { return static_cast<unsigned>(threads_.size()); }

 private:
  struct Loop {
    const std::function<void(std::size_t)>* fn;
    std::size_t count;
    bool may_wait;
    std::size_t next = 0;     // the next item to start
    std::size_t running = 0;  // items started and not yet returned
  };
  struct Task {
    std::function<void()> fn;
    bool may_wait;
  };

  void work();
  /// Under the lock: starts one item of a loop with items left (those that may wait only when
  /// `waiting_too`), and returns true once it has run (the lock held again); false when none.
  bool run_item(std::unique_lock<std::mutex>& lock, bool waiting_too, const Loop* except = nullptr);
  /// Under the lock: the first queued task (those that may wait only when `waiting_too`).
  std::deque<Task>::iterator next_task(bool waiting_too);

  std::mutex mutex_;
  std::condition_variable work_;       // a task or loop item to take, or closing
  std::condition_variable loop_done_;  // a loop's last item returned, or a new loop started
  std::condition_variable idle_;       // the last task returned
  std::deque<Task> tasks_;
  std::list<Loop> loops_;  // in the order they started
  std::size_t tasks_running_ = 0;
  bool closing_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace vwheel
