#include "provider/cpu_cpuinfo.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <system_error>

#include <fmt/format.h>

#include "vwheel/core/text.hpp"

namespace vwheel::provider::cpu {
namespace {

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

std::vector<std::string_view> split_words(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < text.size()) {
    if (const std::size_t n = python_space_length(text, i)) {
      i += n;
      continue;
    }
    const std::size_t start = i;
    while (i < text.size() && python_space_length(text, i) == 0) ++i;
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
      block.set(python_strip(line), {});
    } else {
      block.set(python_strip(line.substr(0, colon)), python_strip(line.substr(colon + 1)));
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
