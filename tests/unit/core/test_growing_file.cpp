#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "vwheel/core/growing_file.hpp"

namespace {

using vwheel::GrowingFile;

// Bytes as the download hands them over: a buffer of their own, shared.
GrowingFile::Bytes shared(std::string_view bytes) {
  return std::make_shared<const vwheel::PageBuffer>(vwheel::PageBuffer::copy_of(bytes));
}

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

// Holding (read_once): what the writer hands over stays in memory until released, and only what
// no reader released reaches the file.
namespace holding {

// A file in memory standing for the part file: what was written where.
struct FakeFile {
  std::mutex mutex;
  std::string bytes;
  std::vector<std::pair<std::uint64_t, std::size_t>> writes;
  GrowingFile::WriteAt writer() {
    return [this](std::uint64_t at, std::string_view b) {
      std::lock_guard lock(mutex);
      if (bytes.size() < at + b.size()) bytes.resize(at + b.size(), '\0');
      bytes.replace(at, b.size(), b);
      writes.emplace_back(at, b.size());
      return true;
    };
  }
  GrowingFile::ReadAt reader() {
    return [this](char* buf, std::size_t len, std::uint64_t at) -> vwheel::Result<void> {
      std::lock_guard lock(mutex);
      if (at + len > bytes.size()) return vwheel::fail("short file");
      bytes.copy(buf, len, at);
      return {};
    };
  }
  std::uint64_t written() {
    std::lock_guard lock(mutex);
    std::uint64_t n = 0;
    for (const auto& w : writes) n += w.second;
    return n;
  }
};

std::string piece(char c, std::size_t n = 1000) { return std::string(n, c); }

// Hands `data` over in pieces of `size` at `from`, announcing each.
void hand_over(GrowingFile& file, FakeFile& disk, std::uint64_t from, std::string_view data, std::size_t size) {
  for (std::size_t at = 0; at < data.size(); at += size) {
    const auto part = data.substr(at, size);
    ASSERT_TRUE(file.hold(from + at, shared(part), disk.writer()));
    file.advance(from + at + part.size());
  }
}

struct Budget {
  explicit Budget(std::uint64_t bytes) { GrowingFile::set_hold_budget(bytes); }
  ~Budget() { GrowingFile::set_hold_budget(GrowingFile::kHoldBudget); }
};

TEST(GrowingFileHolding, ReleasedBytesNeverReachTheFile) {
  Budget budget(1 << 20);
  GrowingFile file;
  FakeFile disk;
  const auto gen = file.generation();
  EXPECT_FALSE(file.holding());
  file.read_once(gen);
  ASSERT_TRUE(file.holding());
  const std::string data = piece('a') + piece('b') + piece('c') + piece('d');
  hand_over(file, disk, 0, data, 1000);
  EXPECT_EQ(disk.written(), 0u);
  EXPECT_EQ(GrowingFile::held_now(), 4000u);
  // A read across buffers comes from memory.
  std::string out(1500, '\0');
  ASSERT_TRUE(file.read(out.data(), out.size(), 500, gen, disk.reader()));
  EXPECT_EQ(out, data.substr(500, 1500));
  // Released in two overlapping ranges: the first two buffers go, the third stays (half released).
  file.release(0, 1200, gen);
  file.release(1000, 2500, gen);
  EXPECT_EQ(GrowingFile::held_now(), 2000u);
  EXPECT_TRUE(file.dropped(gen));
  // Read again after release: an error, not bytes from a hole.
  auto again = file.read(out.data(), 100, 100, gen, disk.reader());
  ASSERT_FALSE(again);
  EXPECT_THAT(again.error().message, ::testing::HasSubstr("read after being given back"));
  // The rest is written at the end, once the reader is done.
  file.done_reading(gen);
  EXPECT_FALSE(file.holding());
  ASSERT_TRUE(file.write_held(disk.writer()));
  EXPECT_EQ(disk.written(), 2000u);
  EXPECT_EQ(disk.bytes.substr(2000), data.substr(2000));
  EXPECT_EQ(GrowingFile::held_now(), 0u);
  // Still readable: now from the file.
  ASSERT_TRUE(file.read(out.data(), 1000, 3000, gen, disk.reader()));
  EXPECT_EQ(out.substr(0, 1000), piece('d'));
}

TEST(GrowingFileHolding, HoldsTheWritersBufferItselfUntilReleased) {
  Budget budget(1 << 20);
  GrowingFile file;
  FakeFile disk;
  const auto gen = file.generation();
  file.read_once(gen);
  const auto first = shared(piece('a'));
  const auto second = shared(piece('b'));
  ASSERT_TRUE(file.hold(0, first, disk.writer()));
  ASSERT_TRUE(file.hold(1000, second, disk.writer()));
  file.advance(2000);
  // Shared, not copied: the writer's buffers are what the file holds.
  EXPECT_EQ(first.use_count(), 2);
  EXPECT_EQ(second.use_count(), 2);
  std::string out(1000, '\0');
  ASSERT_TRUE(file.read(out.data(), out.size(), 500, gen, disk.reader()));
  EXPECT_EQ(out, piece('a', 500) + piece('b', 500));
  // A release lets the first go; writing out at the end lets the second go.
  file.release(0, 1000, gen);
  EXPECT_EQ(first.use_count(), 1);
  EXPECT_EQ(second.use_count(), 2);
  file.done_reading(gen);
  ASSERT_TRUE(file.write_held(disk.writer()));
  EXPECT_EQ(second.use_count(), 1);
  EXPECT_EQ(disk.written(), 1000u);
  EXPECT_EQ(disk.bytes.substr(1000), piece('b'));
}

// Two buffers held, the budget full.
class FullBudget : public ::testing::Test {
 protected:
  void SetUp() override {
    file.read_once(gen);
    hand_over(file, disk, 0, piece('a') + piece('b'), 1000);
  }
  Budget budget{2000};
  GrowingFile file;
  FakeFile disk;
  const std::uint64_t gen = file.generation();
};

TEST_F(FullBudget, WritesWhenAReaderWaitsForNewerBytes) {
  // A reader waits for bytes past what arrived; the writer, out of room, writes the next ones.
  std::string out(1000, '\0');
  std::thread reader([&] { EXPECT_TRUE(file.read(out.data(), 1000, 2000, gen, disk.reader())); });
  while (file.waiting() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  hand_over(file, disk, 2000, piece('c'), 1000);
  reader.join();
  EXPECT_EQ(out, piece('c'));
  ASSERT_EQ(disk.writes.size(), 1u);
  EXPECT_EQ(disk.writes[0].first, 2000u);
  EXPECT_EQ(GrowingFile::held_now(), 2000u);
  // Written because a reader waited, not because the writer gave up on the readers: with no
  // reader waiting, the next bytes wait for a release and are held.
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    file.release(0, 1000, gen);
  });
  hand_over(file, disk, 3000, piece('d'), 1000);
  releaser.join();
  EXPECT_EQ(disk.writes.size(), 1u);
  file.done_reading(gen);
  ASSERT_TRUE(file.write_held(disk.writer()));
  EXPECT_EQ(disk.bytes.substr(1000), piece('b') + piece('c') + piece('d'));
}

TEST_F(FullBudget, WaitsForTheReaderToGiveBack) {
  std::thread reader([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    file.release(0, 1000, gen);
  });
  hand_over(file, disk, 2000, piece('c'), 1000);  // waits for the release, then holds
  reader.join();
  EXPECT_EQ(disk.written(), 0u);
  EXPECT_EQ(GrowingFile::held_now(), 2000u);
  file.restart();  // what was held belongs to the removed file
  EXPECT_EQ(GrowingFile::held_now(), 0u);
  EXPECT_FALSE(file.holding());
  EXPECT_FALSE(file.dropped(file.generation()));
}

TEST(GrowingFileHolding, AReaderThatNeverStartsDoesNotStallTheWriter) {
  Budget budget(1000);
  GrowingFile file;
  FakeFile disk;
  const auto gen = file.generation();
  file.read_once(gen);
  // The members it will not unpack given back first (directories): not yet a read.
  file.release(5000, 6000, gen);
  // Busy elsewhere: after kStartMs without a read the writer writes, and goes on writing (a
  // writer that waited for good would not return; ctest's timeout fails the test then).
  hand_over(file, disk, 0, piece('a') + piece('b') + piece('c') + piece('d'), 1000);
  EXPECT_EQ(GrowingFile::held_now(), 1000u);  // 'a' held, 'b', 'c' and 'd' written
  EXPECT_EQ(disk.written(), 3000u);
  // At the end, the reader neither done nor giving back: written after a while too.
  ASSERT_TRUE(file.write_held(disk.writer()));
  EXPECT_EQ(disk.bytes, piece('a') + piece('b') + piece('c') + piece('d'));
  EXPECT_FALSE(file.dropped(gen));
}

TEST(GrowingFileHolding, BeforeTheFirstReadTheWriterWaitsLongerThanAStall) {
  // Releases before the first read (the members the reader will not unpack) are not a read: the
  // writer out of room waits for the reader to start (kStartMs), not only kStallMs. Checked by
  // what the writer did while the reader stayed away for several kStallMs, well under kStartMs.
  Budget budget(1000);
  GrowingFile file;
  FakeFile disk;
  const auto gen = file.generation();
  file.read_once(gen);
  file.release(5000, 6000, gen);
  std::thread writer([&] { hand_over(file, disk, 0, piece('a') + piece('b'), 1000); });
  while (GrowingFile::held_now() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(3 * GrowingFile::kStallMs));
  EXPECT_EQ(disk.written(), 0u);  // still waiting with 'b': not written after a stall
  EXPECT_EQ(GrowingFile::held_now(), 1000u);
  file.done_reading(gen);  // the reader is done: the writer stops waiting and writes
  writer.join();
  EXPECT_EQ(disk.written(), 1000u);
  ASSERT_TRUE(file.write_held(disk.writer()));
  EXPECT_EQ(disk.bytes, piece('a') + piece('b'));
}

TEST_F(FullBudget, AReaderGoingThroughWrittenBytesKeepsTheWriterWaiting) {
  // Bytes 2000-2999 were written (a reader waited for them); the reader reads and gives them
  // back for longer than kStallMs, freeing nothing held: progress all the same, so the next
  // bytes wait for room instead of being written.
  std::string out(1000, '\0');
  std::thread first([&] { EXPECT_TRUE(file.read(out.data(), 1000, 2000, gen, disk.reader())); });
  while (file.waiting() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  hand_over(file, disk, 2000, piece('c'), 1000);
  first.join();
  ASSERT_EQ(disk.written(), 1000u);
  std::atomic<bool> stop{false};
  std::thread reader([&] {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(3 * GrowingFile::kStallMs);
    std::string piece_read(100, '\0');
    for (std::uint64_t at = 2000; std::chrono::steady_clock::now() < until && !stop; at = at >= 2900 ? 2000 : at + 100) {
      EXPECT_TRUE(file.read(piece_read.data(), 100, at, gen, disk.reader()));
      std::this_thread::sleep_for(std::chrono::milliseconds(GrowingFile::kStallMs / 5));
    }
    file.release(0, 3000, gen);  // then it reaches the held bytes
  });
  hand_over(file, disk, 3000, piece('d'), 1000);
  stop = true;
  reader.join();
  EXPECT_EQ(disk.written(), 1000u);
  EXPECT_EQ(GrowingFile::held_now(), 1000u);
  // Once reading started, no progress for a while is enough to write: 'e' held (room after the
  // release), 'f' written (a writer that waited for good would not return).
  hand_over(file, disk, 4000, piece('e') + piece('f'), 1000);
  EXPECT_EQ(disk.written(), 2000u);
  EXPECT_EQ(GrowingFile::held_now(), 2000u);  // 'd' and 'e'
}

TEST(GrowingFileHolding, NothingIsHeldUnlessAReaderAsks) {
  GrowingFile file;
  FakeFile disk;
  const auto gen = file.generation();
  file.read_once(gen + 1);  // another incarnation's reader
  EXPECT_FALSE(file.holding());
  ASSERT_TRUE(file.hold(0, shared(piece('a')), disk.writer()));
  EXPECT_EQ(disk.written(), 1000u);
  file.done_reading(gen);
  file.read_once(gen);  // too late: the reader said it was done
  EXPECT_FALSE(file.holding());
}

}  // namespace holding
