// Editing pyproject.toml's [variant] table in place: a TOML structure scanner (statements with
// byte spans) and span edits, each result re-parsed with toml++ and checked. See
// pyproject_edit.hpp for the rules.

#include "vwheel/metadata/pyproject_edit.hpp"

#include <algorithm>
#include <cstdint>
#include <set>

#include <fmt/format.h>

#include "core/toml.hpp"
#include "metadata/internal.hpp"
#include "vwheel/markers/marker.hpp"
#include "vwheel/markers/requirement.hpp"
#include "vwheel/metadata/document.hpp"
#include "vwheel/variant/property.hpp"

namespace vwheel::metadata {
namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);
constexpr int kMaxNesting = 256;

bool is_bare_key_char(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

int hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// ---------------------------------------------------------------------------------------------
// The scanner
// ---------------------------------------------------------------------------------------------

class Scanner {
 public:
  explicit Scanner(std::string_view text) : t_(text) {}

  Result<std::vector<TomlStatement>> statements() {
    std::vector<TomlStatement> out;
    std::size_t i = 0;
    std::size_t line = 1;
    while (i < t_.size()) {
      TomlStatement st;
      st.begin = i;
      st.line = line;
      const std::size_t p = skip_spaces(i);
      if (at_eol(p)) {
        st.kind = TomlStatementKind::Blank;
        st.end = after_eol(p);
      } else if (t_[p] == '#') {
        st.kind = TomlStatementKind::Comment;
        auto e = end_of_line(p);
        if (!e) return fail(e.error());
        st.end = *e;
      } else if (t_[p] == '[') {
        const bool array = at(p + 1, '[');
        st.kind = array ? TomlStatementKind::ArrayTable : TomlStatementKind::Table;
        auto q = key(p + (array ? 2 : 1), st.key, st.key_begin, st.key_end);
        if (!q) return fail(q.error());
        std::size_t r = skip_spaces(*q);
        if (!at(r, ']') || (array && !at(r + 1, ']'))) {
          return error(r, array ? "expected `]]` to close the array-of-tables header"
                                : "expected `]` to close the table header");
        }
        r += array ? 2 : 1;
        auto e = end_of_line(r);
        if (!e) return fail(e.error());
        st.end = *e;
      } else {
        st.kind = TomlStatementKind::KeyValue;
        auto q = key(p, st.key, st.key_begin, st.key_end);
        if (!q) return fail(q.error());
        std::size_t r = skip_spaces(*q);
        if (!at(r, '=')) return error(r, "expected `=` after the key");
        r = skip_spaces(r + 1);
        st.value_begin = r;
        auto v = value(r, nullptr);
        if (!v) return fail(v.error());
        st.value_end = *v;
        auto e = end_of_line(*v);
        if (!e) return fail(e.error());
        st.end = *e;
      }
      line += static_cast<std::size_t>(std::count(t_.begin() + static_cast<std::ptrdiff_t>(st.begin),
                                                  t_.begin() + static_cast<std::ptrdiff_t>(st.end), '\n'));
      i = st.end;
      out.push_back(std::move(st));
    }
    return out;
  }

  Result<std::vector<TomlArrayElement>> array_elements(std::size_t begin) {
    if (!at(begin, '[')) return error(begin, "expected an array (`[`)");
    std::vector<TomlArrayElement> elements;
    auto end = array(begin, &elements);
    if (!end) return fail(end.error());
    return elements;
  }

 private:
  std::string_view t_;
  int depth_ = 0;

  [[nodiscard]] bool at(std::size_t i, char c) const noexcept { return i < t_.size() && t_[i] == c; }
  [[nodiscard]] bool starts(std::size_t i, std::string_view s) const noexcept {
    return i <= t_.size() && t_.substr(i, s.size()) == s;
  }
  [[nodiscard]] std::size_t skip_spaces(std::size_t i) const noexcept {
    while (i < t_.size() && (t_[i] == ' ' || t_[i] == '\t')) ++i;
    return i;
  }
  [[nodiscard]] bool at_eol(std::size_t i) const noexcept {
    return i >= t_.size() || t_[i] == '\n' || (t_[i] == '\r' && at(i + 1, '\n'));
  }
  [[nodiscard]] std::size_t after_eol(std::size_t i) const noexcept {
    if (i >= t_.size()) return t_.size();
    return t_[i] == '\n' ? i + 1 : i + 2;
  }
  // Spaces, tabs, line breaks and comments (between array elements and inline-table entries).
  [[nodiscard]] std::size_t skip_blank(std::size_t i) const noexcept {
    for (;;) {
      i = skip_spaces(i);
      if (at(i, '#')) {
        while (i < t_.size() && t_[i] != '\n') ++i;
      } else if (at(i, '\n')) {
        ++i;
      } else if (at(i, '\r') && at(i + 1, '\n')) {
        i += 2;
      } else {
        return i;
      }
    }
  }
  [[nodiscard]] std::size_t line_at(std::size_t pos) const noexcept {
    pos = std::min(pos, t_.size());
    return 1 + static_cast<std::size_t>(std::count(t_.begin(), t_.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
  }
  [[nodiscard]] tl::unexpected<Error> error(std::size_t pos, std::string_view what) const {
    return fail(fmt::format("line {}: {}", line_at(pos), what));
  }

  // After a header or value: spaces, an optional comment, then the end of the line.
  Result<std::size_t> end_of_line(std::size_t i) const {
    i = skip_spaces(i);
    if (at(i, '#')) {
      while (i < t_.size() && t_[i] != '\n') ++i;
      return i < t_.size() ? i + 1 : i;
    }
    if (!at_eol(i)) return error(i, "unexpected text after the value (expected a comment or the end of the line)");
    return after_eol(i);
  }

  // A dotted key: simple keys separated by `.`, spaces allowed around the dots. Returns the
  // position just after the last key part.
  Result<std::size_t> key(std::size_t i, std::vector<std::string>& out, std::size_t& key_begin,
                          std::size_t& key_end) const {
    bool first = true;
    for (;;) {
      i = skip_spaces(i);
      const std::size_t part_begin = i;
      std::string part;
      auto e = simple_key(i, part);
      if (!e) return fail(e.error());
      if (first) key_begin = part_begin;
      first = false;
      key_end = *e;
      out.push_back(std::move(part));
      const std::size_t j = skip_spaces(*e);
      if (!at(j, '.')) return *e;
      i = j + 1;
    }
  }

  Result<std::size_t> simple_key(std::size_t i, std::string& out) const {
    if (at(i, '"')) {
      if (starts(i, "\"\"\"")) return error(i, "a multi-line string cannot be a key");
      return basic_string(i, &out);
    }
    if (at(i, '\'')) {
      if (starts(i, "'''")) return error(i, "a multi-line string cannot be a key");
      return literal_string(i, &out);
    }
    const std::size_t b = i;
    while (i < t_.size() && is_bare_key_char(t_[i])) ++i;
    if (i == b) return error(i, "expected a key");
    out.assign(t_.substr(b, i - b));
    return i;
  }

  // A backslash escape at `i` (the backslash). Appends the decoded character when `out` is set.
  Result<std::size_t> escape(std::size_t i, std::string* out) const {
    if (i + 1 >= t_.size()) return error(i, "unterminated escape sequence");
    const char c = t_[i + 1];
    constexpr std::string_view kEscaped = "btnfre\"\\";
    constexpr std::string_view kMeaning = "\b\t\n\f\r\x1b\"\\";
    if (const auto k = kEscaped.find(c); k != std::string_view::npos) {
      if (out != nullptr) *out += kMeaning[k];
      return i + 2;
    }
    std::size_t digits = 0;
    if (c == 'x') digits = 2;
    if (c == 'u') digits = 4;
    if (c == 'U') digits = 8;
    if (digits == 0) return error(i, fmt::format("invalid escape sequence `\\{}`", c));
    std::uint32_t cp = 0;
    for (std::size_t k = 0; k < digits; ++k) {
      const std::size_t at_k = i + 2 + k;
      const int d = at_k < t_.size() ? hex_digit(t_[at_k]) : -1;
      if (d < 0) return error(i, "invalid hexadecimal escape sequence");
      cp = cp * 16 + static_cast<std::uint32_t>(d);
    }
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return error(i, "escape sequence is not a Unicode scalar value");
    if (out != nullptr) append_utf8(*out, cp);
    return i + 2 + digits;
  }

  Result<std::size_t> basic_string(std::size_t i, std::string* out) const {
    const std::size_t open = i++;
    for (;;) {
      if (i >= t_.size() || t_[i] == '\n' || t_[i] == '\r') return error(open, "unterminated string");
      if (t_[i] == '"') return i + 1;
      if (t_[i] == '\\') {
        auto e = escape(i, out);
        if (!e) return e;
        i = *e;
      } else {
        if (out != nullptr) *out += t_[i];
        ++i;
      }
    }
  }

  Result<std::size_t> literal_string(std::size_t i, std::string* out) const {
    const std::size_t open = i++;
    const std::size_t b = i;
    while (i < t_.size() && t_[i] != '\'' && t_[i] != '\n' && t_[i] != '\r') ++i;
    if (!at(i, '\'')) return error(open, "unterminated literal string");
    if (out != nullptr) out->assign(t_.substr(b, i - b));
    return i + 1;
  }

  // At a run of `quote` characters closing a multi-line string: returns how many belong to the
  // content (0..2) and sets `end` after the delimiter.
  Result<std::size_t> closing_run(std::size_t i, char quote, std::size_t& end) const {
    std::size_t n = 0;
    while (at(i + n, quote)) ++n;
    if (n > 5) return error(i, "too many quotes at the end of a multi-line string");
    end = i + n;
    return n - 3;
  }

  Result<std::size_t> multiline_basic(std::size_t i, std::string* out) const {
    const std::size_t open = i;
    i += 3;
    if (at(i, '\n')) {
      ++i;
    } else if (at(i, '\r') && at(i + 1, '\n')) {
      i += 2;
    }
    for (;;) {
      if (i >= t_.size()) return error(open, "unterminated multi-line string");
      if (starts(i, "\"\"\"")) {
        std::size_t end = 0;
        auto extra = closing_run(i, '"', end);
        if (!extra) return fail(extra.error());
        if (out != nullptr) out->append(*extra, '"');
        return end;
      }
      if (t_[i] == '\\') {
        std::size_t j = skip_spaces(i + 1);
        if (at(j, '\n') || (at(j, '\r') && at(j + 1, '\n'))) {  // line-ending backslash
          while (j < t_.size() && (t_[j] == ' ' || t_[j] == '\t' || t_[j] == '\n' || t_[j] == '\r')) ++j;
          i = j;
          continue;
        }
        auto e = escape(i, out);
        if (!e) return e;
        i = *e;
        continue;
      }
      if (out != nullptr) *out += t_[i];
      ++i;
    }
  }

  Result<std::size_t> multiline_literal(std::size_t i, std::string* out) const {
    const std::size_t open = i;
    i += 3;
    if (at(i, '\n')) {
      ++i;
    } else if (at(i, '\r') && at(i + 1, '\n')) {
      i += 2;
    }
    for (;;) {
      if (i >= t_.size()) return error(open, "unterminated multi-line literal string");
      if (starts(i, "'''")) {
        std::size_t end = 0;
        auto extra = closing_run(i, '\'', end);
        if (!extra) return fail(extra.error());
        if (out != nullptr) out->append(*extra, '\'');
        return end;
      }
      if (out != nullptr) *out += t_[i];
      ++i;
    }
  }

  // A value at `i`; returns the position just after it. `decoded` receives the text of a string.
  Result<std::size_t> value(std::size_t i, std::optional<std::string>* decoded) {
    if (i >= t_.size()) return error(i, "expected a value");
    std::string text;
    std::string* out = decoded != nullptr ? &text : nullptr;
    Result<std::size_t> end = std::size_t{0};
    bool is_string = true;
    if (starts(i, "\"\"\"")) {
      end = multiline_basic(i, out);
    } else if (starts(i, "'''")) {
      end = multiline_literal(i, out);
    } else if (t_[i] == '"') {
      end = basic_string(i, out);
    } else if (t_[i] == '\'') {
      end = literal_string(i, out);
    } else {
      is_string = false;
      if (t_[i] == '[') {
        end = array(i, nullptr);
      } else if (t_[i] == '{') {
        end = inline_table(i);
      } else {
        end = scalar(i);
      }
    }
    if (end && is_string && decoded != nullptr) *decoded = std::move(text);
    return end;
  }

  Result<std::size_t> array(std::size_t i, std::vector<TomlArrayElement>* elements) {
    if (++depth_ > kMaxNesting) return error(i, "arrays and inline tables nested too deeply");
    const std::size_t open = i++;
    for (;;) {
      i = skip_blank(i);
      if (i >= t_.size()) return error(open, "unterminated array");
      if (t_[i] == ']') break;
      TomlArrayElement element;
      element.begin = i;
      auto e = value(i, elements != nullptr ? &element.string : nullptr);
      if (!e) return e;
      element.end = *e;
      if (elements != nullptr) elements->push_back(std::move(element));
      i = skip_blank(*e);
      if (i >= t_.size()) return error(open, "unterminated array");
      if (at(i, ',')) {
        ++i;
        continue;
      }
      if (at(i, ']')) break;
      return error(i, "expected `,` or `]` in an array");
    }
    --depth_;
    return i + 1;
  }

  Result<std::size_t> inline_table(std::size_t i) {
    if (++depth_ > kMaxNesting) return error(i, "arrays and inline tables nested too deeply");
    const std::size_t open = i++;
    for (;;) {
      i = skip_blank(i);
      if (i >= t_.size()) return error(open, "unterminated inline table");
      if (t_[i] == '}') break;
      std::vector<std::string> k;
      std::size_t kb = 0;
      std::size_t ke = 0;
      auto e = key(i, k, kb, ke);
      if (!e) return e;
      i = skip_spaces(*e);
      if (!at(i, '=')) return error(i, "expected `=` in an inline table");
      auto v = value(skip_spaces(i + 1), nullptr);
      if (!v) return v;
      i = skip_blank(*v);
      if (i >= t_.size()) return error(open, "unterminated inline table");
      if (at(i, ',')) {
        ++i;
        continue;
      }
      if (at(i, '}')) break;
      return error(i, "expected `,` or `}` in an inline table");
    }
    --depth_;
    return i + 1;
  }

  // Numbers, booleans, dates and times: up to the next delimiter. A local date followed by a
  // space and a digit continues as a date-time (`1979-05-27 07:32:00`).
  Result<std::size_t> scalar(std::size_t i) const {
    auto is_delimiter = [](char c) {
      return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ']' || c == '}' || c == '#';
    };
    const std::size_t b = i;
    while (i < t_.size() && !is_delimiter(t_[i])) ++i;
    if (i == b) return error(i, "expected a value");
    const auto token = t_.substr(b, i - b);
    const bool date = token.size() == 10 && is_digit(token[0]) && is_digit(token[3]) && token[4] == '-' &&
                      token[7] == '-' && is_digit(token[9]);
    if (date && at(i, ' ') && i + 1 < t_.size() && is_digit(t_[i + 1])) {
      ++i;
      while (i < t_.size() && !is_delimiter(t_[i])) ++i;
    }
    return i;
  }
};

// ---------------------------------------------------------------------------------------------
// Writing TOML
// ---------------------------------------------------------------------------------------------

using Path = std::vector<std::string>;

bool has_prefix(const Path& path, const Path& prefix) {
  return path.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), path.begin());
}

Path join(Path path, std::string_view key) {
  path.emplace_back(key);
  return path;
}

std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    constexpr std::string_view kSpecial = "\"\\\b\t\n\f\r";
    constexpr std::string_view kEscape = "\"\\btnfr";
    if (const auto k = kSpecial.find(ch); k != std::string_view::npos) {
      out += '\\';
      out += kEscape[k];
    } else if (c < 0x20 || c == 0x7F) {
      out += fmt::format("\\u{:04X}", static_cast<unsigned>(c));
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string toml_string_array(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += toml_string(items[i]);
  }
  return out + "]";
}

std::string key_text(std::string_view key) {
  const bool bare = !key.empty() && std::all_of(key.begin(), key.end(), is_bare_key_char);
  return bare ? std::string(key) : toml_string(key);
}

std::string path_text(const Path& path, std::size_t from = 0) {
  std::string out;
  for (std::size_t i = from; i < path.size(); ++i) {
    if (i > from) out += '.';
    out += key_text(path[i]);
  }
  return out;
}

Result<toml::table> parse_toml(std::string_view text) {
  if (auto bad = toml_unsupported_character(text)) return fail(*bad);
  try {
    return toml::parse(text);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    return fail(detail::single_line(
        fmt::format("invalid TOML at line {}, column {}: {}", where.line, where.column, e.description())));
  }
}

const toml::node* node_at(const toml::table& doc, const Path& path) {
  const toml::node* node = &doc;
  for (const auto& key : path) {
    const auto* table = node->as_table();
    if (table == nullptr) return nullptr;
    node = table->get(key);
    if (node == nullptr) return nullptr;
  }
  return node;
}

// The table at `path` below `doc`, created where missing; nullptr when a non-table is in the way.
toml::table* make_table(toml::table& doc, const Path& path) {
  toml::table* table = &doc;
  for (const auto& key : path) {
    toml::node* child = table->get(key);
    if (child == nullptr) child = &table->insert(key, toml::table{}).first->second;
    table = child->as_table();
    if (table == nullptr) return nullptr;
  }
  return table;
}

void erase_at(toml::table& doc, const Path& path) {
  toml::table* table = &doc;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    toml::node* child = table->get(path[i]);
    table = child != nullptr ? child->as_table() : nullptr;
    if (table == nullptr) return;
  }
  if (!path.empty()) table->erase(path.back());
}

