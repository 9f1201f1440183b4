// ProgressDisplay: redrawn bars on a terminal (at most 10 redraws a second), plain lines otherwise.

#include <unistd.h>

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "vwheel/http/client.hpp"

namespace vwheel::http {

namespace {
constexpr std::size_t kMaxBars = 6;  // active downloads shown; the rest are counted in the summary
constexpr std::size_t kNameWidth = 40;
constexpr std::size_t kBarWidth = 24;

std::string fit(const std::string& s, std::size_t width) {
  if (s.size() <= width) return s + std::string(width - s.size(), ' ');
  return s.substr(0, width - 3) + "...";
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
  auto& item = items_[p.index];
  item.started = true;
  item.done = p.done;
  item.total = p.total;
  redraw(false);
}

void ProgressDisplay::done(std::size_t index, const Result<Downloaded>& result) {
  if (index >= items_.size() || items_[index].finished) return;
  auto& item = items_[index];
  item.finished = true;
  ++finished_count_;
  if (style_ == Style::lines && result) {
    fmt::print(out_, "Downloaded {} ({})\n", item.name, format_size(result->size));
    std::fflush(out_);
  }
  if (style_ == Style::bars) redraw(true);
}

void ProgressDisplay::finish() {
  if (style_ != Style::bars || drawn_lines_ == 0) return;
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
  std::uint64_t all_done = 0;
  for (const auto& item : items_) {
    all_done += item.finished ? std::max<std::uint64_t>(item.done, item.total.value_or(item.done)) : item.done;
  }
  for (const auto& item : items_) {
    if (lines == kMaxBars) break;
    if (!item.started || item.finished) continue;
    s += "\x1b[2K";
    s += fmt::format("{} {} {}{}\n", fit(item.name, kNameWidth), bar(item.done, item.total), format_size(item.done),
                     item.total ? " / " + format_size(*item.total) : std::string());
    ++lines;
  }
  s += "\x1b[2K";
  s += fmt::format("Downloaded {}/{} files, {}\n", finished_count_, items_.size(), format_size(all_done));
  ++lines;
  // Lines left over from a taller earlier frame are blanked, then the cursor returns below this frame.
  for (std::size_t i = lines; i < drawn_lines_; ++i) s += "\x1b[2K\n";
  if (drawn_lines_ > lines) s += fmt::format("\x1b[{}A", drawn_lines_ - lines);
  std::fputs(s.c_str(), out_);
  std::fflush(out_);
  drawn_lines_ = lines;
}

}  // namespace vwheel::http
