#pragma once
// Private to the plan component: which downloads are unpacked while they arrive (fetch.cpp), and
// how many of their last bytes are fetched first.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vwheel/http/client.hpp"

namespace vwheel::plan::detail {

/// Wheels from this size on are unpacked while they download. Below it, the request for the
/// tail costs about as much as the overlap saves.
inline constexpr std::uint64_t kArriveMin = std::uint64_t{16} << 20;
/// The tail fetched apart: a torch wheel's central directory (12,000 members) and RECORD take about
/// 2 MB; an eighth of a smaller wheel keeps the bytes fetched twice few.
inline constexpr std::uint64_t kTailMax = std::uint64_t{4} << 20;
/// All the tails of one run together (held in memory until the run ends): a torch install with its
/// fifteen nvidia wheels stays within it, and an index listing hundreds of large wheels cannot make
/// the tails grow without bound.
inline constexpr std::uint64_t kTailsTotalMax = std::uint64_t{32} << 20;

struct TailRequest {
  std::size_t index = 0;     ///< into the requests
  std::uint64_t length = 0;  ///< the last bytes to fetch first: min(size / 8, kTailMax)
};

/// The downloads to unpack while they arrive: at least kArriveMin bytes, with a known size and
/// sha256, over HTTP(S). Largest first (they gain most), each while its tail fits what is left of
/// kTailsTotalMax.
[[nodiscard]] std::vector<TailRequest> pick_tails(const std::vector<http::DownloadRequest>& requests);

}  // namespace vwheel::plan::detail
