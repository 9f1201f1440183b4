// WorkerPool: tasks on a fixed set of threads, and loops whose items idle threads help with.

#include "vwheel/core/worker_pool.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace vwheel {
namespace {

using namespace std::chrono_literals;

/// A flag threads wait for (with a guard against a hang: the test then fails on what it saw).
class Gate {
 public:
  void open() {
    {
      std::lock_guard lock(mutex_);
      open_ = true;
    }
    cv_.notify_all();
  }
  bool wait(std::chrono::milliseconds guard = 10s) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, guard, [&] { return open_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool open_ = false;
};

TEST(WorkerPool, EveryItemRunsOnceFromOutsideThePool) {
  WorkerPool pool(4);
  std::vector<std::atomic<int>> hits(1000);
  pool.for_each(hits.size(), [&](std::size_t i) { ++hits[i]; });
  for (std::size_t i = 0; i < hits.size(); ++i) EXPECT_EQ(hits[i].load(), 1) << i;
  pool.for_each(0, [&](std::size_t) { FAIL() << "no items"; });
}

TEST(WorkerPool, IdleThreadsHelpWithATasksLoop) {
  // One task (one wheel) with six items (its members): the two threads without a task of their
  // own run its items beside it, so three run at once. (With one thread per task, one at a time.)
  WorkerPool pool(3);
  std::atomic<int> inside{0}, most{0};
  std::mutex mutex;
  std::condition_variable cv;
  pool.submit([&] {
    pool.for_each(6, [&](std::size_t) {
      const int now = ++inside;
      for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
      }
      {
        std::unique_lock lock(mutex);
        cv.notify_all();
        cv.wait_for(lock, 5s, [&] { return most.load() >= 3; });
      }
      --inside;
    });
  });
  pool.wait();
  EXPECT_EQ(most.load(), 3);
}

TEST(WorkerPool, ItemsStartInOrderAndEveryOneReturnsBeforeTheLoopDoes) {
  WorkerPool pool(2);
  std::mutex mutex;
  std::vector<std::size_t> started;
  std::atomic<int> running{0};
  std::atomic<bool> returned_early{false};
  pool.submit([&] {
    pool.for_each(200, [&](std::size_t i) {
      {
        std::lock_guard lock(mutex);
        started.push_back(i);
      }
      ++running;
      std::this_thread::sleep_for(50us);
      --running;
    });
    returned_early = running.load() != 0;
  });
  pool.wait();
  EXPECT_FALSE(returned_early.load());
  ASSERT_EQ(started.size(), 200U);
  std::vector<std::size_t> sorted = started;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) EXPECT_EQ(sorted[i], i);
  // On one thread (a task's loop in a pool of one), exactly in index order: a wheel's largest
  // members, or those that arrive first, start first.
  WorkerPool one(1);
  started.clear();
  one.submit([&] { one.for_each(50, [&](std::size_t i) { started.push_back(i); }); });
  one.wait();
  ASSERT_EQ(started.size(), 50U);
  for (std::size_t i = 0; i < started.size(); ++i) EXPECT_EQ(started[i], i);
}

TEST(WorkerPool, TasksThatMayWaitGoAfterTheOthers) {
  WorkerPool pool(1);
  Gate busy;
  std::mutex mutex;
  std::vector<std::string> order;
  auto record = [&](std::string what) {
    std::lock_guard lock(mutex);
    order.push_back(std::move(what));
  };
  pool.submit([&] { busy.wait(); });
  pool.submit([&] { record("arriving 1"); }, true);
  pool.submit([&] { record("on disk 1"); });
  pool.submit([&] { record("arriving 2"); }, true);
  pool.submit([&] { record("on disk 2"); });
  busy.open();
  pool.wait();
  EXPECT_EQ(order, (std::vector<std::string>{"on disk 1", "on disk 2", "arriving 1", "arriving 2"}));
}

TEST(WorkerPool, ANewTaskComesBeforeTheItemsOfALoopThatMayWait) {
  // Two wheels still arriving, two threads: the second thread starts the second wheel rather
  // than wait beside the first for bytes not there yet (the first's items wait for it here).
  // (A first task holds one thread until both wheels are queued.)
  WorkerPool pool(2);
  Gate queued, second_started;
  std::atomic<int> items_before_second{0};
  pool.submit([&] { queued.wait(); });
  pool.submit(
      [&] {
        pool.for_each(
            4,
            [&](std::size_t) {
              if (!second_started.wait(5s)) ++items_before_second;
            },
            true);
      },
      true);
  pool.submit([&] { second_started.open(); }, true);
  queued.open();
  pool.wait();
  EXPECT_EQ(items_before_second.load(), 0);
}

TEST(WorkerPool, ALoopsOwnerHelpsOthersWhileItsLastItemRunsElsewhere) {
  // Task A's loop: item 0 waits until item 1 has started on another thread, then returns; item 1
  // is held until the end. A's thread, its own items all started, waits for item 1, and meanwhile
  // runs items of a loop started later from outside the pool: that loop's items wait until two
  // threads have run them, the caller's and A's.
  WorkerPool pool(2);
  Gate item1_started, release;
  std::thread::id a_thread;
  pool.submit([&] {
    a_thread = std::this_thread::get_id();
    pool.for_each(2, [&](std::size_t i) {
      if (i == 0) {
        item1_started.wait();
      } else {
        item1_started.open();
        release.wait();
      }
    });
  });
  ASSERT_TRUE(item1_started.wait());
  std::mutex mutex;
  std::condition_variable cv;
  std::set<std::thread::id> threads;
  pool.for_each(8, [&](std::size_t) {
    std::unique_lock lock(mutex);
    threads.insert(std::this_thread::get_id());
    cv.notify_all();
    cv.wait_for(lock, 5s, [&] { return threads.size() >= 2; });
  });
  release.open();
  pool.wait();
  EXPECT_EQ(threads.size(), 2U);
  EXPECT_TRUE(threads.contains(a_thread));
  EXPECT_TRUE(threads.contains(std::this_thread::get_id()));
}

TEST(WorkerPool, DestructionWaitsForEveryTask) {
  std::atomic<int> done{0};
  {
    WorkerPool pool(2);
    for (int i = 0; i < 20; ++i) {
      pool.submit([&] {
        std::this_thread::sleep_for(1ms);
        ++done;
      });
    }
  }
  EXPECT_EQ(done.load(), 20);
}

}  // namespace
}  // namespace vwheel
