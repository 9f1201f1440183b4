// Text helpers of the lock component: message quoting, TOML date-times, hex digests.

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "lock/internal.hpp"
#include "vwheel/core/text.hpp"

namespace vwheel::lock::detail {

std::string backquoted(std::string_view s) {
  constexpr std::size_t kLimit = 80;
  std::string out = "`";
  std::size_t i = 0;
  for (; i < s.size() && out.size() < kLimit; ++i) {
    const auto uc = static_cast<unsigned char>(s[i]);
    if (uc >= 0x80U) {
      const std::size_t n = utf8_length(s, i);
      if (n == 0) {
        out += fmt::format("\\x{:02x}", static_cast<unsigned>(uc));
      } else {
        out.append(s.substr(i, n));
        i += n - 1;
      }
    } else if (uc < 0x20U || uc == 0x7FU) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned>(uc));
    } else {
      out.push_back(s[i]);
    }
  }
  if (i < s.size()) out += "...";
  out.push_back('`');
  return out;
}

std::string format_date_time(const toml::date_time& value) {
  std::string out = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", value.date.year, value.date.month,
                                value.date.day, value.time.hour, value.time.minute, value.time.second);
  if (value.time.nanosecond != 0) {
    std::string fraction = fmt::format("{:09}", value.time.nanosecond);
    while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
    out += '.';
    out += fraction;
  }
  if (value.offset) {
    const int minutes = value.offset->minutes;
    if (minutes == 0) {
      out += 'Z';
    } else {
      const int magnitude = minutes < 0 ? -minutes : minutes;
      out += fmt::format("{}{:02}:{:02}", minutes < 0 ? '-' : '+', magnitude / 60, magnitude % 60);
    }
  }
  return out;
}

std::optional<std::string> canonical_date_time(std::string_view text) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  for (const char c : text) {
    const bool ok = (c >= '0' && c <= '9') || c == '-' || c == ':' || c == '.' || c == 'T' || c == 't' || c == 'Z' ||
                    c == 'z' || c == '+' || c == ' ';
    if (!ok) return std::nullopt;
  }
  try {
    const toml::table doc = toml::parse(std::string("t = ") + std::string(text));
    if (doc.size() != 1) return std::nullopt;
    const auto* value = doc.get_as<toml::date_time>("t");
    if (value == nullptr) return std::nullopt;
    return format_date_time(value->get());
  } catch (const toml::parse_error&) {
    return std::nullopt;
  }
}

bool is_hex(std::string_view s) noexcept { return !s.empty() && std::all_of(s.begin(), s.end(), is_ascii_hex_digit); }

std::size_t hex_digest_length(std::string_view algorithm) noexcept {
  if (algorithm == "md5") return 32;
  if (algorithm == "sha1") return 40;
  if (algorithm == "sha224" || algorithm == "sha3_224") return 56;
  if (algorithm == "sha256" || algorithm == "sha3_256" || algorithm == "blake2s") return 64;
  if (algorithm == "sha384" || algorithm == "sha3_384") return 96;
  if (algorithm == "sha512" || algorithm == "sha3_512" || algorithm == "blake2b") return 128;
  return 0;
}

}  // namespace vwheel::lock::detail