// Removes empty tables below `table` (recursively); true when `table` ends up empty.
bool prune_empty_tables(toml::table& table) {
  std::vector<std::string> empty;
  for (auto& [key, value] : table) {
    if (auto* child = value.as_table(); child != nullptr && prune_empty_tables(*child)) empty.emplace_back(key.str());
  }
  for (const auto& key : empty) table.erase(key);
  return table.empty();
}

// Both documents with empty tables inside [variant] (and an empty [variant]) removed, then
// compared: what an edit may change besides the expected values is only whether an emptied table
// is still written.
bool same_document(toml::table a, toml::table b) {
  for (auto* doc : {&a, &b}) {
    if (auto* variant = doc->get_as<toml::table>("variant"); variant != nullptr && prune_empty_tables(*variant)) {
      doc->erase("variant");
    }
  }
  return a == b;
}

std::vector<std::string> string_items(const toml::array& array) {
  std::vector<std::string> out;
  for (const auto& item : array) {
    if (const auto* s = item.as_string()) out.push_back(s->get());
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The editor: text plus its statements, rescanned after every edit
// ---------------------------------------------------------------------------------------------

class Editor {
 public:
  static Result<Editor> open(std::string_view text) {
    Editor ed;
    ed.text_.assign(text);
    const auto lf = text.find('\n');
    ed.nl_ = (lf != std::string_view::npos && lf > 0 && text[lf - 1] == '\r') ? "\r\n" : "\n";
    if (auto r = ed.rescan(); !r) return fail(r.error());
    for (const auto& st : ed.st_) {
      if (st.kind == TomlStatementKind::ArrayTable && !st.key.empty() && st.key.front() == "variant") {
        return fail(
            fmt::format("line {}: `[[{}]]` (an array of tables) under [variant] cannot be edited: PEP 817 "
                        "has no arrays of tables there",
                        st.line, path_text(st.key)));
      }
    }
    return ed;
  }

  [[nodiscard]] const std::string& text() const noexcept { return text_; }

  /// Sets `table.key = value` (value: TOML text): replaces an existing value, else adds the key.
  Result<void> set_value(const Path& table, const std::string& key, const std::string& value) {
    const Path full = join(table, key);
    if (const auto kv = find_kv(full); kv != kNone) {
      text_.replace(st_[kv].value_begin, st_[kv].value_end - st_[kv].value_begin, value);
      return rescan();
    }
    if (const auto b = blocker(full); b != kNone) return blocked(b, full, table);
    if (const auto kv = last_kv_of_table(table); kv.index != kNone || kv.header != kNone) {
      const std::size_t after = kv.index != kNone ? kv.index : kv.header;
      const std::string indent = kv.index != kNone ? indent_of(kv.index) : "";
      const std::size_t section_size =
          st_[after].kind == TomlStatementKind::KeyValue ? section_[after].size() : table.size();
      const std::string rel = section_size < table.size() ? path_text(table, section_size) + "." : "";
      return insert_lines(st_[after].end, indent + rel + key_text(key) + " = " + value + nl_);
    }
    const auto where = new_table_place(table);
    if (where.dotted != kNone) {
      const auto& s = section_[where.dotted];
      return insert_lines(st_[where.dotted].end,
                          indent_of(where.dotted) + path_text(full, s.size()) + " = " + value + nl_);
    }
    return insert_table(where.pos, table, key_text(key) + " = " + value + nl_);
  }

  /// Removes everything that defines `path` (a table or a key). Returns how many statements went.
  /// `table`: the table to suggest when `path` is inside an inline table.
  Result<std::size_t> remove(const Path& path, const Path& table) {
    if (const auto b = blocker(path); b != kNone) return blocked(b, path, table);
    using Range = std::pair<std::size_t, std::size_t>;
    std::vector<Range> ranges;
    std::set<Path> touched;
    std::size_t count = 0;
    for (std::size_t i = 0; i < st_.size(); ++i) {
      const auto& st = st_[i];
      const bool header = st.kind == TomlStatementKind::Table || st.kind == TomlStatementKind::ArrayTable;
      if (header && has_prefix(st.key, path)) {
        const std::size_t last = last_kv_in_section(i);
        ranges.push_back({with_blank_before(i), last != kNone ? st_[last].end : st.end});
        ++count;
      } else if (st.kind == TomlStatementKind::KeyValue && has_prefix(full_[i], path) &&
                 !has_prefix(section_[i], path)) {
        ranges.push_back({st.begin, st.end});
        if (header_[i] != kNone) touched.insert(section_[i]);
        ++count;
      }
    }
    erase_ranges(ranges);
    if (auto r = rescan(); !r) return fail(r.error());
    // Drop headers that this left without keys or comments.
    std::vector<Range> empty;
    for (std::size_t i = 0; i < st_.size(); ++i) {
      if (st_[i].kind != TomlStatementKind::Table || !touched.contains(st_[i].key)) continue;
      bool has_content = false;
      for (std::size_t j = i + 1; j < st_.size() && header_[j] == i; ++j) {
        if (st_[j].kind != TomlStatementKind::Blank) has_content = true;
      }
      if (!has_content) empty.push_back({with_blank_before(i), st_[i].end});
    }
    erase_ranges(empty);
    if (auto r = rescan(); !r) return fail(r.error());
    return count;
  }

  /// Inserts `value` (TOML text) at `index` of the array at `key`, keeping the array's style.
  Result<void> array_insert(const Path& key, std::size_t index, const std::string& value) {
    auto located = array_at(key);
    if (!located) return fail(located.error());
    const auto& [kv, elements] = *located;
    const auto& st = st_[kv];
    const bool multiline = text_.substr(st.value_begin, st.value_end - st.value_begin).find('\n') != std::string::npos;
    const std::string step = indent_of(kv) + "    ";
    if (elements.empty()) {
      if (!multiline) {
        text_.replace(st.value_begin, st.value_end - st.value_begin, "[" + value + "]");
        return rescan();
      }
      const std::size_t lf = text_.find('\n', st.value_begin);
      return insert_lines(lf + 1, step + value + "," + nl_);
    }
    if (index < elements.size()) {
      const auto& e = elements[index];
      if (first_on_line(e.begin)) {
        const std::size_t start = line_start(e.begin);
        return insert_lines(start, text_.substr(start, e.begin - start) + value + "," + nl_);
      }
      text_.insert(e.begin, value + inline_separator(elements));
      return rescan();
    }
    const auto& last = elements.back();
    const auto tail = after_element(last);
    if (tail.line_end != kNone) {
      const std::string lead =
          first_on_line(last.begin) ? text_.substr(line_start(last.begin), last.begin - line_start(last.begin)) : step;
      text_.insert(tail.line_end, lead + value + (tail.comma != kNone ? "," : "") + nl_);
      if (tail.comma == kNone) text_.insert(last.end, ",");
      return rescan();
    }
    text_.insert(last.end, inline_separator(elements) + value);
    return rescan();
  }

  /// Removes every string element equal to `value` from the array at `key`; returns how many.
  Result<std::size_t> array_remove(const Path& key, std::string_view value) {
    std::size_t removed = 0;
    for (;;) {
      auto located = array_at(key);
      if (!located) return fail(located.error());
      const auto& [kv, elements] = *located;
      const auto it = std::find_if(elements.begin(), elements.end(),
                                   [&](const TomlArrayElement& e) { return e.string && *e.string == value; });
      if (it == elements.end()) return removed;
      remove_element(elements, static_cast<std::size_t>(it - elements.begin()));
      if (auto r = rescan(); !r) return fail(r.error());
      ++removed;
    }
  }

  /// The number of elements of the array at `key`.
  Result<std::size_t> array_size(const Path& key) {
    auto located = array_at(key);
    if (!located) return fail(located.error());
    return located->second.size();
  }

 private:
  std::string text_;
  std::string nl_ = "\n";
  std::vector<TomlStatement> st_;
  std::vector<Path> section_;        // per statement: the table it is in ([] = the root table)
  std::vector<std::size_t> header_;  // per statement: index of its section's header, or kNone
  std::vector<Path> full_;           // per KeyValue: section + key

  Result<void> rescan() {
    auto st = scan_toml(text_);
    if (!st) return fail(st.error());
    st_ = std::move(*st);
    section_.assign(st_.size(), Path{});
    header_.assign(st_.size(), kNone);
    full_.assign(st_.size(), Path{});
    Path section;
    std::size_t header = kNone;
    for (std::size_t i = 0; i < st_.size(); ++i) {
      const auto& s = st_[i];
      if (s.kind == TomlStatementKind::Table || s.kind == TomlStatementKind::ArrayTable) {
        section = s.key;
        header = i;
        full_[i] = s.key;
      } else if (s.kind == TomlStatementKind::KeyValue) {
        full_[i] = section;
        full_[i].insert(full_[i].end(), s.key.begin(), s.key.end());
      }
      section_[i] = section;
      header_[i] = header;
    }
    return {};
  }

  [[nodiscard]] bool is_header(std::size_t i) const {
    return st_[i].kind == TomlStatementKind::Table || st_[i].kind == TomlStatementKind::ArrayTable;
  }

  [[nodiscard]] std::size_t find_kv(const Path& full) const {
    for (std::size_t i = 0; i < st_.size(); ++i) {
      if (st_[i].kind == TomlStatementKind::KeyValue && full_[i] == full) return i;
    }
    return kNone;
  }

  // A key/value whose value (an inline table or any non-table) contains `full`.
  [[nodiscard]] std::size_t blocker(const Path& full) const {
    for (std::size_t i = 0; i < st_.size(); ++i) {
      if (st_[i].kind == TomlStatementKind::KeyValue && full_[i].size() < full.size() && has_prefix(full, full_[i])) {
        return i;
      }
    }
    return kNone;
  }

  // `table`: the table the edit is in, suggested as a `[header]`.
  [[nodiscard]] tl::unexpected<Error> blocked(std::size_t kv, const Path& wanted, const Path& table) const {
    const bool inline_table = text_[st_[kv].value_begin] == '{';
    return fail(
        fmt::format("line {}: `{}` is written as {}, which vwheel does not edit in place (it would change "
                    "`{}`); write it as a `[{}]` table with one key per line instead",
                    st_[kv].line, path_text(full_[kv]), inline_table ? "an inline table" : "a value", path_text(wanted),
                    path_text(table)));
  }

  [[nodiscard]] std::size_t table_header(const Path& table) const {
    for (std::size_t i = 0; i < st_.size(); ++i) {
      if (st_[i].kind == TomlStatementKind::Table && st_[i].key == table) return i;
    }
    return kNone;
  }

  [[nodiscard]] std::size_t last_kv_in_section(std::size_t header) const {
    std::size_t last = kNone;
    for (std::size_t j = header + 1; j < st_.size() && header_[j] == header; ++j) {
      if (st_[j].kind == TomlStatementKind::KeyValue) last = j;
    }
    return last;
  }

  // Where a section's content ends: after its last key, or after its header.
  [[nodiscard]] std::size_t section_end(std::size_t header) const {
    const std::size_t last = last_kv_in_section(header);
    return last != kNone ? st_[last].end : st_[header].end;
  }

  struct TableKeys {
    std::size_t index = kNone;   // the last key/value defining the table
    std::size_t header = kNone;  // its header, when it has one and no key
  };

  // The last key of `table` where a new key can go: under its `[table]` header, or the last dotted
  // key that defines it from a table above (`[variant]` + `providers.x.requires = ...`).
  [[nodiscard]] TableKeys last_kv_of_table(const Path& table) const {
    TableKeys out;
    if (const auto h = table_header(table); h != kNone) {
      out.index = last_kv_in_section(h);
      if (out.index == kNone) out.header = h;
      return out;
    }
    for (std::size_t i = 0; i < st_.size(); ++i) {
      if (st_[i].kind == TomlStatementKind::KeyValue && full_[i].size() > table.size() && has_prefix(full_[i], table) &&
          section_[i].size() < table.size() && has_prefix(table, section_[i])) {
        out.index = i;
      }
    }
    return out;
  }

  struct Place {
    std::size_t dotted = kNone;  // write dotted keys after this statement
    std::size_t pos = 0;         // else a new [table] header here
  };

  // Where a new table goes, in the style of its relatives (see the header).
  [[nodiscard]] Place new_table_place(const Path& table) const {
    for (std::size_t k = table.size() - 1; k >= 1; --k) {
      const Path above(table.begin(), table.begin() + static_cast<std::ptrdiff_t>(k));
      std::size_t last_header = kNone;
      std::size_t last_dotted = kNone;
      for (std::size_t i = 0; i < st_.size(); ++i) {
        if (st_[i].kind == TomlStatementKind::Table && st_[i].key.size() > above.size() &&
            has_prefix(st_[i].key, above)) {
          last_header = i;
        }
        if (st_[i].kind == TomlStatementKind::KeyValue && full_[i].size() > above.size() &&
            has_prefix(full_[i], above) && section_[i].size() <= above.size() && has_prefix(above, section_[i])) {
          last_dotted = i;
        }
      }
      if (last_header != kNone) return Place{kNone, section_end(last_header)};
      if (last_dotted != kNone) return Place{last_dotted, 0};
      if (const auto h = table_header(above); h != kNone) return Place{kNone, section_end(h)};
    }
    return Place{kNone, text_.size()};
  }

  [[nodiscard]] std::string indent_of(std::size_t i) const {
    const auto& st = st_[i];
    std::size_t p = st.begin;
    while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t')) ++p;
    return text_.substr(st.begin, p - st.begin);
  }

  // Inserts whole lines at `pos` (a line start; at the end of a text without a final line
  // break, one is added first).
  Result<void> insert_lines(std::size_t pos, const std::string& lines) {
    std::string text = lines;
    if (pos > 0 && text_[pos - 1] != '\n') text.insert(0, nl_);
    text_.insert(pos, text);
    return rescan();
  }

  // A new `[table]` header with its lines at `pos`, after a blank line.
  Result<void> insert_table(std::size_t pos, const Path& table, const std::string& lines) {
    std::string text;
    if (pos > 0 && text_[pos - 1] != '\n') text += nl_;
    if (pos > 0) text += nl_;
    text += "[" + path_text(table) + "]" + nl_ + lines;
    text_.insert(pos, text);
    return rescan();
  }

  // A header's start, extended over one blank line right before it.
  [[nodiscard]] std::size_t with_blank_before(std::size_t header) const {
    if (header > 0 && st_[header - 1].kind == TomlStatementKind::Blank) return st_[header - 1].begin;
    return st_[header].begin;
  }

  void erase_ranges(std::vector<std::pair<std::size_t, std::size_t>> ranges) {
    std::sort(ranges.begin(), ranges.end());
    for (auto it = ranges.rbegin(); it != ranges.rend(); ++it) text_.erase(it->first, it->second - it->first);
  }

  Result<std::pair<std::size_t, std::vector<TomlArrayElement>>> array_at(const Path& key) const {
    const auto kv = find_kv(key);
    if (kv == kNone) {
      if (const auto b = blocker(key); b != kNone) return blocked(b, key, Path(key.begin(), key.end() - 1));
      return fail(fmt::format("`{}` not found", path_text(key)));
    }
    if (text_[st_[kv].value_begin] != '[') {
      return fail(fmt::format("line {}: `{}` is not an array", st_[kv].line, path_text(key)));
    }
    auto elements = scan_toml_array(text_, st_[kv].value_begin);
    if (!elements) return fail(elements.error());
    return std::make_pair(kv, std::move(*elements));
  }

  [[nodiscard]] std::size_t skip_spaces(std::size_t i) const {
    while (i < text_.size() && (text_[i] == ' ' || text_[i] == '\t')) ++i;
    return i;
  }

  [[nodiscard]] std::size_t line_start(std::size_t pos) const {
    while (pos > 0 && text_[pos - 1] != '\n') --pos;
    return pos;
  }

  [[nodiscard]] bool first_on_line(std::size_t pos) const {
    std::size_t j = pos;
    while (j > 0 && (text_[j - 1] == ' ' || text_[j - 1] == '\t')) --j;
    return j == 0 || text_[j - 1] == '\n';
  }

  struct Tail {
    std::size_t comma = kNone;     // the comma right after the element (spaces allowed before it)
    std::size_t line_end = kNone;  // after the line break ending the element's line, when only
                                   // a comma, spaces and a comment follow it there
  };

  [[nodiscard]] Tail after_element(const TomlArrayElement& e) const {
    Tail tail;
    std::size_t q = skip_spaces(e.end);
    if (q < text_.size() && text_[q] == ',') {
      tail.comma = q;
      q = skip_spaces(q + 1);
    }
    if (q < text_.size() && text_[q] == '#') {
      while (q < text_.size() && text_[q] != '\n') ++q;
    }
    if (q < text_.size() && text_[q] == '\r' && q + 1 < text_.size() && text_[q + 1] == '\n') ++q;
    if (q < text_.size() && text_[q] == '\n') tail.line_end = q + 1;
    return tail;
  }

  // The separator the array uses between elements on one line (`, ` or `,`), else ", ".
  [[nodiscard]] std::string inline_separator(const std::vector<TomlArrayElement>& elements) const {
    for (std::size_t i = 0; i + 1 < elements.size(); ++i) {
      const auto sep = text_.substr(elements[i].end, elements[i + 1].begin - elements[i].end);
      if (std::count(sep.begin(), sep.end(), ',') == 1 &&
          std::all_of(sep.begin(), sep.end(), [](char c) { return c == ',' || c == ' ' || c == '\t'; })) {
        return sep;
      }
    }
    return ", ";
  }

  void remove_element(const std::vector<TomlArrayElement>& elements, std::size_t k) {
    const auto& e = elements[k];
    const auto tail = after_element(e);
    if (first_on_line(e.begin) && tail.line_end != kNone) {  // its own line
      std::vector<std::pair<std::size_t, std::size_t>> ranges{{line_start(e.begin), tail.line_end}};
      if (k + 1 == elements.size() && tail.comma == kNone && k > 0) {  // keep "no trailing comma"
        const auto before = after_element(elements[k - 1]);
        if (before.comma != kNone) ranges.emplace_back(before.comma, before.comma + 1);
      }
      erase_ranges(std::move(ranges));
      return;
    }
    if (k + 1 < elements.size()) {
      text_.erase(e.begin, elements[k + 1].begin - e.begin);
    } else if (k > 0) {
      text_.erase(elements[k - 1].end, e.end - elements[k - 1].end);
    } else {
      const std::size_t end = tail.comma != kNone ? skip_spaces(tail.comma + 1) : e.end;
      text_.erase(e.begin, end - e.begin);
    }
  }
};

// ---------------------------------------------------------------------------------------------
// Provider edits
// ---------------------------------------------------------------------------------------------

const Path kNamespaceList{"variant", "default-priorities", "namespace"};
const Path kDefaultPriorities{"variant", "default-priorities"};
const Path kFeaturePriorities{"variant", "default-priorities", "feature"};
const Path kPropertyPriorities{"variant", "default-priorities", "property"};

Path provider_path(std::string_view ns) { return {"variant", "providers", std::string(ns)}; }
Path static_path(std::string_view ns) { return {"variant", "static-properties", std::string(ns)}; }

Result<void> check_spec(const ProviderSpec& spec) {
  using detail::python_json_string;
  if (!variant::is_valid_namespace(spec.ns)) {
    return fail(fmt::format("namespace {} must match [a-z0-9_]+", python_json_string(spec.ns)));
  }
  for (const auto& r : spec.requires_) {
    if (!detail::is_single_line_text(r)) {
      return fail(fmt::format("requires item {}: expected one line of text without tabs", python_json_string(r)));
    }
    if (auto parsed = markers::Requirement::parse(r); !parsed) {
      return fail(fmt::format("requires item {} is not a valid PEP 508 requirement: {}", python_json_string(r),
                              parsed.error().message));
    }
  }
  if (spec.enable_if) {
    if (!detail::is_single_line_text(*spec.enable_if)) {
      return fail(
          fmt::format("enable-if {}: expected one line of text without tabs", python_json_string(*spec.enable_if)));
    }
    if (auto parsed = markers::Marker::parse(*spec.enable_if); !parsed) {
      return fail(fmt::format("enable-if {} is not a valid environment marker: {}", python_json_string(*spec.enable_if),
                              parsed.error().message));
    }
  }
  if (spec.plugin_api && !detail::is_plugin_api_reference(*spec.plugin_api)) {
    return fail(fmt::format("plugin-api {} must be an object reference `module` or `module:attr`",
                            python_json_string(*spec.plugin_api)));
  }
  std::set<std::string> features;
  for (const auto& [feature, values] : spec.static_properties) {
    if (!variant::is_valid_feature_name(feature)) {
      return fail(fmt::format("static property feature {} must match [a-z0-9_]+", python_json_string(feature)));
    }
    if (!features.insert(feature).second) {
      return fail(fmt::format("static property feature {} is given twice", python_json_string(feature)));
    }
    if (values.empty()) {
      return fail(fmt::format("static property feature {} needs at least one value", python_json_string(feature)));
    }
    std::set<std::string> seen;
    for (const auto& v : values) {
      if (!variant::is_valid_feature_value(v)) {
        return fail(fmt::format("static property {} :: {} :: {}: the value must match [a-z0-9_.]+", spec.ns, feature,
                                python_json_string(v)));
      }
      if (!seen.insert(v).second) {
        return fail(
            fmt::format("static property {} :: {}: value {} is given twice", spec.ns, feature, python_json_string(v)));
      }
    }
  }
  if (!spec.static_properties.empty() && !spec.requires_.empty()) {
    return fail(
        fmt::format("provider {}: static properties are for ahead-of-time providers without a plugin; a "
                    "provider with `requires` gets them from its plugin at build time",
                    spec.ns));
  }
  if (!spec.static_properties.empty() && spec.install_time.value_or(false)) {
    return fail(
        fmt::format("provider {}: static properties are for ahead-of-time providers (install-time = false), "
                    "not install-time ones",
                    spec.ns));
  }
  return {};
}

// The edited text, if it is valid TOML, equals `expected` and has no hard errors.
Result<std::string> finish(std::string text, const toml::table& expected) {
  auto parsed = parse_toml(text);
  if (!parsed) {
    return fail("internal error: the edited file would not be valid TOML (" + parsed.error().message +
                "); nothing was changed");
  }
  if (!same_document(*parsed, expected)) {
    return fail("internal error: the edited file would not have the intended content; nothing was changed");
  }
  auto report = check_pyproject(text);
  if (!report.errors.empty()) {
    std::vector<std::string> rest(report.errors.begin() + 1, report.errors.end());
    return fail(Error("the edited file would not be valid: " + report.errors.front(), std::move(rest)));
  }
  return text;
}

}  // namespace

Result<std::vector<TomlStatement>> scan_toml(std::string_view text) { return Scanner(text).statements(); }

Result<std::vector<TomlArrayElement>> scan_toml_array(std::string_view text, std::size_t value_begin) {
  return Scanner(text).array_elements(value_begin);
}

Result<std::string> add_provider(std::string_view toml_text, const ProviderSpec& spec) {
  if (auto ok = check_spec(spec); !ok) return fail(ok.error());
  auto original = parse_toml(toml_text);
  if (!original) return fail(original.error());
  auto editor = Editor::open(toml_text);
  if (!editor) return fail(editor.error());
  Editor& ed = *editor;
  toml::table expected = *original;

  // Provider keys, in the order they are written when new.
  std::vector<std::pair<std::string, std::string>> keys;
  const bool write_install_time = spec.install_time.has_value() || !spec.static_properties.empty();
  const bool install_time = spec.install_time.value_or(false);
  if (!spec.requires_.empty()) keys.emplace_back("requires", toml_string_array(spec.requires_));
  if (spec.enable_if) keys.emplace_back("enable-if", toml_string(*spec.enable_if));
  if (spec.plugin_api) keys.emplace_back("plugin-api", toml_string(*spec.plugin_api));
  if (spec.optional) keys.emplace_back("optional", *spec.optional ? "true" : "false");
  if (write_install_time) keys.emplace_back("install-time", install_time ? "true" : "false");
  if (spec.requires_.empty() && spec.static_properties.empty() &&
      node_at(*original, provider_path(spec.ns)) == nullptr) {
    return fail(
        fmt::format("variant.providers.{} does not exist; a new provider needs `requires` (an install-time "
                    "or ahead-of-time provider plugin) or static properties (an ahead-of-time provider "
                    "without a plugin)",
                    spec.ns));
  }

  // default-priorities.namespace
  const toml::node* list_node = node_at(*original, kNamespaceList);
  if (list_node != nullptr) {
    if (!list_node->is_array()) {
      return fail(fmt::format("line {}: variant.default-priorities.namespace must be an array of namespaces",
                              list_node->source().begin.line));
    }
    toml::array list = *list_node->as_array();
    std::size_t current = kNone;
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (const auto* s = list[i].as_string(); s != nullptr && s->get() == spec.ns) {
        current = i;
        break;
      }
    }
    const std::size_t others = current == kNone ? list.size() : list.size() - 1;
    if (spec.priority && *spec.priority > others) {
      return fail(
          fmt::format("priority {} is out of range: variant.default-priorities.namespace has {} other "
                      "namespace(s), so the position must be 0..{}",
                      *spec.priority, others, others));
    }
    const bool move = current != kNone && spec.priority && *spec.priority != current;
    if (current == kNone || move) {
      if (move) {
        if (auto r = ed.array_remove(kNamespaceList, spec.ns); !r) return fail(r.error());
        toml::array rest;
        for (const auto& item : list) {
          if (const auto* s = item.as_string(); s == nullptr || s->get() != spec.ns) rest.push_back(item);
        }
        list = std::move(rest);
      }
      const std::size_t at = std::min(spec.priority.value_or(list.size()), list.size());
      if (auto r = ed.array_insert(kNamespaceList, at, toml_string(spec.ns)); !r) return fail(r.error());
      list.insert(list.cbegin() + static_cast<std::ptrdiff_t>(at), spec.ns);
      make_table(expected, kDefaultPriorities)->insert_or_assign("namespace", std::move(list));
    }
  } else {
    if (spec.priority && *spec.priority != 0) {
      return fail(
          fmt::format("priority {} is out of range: there is no variant.default-priorities.namespace yet, "
                      "so the position must be 0",
                      *spec.priority));
    }
    if (auto r = ed.set_value(kDefaultPriorities, "namespace", toml_string_array({spec.ns})); !r)
      return fail(r.error());
    auto* table = make_table(expected, kDefaultPriorities);
    if (table == nullptr) return fail("variant.default-priorities must be a table");
    table->insert_or_assign("namespace", toml::array{spec.ns});
  }

  // [variant.providers.NS]
  const Path provider = provider_path(spec.ns);
  for (const auto& [key, value] : keys) {
    if (auto r = ed.set_value(provider, key, value); !r) return fail(r.error());
  }
  if (!keys.empty()) {
    auto* table = make_table(expected, provider);
    if (table == nullptr) return fail(fmt::format("variant.providers.{} must be a table", spec.ns));
    if (!spec.requires_.empty()) {
      toml::array requires_list;
      for (const auto& r : spec.requires_) requires_list.push_back(r);
      table->insert_or_assign("requires", std::move(requires_list));
    }
    if (spec.enable_if) table->insert_or_assign("enable-if", *spec.enable_if);
    if (spec.plugin_api) table->insert_or_assign("plugin-api", *spec.plugin_api);
    if (spec.optional) table->insert_or_assign("optional", *spec.optional);
    if (write_install_time) table->insert_or_assign("install-time", install_time);
  }

  // [variant.static-properties.NS]
  if (!spec.static_properties.empty()) {
    const Path statics = static_path(spec.ns);
    auto* table = make_table(expected, statics);
    if (table == nullptr) return fail(fmt::format("variant.static-properties.{} must be a table", spec.ns));
    for (const auto& [feature, values] : spec.static_properties) {
      if (auto r = ed.set_value(statics, feature, toml_string_array(values)); !r) return fail(r.error());
      toml::array array;
      for (const auto& v : values) array.push_back(v);
      table->insert_or_assign(feature, std::move(array));
    }
    // Several static features need their order in default-priorities.feature.NS (PEP 817).
    if (table->size() > 1) {
      const Path order_path = join(kFeaturePriorities, spec.ns);
      const toml::node* order_node = node_at(*original, order_path);
      if (order_node != nullptr && !order_node->is_array()) {
        return fail(fmt::format("line {}: variant.default-priorities.feature.{} must be an array of feature names",
                                order_node->source().begin.line, spec.ns));
      }
      std::vector<std::string> order =
          order_node != nullptr ? string_items(*order_node->as_array()) : std::vector<std::string>{};
      std::vector<std::string> missing;
      auto listed = [&](const std::string& f) {
        return std::find(order.begin(), order.end(), f) != order.end() ||
               std::find(missing.begin(), missing.end(), f) != missing.end();
      };
      for (const auto& [feature, values] : spec.static_properties) {
        if (!listed(feature)) missing.push_back(feature);
      }
      std::vector<std::string> others;
      for (const auto& [feature, value] : *table) {
        if (!listed(std::string(feature.str()))) others.emplace_back(feature.str());
      }
      std::sort(others.begin(), others.end());
      missing.insert(missing.end(), others.begin(), others.end());
      if (!missing.empty()) {
        toml::array full_order = order_node != nullptr ? *order_node->as_array() : toml::array{};
        if (order_node != nullptr) {
          for (const auto& f : missing) {
            auto size = ed.array_size(order_path);
            if (!size) return fail(size.error());
            if (auto r = ed.array_insert(order_path, *size, toml_string(f)); !r) return fail(r.error());
          }
        } else {
          if (auto r = ed.set_value(kFeaturePriorities, spec.ns, toml_string_array(missing)); !r)
            return fail(r.error());
        }
        for (const auto& f : missing) full_order.push_back(f);
        auto* features = make_table(expected, kFeaturePriorities);
        if (features == nullptr) return fail("variant.default-priorities.feature must be a table");
        features->insert_or_assign(spec.ns, std::move(full_order));
      }
    }
  }
  return finish(ed.text(), expected);
}

