// The TOML structure scanner (see scan.hpp): a hand-written recursive reader that only finds
// where statements and values begin and end, and decodes keys and strings.

#include "vwheel/toml_edit/scan.hpp"

#include <cstdint>

#include <fmt/format.h>

#include "toml_edit/internal.hpp"
#include "vwheel/core/text.hpp"

namespace vwheel::toml_edit {
namespace {

using detail::is_bare_key_char;

constexpr int kMaxNesting = 256;

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
      const int d = at_k < t_.size() ? hex_digit_value(t_[at_k]) : -1;
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

  // A multi-line string at `i` (its opening `"""` or `'''`): basic ones (`quote` `"`) take
  // escapes and line-ending backslashes, literal ones are raw.
  Result<std::size_t> multiline_string(std::size_t i, char quote, std::string* out) const {
    const bool basic = quote == '"';
    const std::string delimiter(3, quote);
    const std::size_t open = i;
    i += 3;
    if (at(i, '\n')) {
      ++i;
    } else if (at(i, '\r') && at(i + 1, '\n')) {
      i += 2;
    }
    for (;;) {
      if (i >= t_.size()) {
        return error(open, basic ? "unterminated multi-line string" : "unterminated multi-line literal string");
      }
      if (starts(i, delimiter)) {
        std::size_t end = 0;
        auto extra = closing_run(i, quote, end);
        if (!extra) return fail(extra.error());
        if (out != nullptr) out->append(*extra, quote);
        return end;
      }
      if (basic && t_[i] == '\\') {
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

  // A value at `i`; returns the position just after it. `decoded` receives the text of a string.
  Result<std::size_t> value(std::size_t i, std::optional<std::string>* decoded) {
    if (i >= t_.size()) return error(i, "expected a value");
    std::string text;
    std::string* out = decoded != nullptr ? &text : nullptr;
    Result<std::size_t> end = std::size_t{0};
    bool is_string = true;
    if (starts(i, "\"\"\"")) {
      end = multiline_string(i, '"', out);
    } else if (starts(i, "'''")) {
      end = multiline_string(i, '\'', out);
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

  // An array or inline table at `i` (its opening bracket), closed by `close`: `item(i)` reads
  // the element at `i` and returns where it ends; elements are separated by `,`.
  template <class Item>
  Result<std::size_t> sequence(std::size_t i, char close, std::string_view what, Item&& item) {
    if (++depth_ > kMaxNesting) return error(i, "arrays and inline tables nested too deeply");
    const std::size_t open = i++;
    for (;;) {
      i = skip_blank(i);
      if (i >= t_.size()) return error(open, fmt::format("unterminated {}", what));
      if (t_[i] == close) break;
      auto e = item(i);
      if (!e) return e;
      i = skip_blank(*e);
      if (i >= t_.size()) return error(open, fmt::format("unterminated {}", what));
      if (at(i, ',')) {
        ++i;
        continue;
      }
      if (at(i, close)) break;
      return error(i, fmt::format("expected `,` or `{}` in an {}", close, what));
    }
    --depth_;
    return i + 1;
  }

  Result<std::size_t> array(std::size_t i, std::vector<TomlArrayElement>* elements) {
    return sequence(i, ']', "array", [&](std::size_t begin) -> Result<std::size_t> {
      TomlArrayElement element;
      element.begin = begin;
      auto e = value(begin, elements != nullptr ? &element.string : nullptr);
      if (!e) return e;
      element.end = *e;
      if (elements != nullptr) elements->push_back(std::move(element));
      return e;
    });
  }

  Result<std::size_t> inline_table(std::size_t i) {
    return sequence(i, '}', "inline table", [&](std::size_t begin) -> Result<std::size_t> {
      std::vector<std::string> k;
      std::size_t kb = 0;
      std::size_t ke = 0;
      auto e = key(begin, k, kb, ke);
      if (!e) return e;
      const std::size_t eq = skip_spaces(*e);
      if (!at(eq, '=')) return error(eq, "expected `=` in an inline table");
      return value(skip_spaces(eq + 1), nullptr);
    });
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
    const bool date = token.size() == 10 && is_ascii_digit(token[0]) && is_ascii_digit(token[3]) && token[4] == '-' &&
                      token[7] == '-' && is_ascii_digit(token[9]);
    if (date && at(i, ' ') && i + 1 < t_.size() && is_ascii_digit(t_[i + 1])) {
      ++i;
      while (i < t_.size() && !is_delimiter(t_[i])) ++i;
    }
    return i;
  }
};

}  // namespace

Result<std::vector<TomlStatement>> scan_toml(std::string_view text) { return Scanner(text).statements(); }

Result<std::vector<TomlArrayElement>> scan_toml_array(std::string_view text, std::size_t value_begin) {
  return Scanner(text).array_elements(value_begin);
}

}  // namespace vwheel::toml_edit
