#pragma once
// Private to the plan component: the order downloads start in, which of them are unpacked while
// they arrive (fetch.cpp), and how much of their end is fetched first.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include "vwheel/http/client.hpp"

namespace vwheel::plan::detail {

/// The order in which `requests` start: largest first, those of unknown size last, else as given.
/// libcurl serves the transfers started first while later ones wait for their turn to connect (on
/// the 2-core VM, the last of torch's sixteen pinned wheels started 1.1 s into an install in the
/// plan's order, by name), and a large wheel unpacked as it arrives keeps the workers busy while
/// the small ones complete.
[[nodiscard]] std::vector<std::size_t> download_order(const std::vector<http::DownloadRequest>& requests);

/// Wheels from this size on are unpacked while they download. Below it, the request for the
/// tail costs about as much as the overlap saves.
inline constexpr std::uint64_t kArriveMin = std::uint64_t{16} << 20;
/// The first request for a wheel's end: the end-of-central-directory record and, for a wheel of
/// up to about a thousand members, its central directory and `.dist-info` too. A larger one's
/// tail then grows by what its central directory says it lacks (next_tail_step), instead of every
/// large wheel's last 4 MiB being fetched (and downloaded again) whatever it holds: on the 2-core
/// VM, the 4 MiB tails of a torch install's eight largest wheels took 0.19 s before any download
/// started (bench/install_torch_graph.sh).
inline constexpr std::uint64_t kFirstTail = std::uint64_t{256} << 10;
/// The first request for the end of a wheel whose size the index did not give (an HTML page has
/// no sizes: PyTorch's index, for one): the end-of-central-directory record, and a wheel of few
/// members' central directory and `.dist-info`; the tail grows by what they lack as any other's.
/// The answer gives the file's size (Content-Range); a wheel below kArriveMin is then downloaded
/// the ordinary way, having cost this request more.
inline constexpr std::uint64_t kProbeTail = std::uint64_t{64} << 10;
/// The most of one wheel's end fetched apart: a torch wheel's central directory (12,000 members)
/// and `.dist-info` take about 2 MB. What lies before is read from the download as it arrives.
inline constexpr std::uint64_t kTailMax = std::uint64_t{4} << 20;
/// All the tails of one run together (held in memory until the run ends): an index listing
/// hundreds of large wheels cannot make the tails grow without bound.
inline constexpr std::uint64_t kTailsTotalMax = std::uint64_t{32} << 20;

/// `url` is http: or https: (any case).
[[nodiscard]] bool is_http_url(std::string_view url);

struct TailRequest {
  std::size_t index = 0;     ///< into the requests
  std::uint64_t length = 0;  ///< the last bytes to fetch first: kFirstTail, or kProbeTail when the size is unknown
};

/// Whether `dest`, a wheel's file name, is tagged for any platform only (`...-any.whl`: pure
/// Python). Such wheels are rarely as large as kArriveMin; fetching the end of each whose size an
/// index did not give would cost every install from an HTML index a request per wheel.
[[nodiscard]] bool for_any_platform(const std::filesystem::path& dest);

/// The downloads that may be unpacked while they arrive: those with a sha256, over HTTP(S), of at
/// least kArriveMin bytes, or of unknown size (whose tail's answer tells) and not for_any_platform.
/// Those of known size first, largest first (they gain most), then those of unknown size, as many
/// as kTailsTotalMax holds first tails of.
[[nodiscard]] std::vector<TailRequest> pick_tails(const std::vector<http::DownloadRequest>& requests);

/// What a wheel's tail fetched so far lacks.
struct TailStep {
  bool usable = true;  ///< false: it is not the end of a zip; the wheel is read the ordinary way
  /// Fetch the file's bytes from here to where the tail starts: the rest of its central directory,
  /// or the `.dist-info` members before it (within kTailMax of the end). nullopt: nothing more.
  std::optional<std::uint64_t> more_from;
};

/// For a wheel of `size` bytes whose last bytes `tail` are at hand. Pure.
[[nodiscard]] TailStep next_tail_step(std::string_view tail, std::uint64_t size);

}  // namespace vwheel::plan::detail
