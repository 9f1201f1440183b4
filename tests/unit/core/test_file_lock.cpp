// The cache's lock: runs share it, a clean waits for them (and they for a clean); it is the
// kernel's flock, so a process that dies holding it holds nothing. And lock_file_until, which
// waits at most until a deadline.

#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "vwheel/core/file_lock.hpp"

namespace vwheel {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

struct Dir {
  fs::path path = fs::temp_directory_path() / ("vwheel-cachelock-" + std::to_string(::getpid()));
  Dir() { fs::remove_all(path); }
  ~Dir() { fs::remove_all(path); }
};

TEST(CacheLock, RunsShareItAndACleanWaitsForThemAll) {
  Dir dir;
  const auto cache = dir.path / "cache";
  auto a = CacheLock::shared(cache);
  auto b = CacheLock::shared(cache);  // two runs at once: neither waits
  ASSERT_TRUE(a.held());
  ASSERT_TRUE(b.held());
  EXPECT_TRUE(fs::is_regular_file(cache / ".lock"));

  std::atomic<bool> waited{false}, got{false};
  std::thread clean([&] {
    auto lock = CacheLock::exclusive(cache, [&] { waited = true; });
    ASSERT_TRUE(lock) << lock.error().message;
    got = true;
  });
  std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(got);
  a = CacheLock::shared(dir.path / "elsewhere");  // the first run ends (its lock moves on)
  std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(got) << "one run still uses the cache";
  { auto gone = std::move(b); }
  clean.join();
  EXPECT_TRUE(waited);
  EXPECT_TRUE(got);
}

TEST(CacheLock, ARunWaitsForAClean) {
  Dir dir;
  auto clean = CacheLock::exclusive(dir.path);
  ASSERT_TRUE(clean);
  std::atomic<bool> waited{false}, got{false};
  std::thread run([&] {
    auto lock = CacheLock::shared(dir.path, [&] { waited = true; });
    EXPECT_TRUE(lock.held());
    got = true;
  });
  std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(got);
  { auto done = std::move(*clean); }
  run.join();
  EXPECT_TRUE(waited);
  EXPECT_TRUE(got);
}

TEST(CacheLock, ARunGoesOnWithoutALockWhereNoneCanBeMade) {
  Dir dir;
  fs::create_directories(dir.path);
  const auto file = dir.path / "a-file";
  { std::FILE* f = std::fopen(file.c_str(), "w"); std::fclose(f); }
  const auto shared = CacheLock::shared(file / "cache");  // under a file: nothing can be made
  EXPECT_FALSE(shared.held());
  const auto exclusive = CacheLock::exclusive(file / "cache");
  ASSERT_FALSE(exclusive);
  EXPECT_NE(exclusive.error().message.find((file / "cache" / ".lock").string()), std::string::npos)
      << exclusive.error().message;
}

// lock_file_until: a held lock makes it give up at the deadline (naming the file), a released one
// lets it through before the deadline; flock locks conflict between two opens in one process.
TEST(LockFileUntil, GivesUpAtTheDeadlineNamingTheFile) {
  Dir dir;
  fs::create_directories(dir.path);
  const auto file = dir.path / "x.lock";
  auto holder = lock_file(file, LOCK_EX, false);
  ASSERT_TRUE(holder) << holder.error().message;
  auto late = lock_file_until(file, LOCK_EX, std::chrono::steady_clock::now() + 100ms);
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().message, "timed out waiting for another process that holds " + file.string());
  // A deadline already past still takes a free lock.
  { auto gone = std::move(*holder); }
  auto free = lock_file_until(file, LOCK_EX, std::chrono::steady_clock::now() - 1s);
  ASSERT_TRUE(free) << free.error().message;
  EXPECT_TRUE(free->held());
}

TEST(LockFileUntil, WaitsForTheHolderToLetGo) {
  Dir dir;
  fs::create_directories(dir.path);
  const auto file = dir.path / "x.lock";
  auto holder = lock_file(file, LOCK_EX, false);
  ASSERT_TRUE(holder);
  std::atomic<bool> got{false};
  std::thread waiter([&] {
    auto lock = lock_file_until(file, LOCK_EX, std::chrono::steady_clock::now() + 60s);
    ASSERT_TRUE(lock) << lock.error().message;
    got = true;
  });
  std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(got);
  { auto gone = std::move(*holder); }
  waiter.join();
  EXPECT_TRUE(got);
}

TEST(LockFileUntil, AFileThatCannotBeMadeIsNamed) {
  Dir dir;
  const auto file = dir.path / "missing" / "x.lock";
  auto lock = lock_file_until(file, LOCK_EX, std::chrono::steady_clock::now() + 1s);
  ASSERT_FALSE(lock);
  EXPECT_NE(lock.error().message.find(file.string() + ": cannot create the lock file"), std::string::npos)
      << lock.error().message;
}

}  // namespace
}  // namespace vwheel
