#include "http/headers.hpp"

#include <charconv>
#include <utility>

#include "vwheel/core/text.hpp"

namespace vwheel::http::detail {

bool parse_u64(std::string_view s, std::uint64_t& out) {
  s = ascii_trim(s, is_space_or_tab);
  if (s.empty()) return false;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

std::optional<ContentRange> parse_content_range(std::string_view v) {
  v = ascii_trim(v, is_space_or_tab);
  if (!ascii_istarts_with(v, "bytes ")) return std::nullopt;
  v.remove_prefix(6);
  const auto dash = v.find('-');
  const auto slash = v.find('/');
  if (dash == std::string_view::npos || slash == std::string_view::npos || dash > slash) return std::nullopt;
  ContentRange r;
  if (!parse_u64(v.substr(0, dash), r.start) || !parse_u64(v.substr(dash + 1, slash - dash - 1), r.end) ||
      r.end < r.start) {
    return std::nullopt;
  }
  const auto total = ascii_trim(v.substr(slash + 1), is_space_or_tab);
  if (total != "*") {
    std::uint64_t t = 0;
    if (!parse_u64(total, t)) return std::nullopt;
    r.total = t;
  }
  return r;
}

void Headers::add_line(std::string_view line) {
  // curl hands each line with its CRLF; the value's own whitespace is OWS (space and tab).
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.remove_suffix(1);
  if (ascii_istarts_with(line, "HTTP/")) {
    reset();
    const auto sp = line.find(' ');
    if (sp == std::string_view::npos) return;
    auto rest = line.substr(sp + 1);
    const auto sp2 = rest.find(' ');
    std::uint64_t code = 0;
    if (parse_u64(rest.substr(0, sp2), code)) status = static_cast<long>(code);
    if (sp2 != std::string_view::npos) reason = std::string(ascii_trim(rest.substr(sp2 + 1), is_space_or_tab));
    return;
  }
  const auto colon = line.find(':');
  if (colon == std::string_view::npos) return;
  const auto name = line.substr(0, colon);
  const auto value = std::string(ascii_trim(line.substr(colon + 1), is_space_or_tab));
  static const std::pair<std::string_view, std::string Headers::*> kFields[] = {
      {"etag", &Headers::etag},
      {"last-modified", &Headers::last_modified},
      {"content-type", &Headers::content_type},
      {"content-range", &Headers::content_range},
      {"cache-control", &Headers::cache_control},
      {"retry-after", &Headers::retry_after},
      {"age", &Headers::age},
  };
  for (const auto& [field, member] : kFields) {
    if (ascii_iequals(name, field)) {
      this->*member = value;
      return;
    }
  }
}

std::string accept_of(const std::vector<std::string>& headers) {
  for (const auto& h : headers) {
    if (ascii_istarts_with(h, "accept:"))
      return std::string(ascii_trim(std::string_view(h).substr(7), is_space_or_tab));
  }
  return {};
}

}  // namespace vwheel::http::detail
