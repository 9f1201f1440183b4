#include <gtest/gtest.h>
#include <libdeflate.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <new>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "install/extract.hpp"
#include "vwheel/wheel/record.hpp"
#include "vwheel/zip/zip.hpp"

using namespace vwheel;
using namespace vwheel::install::detail;

TEST(BufferBudget, HoldsNoMoreThanItsCapacityAtOnce) {
  BufferBudget budget(100, 1);
  std::atomic<int> held{0};
  std::atomic<int> peak{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        const auto lease = budget.acquire(40);  // two fit at once, never three
        ASSERT_GE(lease.memory().size(), 40U);
        std::memset(lease.memory().data(), t, lease.memory().size());
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
  EXPECT_LE(budget.mapped(), 100U);
  // A request above the capacity takes all of it instead of waiting forever, and gets its memory.
  {
    const auto all = budget.acquire(1000);
    EXPECT_GE(all.memory().size(), 1000U);
    all.memory()[999] = 'x';
    EXPECT_EQ(budget.capacity(), 100U);
  }
  EXPECT_LE(budget.mapped(), 100U);  // not kept: it would not fit
}

// The memory itself is shared: what one worker gave back is what the next takes, whichever
// thread it runs on, and however many workers take blocks of whatever sizes, the memory mapped
// never exceeds the capacity (with malloc, each thread's arena kept its own peak).
TEST(BufferBudget, SharesItsMemoryAcrossThreadsWithinTheCapacity) {
  constexpr std::uint64_t kCapacity = std::uint64_t{8} << 20;
  BufferBudget budget(kCapacity);
  const char* first = nullptr;
  {
    const auto lease = budget.acquire(300000);
    first = lease.memory().data();
  }
  std::thread([&] {
    const auto lease = budget.acquire(290000);  // the same size class, on another thread
    EXPECT_EQ(lease.memory().data(), first);
  }).join();

  std::atomic<std::uint64_t> most{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&, t] {
      std::uint64_t x = 12345 + static_cast<std::uint64_t>(t);
      for (int i = 0; i < 300; ++i) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        const std::uint64_t bytes = 1 + (x >> 33) % (std::uint64_t{3} << 20);  // 1 B to 3 MiB
        const auto lease = budget.acquire(bytes);
        ASSERT_GE(lease.memory().size(), bytes);
        // A new block is less than a quarter or 64 KiB larger than asked; a kept one at most twice that.
        ASSERT_LE(lease.memory().size(), 2 * (bytes + std::max<std::uint64_t>(bytes / 4, std::uint64_t{64} << 10)));
        lease.memory()[bytes - 1] = static_cast<char>(t);
        std::uint64_t seen = most.load();
        const std::uint64_t now = budget.mapped();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_LE(most.load(), kCapacity);
  EXPECT_GT(most.load(), kCapacity / 2);  // the workers did share it
  EXPECT_LE(budget.mapped(), kCapacity);
}

// A member whose compressed size is out of all proportion with its content, as a hostile index
// could serve: a 10-byte deflate stream followed by 2 MiB that the stream never uses. It is
// streamed through the two chunks, not read whole into memory: its 10 bytes are installed and the
// budget never maps more than the chunks.
TEST(ExtractMember, ACompressedSizeOutOfProportionIsStreamed) {
  const auto dir = std::filesystem::temp_directory_path() / ("vwheel-extract-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string content = "0123456789";
  std::string deflated(256, '\0');
  libdeflate_compressor* compressor = libdeflate_alloc_compressor(6);
  ASSERT_NE(compressor, nullptr);
  deflated.resize(
      libdeflate_deflate_compress(compressor, content.data(), content.size(), deflated.data(), deflated.size()));
  libdeflate_free_compressor(compressor);
  ASSERT_GT(deflated.size(), 0U);
  const std::string stored = deflated + std::string(std::size_t{2} << 20, 'J');
  // Written stored, then made a deflated member of 10 bytes in both headers.
  const auto path = dir / "odd.whl";
  zip::WritePlan plan;
  plan.members.emplace_back(zip::NewMember{"pkg/a.bin", stored, zip::Method::Store});
  ASSERT_TRUE(zip::write_archive(nullptr, plan, path));
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const auto put = [&](std::size_t at, std::uint32_t value, int width) {
    for (int i = 0; i < width; ++i) bytes[at + i] = static_cast<char>((value >> (8 * i)) & 0xFF);
  };
  const std::size_t central = bytes.rfind(std::string("PK\x01\x02", 4));
  ASSERT_NE(central, std::string::npos);
  for (const auto& [header, method, crc, size] : {std::tuple{std::size_t{0}, 8, 14, 22}, {central, 10, 16, 24}}) {
    put(header + method, 8, 2);
    put(header + crc, zip::crc32(content), 4);
    put(header + size, static_cast<std::uint32_t>(content.size()), 4);
  }
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;

  auto archive = zip::Archive::open(path);
  ASSERT_TRUE(archive) << archive.error().message;
  const auto& entry = archive->entries().at(0);
  ASSERT_EQ(entry.method, 8);
  ASSERT_EQ(entry.compressed_size, stored.size());
  ASSERT_EQ(entry.uncompressed_size, content.size());
  BufferBudget budget(std::uint64_t{16} << 20);
  ExtractSettings settings;
  settings.whole_member_max = std::uint64_t{1} << 20;
  settings.chunk = std::size_t{64} << 10;
  const auto ok = extract_member(*archive, entry, dir / "a.bin", 0644, wheel::record_hash(content), budget, settings);
  ASSERT_TRUE(ok) << ok.error().message;
  std::ifstream installed(dir / "a.bin", std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(installed), {}), content);
  EXPECT_LE(budget.mapped(), 2 * settings.chunk);
  std::filesystem::remove_all(dir);
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

// The unpacking progress of one wheel, throttled. Time plays no part here: an interval of an hour
// never elapses during the test, an interval of zero always has.
TEST(UnpackMeter, ReportsOncePerStepThenTheTotalOnce) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> calls;
  {
    UnpackMeter meter([&](std::uint64_t w, std::uint64_t t) { calls.emplace_back(w, t); }, 1000, 10,
                      std::chrono::hours(1));
    for (int i = 0; i < 999; ++i) meter.add(1);  // 999 small files
    ASSERT_EQ(calls.size(), 99U);                 // 10, 20, ..., 990
    EXPECT_EQ(calls.front(), std::make_pair(std::uint64_t{10}, std::uint64_t{1000}));
    EXPECT_EQ(calls.back(), std::make_pair(std::uint64_t{990}, std::uint64_t{1000}));
    meter.add(1);  // complete: the final report is finish's
    EXPECT_EQ(calls.size(), 99U);
    meter.finish();
    meter.add(5);
    meter.finish();
  }  // the destructor reports nothing more either
  ASSERT_EQ(calls.size(), 100U);
  EXPECT_EQ(calls.back(), std::make_pair(std::uint64_t{1000}, std::uint64_t{1000}));
}

TEST(UnpackMeter, ReportsByIntervalAndFinishesWhenDestroyed) {
  std::vector<std::uint64_t> written;
  {
    UnpackMeter meter([&](std::uint64_t w, std::uint64_t) { written.push_back(w); }, 100,
                      std::uint64_t{1} << 40, std::chrono::nanoseconds(0));
    meter.add(3);
    meter.add(0);  // nothing new: no report
    meter.add(4);
  }  // a failed unpacking ends its progress too
  EXPECT_EQ(written, (std::vector<std::uint64_t>{3, 7, 100}));
}

TEST(UnpackMeter, SerializesReportsFromManyWorkers) {
  constexpr int kThreads = 8;
  constexpr int kFiles = 2000;
  constexpr std::uint64_t kTotal = std::uint64_t{kThreads} * kFiles;
  std::atomic<int> inside{0};
  std::atomic<bool> overlapped{false};
  std::vector<std::uint64_t> written;  // guarded by the meter's serialization
  {
    UnpackMeter meter(
        [&](std::uint64_t w, std::uint64_t t) {
          if (++inside != 1) overlapped = true;
          EXPECT_EQ(t, kTotal);
          written.push_back(w);
          --inside;
        },
        kTotal, 100, std::chrono::hours(1));
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < kFiles; ++i) meter.add(1);
      });
    }
    for (auto& t : threads) t.join();
    meter.finish();
  }
  EXPECT_FALSE(overlapped);
  ASSERT_FALSE(written.empty());
  EXPECT_LE(written.size(), kTotal / 100 + 1);  // throttled: not one call per file
  EXPECT_EQ(written.back(), kTotal);            // the final report, last
  for (std::size_t i = 1; i < written.size(); ++i) {
    EXPECT_GE(written[i], written[i - 1] + (i + 1 == written.size() ? 1 : 100)) << i;  // forward, a step apart
  }
}
