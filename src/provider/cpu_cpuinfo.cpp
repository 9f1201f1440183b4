#include "provider/cpu_cpuinfo.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <system_error>

#include <fmt/format.h>

namespace vwheel::provider::cpu {
namespace {

// Length of the valid UTF-8 sequence at `s[i]` (Python's strict decoder: no overlongs, no
// surrogates, nothing above U+10FFFF), or 0 when invalid. Stores the code point in `cp`.
std::size_t utf8_sequence(std::string_view s, std::size_t i, std::uint32_t& cp) noexcept {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned c0 = b(0);
  if (c0 < 0x80) {
    cp = c0;
    return 1;
  }
  std::size_t len = 0;
  unsigned lo = 0x80;
  unsigned hi = 0xBF;
  if (c0 >= 0xC2 && c0 <= 0xDF) {
    len = 2;
    cp = c0 & 0x1FU;
  } else if (c0 >= 0xE0 && c0 <= 0xEF) {
    len = 3;
    cp = c0 & 0x0FU;
    if (c0 == 0xE0) lo = 0xA0;
    if (c0 == 0xED) hi = 0x9F;
  } else if (c0 >= 0xF0 && c0 <= 0xF4) {
    len = 4;
    cp = c0 & 0x07U;
    if (c0 == 0xF0) lo = 0x90;
    if (c0 == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    const unsigned c = b(k);
    if (c < (k == 1 ? lo : 0x80U) || c > (k == 1 ? hi : 0xBFU)) return 0;
    cp = (cp << 6) | (c & 0x3FU);
  }
  return len;
}

bool is_valid_utf8(std::string_view s) noexcept {
  std::uint32_t cp = 0;
  for (std::size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence(s, i, cp);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

constexpr bool is_python_space(std::uint32_t cp) noexcept {
  return cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x1F) || cp == 0x85 ||
         cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
         cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

// Length in bytes of the whitespace character at `s[i]` (Python's str.isspace() set), or 0.
std::size_t space_at(std::string_view s, std::size_t i) noexcept {
  const auto c0 = static_cast<unsigned char>(s[i]);
  if (c0 < 0x80) return is_python_space(c0) ? 1 : 0;
  std::uint32_t cp = 0;
  const std::size_t n = utf8_sequence(s, i, cp);
  return n != 0 && is_python_space(cp) ? n : 0;
}

// Length of the whitespace character that ends `s`, or 0.
std::size_t space_before_end(std::string_view s) noexcept {
  for (std::size_t len = 1; len <= 3 && len <= s.size(); ++len) {
    if (space_at(s, s.size() - len) == len) return len;
  }
  return 0;
}

// End of the line starting at `pos` (index of its terminator, or text.size()) and the start of
// the next line.
std::pair<std::size_t, std::size_t> line_bounds(std::string_view text, std::size_t pos) noexcept {
  const std::size_t end = text.find_first_of("\r\n", pos);
  if (end == std::string_view::npos) return {text.size(), text.size()};
  const bool crlf = text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n';
  return {end, end + (crlf ? 2 : 1)};
}

}  // namespace

std::optional<std::string_view> CpuinfoBlock::get(std::string_view key) const noexcept {
  for (const auto& [k, v] : fields_) {
    if (k == key) return v;
  }
  return std::nullopt;
}

void CpuinfoBlock::set(std::string_view key, std::string_view value) {
  for (auto& [k, v] : fields_) {
    if (k == key) {
      v = value;  // a Python dict keeps the first position and the last value
      return;
    }
  }
  fields_.emplace_back(key, value);
}

std::string_view strip_words(std::string_view text) noexcept {
  while (!text.empty()) {
    const std::size_t n = space_at(text, 0);
    if (n == 0) break;
    text.remove_prefix(n);
  }
  while (const std::size_t n = space_before_end(text)) text.remove_suffix(n);
  return text;
}

std::vector<std::string_view> split_words(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < text.size()) {
    if (const std::size_t n = space_at(text, i)) {
      i += n;
      continue;
    }
    const std::size_t start = i;
    while (i < text.size() && space_at(text, i) == 0) ++i;
    words.push_back(text.substr(start, i - start));
  }
  return words;
}

std::optional<CpuinfoBlock> parse_cpuinfo_first_block(std::string_view text) {
  CpuinfoBlock block;
  bool first = true;
  for (std::size_t pos = 0; pos < text.size();) {
    const auto [end, next] = line_bounds(text, pos);
    const std::string_view line = text.substr(pos, end - pos);
    if (!is_valid_utf8(line)) return std::nullopt;
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      if (!first) break;
      block.set(strip_words(line), {});
    } else {
      block.set(strip_words(line.substr(0, colon)), strip_words(line.substr(colon + 1)));
    }
    first = false;
    pos = next;
  }
  return block;
}

bool FirstBlockScanner::feed(std::string_view buffer, bool at_eof) noexcept {
  while (pos_ < buffer.size()) {
    const std::size_t end = buffer.find_first_of("\r\n", pos_);
    if (end == std::string_view::npos) return false;  // unterminated line: need more
    if (buffer[end] == '\r' && end + 1 == buffer.size() && !at_eof) return false;  // \r or \r\n?
    const std::string_view line = buffer.substr(pos_, end - pos_);
    if (!first_line_ && line.find(':') == std::string_view::npos) return true;
    first_line_ = false;
    pos_ = line_bounds(buffer, pos_).second;
  }
  return false;
}

Result<std::string> read_cpuinfo_file(const std::string& path, std::size_t max_bytes) {
  errno = 0;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) {
    const int err = errno;
    return fail(fmt::format("cannot open {}: {}", path,
                            err != 0 ? std::error_code(err, std::generic_category()).message()
                                     : std::string("unknown error")));
  }
  std::string buffer;
  FirstBlockScanner scanner;
  constexpr std::size_t kChunk = 16 * 1024;
  while (buffer.size() < max_bytes) {
    const std::size_t old_size = buffer.size();
    const std::size_t want = std::min(kChunk, max_bytes - old_size);
    buffer.resize(old_size + want);
    errno = 0;
    const std::size_t got = std::fread(buffer.data() + old_size, 1, want, file.get());
    buffer.resize(old_size + got);
    if (got < want) {
      if (std::ferror(file.get()) != 0) {
        const int err = errno;
        return fail(fmt::format("cannot read {}: {}", path,
                                err != 0 ? std::error_code(err, std::generic_category()).message()
                                         : std::string("read error")));
      }
      break;  // end of file
    }
    if (scanner.feed(buffer, false)) break;
  }
  return buffer;
}

}  // namespace vwheel::provider::cpu
