// Progress text for big files: rate, ETA, the line with and without a known total, the smoothed
// rate, and unpacking bars in ProgressDisplay.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "vwheel/http/client.hpp"
#include "vwheel/http/progress.hpp"

namespace vwheel::http {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string read_all(std::FILE* f) {
  std::rewind(f);
  std::string out;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  std::fclose(f);
  return out;
}

TEST(ProgressFormat, Rate) {
  EXPECT_EQ(format_rate(0), "0 B/s");
  EXPECT_EQ(format_rate(812.9), "812 B/s");
  EXPECT_EQ(format_rate(3.4 * kMiB), "3.4 MiB/s");
  EXPECT_EQ(format_rate(120.0 * kMiB), "120 MiB/s");
  EXPECT_EQ(format_rate(-5), "0 B/s");  // never negative
  EXPECT_EQ(format_rate(1e30), format_size(UINT64_MAX) + "/s");  // clamped, not undefined
}

TEST(ProgressFormat, Eta) {
  EXPECT_EQ(format_eta(7 * kMiB, 1.0 * kMiB), "0:07");
  EXPECT_EQ(format_eta(1, 1000.0), "0:01");  // rounded up: never "0:00" while bytes remain
  EXPECT_EQ(format_eta(0, 1000.0), "0:00");
  EXPECT_EQ(format_eta(754, 1.0), "12:34");
  EXPECT_EQ(format_eta(3723, 1.0), "1:02:03");
  EXPECT_EQ(format_eta(100, std::nullopt), "--:--");  // rate unknown
  EXPECT_EQ(format_eta(100, 0.0), "--:--");           // stalled
  EXPECT_EQ(format_eta(UINT64_MAX, 1.0), "--:--");    // beyond 99 hours
}

TEST(ProgressFormat, LineWithKnownTotal) {
  const auto line = format_progress_line("", "torch.whl", 12, 25 * kMiB, 100 * kMiB, 5.0 * kMiB);
  EXPECT_EQ(line, "torch.whl    [######------------------] 25 MiB / 100 MiB  5.0 MiB/s  ETA 0:15");
}

TEST(ProgressFormat, LineWithUnknownTotalHasNoEta) {
  const auto line = format_progress_line("", "torch.whl", 9, 25 * kMiB, std::nullopt, 5.0 * kMiB);
  EXPECT_EQ(line, "torch.whl [????????????????????????] 25 MiB  5.0 MiB/s");
}

TEST(ProgressFormat, LineBeforeTheRateIsKnown) {
  const auto line = format_progress_line("Unpacking", "a-very-long-wheel-name.whl", 10, 0, 40 * kMiB, std::nullopt);
  EXPECT_EQ(line, "Unpacking a-very-... [------------------------] 0 B / 40 MiB");
}

TEST(RateMeter, AverageFirstThenSmoothed) {
  using namespace std::chrono_literals;
  const auto t0 = RateMeter::Clock::time_point{} + 1h;
  RateMeter m;
  m.record(0, t0);
  EXPECT_FALSE(m.rate());  // one sample: no interval yet
  m.record(kMiB, t0 + 100ms);
  EXPECT_FALSE(m.rate());  // under kMinInterval: not measured
  m.record(10 * kMiB, t0 + 500ms);
  ASSERT_TRUE(m.rate());
  EXPECT_DOUBLE_EQ(*m.rate(), 20.0 * kMiB);  // 10 MiB in 0.5 s, the average since the start
  // Past the warm-up a sudden stall lowers the rate gradually, not to zero at once.
  m.record(20 * kMiB, t0 + 1000ms);
  m.record(20 * kMiB, t0 + 1500ms);
  ASSERT_TRUE(m.rate());
  EXPECT_GT(*m.rate(), 10.0 * kMiB);
  EXPECT_LT(*m.rate(), 20.0 * kMiB);
  for (int i = 2; i < 40; ++i) m.record(20 * kMiB, t0 + 1000ms + i * 500ms);
  EXPECT_LT(*m.rate(), 0.1 * kMiB);  // and towards zero as it lasts
}

TEST(ProgressDisplay, BarsShowRateAndEtaOnceMeasured) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    ProgressDisplay d({"big.whl"}, ProgressDisplay::Style::bars, f);
    d.update({0, 0, 100 * kMiB});
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    d.update({0, 10 * kMiB, 100 * kMiB});
    d.done(0, fail("x"));  // forces a redraw with the measured rate
    d.finish();
  }
  const auto out = read_all(f);
  EXPECT_TRUE(contains(out, "MiB/s  ETA ")) << out;
  EXPECT_TRUE(contains(out, "10 MiB / 100 MiB")) << out;
}

