// TOML text helpers of the lock component.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "lock/internal.hpp"

namespace vwheel::lock::detail {
namespace {

// Length of the valid UTF-8 sequence at s[i] (1..4), or 0 when the bytes there are not one
// (overlong forms, surrogates and code points above U+10FFFF are invalid).
std::size_t utf8_sequence_length(std::string_view s, std::size_t i) noexcept {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80U) return 1;
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if ((b0 & 0xE0U) == 0xC0U) {
    n = 2;
    cp = b0 & 0x1FU;
  } else if ((b0 & 0xF0U) == 0xE0U) {
    n = 3;
    cp = b0 & 0x0FU;
  } else if ((b0 & 0xF8U) == 0xF0U) {
    n = 4;
    cp = b0 & 0x07U;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0U) != 0x80U) return 0;
    cp = (cp << 6U) | (byte(i + k) & 0x3FU);
  }
  static constexpr std::array<std::uint32_t, 5> kMin{0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFFU || (cp >= 0xD800U && cp <= 0xDFFFU)) return 0;
  return n;
}

}  // namespace

void append_toml_string(std::string& out, std::string_view s) {
  out.push_back('"');
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    const auto uc = static_cast<unsigned char>(c);
    if (uc >= 0x80U) {
      const std::size_t n = utf8_sequence_length(s, i);
      if (n == 0) {
        out += "\\uFFFD";
        ++i;
      } else {
        out.append(s.substr(i, n));
        i += n;
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (uc < 0x20U || uc == 0x7FU) {
          out += fmt::format("\\u{:04X}", static_cast<unsigned>(uc));
        } else {
          out.push_back(c);
        }
    }
    ++i;
  }
  out.push_back('"');
}

std::string toml_string(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  append_toml_string(out, s);
  return out;
}

std::string toml_key(std::string_view key) {
  bool bare = !key.empty();
  for (const char c : key) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) {
      bare = false;
      break;
    }
  }
  return bare ? std::string(key) : toml_string(key);
}

std::string backquoted(std::string_view s) {
  constexpr std::size_t kLimit = 80;
  std::string out = "`";
  std::size_t i = 0;
  for (; i < s.size() && out.size() < kLimit; ++i) {
    const auto uc = static_cast<unsigned char>(s[i]);
    if (uc >= 0x80U) {
      const std::size_t n = utf8_sequence_length(s, i);
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

bool is_hex(std::string_view s) noexcept {
  if (s.empty()) return false;
  for (const char c : s) {
    const bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    if (!ok) return false;
  }
  return true;
}

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