Result<std::string> remove_provider(std::string_view toml_text, std::string_view ns) {
  auto original = parse_toml(toml_text);
  if (!original) return fail(original.error());
  auto editor = Editor::open(toml_text);
  if (!editor) return fail(editor.error());
  Editor& ed = *editor;
  toml::table expected = *original;

  // What to remove, and the table to suggest when it is inside an inline table.
  const std::vector<std::pair<Path, Path>> parts{{provider_path(ns), provider_path(ns)},
                                                 {static_path(ns), static_path(ns)},
                                                 {join(kFeaturePriorities, ns), kFeaturePriorities},
                                                 {join(kPropertyPriorities, ns), join(kPropertyPriorities, ns)}};
  bool found = false;
  for (const auto& [path, table] : parts) {
    if (node_at(*original, path) == nullptr) continue;
    found = true;
    auto removed = ed.remove(path, table);
    if (!removed) return fail(removed.error());
    if (*removed == 0) return fail(fmt::format("could not locate `{}` in the text", path_text(path)));
    erase_at(expected, path);
  }
  if (const toml::node* list_node = node_at(*original, kNamespaceList); list_node != nullptr && list_node->is_array()) {
    toml::array list;
    for (const auto& item : *list_node->as_array()) {
      if (const auto* s = item.as_string(); s != nullptr && s->get() == ns) continue;
      list.push_back(item);
    }
    if (list.size() != list_node->as_array()->size()) {
      found = true;
      auto removed = ed.array_remove(kNamespaceList, ns);
      if (!removed) return fail(removed.error());
      if (*removed == 0) {
        return fail(fmt::format("could not locate {} in `variant.default-priorities.namespace`",
                                detail::python_json_string(ns)));
      }
      if (list.empty()) {
        if (auto r = ed.remove(kNamespaceList, kDefaultPriorities); !r) return fail(r.error());
        erase_at(expected, kNamespaceList);
      } else {
        make_table(expected, kDefaultPriorities)->insert_or_assign("namespace", std::move(list));
      }
    }
  }
  if (!found) {
    return fail(
        fmt::format("namespace {} is not in the [variant] table (not in providers, static-properties, or "
                    "default-priorities.namespace, .feature or .property)",
                    detail::python_json_string(ns)));
  }
  return finish(ed.text(), expected);
}

}  // namespace vwheel::metadata
