#include "vwheel/core/worker_pool.hpp"

#include <algorithm>
#include <utility>

namespace vwheel {

WorkerPool::WorkerPool(unsigned threads) {
  const unsigned n = std::max(1U, threads);
  threads_.reserve(n);
  for (unsigned t = 0; t < n; ++t) threads_.emplace_back([this] { work(); });
}

WorkerPool::~WorkerPool() {
  wait();
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
  }
  work_.notify_all();
  for (auto& t : threads_) t.join();
}

void WorkerPool::submit(std::function<void()> task, bool may_wait) {
  {
    std::lock_guard lock(mutex_);
    auto at = tasks_.end();
    if (!may_wait) at = std::find_if(tasks_.begin(), tasks_.end(), [](const Task& t) { return t.may_wait; });
    tasks_.insert(at, Task{std::move(task), may_wait});
  }
  work_.notify_one();
}

std::deque<WorkerPool::Task>::iterator WorkerPool::next_task(bool waiting_too) {
  if (tasks_.empty() || (tasks_.front().may_wait && !waiting_too)) return tasks_.end();
  return tasks_.begin();
}

bool WorkerPool::run_item(std::unique_lock<std::mutex>& lock, bool waiting_too, const Loop* except) {
  for (auto& l : loops_) {
    if (&l == except || l.next >= l.count || (l.may_wait && !waiting_too)) continue;
    const std::size_t i = l.next++;
    ++l.running;  // the loop's owner does not return (and erase it) while this runs
    lock.unlock();
    (*l.fn)(i);
    lock.lock();
    // Only the loop's owner waits for its items, and only for the last ones (not a wake-up per
    // member: 12,000 for a torch wheel).
    if (--l.running == 0 && l.next >= l.count) loop_done_.notify_all();
    return true;
  }
  return false;
}

void WorkerPool::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    // Items of a loop under way before a new task: the wheels started finish first, and a
    // wheel's largest members (started first) get every thread rather than one. But a new task
    // before the items of a loop that may wait (a wheel still arriving): its next member may not
    // be there yet, and a thread of its own for each such wheel, as long as there are new ones,
    // keeps every download's bytes moving.
    if (run_item(lock, false)) continue;
    auto task = next_task(true);
    if (task == tasks_.end() && run_item(lock, true)) continue;
    if (task != tasks_.end()) {
      auto fn = std::move(task->fn);
      tasks_.erase(task);
      ++tasks_running_;
      lock.unlock();
      fn();
      fn = nullptr;  // what the task holds goes before the pool says it is done
      lock.lock();
      if (--tasks_running_ == 0 && tasks_.empty()) idle_.notify_all();
      continue;
    }
    if (closing_) return;
    work_.wait(lock);
  }
}

void WorkerPool::for_each(std::size_t count, const std::function<void(std::size_t)>& fn, bool may_wait) {
  if (count == 0) return;
  std::unique_lock lock(mutex_);
  auto it = loops_.insert(loops_.end(), Loop{&fn, count, may_wait});
  Loop& loop = *it;
  if (count > 1) {
    work_.notify_all();
    loop_done_.notify_all();  // owners waiting for their last items help too
  }
  while (loop.next < loop.count) {
    const std::size_t i = loop.next++;
    ++loop.running;
    lock.unlock();
    fn(i);
    lock.lock();
    --loop.running;
  }
  // The last items run on other threads: meanwhile this one helps other loops (not those that
  // may wait: their items could hold it long after its own have returned).
  auto others_left = [&] {
    return std::any_of(loops_.begin(), loops_.end(),
                       [&](const Loop& l) { return &l != &loop && !l.may_wait && l.next < l.count; });
  };
  while (loop.running > 0) {
    if (run_item(lock, false, &loop)) continue;
    loop_done_.wait(lock, [&] { return loop.running == 0 || others_left(); });
  }
  loops_.erase(it);
}

void WorkerPool::wait() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [&] { return tasks_.empty() && tasks_running_ == 0; });
}

}  // namespace vwheel
