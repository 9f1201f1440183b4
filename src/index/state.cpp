#include "index/state.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "index/text.hpp"
#include "vwheel/core/text.hpp"

namespace vwheel::index::detail {
namespace {

bool is_hex64(std::string_view s) {
  return s.size() == 64 &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// A cursor over JSON text: exactly what the state needs (objects, arrays, strings, integers,
// null), plus skipping any other value.
class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  [[nodiscard]] bool failed() const noexcept { return !error_.empty(); }
  [[nodiscard]] const std::string& error() const noexcept { return error_; }
  void fail_with(std::string message) {
    if (error_.empty()) error_ = fmt::format("{} at offset {}", message, pos_);
  }

  // Consumes `c` (after whitespace) or fails.
  bool expect(char c) {
    if (peek() == c) {
      ++pos_;
      return true;
    }
    fail_with(fmt::format("expected `{}`", c));
    return false;
  }
  // Consumes `c` when it comes next.
  bool accept(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  char peek() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' || text_[pos_] == '\t')) {
      ++pos_;
    }
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  // Iterates the elements of an array (or the members of an object after reading their key):
  // call `more(']')` before each element.
  bool more(char close, bool& first) {
    if (failed()) return false;
    if (accept(close)) return false;
    if (!first && !expect(',')) return false;
    first = false;
    return true;
  }

  std::string string() {
    std::string out;
    if (!expect('"')) return out;
    while (pos_ < text_.size()) {
      // The run up to the next quote, backslash or control character, in one append.
      std::size_t end = pos_;
      while (end < text_.size() && text_[end] != '"' && text_[end] != '\\' &&
             static_cast<unsigned char>(text_[end]) >= 0x20) {
        ++end;
      }
      out.append(text_, pos_, end - pos_);
      pos_ = end;
      if (pos_ >= text_.size()) break;
      const char c = text_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) break;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) break;
      const char e = text_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          std::uint32_t cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && text_.substr(pos_, 2) == "\\u") {
            pos_ += 2;
            const std::uint32_t low = hex4();
            cp = 0x10000 + ((cp - 0xD800) << 10U) + (low - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default:
          fail_with("bad escape");
          return out;
      }
    }
    fail_with("unterminated string");
    return out;
  }

  std::optional<std::string> string_or_null() {
    if (peek() == 'n') {
      literal("null");
      return std::nullopt;
    }
    return string();
  }

  template <class Int>
  Int integer() {
    peek();
    Int value{};
    const auto [end, ec] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), value);
    if (ec != std::errc()) {
      fail_with("expected an integer");
      return value;
    }
    pos_ = static_cast<std::size_t>(end - text_.data());
    return value;
  }

  void skip_value() {
    const char c = peek();
    if (c == '"') {
      string();
    } else if (c == '{' || c == '[') {
      ++pos_;
      const char close = c == '{' ? '}' : ']';
      bool first = true;
      while (more(close, first)) {
        if (close == '}') {
          string();
          expect(':');
        }
        skip_value();
      }
    } else if (c == 't') {
      literal("true");
    } else if (c == 'f') {
      literal("false");
    } else if (c == 'n') {
      literal("null");
    } else {
      const std::size_t start = pos_;
      while (pos_ < text_.size() && std::string_view("+-.eE0123456789").find(text_[pos_]) != std::string_view::npos)
        ++pos_;
      if (pos_ == start) fail_with("expected a value");
    }
  }

  void end() {
    if (peek() != '\0') fail_with("trailing characters");
  }

 private:
  void literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) == word) {
      pos_ += word.size();
    } else {
      fail_with(fmt::format("expected `{}`", word));
    }
  }

  std::uint32_t hex4() {
    std::uint32_t v = 0;
    if (pos_ + 4 > text_.size()) {
      fail_with("bad \\u escape");
      return 0;
    }
    for (int i = 0; i < 4; ++i) {
      const int d = hex_digit_value(text_[pos_++]);
      if (d < 0) fail_with("bad \\u escape");
      v = (v << 4U) | static_cast<std::uint32_t>(d < 0 ? 0 : d);
    }
    return v;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  std::string error_;
};

// Reads `[e1, e2, ...]`, calling `element()` for each.
template <class Fn>
void read_array(Reader& r, Fn&& element) {
  if (!r.expect('[')) return;
  bool first = true;
  while (r.more(']', first)) element();
}

// `["name", "project", size, mtime_ns, inode, device, "sha256", site_inode, "metadata_sha256"|null,
//   metadata_size, "requires_python"|null]`
void read_file_entry(Reader& r, State& state) {
  if (!r.expect('[')) return;
  const auto next = [&] { return r.expect(','); };
  std::string name = r.string();
  FileState f;
  if (next()) f.project = r.string();
  if (next()) f.stat.size = r.integer<std::uint64_t>();
  if (next()) f.stat.mtime_ns = r.integer<std::int64_t>();
  if (next()) f.stat.inode = r.integer<std::uint64_t>();
  if (next()) f.stat.device = r.integer<std::uint64_t>();
  if (next()) f.sha256 = r.string();
  if (next()) f.site_inode = r.integer<std::uint64_t>();
  if (next()) f.metadata_sha256 = r.string_or_null();
  if (next()) f.metadata_size = r.integer<std::uint64_t>();
  if (next()) f.requires_python = r.string_or_null();
  r.expect(']');
  if (r.failed()) return;
  if (!is_safe_filename(name)) return r.fail_with(fmt::format("file `{}`: not a plain file name", name));
  if (!is_safe_project(f.project)) return r.fail_with(fmt::format("file `{}`: bad project `{}`", name, f.project));
  if (!is_hex64(f.sha256) || (f.metadata_sha256 && !is_hex64(*f.metadata_sha256))) {
    return r.fail_with(fmt::format("file `{}`: bad sha256", name));
  }
  state.files.emplace(std::move(name), std::move(f));
}

