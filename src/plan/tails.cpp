// The order downloads start in, which large ones are unpacked while they arrive, and how far
// their tail fetched apart reaches (tails.hpp).

#include "tails.hpp"

#include <algorithm>
#include <numeric>

#include "vwheel/core/text.hpp"
#include "vwheel/wheel_name/wheel_name.hpp"
#include "vwheel/zip/zip.hpp"

namespace vwheel::plan::detail {

bool is_http_url(std::string_view url) {
  return ascii_istarts_with(url, "http://") || ascii_istarts_with(url, "https://");
}

namespace {

/// A member of a `.dist-info` directory at the top of the wheel: what the installer reads first.
bool in_dist_info(std::string_view name) {
  const auto slash = name.find('/');
  return slash != std::string_view::npos && name.substr(0, slash).ends_with(".dist-info");
}

}  // namespace

std::vector<std::size_t> download_order(const std::vector<http::DownloadRequest>& requests) {
  std::vector<std::size_t> order(requests.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return requests[a].size.value_or(0) > requests[b].size.value_or(0);
  });
  return order;
}

bool for_any_platform(const std::filesystem::path& dest) {
  const auto name = wheel_name::parse_wheel_name(dest.filename().string());
  return name && std::ranges::all_of(name->platform_tags(), [](const std::string& tag) { return tag == "any"; });
}

std::vector<TailRequest> pick_tails(const std::vector<http::DownloadRequest>& requests) {
  // In the order the downloads start (largest first, unknown sizes last), which is also the order
  // of their gain: the budget goes to the largest wheels first (a first tail is at most an eighth
  // of a wheel of known size picked).
  static_assert(kArriveMin / 8 >= kFirstTail && kProbeTail <= kFirstTail);
  std::vector<TailRequest> out;
  std::uint64_t total = 0;
  for (const auto k : download_order(requests)) {
    const auto& q = requests[k];
    if (!q.sha256 || !is_http_url(q.url) || (q.size && *q.size < kArriveMin)) continue;
    if (!q.size && for_any_platform(q.dest)) continue;
    const auto length = q.size ? kFirstTail : kProbeTail;
    if (total + length > kTailsTotalMax) continue;
    total += length;
    out.push_back({k, length});
  }
  return out;
}

TailStep next_tail_step(std::string_view tail, std::uint64_t size) {
  const auto needs = zip::tail_needs(tail, size, in_dist_info);
  if (!needs || tail.size() > size) return {false, std::nullopt};
  const std::uint64_t start = size - tail.size();
  const std::uint64_t floor = size > kTailMax ? size - kTailMax : 0;
  // `.dist-info` members further back than kTailMax arrive with the download; the central
  // directory is wanted all the same (open_arriving reads it first), up to kTailMax.
  const std::uint64_t from = needs->wanted >= floor ? needs->wanted : std::max(needs->central_directory, floor);
  if (from >= start) return {true, std::nullopt};
  return {true, from};
}

}  // namespace vwheel::plan::detail
