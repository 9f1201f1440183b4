// Text helpers of the metadata component: Unicode character classes as Python's `re` sees them,
// Python-compatible JSON output, and message formatting.

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "metadata/internal.hpp"
#include "vwheel/core/text.hpp"

namespace vwheel::metadata::detail {
namespace {

constexpr bool is_ascii_word(std::uint32_t cp) noexcept {
  return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') || cp == '_';
}

// Approximates Python's Unicode `\w` (str.isalnum() or '_') for non-ASCII code points: letters
// and digits are accepted, the Latin-1 punctuation/symbols, the General Punctuation, symbol and
// CJK punctuation blocks and the private-use/specials areas are not.
bool is_non_ascii_word(std::uint32_t cp) noexcept {
  if (cp < 0x80 || is_python_space(cp)) return false;
  if (cp < 0xC0) {
    switch (cp) {
      case 0xAA: case 0xB2: case 0xB3: case 0xB5: case 0xB9: case 0xBA: case 0xBC: case 0xBD: case 0xBE:
        return true;
      default:
        return false;
    }
  }
  if (cp == 0xD7 || cp == 0xF7) return false;
  if (cp >= 0x2000 && cp <= 0x2BFF) return false;  // punctuation, symbols, arrows, box drawing...
  if (cp >= 0x3000 && cp <= 0x303F) return cp >= 0x3005 && cp <= 0x3007;
  if (cp >= 0xD800 && cp <= 0xF8FF) return false;   // surrogates, private use
  if (cp >= 0xFE00 && cp <= 0xFE6F) return false;   // variation selectors, CJK compatibility forms
  if (cp >= 0xFFF0) return cp >= 0x10000 && !(cp >= 0xF0000);
  return true;
}

bool is_word_or_dot(std::uint32_t cp) noexcept { return cp == '.' || is_ascii_word(cp) || is_non_ascii_word(cp); }

void append_u_escape(std::string& out, std::uint32_t unit) { out += fmt::format("\\u{:04x}", unit); }

void dump_into(std::string& out, const Json& value, int level) {
  auto newline = [&](int lvl) {
    out.push_back('\n');
    out.append(static_cast<std::size_t>(lvl) * 4, ' ');
  };
  switch (value.type()) {
    case Json::value_t::object: {
      if (value.empty()) {
        out += "{}";
        return;
      }
      out.push_back('{');
      bool first = true;
      for (const auto& [key, item] : value.items()) {
        if (!first) out.push_back(',');
        first = false;
        newline(level + 1);
        append_python_json_string(out, key);
        out += ": ";
        dump_into(out, item, level + 1);
      }
      newline(level);
      out.push_back('}');
      return;
    }
    case Json::value_t::array: {
      if (value.empty()) {
        out += "[]";
        return;
      }
      out.push_back('[');
      bool first = true;
      for (const auto& item : value) {
        if (!first) out.push_back(',');
        first = false;
        newline(level + 1);
        dump_into(out, item, level + 1);
      }
      newline(level);
      out.push_back(']');
      return;
    }
    case Json::value_t::string:
      append_python_json_string(out, value.get_ref<const std::string&>());
      return;
    default:
      out += value.dump(-1, ' ', true, Json::error_handler_t::replace);
      return;
  }
}

}  // namespace

std::optional<std::uint32_t> next_code_point(std::string_view s, std::size_t& i) noexcept {
  char32_t cp = 0;
  const std::size_t n = utf8_decode(s, i, cp);
  if (n == 0) {
    ++i;
    return std::nullopt;
  }
  i += n;
  return static_cast<std::uint32_t>(cp);
}

bool is_single_line_text(std::string_view s) noexcept {
  if (s.empty()) return false;
  std::size_t i = 0;
  while (i < s.size()) {
    const auto cp = next_code_point(s, i);
    if (!cp || (*cp != ' ' && is_python_space(*cp))) return false;
  }
  return true;
}

bool is_plugin_api_reference(std::string_view s) noexcept {
  std::size_t i = 0;
  // Reads a run of [\w.] characters; returns false on invalid UTF-8.
  auto take_word = [&](std::size_t& count) {
    count = 0;
    while (i < s.size()) {
      std::size_t j = i;
      const auto cp = next_code_point(s, j);
      if (!cp) return false;
      if (!is_word_or_dot(*cp)) break;
      i = j;
      ++count;
    }
    return true;
  };
  auto skip_space = [&] {
    while (i < s.size()) {
      std::size_t j = i;
      const auto cp = next_code_point(s, j);
      if (!cp || !is_python_space(*cp)) return;
      i = j;
    }
  };
  std::size_t count = 0;
  if (!take_word(count) || count == 0) return false;
  if (i == s.size()) return true;
  skip_space();
  if (i == s.size() || s[i] != ':') return false;
  ++i;
  skip_space();
  if (!take_word(count) || count == 0) return false;
  return i == s.size();
}

void append_python_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  std::size_t i = 0;
  while (i < s.size()) {
    const auto cp = next_code_point(s, i).value_or(0xFFFD);
    switch (cp) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      case '\b': out += "\\b"; continue;
      case '\f': out += "\\f"; continue;
      default: break;
    }
    if (cp >= 0x20 && cp < 0x7F) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x10000) {
      append_u_escape(out, cp);
    } else {
      const std::uint32_t v = cp - 0x10000;
      append_u_escape(out, 0xD800 + (v >> 10));
      append_u_escape(out, 0xDC00 + (v & 0x3FF));
    }
  }
  out.push_back('"');
}

