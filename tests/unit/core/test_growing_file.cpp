#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "vwheel/core/growing_file.hpp"

namespace {

using vwheel::GrowingFile;

TEST(GrowingFile, ReaderWaitsForTheBytesItNeeds) {
  GrowingFile file;
  const auto generation = file.generation();
  std::atomic<bool> done{false};
  std::thread reader([&] {
    EXPECT_TRUE(file.wait_for(100, generation));
    done = true;
  });
  file.advance(50);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(done.load());  // 50 of the 100 bytes: still waiting
  file.advance(100);
  reader.join();
  EXPECT_TRUE(done.load());
  EXPECT_TRUE(file.wait_for(0, generation));
  EXPECT_FALSE(file.finished());
}

TEST(GrowingFile, AFailedWriterWakesEveryReaderWithItsError) {
  GrowingFile file;
  const auto generation = file.generation();
  std::thread reader([&] {
    auto r = file.wait_for(10, generation);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message, "https://example.org/x.whl: HTTP 404");
  });
  std::thread waiter([&] {
    auto r = file.wait_finished();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message, "https://example.org/x.whl: HTTP 404");
  });
  file.finish(vwheel::fail("https://example.org/x.whl: HTTP 404"));
  file.finish({});  // only the first verdict counts
  reader.join();
  waiter.join();
  EXPECT_TRUE(file.finished());
}

TEST(GrowingFile, ACompleteFileHasEveryByte) {
  GrowingFile file;
  const auto generation = file.generation();
  file.finish({});  // complete without a single announced write (a part file from an earlier run)
  EXPECT_TRUE(file.wait_for(1 << 20, generation));
  EXPECT_TRUE(file.wait_finished());
}

TEST(GrowingFile, ARestartInvalidatesWhatReadersOpened) {
  GrowingFile file;
  const auto old = file.generation();
  file.advance(10);
  EXPECT_TRUE(file.wait_for(10, old));
  file.restart();
  auto stale = file.wait_for(5, old);
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().message, "the download was started again");
  const auto current = file.generation();
  EXPECT_NE(current, old);
  file.advance(5);
  EXPECT_TRUE(file.wait_for(5, current));
  file.finish({});
  EXPECT_FALSE(file.wait_for(5, old));  // still stale once finished
}

}  // namespace
