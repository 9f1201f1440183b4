// Which large downloads are unpacked while they arrive, the memory their tails may take, and how
// far each tail reaches back.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "plan/tails.hpp"
#include "vwheel/zip/zip.hpp"

namespace vwheel::plan::detail {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

http::DownloadRequest wheel(const std::string& name, std::uint64_t size, bool sha = true,
                            const std::string& scheme = "http") {
  return {scheme + "://127.0.0.1/files/" + name, "/cache/" + name,
          sha ? std::optional<std::string>(std::string(64, 'a')) : std::nullopt, size};
}

TEST(PickTails, LargeOrUnknownSizedHttpWheelsWithHashOnly) {
  std::vector<http::DownloadRequest> requests = {
      wheel("small.whl", kArriveMin - 1),  // below the threshold
      wheel("torch.whl", 900 * kMiB),
      wheel("nohash.whl", 100 * kMiB, false),        // no sha256: never handed on early
      wheel("local.whl", 100 * kMiB, true, "file"),  // not from an HTTP server
      wheel("mid.whl", 24 * kMiB),
  };
  // No size from the index (an HTML page): its tail's answer will tell, from a shorter first request.
  const std::string native = "nosize-1.0-cp312-cp312-manylinux_2_28_x86_64.whl";
  requests.push_back({"http://127.0.0.1/files/" + native, "/cache/" + native, std::string(64, 'a'), std::nullopt});
  requests.push_back(
      {"http://127.0.0.1/files/" + native, "/cache/" + native, std::nullopt, std::nullopt});  // no sha256
  // Pure Python, and no size: not worth a request of its own.
  requests.push_back({"http://127.0.0.1/files/pure-1.0-py3-none-any.whl", "/cache/pure-1.0-py3-none-any.whl",
                      std::string(64, 'a'), std::nullopt});
  const auto picked = pick_tails(requests);
  ASSERT_EQ(picked.size(), 3U);
  EXPECT_EQ(picked[0].index, 1U);
  EXPECT_EQ(picked[0].length, kFirstTail);  // the first request only; it grows by what it lacks
  EXPECT_EQ(picked[1].index, 4U);
  EXPECT_EQ(picked[1].length, kFirstTail);
  EXPECT_EQ(picked[2].index, 5U);  // after those of known size
  EXPECT_EQ(picked[2].length, kProbeTail);
}

TEST(PickTails, WheelsOfUnknownSizeGetWhatTheBudgetLeaves) {
  // The largest of known size take all the budget but one first tail's worth: the wheels of
  // unknown size share what is left, in the order given.
  const std::uint64_t fit = kTailsTotalMax / kFirstTail;
  std::vector<http::DownloadRequest> requests;
  for (std::uint64_t i = 0; i < fit + 3; ++i) {
    const auto name = "u" + std::to_string(i) + "-1.0-cp312-cp312-linux_x86_64.whl";
    requests.push_back({"http://127.0.0.1/files/" + name, "/cache/" + name, std::string(64, 'a'), std::nullopt});
  }
  for (std::uint64_t i = 0; i + 1 < fit; ++i) requests.push_back(wheel("big" + std::to_string(i) + ".whl", 100 * kMiB));
  const auto picked = pick_tails(requests);
  const std::uint64_t probes = kFirstTail / kProbeTail;
  ASSERT_EQ(picked.size(), fit - 1 + probes);
  std::uint64_t total = 0;
  for (std::size_t j = 0; j < picked.size(); ++j) {
    if (j < fit - 1) {
      EXPECT_EQ(picked[j].index, fit + 3 + j);
      EXPECT_EQ(picked[j].length, kFirstTail);
    } else {
      EXPECT_EQ(picked[j].index, j - (fit - 1));
      EXPECT_EQ(picked[j].length, kProbeTail);
    }
    total += picked[j].length;
  }
  EXPECT_EQ(total, kTailsTotalMax);
}

TEST(PickTails, AllFirstTailsTogetherStayWithinTheBudgetLargestFirst) {
  // More large wheels than the budget's first tails: the largest get them.
  const std::uint64_t fit = kTailsTotalMax / kFirstTail;
  std::vector<http::DownloadRequest> requests;
  for (std::uint64_t i = 0; i < fit + 2; ++i)
    requests.push_back(wheel("big" + std::to_string(i) + ".whl", (100 + i) * kMiB));
  const auto picked = pick_tails(requests);
  ASSERT_EQ(picked.size(), fit);
  std::uint64_t total = 0;
  for (std::size_t j = 0; j < picked.size(); ++j) {
    EXPECT_EQ(picked[j].index, fit + 1 - j);  // the largest first
    total += picked[j].length;
  }
  EXPECT_EQ(total, kTailsTotalMax);
}

TEST(ForAnyPlatform, OnlyWheelsTaggedForAnyPlatformAlone) {
  EXPECT_TRUE(for_any_platform("/cache/sympy-1.14.0-py3-none-any.whl"));
  EXPECT_TRUE(for_any_platform("six-1.17.0-py2.py3-none-any.whl"));
  EXPECT_FALSE(for_any_platform("/cache/torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64.whl"));
  EXPECT_FALSE(
      for_any_platform("nvidia_cublas_cu12-12.8.4.1-py3-none-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl"));
  EXPECT_FALSE(for_any_platform("odd-1.0-py3-none-any.linux_x86_64.whl"));           // not for any platform alone
  EXPECT_FALSE(for_any_platform("torch-2.9.0-cp312-cp312-linux_x86_64-cu128.whl"));  // a variant's label
  EXPECT_FALSE(for_any_platform("not-a-wheel.whl"));                                 // unknown: its tail's answer tells
}

TEST(DownloadOrder, LargestFirstUnknownSizesLastTiesAsGiven) {
  std::vector<http::DownloadRequest> requests = {
      wheel("a.whl", 1 * kMiB),
      wheel("b.whl", 3 * kMiB),
      wheel("c.whl", 2 * kMiB),
      wheel("d.whl", 3 * kMiB),
  };
  requests.push_back({"http://127.0.0.1/files/e.whl", "/cache/e.whl", std::nullopt, std::nullopt});
  requests.push_back(wheel("f.whl", 1 * kMiB));
  EXPECT_EQ(download_order(requests), (std::vector<std::size_t>{1, 3, 2, 0, 5, 4}));
  EXPECT_TRUE(download_order({}).empty());
}

/// A wheel-shaped archive of `size` bytes at least: `modules` small modules, a stored member
/// padding it to `size`, and the .dist-info last, or first when `dist_info_first`.
struct Wheel {
  std::string bytes;
  std::uint64_t dist_info = 0;  // METADATA's local header offset
  std::uint64_t cd = 0;
};

Wheel wheel_bytes(int modules, std::uint64_t size, bool dist_info_first = false) {
  std::vector<zip::NewMember> members;
  auto add_dist_info = [&] {
    members.push_back(
        {"pkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n", zip::Method::Store});
    members.push_back({"pkg-1.0.dist-info/RECORD", std::string(20000, 'r'), zip::Method::Store});
  };
  if (dist_info_first) add_dist_info();
  for (int i = 0; i < modules; ++i) {
    members.push_back({"pkg/some/longer/path/module" + std::to_string(i) + ".py", "x = 1\n", zip::Method::Store});
  }
  members.push_back({"pkg/big.bin", std::string(size, '\0'), zip::Method::Store});
  if (!dist_info_first) add_dist_info();
  zip::WritePlan plan;
  for (auto& m : members) plan.members.emplace_back(std::move(m));
  const auto dir = std::filesystem::temp_directory_path() / ("vwheel-tails-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "pkg-1.0-py3-none-any.whl";
  EXPECT_TRUE(zip::write_archive(nullptr, plan, path));
  auto archive = zip::Archive::open(path);
  EXPECT_TRUE(archive);
  Wheel w;
  w.dist_info = archive->find("pkg-1.0.dist-info/METADATA")->local_header_offset;
  w.cd = archive->central_directory_offset();
  std::ifstream in(path, std::ios::binary);
  w.bytes.assign(std::istreambuf_iterator<char>(in), {});
  std::filesystem::remove_all(dir);
  return w;
}

std::string_view last(const std::string& bytes, std::uint64_t n) {
  return std::string_view(bytes).substr(bytes.size() -
                                        static_cast<std::size_t>(std::min<std::uint64_t>(n, bytes.size())));
}

TEST(NextTailStep, AFirstTailHoldingTheDistInfoNeedsNothingMore) {
  const auto w = wheel_bytes(10, 8 * kMiB);
  const auto step = next_tail_step(last(w.bytes, kFirstTail), w.bytes.size());
  EXPECT_TRUE(step.usable);
  EXPECT_FALSE(step.more_from);
}

TEST(NextTailStep, ALargeCentralDirectoryThenItsDistInfo) {
  // 6,000 members: a central directory of over 256 KiB, as a torch wheel's (2 MB with its RECORD).
  const auto w = wheel_bytes(6000, 1 * kMiB);
  ASSERT_GT(w.bytes.size() - w.cd, kFirstTail);
  const auto first = next_tail_step(last(w.bytes, kFirstTail), w.bytes.size());
  ASSERT_TRUE(first.usable);
  ASSERT_TRUE(first.more_from);
  EXPECT_EQ(*first.more_from, w.cd);  // the rest of the central directory first
  const auto second = next_tail_step(last(w.bytes, w.bytes.size() - w.cd), w.bytes.size());
  ASSERT_TRUE(second.more_from);
  EXPECT_EQ(*second.more_from, w.dist_info);  // then the .dist-info before it
  const auto third = next_tail_step(last(w.bytes, w.bytes.size() - w.dist_info), w.bytes.size());
  EXPECT_TRUE(third.usable);
  EXPECT_FALSE(third.more_from);
}

TEST(NextTailStep, NothingIsFetchedFurtherBackThanTheLimit) {
  // The .dist-info at the front of a large wheel: it arrives first with the download anyway.
  const auto w = wheel_bytes(10, kTailMax + kMiB, true);
  ASSERT_LT(w.dist_info, w.bytes.size() - kTailMax);
  const auto step = next_tail_step(last(w.bytes, kFirstTail), w.bytes.size());
  EXPECT_TRUE(step.usable);
  EXPECT_FALSE(step.more_from);
  // A central directory reaching back past the limit is fetched up to it only.
  const auto big = wheel_bytes(60000, kMiB);
  ASSERT_GT(big.bytes.size() - big.cd, kTailMax);
  const auto capped = next_tail_step(last(big.bytes, kFirstTail), big.bytes.size());
  ASSERT_TRUE(capped.more_from);
  EXPECT_EQ(*capped.more_from, big.bytes.size() - kTailMax);
}

TEST(NextTailStep, NotTheEndOfAZip) {
  const std::string junk(kFirstTail, 'x');
  EXPECT_FALSE(next_tail_step(junk, 100 * kMiB).usable);
}

}  // namespace
}  // namespace vwheel::plan::detail