// `["name", "project", "inputs", "sha256", size]`
void read_variants_entry(Reader& r, State& state) {
  if (!r.expect('[')) return;
  std::string name = r.string();
  VariantsState v;
  if (r.expect(',')) v.project = r.string();
  if (r.expect(',')) v.inputs = r.string();
  if (r.expect(',')) v.sha256 = r.string();
  if (r.expect(',')) v.size = r.integer<std::uint64_t>();
  r.expect(']');
  if (r.failed()) return;
  if (!is_safe_filename(name) || !is_safe_project(v.project)) {
    return r.fail_with(fmt::format("variants file `{}`: bad name or project", name));
  }
  state.variants.emplace(std::move(name), std::move(v));
}

// `["project", "hash"]`
void read_page_entry(Reader& r, State& state) {
  if (!r.expect('[')) return;
  std::string project = r.string();
  std::string hash;
  if (r.expect(',')) hash = r.string();
  r.expect(']');
  if (r.failed()) return;
  if (!is_safe_project(project)) return r.fail_with(fmt::format("page `{}`: bad project", project));
  state.pages.emplace(std::move(project), std::move(hash));
}

void append_uint(std::string& out, std::uint64_t v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}
void append_int(std::string& out, std::int64_t v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}
void append_optional(std::string& out, const std::optional<std::string>& v) {
  if (v) {
    append_json_string(out, *v);
  } else {
    out += "null";
  }
}

}  // namespace

bool is_safe_project(std::string_view name) noexcept {
  if (name.empty() || name.front() == '-' || name.back() == '-') return false;
  char prev = 0;
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    if (!ok || (c == '-' && prev == '-')) return false;
    prev = c;
  }
  return true;
}

bool is_safe_filename(std::string_view name) noexcept {
  if (name.empty() || name.front() == '.') return false;  // hidden, `.`, `..`, and our temporary files
  return name.find_first_of(std::string_view("/\\\0", 3)) == std::string_view::npos;
}

Result<State> parse_state(std::string_view text) {
  Reader r(text);
  State state;
  int format = 0;
  if (!r.expect('{')) return fail(r.error());
  bool first = true;
  while (r.more('}', first)) {
    const std::string key = r.string();
    if (!r.expect(':')) break;
    if (key == "format") {
      format = r.integer<int>();
      if (!r.failed() && format != kStateFormat) return fail(fmt::format("not format {}", kStateFormat));
    } else if (key == "base_url") {
      state.base_url = r.string();
    } else if (key == "yanked_sha256") {
      state.yanked_sha256 = r.string();
    } else if (key == "root") {
      state.root = r.string();
    } else if (key == "files") {
      read_array(r, [&] { read_file_entry(r, state); });
    } else if (key == "variants") {
      read_array(r, [&] { read_variants_entry(r, state); });
    } else if (key == "pages") {
      read_array(r, [&] { read_page_entry(r, state); });
    } else {
      r.skip_value();
    }
  }
  r.end();
  if (r.failed()) return fail(r.error());
  if (format != kStateFormat) return fail(fmt::format("not format {}", kStateFormat));
  return state;
}

std::string serialize_state(const State& state) {
  std::string out;
  out.reserve(256 + state.files.size() * 320 + state.variants.size() * 200 + state.pages.size() * 100);
  out += "{\"format\": ";
  append_int(out, kStateFormat);
  out += ",\n\"base_url\": ";
  append_json_string(out, state.base_url);
  out += ",\n\"yanked_sha256\": ";
  append_json_string(out, state.yanked_sha256);
  out += ",\n\"root\": ";
  append_json_string(out, state.root);
  // Files in name order, so that the same state always has the same bytes.
  std::vector<const std::pair<const std::string, FileState>*> files;
  files.reserve(state.files.size());
  for (const auto& entry : state.files) files.push_back(&entry);
  std::sort(files.begin(), files.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  out += ",\n\"files\": [";
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto& [name, f] = *files[i];
    out += i == 0 ? "\n[" : ",\n[";
    append_json_string(out, name);
    out += ", ";
    append_json_string(out, f.project);
    out += ", ";
    append_uint(out, f.stat.size);
    out += ", ";
    append_int(out, f.stat.mtime_ns);
    out += ", ";
    append_uint(out, f.stat.inode);
    out += ", ";
    append_uint(out, f.stat.device);
    out += ", ";
    append_json_string(out, f.sha256);
    out += ", ";
    append_uint(out, f.site_inode);
    out += ", ";
    append_optional(out, f.metadata_sha256);
    out += ", ";
    append_uint(out, f.metadata_size);
    out += ", ";
    append_optional(out, f.requires_python);
    out += ']';
  }
  out += "],\n\"variants\": [";
  bool first = true;
  for (const auto& [name, v] : state.variants) {
    out += first ? "\n[" : ",\n[";
    first = false;
    append_json_string(out, name);
    out += ", ";
    append_json_string(out, v.project);
    out += ", ";
    append_json_string(out, v.inputs);
    out += ", ";
    append_json_string(out, v.sha256);
    out += ", ";
    append_uint(out, v.size);
    out += ']';
  }
  out += "],\n\"pages\": [";
  first = true;
  for (const auto& [project, hash] : state.pages) {
    out += first ? "\n[" : ",\n[";
    first = false;
    append_json_string(out, project);
    out += ", ";
    append_json_string(out, hash);
    out += ']';
  }
  out += "]}\n";
  return out;
}

}  // namespace vwheel::index::detail
