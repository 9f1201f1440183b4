// ProgressDisplay: redrawn bars on a terminal (at most 10 redraws a second), plain lines otherwise;
// and the rate, ETA and line formatting it draws with (http/progress.hpp).

#include "vwheel/http/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "vwheel/http/client.hpp"

namespace vwheel::http {

namespace {
constexpr std::size_t kMaxBars = 6;  // active downloads shown; the rest are counted in the summary
constexpr std::size_t kNameWidth = 40;
constexpr std::size_t kBarWidth = 24;

std::string fit(std::string_view s, std::size_t width) {
  if (s.size() <= width) return std::string(s) + std::string(width - s.size(), ' ');
  return std::string(s.substr(0, width - 3)) + "...";
}

std::string bar(std::uint64_t done, std::optional<std::uint64_t> total) {
  std::string out = "[";
  if (total && *total > 0) {
    const auto filled = static_cast<std::size_t>(std::min<std::uint64_t>(done, *total) * kBarWidth / *total);
    out += std::string(filled, '#');
    out += std::string(kBarWidth - filled, '-');
  } else {
    out += std::string(kBarWidth, '?');
  }
  return out + "]";
}
}  // namespace

std::string format_size(std::uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes) / 1024.0;
  std::size_t u = 0;
  while (v >= 1024.0 && u + 1 < std::size(units)) {
    v /= 1024.0;
    ++u;
  }
  return v < 10 ? fmt::format("{:.1f} {}", v, units[u]) : fmt::format("{:.0f} {}", v, units[u]);
}

void RateMeter::record(std::uint64_t done, Clock::time_point now) {
  if (!started_) {
    started_ = true;
    start_ = last_ = now;
    start_done_ = last_done_ = done;
    return;
  }
  const auto since_last = now - last_;
  if (since_last < kMinInterval) return;
  const double dt = std::chrono::duration<double>(since_last).count();
  const double instant = static_cast<double>(done - std::min(done, last_done_)) / dt;
  if (now - start_ <= kWarmup || !rate_) {
    // Too few samples to smooth: the average since the start.
    const double total_dt = std::chrono::duration<double>(now - start_).count();
    rate_ = static_cast<double>(done - std::min(done, start_done_)) / total_dt;
  } else {
    // An exponential moving average whose weight follows the interval, so that irregular updates
    // (libcurl's callback, one member at a time) smooth the same as regular ones: dt / (dt + tau),
    // the first-order form of 1 - exp(-dt / tau), which keeps libm out of the process (one shared
    // library less to load at every start; exp was its only function vwheel used).
    const double tau = std::chrono::duration<double>(kTimeConstant).count();
    const double alpha = dt / (dt + tau);
    rate_ = *rate_ + alpha * (instant - *rate_);
  }
  last_ = now;
  last_done_ = done;
}

std::string format_rate(double bytes_per_second) {
  const double clamped = std::max(0.0, bytes_per_second);
  const auto whole = clamped >= 1.8e19 ? std::uint64_t{UINT64_MAX} : static_cast<std::uint64_t>(clamped);
  return format_size(whole) + "/s";
}

