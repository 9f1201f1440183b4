#include "vwheel/core/text.hpp"

#include <optional>

#include <fmt/format.h>

namespace vwheel {

std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if ((c < 0x20 && c != '\t') || c == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4U];
      out += kHex[c & 0xfU];
    } else {
      out += ch;
    }
  }
  return out;
}

std::string_view utf8_prefix(std::string_view text, std::size_t max) noexcept {
  if (text.size() <= max) return text;
  while (max > 0 && (static_cast<unsigned char>(text[max]) & 0xC0) == 0x80) --max;  // a continuation byte
  return text.substr(0, max);
}

std::string excerpt(std::string_view text, std::size_t max) {
  if (text.size() <= max) return printable(text);
  return printable(utf8_prefix(text, max)) + "...";
}

std::string percent_encode(std::string_view text, std::string_view keep) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    const bool unreserved = is_ascii_alnum(ch) || ch == '-' || ch == '.' || ch == '_' || ch == '~';
    if (unreserved || (c < 0x80 && keep.find(ch) != std::string_view::npos)) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4U];
      out += kHex[c & 0xFU];
    }
  }
  return out;
}

std::size_t utf8_decode(std::string_view text, std::size_t i, char32_t& cp) noexcept {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned c0 = byte(0);
  if (c0 < 0x80U) {
    cp = c0;
    return 1;
  }
  // The second byte's range excludes overlong forms (E0, F0), surrogates (ED) and code points
  // above U+10FFFF (F4) up front, as RFC 3629's table does; later bytes are 0x80-0xBF.
  std::size_t len = 0;
  unsigned lo = 0x80U;
  unsigned hi = 0xBFU;
  if (c0 >= 0xC2U && c0 <= 0xDFU) {
    len = 2;
    cp = c0 & 0x1FU;
  } else if (c0 >= 0xE0U && c0 <= 0xEFU) {
    len = 3;
    cp = c0 & 0x0FU;
    if (c0 == 0xE0U) lo = 0xA0U;
    if (c0 == 0xEDU) hi = 0x9FU;
  } else if (c0 >= 0xF0U && c0 <= 0xF4U) {
    len = 4;
    cp = c0 & 0x07U;
    if (c0 == 0xF0U) lo = 0x90U;
    if (c0 == 0xF4U) hi = 0x8FU;
  } else {
    return 0;
  }
  if (len > text.size() - i) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    const unsigned c = byte(k);
    if (c < (k == 1 ? lo : 0x80U) || c > (k == 1 ? hi : 0xBFU)) return 0;
    cp = (cp << 6U) | (c & 0x3FU);
  }
  return len;
}

std::size_t utf8_length(std::string_view text, std::size_t i) noexcept {
  char32_t cp = 0;
  return utf8_decode(text, i, cp);
}

bool is_valid_utf8(std::string_view text) noexcept {
  for (std::size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80U) {
      ++i;
      continue;
    }
    const std::size_t n = utf8_length(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::size_t append_utf8_or_replacement(std::string& out, std::string_view text, std::size_t i) {
  const std::size_t n = utf8_length(text, i);
  if (n == 0) {
    out += kUtf8Replacement;
    return 1;
  }
  out.append(text, i, n);
  return n;
}

std::string to_valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) i += append_utf8_or_replacement(out, text, i);
  return out;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp > 0x10FFFFU || (cp >= 0xD800U && cp <= 0xDFFFU)) cp = 0xFFFDU;
  if (cp < 0x80U) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800U) {
    out += static_cast<char>(0xC0U | (cp >> 6U));
    out += static_cast<char>(0x80U | (cp & 0x3FU));
  } else if (cp < 0x10000U) {
    out += static_cast<char>(0xE0U | (cp >> 12U));
    out += static_cast<char>(0x80U | ((cp >> 6U) & 0x3FU));
    out += static_cast<char>(0x80U | (cp & 0x3FU));
  } else {
    out += static_cast<char>(0xF0U | (cp >> 18U));
    out += static_cast<char>(0x80U | ((cp >> 12U) & 0x3FU));
    out += static_cast<char>(0x80U | ((cp >> 6U) & 0x3FU));
    out += static_cast<char>(0x80U | (cp & 0x3FU));
  }
}

std::size_t python_space_length(std::string_view text, std::size_t i) noexcept {
  char32_t cp = 0;
  const std::size_t n = utf8_decode(text, i, cp);
  return n != 0 && is_python_space(cp) ? n : 0;
}

std::size_t trailing_python_space_length(std::string_view text) noexcept {
  // Every Python space is at most 3 bytes long; try the shortest tail first.
  for (std::size_t len = 1; len <= 3 && len <= text.size(); ++len) {
    if (python_space_length(text, text.size() - len) == len) return len;
  }
  return 0;
}

