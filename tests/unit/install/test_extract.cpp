#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <new>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

#include "install/extract.hpp"

using namespace vwheel;
using namespace vwheel::install::detail;

TEST(BufferBudget, HoldsNoMoreThanItsCapacityAtOnce) {
  BufferBudget budget(100);
  std::atomic<int> held{0};
  std::atomic<int> peak{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        const auto lease = budget.acquire(40);  // two fit at once, never three
        const int now = held += 40;
        int seen = peak.load();
        while (now > seen && !peak.compare_exchange_weak(seen, now)) {
        }
        held -= 40;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_LE(peak.load(), 100);
  EXPECT_GT(peak.load(), 0);
  // A request above the capacity takes all of it instead of waiting forever.
  const auto all = budget.acquire(1000);
  EXPECT_EQ(budget.capacity(), 100U);
}

TEST(ExtractErrors, DiskFullAndOutOfMemoryAreEnvironmentErrors) {
  const auto full = io_error("/site/pkg/a.so", "cannot write", ENOSPC);
  EXPECT_EQ(full.kind, ErrorKind::environment);
  EXPECT_NE(full.message.find("/site/pkg/a.so: cannot write"), std::string::npos) << full.message;
  EXPECT_NE(full.message.find("disk is full"), std::string::npos) << full.message;
  auto from = [](auto thrown) {
    try {
      throw thrown;
    } catch (...) {
      return error_from_exception("member `pkg/a.so`");
    }
  };
  const auto oom = from(std::bad_alloc());
  EXPECT_EQ(oom.kind, ErrorKind::environment);
  EXPECT_EQ(oom.message, "member `pkg/a.so`: out of memory");
  const auto sys = from(std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again), "thread"));
  EXPECT_EQ(sys.kind, ErrorKind::environment);
  EXPECT_NE(sys.message.find("thread"), std::string::npos) << sys.message;
}
