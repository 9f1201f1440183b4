// Which large downloads are unpacked while they arrive, and the memory their tails may take.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "plan/tails.hpp"

namespace vwheel::plan::detail {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

http::DownloadRequest wheel(const std::string& name, std::uint64_t size, bool sha = true,
                            const std::string& scheme = "http") {
  return {scheme + "://127.0.0.1/files/" + name, "/cache/" + name,
          sha ? std::optional<std::string>(std::string(64, 'a')) : std::nullopt, size};
}

TEST(PickTails, LargeHttpWheelsWithSizeAndHashOnly) {
  std::vector<http::DownloadRequest> requests = {
      wheel("small.whl", kArriveMin - 1),            // below the threshold
      wheel("torch.whl", 900 * kMiB),                // a 4 MiB tail
      wheel("nohash.whl", 100 * kMiB, false),        // no sha256: never handed on early
      wheel("local.whl", 100 * kMiB, true, "file"),  // not from an HTTP server
      wheel("mid.whl", 24 * kMiB),                   // an eighth: 3 MiB
  };
  requests.push_back({"http://127.0.0.1/files/nosize.whl", "/cache/nosize.whl", std::string(64, 'a'), std::nullopt});
  const auto picked = pick_tails(requests);
  ASSERT_EQ(picked.size(), 2U);
  EXPECT_EQ(picked[0].index, 1U);
  EXPECT_EQ(picked[0].length, kTailMax);
  EXPECT_EQ(picked[1].index, 4U);
  EXPECT_EQ(picked[1].length, 3 * kMiB);
}

TEST(PickTails, AllTailsTogetherStayWithinTheBudgetLargestFirst) {
  // A torch-shaped install: sixteen large wheels (4 MiB tails each) and a smaller one. Eight 4 MiB
  // tails fill the 32 MiB, and the largest wheels get them.
  std::vector<http::DownloadRequest> requests;
  for (int i = 0; i < 16; ++i) requests.push_back(wheel("big" + std::to_string(i) + ".whl", (100 + i) * kMiB));
  requests.push_back(wheel("mid.whl", 20 * kMiB));  // a 2.5 MiB tail that no longer fits
  const auto picked = pick_tails(requests);
  std::uint64_t total = 0;
  for (const auto& t : picked) total += t.length;
  EXPECT_LE(total, kTailsTotalMax);
  ASSERT_EQ(picked.size(), 8U);
  for (std::size_t j = 0; j < picked.size(); ++j) EXPECT_EQ(picked[j].index, 15 - j);  // the largest first

  // A tail that no longer fits is skipped, and a smaller wheel's shorter tail still fits (sizes in
  // KiB: six 4 MiB tails, then 3,328 and 2,560: 2,304 KiB left; 2,368 skipped; 2,304 taken).
  constexpr std::uint64_t kKiB = 1024;
  requests.clear();
  for (int i = 0; i < 6; ++i) requests.push_back(wheel("big" + std::to_string(i) + ".whl", (200 + i) * kMiB));
  requests.push_back(wheel("a.whl", 26624 * kKiB));
  requests.push_back(wheel("b.whl", 20480 * kKiB));
  requests.push_back(wheel("c.whl", 18944 * kKiB));
  requests.push_back(wheel("d.whl", 18432 * kKiB));
  const auto again = pick_tails(requests);
  ASSERT_EQ(again.size(), 9U);
  total = 0;
  for (const auto& t : again) total += t.length;
  EXPECT_EQ(total, kTailsTotalMax);
  EXPECT_EQ(again[6].index, 6U);
  EXPECT_EQ(again[7].index, 7U);
  EXPECT_EQ(again[8].index, 9U);  // d.whl; c.whl's 2,368 KiB did not fit
  EXPECT_EQ(again[8].length, 2304 * kKiB);
}

}  // namespace
}  // namespace vwheel::plan::detail