std::string format_eta(std::uint64_t remaining, std::optional<double> bytes_per_second) {
  constexpr double kMaxSeconds = 99.0 * 3600.0;
  if (!bytes_per_second || !(*bytes_per_second > 0.0)) return "--:--";
  const double seconds = std::ceil(static_cast<double>(remaining) / *bytes_per_second);
  if (!(seconds <= kMaxSeconds)) return "--:--";
  const auto s = static_cast<std::uint64_t>(seconds);
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

std::string format_progress_line(std::string_view verb, std::string_view name, std::size_t name_width,
                                 std::uint64_t done, std::optional<std::uint64_t> total,
                                 std::optional<double> bytes_per_second) {
  std::string out;
  if (!verb.empty()) {
    out += verb;
    out += ' ';
  }
  out += fmt::format("{} {} {}", fit(name, name_width), bar(done, total), format_size(done));
  if (total) out += " / " + format_size(*total);
  if (bytes_per_second) {
    out += "  " + format_rate(*bytes_per_second);
    if (total) out += "  ETA " + format_eta(*total - std::min(done, *total), bytes_per_second);
  }
  return out;
}

ProgressDisplay::ProgressDisplay(std::vector<std::string> names, Style style, std::FILE* out)
    : style_(style), out_(out) {
  items_.reserve(names.size());
  for (auto& n : names) {
    Item item;
    item.name = std::move(n);
    items_.push_back(std::move(item));
  }
  if (style_ == Style::automatic) {
    style_ = (out_ != nullptr && ::isatty(::fileno(out_)) != 0) ? Style::bars : Style::lines;
  }
  if (out_ == nullptr) style_ = Style::quiet;
}

ProgressDisplay::~ProgressDisplay() { finish(); }

void ProgressDisplay::update(const Progress& p) {
  if (style_ != Style::bars || p.index >= items_.size()) return;
  std::lock_guard lock(mutex_);
  auto& item = items_[p.index];
  item.started = true;
  item.done = p.done;
  item.total = p.total;
  const auto now = std::chrono::steady_clock::now();
  item.rate.record(p.done, now);
  all_rate_.record(downloaded_bytes(), now);
  redraw(false);
}

ProgressDisplay::Style ProgressDisplay::style_for(bool quiet) {
  if (quiet) return Style::quiet;
  const char* forced = std::getenv("VWHEEL_PROGRESS");
  const std::string_view value = forced != nullptr ? forced : "";
  if (value == "bars") return Style::bars;
  if (value == "lines") return Style::lines;
  return Style::automatic;
}

void ProgressDisplay::unpack_update(const UnpackProgress& p) {
  if (style_ != Style::bars || p.index >= items_.size()) return;
  std::lock_guard lock(mutex_);
  auto& item = items_[p.index];
  const bool first = !item.unpacking;
  item.unpacking = true;
  item.written = p.written;
  item.uncompressed = p.total;
  item.unpack_rate.record(p.written, std::chrono::steady_clock::now());
  redraw(first);  // a new bar shows at once; updates of it at most 10 times a second
}

void ProgressDisplay::unpack_done(std::size_t index) {
  if (style_ != Style::bars || index >= items_.size()) return;
  std::lock_guard lock(mutex_);
  if (!items_[index].unpacking) return;
  items_[index].unpacking = false;
  redraw(true);
}

void ProgressDisplay::not_downloaded(std::size_t index) {
  if (index >= items_.size()) return;
  std::lock_guard lock(mutex_);
  if (items_[index].local || items_[index].finished) return;
  items_[index].local = true;
  ++local_count_;
}

std::uint64_t ProgressDisplay::downloaded_bytes() const {
  std::uint64_t all = 0;
  for (const auto& item : items_) {
    all += item.finished ? std::max<std::uint64_t>(item.done, item.total.value_or(item.done)) : item.done;
  }
  return all;
}

void ProgressDisplay::done(std::size_t index, const Result<Downloaded>& result) {
  if (index >= items_.size()) return;
  std::lock_guard lock(mutex_);
  if (items_[index].finished || items_[index].local) return;
  auto& item = items_[index];
  item.finished = true;
  ++finished_count_;
  if (result) item.done = std::max(item.done, result->size);  // no update() may have come
  if (style_ == Style::lines && result) {
    fmt::print(out_, "Downloaded {} ({})\n", item.name, format_size(result->size));
    std::fflush(out_);
  }
  if (style_ == Style::bars) redraw(true);
}

void ProgressDisplay::finish() {
  if (style_ != Style::bars) return;
  std::lock_guard lock(mutex_);
  finish_locked();
}

void ProgressDisplay::finish_locked() {
  if (drawn_lines_ == 0) return;
  std::string s = fmt::format("\x1b[{}A", drawn_lines_);
  for (std::size_t i = 0; i < drawn_lines_; ++i) s += "\x1b[2K\n";
  s += fmt::format("\x1b[{}A", drawn_lines_);
  std::fputs(s.c_str(), out_);
  std::fflush(out_);
  drawn_lines_ = 0;
}

void ProgressDisplay::redraw(bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!force && drawn_lines_ > 0 && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  std::string s;
  if (drawn_lines_ > 0) s += fmt::format("\x1b[{}A", drawn_lines_);
  std::size_t lines = 0;
  const std::uint64_t all_done = downloaded_bytes();
  for (const auto& item : items_) {
    if (lines == kMaxBars) break;
    if (item.unpacking) {
      s += "\x1b[2K";
      s += format_progress_line("Unpacking", item.name, kNameWidth, item.written, item.uncompressed,
                                item.unpack_rate.rate());
      s += '\n';
      ++lines;
      continue;
    }
    if (!item.started || item.finished) continue;
    s += "\x1b[2K";
    s += format_progress_line("", item.name, kNameWidth, item.done, item.total, item.rate.rate());
    s += '\n';
    ++lines;
  }
  // Files on disk already (unpacked only) are not part of the download summary.
  const std::size_t downloads = items_.size() - local_count_;
  if (downloads > 0) {
    s += "\x1b[2K";
    s += fmt::format("Downloaded {}/{} files, {}", finished_count_, downloads, format_size(all_done));
    if (finished_count_ < downloads && all_rate_.rate()) s += ", " + format_rate(*all_rate_.rate());
    s += '\n';
    ++lines;
  }
  // Lines left over from a taller earlier frame are blanked, then the cursor returns below this frame.
  for (std::size_t i = lines; i < drawn_lines_; ++i) s += "\x1b[2K\n";
  if (drawn_lines_ > lines) s += fmt::format("\x1b[{}A", drawn_lines_ - lines);
  std::fputs(s.c_str(), out_);
  std::fflush(out_);
  drawn_lines_ = lines;
}

}  // namespace vwheel::http