std::string python_json_string(std::string_view s) {
  std::string out;
  append_python_json_string(out, s);
  return out;
}

std::string python_json_dump(const Json& value) {
  std::string out;
  dump_into(out, value, 0);
  return out;
}

std::string_view type_name(const Json& value) noexcept {
  switch (value.type()) {
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return "an array";
    case Json::value_t::string: return "a string";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float: return "a number";
    case Json::value_t::binary: return "a TOML date/time";
    case Json::value_t::null: return "null";
    default: return "an invalid value";
  }
}

namespace {

// Compact ASCII rendering that stops once `out` exceeds `limit` (so the depth it recurses to is
// bounded by the limit, whatever the nesting of the value).
void render_compact(std::string& out, const Json& value, std::size_t limit) {
  if (out.size() > limit) return;
  switch (value.type()) {
    case Json::value_t::object: {
      out.push_back('{');
      bool first = true;
      for (const auto& [key, item] : value.items()) {
        if (out.size() > limit) return;
        if (!first) out += ", ";
        first = false;
        append_python_json_string(out, key);
        out += ": ";
        render_compact(out, item, limit);
      }
      out.push_back('}');
      return;
    }
    case Json::value_t::array: {
      out.push_back('[');
      bool first = true;
      for (const auto& item : value) {
        if (out.size() > limit) return;
        if (!first) out += ", ";
        first = false;
        render_compact(out, item, limit);
      }
      out.push_back(']');
      return;
    }
    case Json::value_t::string:
      append_python_json_string(out, value.get_ref<const std::string&>());
      return;
    case Json::value_t::binary:
      out += "<date/time>";
      return;
    default:
      out += value.dump(-1, ' ', true, Json::error_handler_t::replace);
      return;
  }
}

}  // namespace

std::string describe_value(const Json& value) {
  if (value.is_null()) return "null";
  if (value.is_binary()) return std::string(type_name(value));
  constexpr std::size_t kMax = 80;
  std::string text;
  render_compact(text, value, kMax);
  if (text.size() > kMax) {
    text.resize(kMax);
    text += "...";
  }
  return fmt::format("{} {}", type_name(value), text);
}