TEST(ProgressDisplay, UnpackingBarsOnlyOnATerminal) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    ProgressDisplay d({"big.whl"}, ProgressDisplay::Style::bars, f);
    Downloaded ok;
    ok.size = 40 * kMiB;
    d.done(0, ok);
    d.unpack_update({0, 30 * kMiB, 120 * kMiB});
    d.unpack_done(0);
    d.finish();
  }
  const auto out = read_all(f);
  EXPECT_TRUE(contains(out, "Unpacking big.whl")) << out;
  EXPECT_TRUE(contains(out, "30 MiB / 120 MiB")) << out;
  EXPECT_TRUE(contains(out, "[######------------------]")) << out;

  std::FILE* g = std::tmpfile();
  ASSERT_NE(g, nullptr);
  {
    ProgressDisplay d({"big.whl"}, ProgressDisplay::Style::lines, g);
    Downloaded ok;
    ok.size = 40 * kMiB;
    d.done(0, ok);
    d.unpack_update({0, 30 * kMiB, 120 * kMiB});
    d.unpack_done(0);
  }
  // Not a terminal: still one plain line per file, nothing for unpacking.
  EXPECT_EQ(read_all(g), "Downloaded big.whl (40 MiB)\n");
}

TEST(ProgressDisplay, FilesNotDownloadedStayOutOfTheSummary) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    // Row 0 is on disk already (only unpacked), row 1 is downloaded.
    ProgressDisplay d({"local.whl", "remote.whl"}, ProgressDisplay::Style::bars, f);
    d.not_downloaded(0);
    d.unpack_update({0, 1 * kMiB, 8 * kMiB});
    Downloaded ok;
    ok.size = 2 * kMiB;
    d.done(1, ok);
    d.done(0, ok);  // ignored: row 0 is no download
    d.finish();
  }
  const auto out = read_all(f);
  EXPECT_TRUE(contains(out, "Unpacking local.whl")) << out;
  EXPECT_TRUE(contains(out, "Downloaded 0/1 files")) << out;
  EXPECT_TRUE(contains(out, "Downloaded 1/1 files")) << out;
  EXPECT_FALSE(contains(out, "/2 files")) << out;

  std::FILE* g = std::tmpfile();
  ASSERT_NE(g, nullptr);
  {
    ProgressDisplay d({"local.whl"}, ProgressDisplay::Style::bars, g);
    d.not_downloaded(0);
    d.unpack_update({0, 1 * kMiB, 8 * kMiB});
    d.unpack_done(0);
  }
  const auto only_unpacked = read_all(g);
  EXPECT_TRUE(contains(only_unpacked, "Unpacking local.whl")) << only_unpacked;
  EXPECT_FALSE(contains(only_unpacked, "Downloaded")) << only_unpacked;  // nothing was downloaded
}

TEST(ProgressDisplay, DownloadsAndUnpackingFromSeveralThreads) {
  // The download loop and install workers report at once; the frames must stay whole (each
  // write is one frame) and the bars be erased at the end.
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  constexpr std::size_t kRows = 6;
  {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < kRows; ++i) names.push_back("w" + std::to_string(i) + ".whl");
    ProgressDisplay d(names, ProgressDisplay::Style::bars, f);
    std::vector<std::thread> threads;
    threads.emplace_back([&] {
      for (std::uint64_t b = 0; b <= 200; ++b) d.update({0, b * kMiB, 200 * kMiB});
      Downloaded ok;
      ok.size = 200 * kMiB;
      d.done(0, ok);
    });
    for (std::size_t row = 1; row < kRows; ++row) {
      threads.emplace_back([&d, row] {
        d.not_downloaded(row);
        for (std::uint64_t b = 1; b < 200; ++b) d.unpack_update({row, b * kMiB, 200 * kMiB});
        d.unpack_done(row);
      });
    }
    for (auto& t : threads) t.join();
    d.finish();
  }
  const auto out = read_all(f);
  EXPECT_TRUE(contains(out, "Downloaded 1/1 files")) << out;
  EXPECT_TRUE(contains(out, "Unpacking w")) << out;
  // The last frame, drawn once everything was done, is the summary line alone; finish() erases
  // it and leaves the cursor where the display began.
  EXPECT_TRUE(out.ends_with("\x1b[1A\x1b[2K\n\x1b[1A")) << out;
}

TEST(ProgressDisplay, LinesForFinishedFiles) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    ProgressDisplay d({"a.whl", "b.whl"}, ProgressDisplay::Style::automatic, f);
    EXPECT_EQ(d.style(), ProgressDisplay::Style::lines);  // not a terminal
    d.update({0, 10, 100});
    Downloaded ok;
    ok.size = 1536;
    d.done(0, ok);
    d.done(1, fail("x"));
    d.finish();
  }
  std::rewind(f);
  char buf[256] = {};
  const auto n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  EXPECT_EQ(std::string(buf, n), "Downloaded a.whl (1.5 KiB)\n");
}

TEST(ProgressDisplay, BarsAreErased) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    ProgressDisplay d({"a.whl"}, ProgressDisplay::Style::bars, f);
    d.update({0, 50, 100});
    d.finish();
  }
  std::rewind(f);
  char buf[1024] = {};
  const auto n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  const std::string out(buf, n);
  EXPECT_TRUE(contains(out, "a.whl")) << out;
  EXPECT_TRUE(contains(out, "[############------------]")) << out;
  EXPECT_TRUE(contains(out, "\x1b[2K")) << out;
}

TEST(ProgressDisplay, FormatSize) {
  EXPECT_EQ(format_size(12), "12 B");
  EXPECT_EQ(format_size(1536), "1.5 KiB");
  EXPECT_EQ(format_size(std::uint64_t{150} << 20), "150 MiB");
}

}  // namespace
}  // namespace vwheel::http
