#pragma once
// The pieces of a progress line for big files: a smoothed transfer rate, an ETA, and the line a
// terminal shows for one file (downloading or unpacking). Pure functions and a small value type,
// so that the text is tested without a terminal or a clock; ProgressDisplay (http/client.hpp)
// draws them.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vwheel::http {

/// Bytes per second of one transfer, smoothed so that a bursty network or disk does not make the
/// ETA jump: the average since the start for the first `kWarmup`, then an exponential moving
/// average with a time constant of `kTimeConstant`, updated at most every `kMinInterval`.
class RateMeter {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kMinInterval{200};
  static constexpr std::chrono::milliseconds kWarmup{1000};
  static constexpr std::chrono::milliseconds kTimeConstant{3000};

  /// Records that `done` bytes (a running total, never decreasing) have been handled by `now`.
  /// The first call starts the clock.
  void record(std::uint64_t done, Clock::time_point now);
  /// Bytes per second, or nothing before there is a measurable interval.
  [[nodiscard]] std::optional<double> rate() const noexcept { return rate_; }

 private:
  bool started_ = false;
  Clock::time_point start_{};
  Clock::time_point last_{};
  std::uint64_t start_done_ = 0;
  std::uint64_t last_done_ = 0;
  std::optional<double> rate_;
};

/// "812 B/s", "3.4 MiB/s", "120 MiB/s" (format_size of one second's bytes, rounded down).
[[nodiscard]] std::string format_rate(double bytes_per_second);

/// Time left for `remaining` bytes at `bytes_per_second`: "0:07", "12:34", "1:02:03"; "--:--" when
/// the rate is unknown or zero, or the estimate is over 99 hours.
[[nodiscard]] std::string format_eta(std::uint64_t remaining, std::optional<double> bytes_per_second);

/// One terminal line for one file, without the line's erase/newline codes:
///   `NAME [######------] 12 MiB / 100 MiB  8.0 MiB/s  ETA 0:11`   (total known)
///   `NAME [????????????] 12 MiB  8.0 MiB/s`                        (total unknown: no ETA)
/// `verb`, when not empty, goes before the name ("Unpacking"). NAME is cut or padded to
/// `name_width` columns; the rate and ETA are left out until the rate is known.
[[nodiscard]] std::string format_progress_line(std::string_view verb, std::string_view name, std::size_t name_width,
                                               std::uint64_t done, std::optional<std::uint64_t> total,
                                               std::optional<double> bytes_per_second);

/// Unpacking progress of one wheel, for an installer that writes big members: `written` bytes of
/// the `total` uncompressed bytes of file `index` (the index given to ProgressDisplay). The
/// installer reports it through `InstallOptions::on_unpack(slot, written, total)` (install does
/// not depend on http); the caller that owns the display maps the slot to its row.
struct UnpackProgress {
  std::size_t index = 0;
  std::uint64_t written = 0;
  std::uint64_t total = 0;
};

}  // namespace vwheel::http