std::string json_pointer_token(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (const char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string_view python_strip(std::string_view text) noexcept {
  while (!text.empty()) {
    const std::size_t n = python_space_length(text, 0);
    if (n == 0) break;
    text.remove_prefix(n);
  }
  while (const std::size_t n = trailing_python_space_length(text)) text.remove_suffix(n);
  return text;
}

void append_toml_string(std::string& out, std::string_view text) {
  out.reserve(out.size() + text.size() + 2);
  out.push_back('"');
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    const auto uc = static_cast<unsigned char>(c);
    if (uc >= 0x80U) {
      const std::size_t n = utf8_length(text, i);
      if (n == 0) {
        out += "\\uFFFD";
        ++i;
      } else {
        out.append(text.substr(i, n));
        i += n;
      }
      continue;
    }
    constexpr std::string_view kSpecial = "\"\\\b\t\n\f\r";
    constexpr std::string_view kEscape = "\"\\btnfr";
    if (const auto k = kSpecial.find(c); k != std::string_view::npos) {
      out += '\\';
      out += kEscape[k];
    } else if (uc < 0x20U || uc == 0x7FU) {
      out += fmt::format("\\u{:04X}", static_cast<unsigned>(uc));
    } else {
      out.push_back(c);
    }
    ++i;
  }
  out.push_back('"');
}

std::string toml_string(std::string_view text) {
  std::string out;
  append_toml_string(out, text);
  return out;
}

std::string toml_key(std::string_view key) {
  bool bare = !key.empty();
  for (const char c : key) {
    if (!is_ascii_alnum(c) && c != '_' && c != '-') {
      bare = false;
      break;
    }
  }
  return bare ? std::string(key) : toml_string(key);
}

namespace {

/// The authority of one URL in a text: [begin, end), and the `@` that ends its userinfo
/// (npos when it has none).
struct Authority {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t at = std::string_view::npos;
};

/// What ends an authority: the start of a path, query or fragment, and what ends a URL quoted in
/// a message (whitespace, control characters, quotes, backtick, angle brackets).
constexpr bool ends_authority(char c) noexcept {
  return c == '/' || c == '?' || c == '#' || c == '"' || c == '\'' || c == '`' || c == '<' || c == '>' ||
         static_cast<unsigned char>(c) <= 0x20 || c == '\x7f';
}

constexpr bool is_scheme_char(char c) noexcept { return is_ascii_alnum(c) || c == '+' || c == '-' || c == '.'; }

/// The authority of the next `scheme://` in `text` at or after `from`; nullopt when there is none.
std::optional<Authority> next_authority(std::string_view text, std::size_t from) noexcept {
  while (true) {
    const auto sep = text.find("://", from);
    if (sep == std::string_view::npos) return std::nullopt;
    std::size_t start = sep;
    while (start > 0 && is_scheme_char(text[start - 1])) --start;
    while (start < sep && !is_ascii_alpha(text[start])) ++start;  // a scheme starts with a letter
    from = sep + 3;
    if (start == sep) continue;
    Authority a;
    a.begin = from;
    a.end = a.begin;
    while (a.end < text.size() && !ends_authority(text[a.end])) ++a.end;
    // The last `@`: a password may hold one unencoded, a host never does.
    if (const auto at = text.substr(a.begin, a.end - a.begin).rfind('@'); at != std::string_view::npos) {
      a.at = a.begin + at;
    }
    return a;
  }
}

}  // namespace

std::string redact_url(std::string_view text) {
  std::string out;
  std::size_t done = 0;
  for (auto a = next_authority(text, 0); a; a = next_authority(text, a->end)) {
    if (a->at == std::string_view::npos || a->at == a->begin) continue;  // no userinfo: nothing secret
    out.append(text.substr(done, a->begin - done));
    const auto userinfo = text.substr(a->begin, a->at - a->begin);
    if (const auto colon = userinfo.find(':'); colon != std::string_view::npos) out.append(userinfo.substr(0, colon + 1));
    out.append("****");
    done = a->at;
  }
  out.append(text.substr(done));
  return out;
}

std::string url_without_userinfo(std::string_view url) {
  const auto a = next_authority(url, 0);
  if (!a || a->at == std::string_view::npos) return std::string(url);
  std::string out(url.substr(0, a->begin));
  out.append(url.substr(a->at + 1));
  return out;
}

std::string_view url_userinfo(std::string_view url) noexcept {
  const auto a = next_authority(url, 0);
  if (!a || a->at == std::string_view::npos) return {};
  return url.substr(a->begin, a->at - a->begin);
}

}  // namespace vwheel