std::string single_line(std::string_view text) {
  // Most messages are printable ASCII already: copied without decoding them a code point at a time.
  if (std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c < 0x7F; })) return std::string(text);
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t start = i;
    const auto cp = next_code_point(text, i);
    if (!cp) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[start]));
    } else if (*cp < 0x20 || *cp == 0x7F) {
      out += fmt::format("\\x{:02x}", *cp);
    } else {
      out.append(text.substr(start, i - start));
    }
  }
  return out;
}

std::string quoted_list(const std::vector<std::string>& items, std::size_t limit) {
  std::string out;
  for (std::size_t k = 0; k < items.size(); ++k) {
    if (k == limit) {
      out += fmt::format(", ... ({} in all)", items.size());
      break;
    }
    if (k > 0) out += ", ";
    out += python_json_string(items[k]);
  }
  return out;
}

std::string child_path(std::string_view parent, std::string_view key) {
  const bool plain = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '-' || c == '$';
  });
  if (plain) return parent.empty() ? std::string(key) : fmt::format("{}.{}", parent, key);
  return fmt::format("{}[{}]", parent, python_json_string(key));
}

std::string index_path(std::string_view parent, std::size_t index) { return fmt::format("{}[{}]", parent, index); }

namespace {

// Walks one step down `node` (null once off the document).
const Json* child_of(const Json* node, const std::string& key) {
  if (node == nullptr || !node->is_object()) return nullptr;
  const auto it = node->find(key);
  return it == node->end() ? nullptr : &*it;
}

std::string location_to_pointer(std::string_view location, const Json* root) {
  if (location.empty() || location == "(document)") return "";
  std::string pointer;
  const Json* node = root;
  std::size_t i = 0;
  while (i < location.size()) {
    if (location[i] == '.') {
      ++i;
      continue;
    }
    if (location[i] == '[') {
      // `[N]` (an index) or `["key"]` (a key python_json_string quoted).
      std::size_t end = i + 1;
      if (end < location.size() && location[end] == '"') {
        ++end;
        while (end < location.size() && location[end] != '"') end += location[end] == '\\' ? 2 : 1;
        ++end;
      } else {
        while (end < location.size() && location[end] != ']') ++end;
      }
      const auto inner = location.substr(i + 1, std::min(end, location.size()) - i - 1);
      std::string key(inner);
      if (inner.starts_with('"')) {
        const auto parsed = Json::parse(inner, nullptr, false);
        if (parsed.is_string()) key = parsed.get<std::string>();
        node = child_of(node, key);
      } else {
        node = node != nullptr && node->is_array() && !key.empty() && std::all_of(key.begin(), key.end(), [](char c) { return vwheel::is_ascii_digit(c); })
                   ? (std::stoul(key) < node->size() ? &(*node)[std::stoul(key)] : nullptr)
                   : nullptr;
      }
      pointer += "/" + json_pointer_token(key);
      i = std::min(end + 1, location.size());
      continue;
    }
    // A run of plain text up to the next `[`: keys joined by dots, where keys may hold dots too.
    const auto stop = std::min(location.find('[', i), location.size());
    const auto run = location.substr(i, stop - i);
    std::size_t pos = 0;
    while (pos < run.size()) {
      auto take = run.find('.', pos);
      if (take == std::string_view::npos) take = run.size();
      // The longest dotted prefix that is a key here wins.
      for (auto end = run.size(); node != nullptr && end > take;) {
        if (child_of(node, std::string(run.substr(pos, end - pos))) != nullptr) {
          take = end;
          break;
        }
        const auto dot = run.rfind('.', end - 1);
        if (dot == std::string_view::npos || dot < take) break;
        end = dot;
      }
      const std::string key(run.substr(pos, take - pos));
      node = child_of(node, key);
      pointer += "/" + json_pointer_token(key);
      pos = take + 1;
    }
    i = stop;
  }
  return pointer;
}

}  // namespace

void fill_pointers(std::vector<Finding>& findings, const Json* root) {
  for (auto& f : findings) f.pointer = location_to_pointer(f.location, root);
}

}  // namespace vwheel::metadata::detail
