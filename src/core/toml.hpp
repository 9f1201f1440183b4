#pragma once
// toml++, included the one way vwheel includes it.
//
// toml++ 3.3.0 asserts (debug builds) or assumes (release builds with clang: undefined
// behaviour) that a table header starts with a key character, which hostile input breaks
// (fuzz_metadata found `[~a]`; seed fuzz/corpus/fuzz_metadata/regress-toml-table-header.toml).
// With TOML_ASSERT a no-op and NDEBUG undefined while the header is read, that check becomes
// neither an abort nor an assumption, and the parser reports the error it already detects.

#ifdef NDEBUG
#undef NDEBUG
#define VWHEEL_TOML_RESTORE_NDEBUG
#endif
#define TOML_ASSERT(expr) static_assert(true)
#include <toml++/toml.h>
#ifdef VWHEEL_TOML_RESTORE_NDEBUG
#define NDEBUG
#undef VWHEEL_TOML_RESTORE_NDEBUG
#endif

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace vwheel {

/// How errors name a TOML value's type, the same in every reader of TOML input (`pyproject.toml`,
/// `pylock.toml`): "a table", "an array", "a string", ..., "a date-time"; "nothing" for none.
[[nodiscard]] inline std::string_view toml_type_name(const toml::node& node) noexcept {
  switch (node.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    default:
      return "nothing";
  }
}

/// More `.` than this on one line outside strings and comments is refused (see below).
inline constexpr std::size_t kTomlMaxDotsPerLine = 256;

/// Input toml++ 3.3.0 cannot take safely, refused before it sees it: call this before
/// `toml::parse`. Returns a one-line description with the line number, or nothing when the text
/// is safe.
/// - Its Unicode tables reach `__builtin_unreachable()` (undefined behaviour) for many non-ASCII
///   characters where it expects a key or whitespace (found by fuzz_metadata; seeds
///   regress-toml-*.toml). TOML allows non-ASCII text only inside strings and comments.
/// - It builds one nested table per part of a dotted key or table header and recurses over them,
///   so `[a.a.a...]` with a million parts overflows the stack. No file vwheel reads nests keys
///   more than a few levels.
inline std::optional<std::string> toml_unsupported_character(std::string_view text) {
  enum class State { normal, comment, basic, literal, multi_basic, multi_literal };
  State state = State::normal;
  std::size_t line = 1;
  std::size_t dots = 0;
  // Inside a bare value (a number, boolean or date): toml++ scans it up to whitespace, `,`, `]`,
  // `}` or `#`, so a quote, bracket or `=` right after it does not start anything there
  // (`a = 1["..."` is one bad token whose characters toml++ checks against its Unicode tables).
  bool bare = false;
  bool value = false;      // after the `=` of a key/value pair (or inside a value's brackets)
  std::size_t depth = 0;   // `[`/`{` opened within a value
  // A multi-line string ends at `"""` (or `'''`) with up to two more quotes, which belong to it
  // (`"""a""""` is `a"`): the closing run is 3 to 5 quotes long (fuzz_user_config found a fourth
  // quote taken for a new string; seed regress-toml-unicode-after-closing-quotes).
  const auto closing_quotes = [&](std::size_t at, char quote) {
    std::size_t n = 0;
    while (n < 5 && at + n < text.size() && text[at + n] == quote) ++n;
    return n;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const auto starts = [&](std::string_view s) { return text.substr(i, s.size()) == s; };
    if (c == '\n') {
      ++line;
      dots = 0;
      bare = false;
      if (depth == 0) value = false;
      if (state == State::comment || state == State::basic || state == State::literal) state = State::normal;
      continue;
    }
    switch (state) {
      case State::normal:
        if (static_cast<unsigned char>(c) >= 0x80U) {
          return fmt::format("non-ASCII character outside a string or comment at line {} (TOML allows it only there)",
                             line);
        }
        if (c == '.' && ++dots > kTomlMaxDotsPerLine) {
          return fmt::format("line {} has more than {} dotted key parts (nesting too deep)", line, kTomlMaxDotsPerLine);
        }
        if (value && bare && !(c == ' ' || c == '\t' || c == '\r' || c == ',' || c == ']' || c == '}' || c == '#')) {
          break;  // still the same bare value: toml++ reads it up to one of those (not valid TOML)
        }
        if (value && (c == '[' || c == '{')) ++depth;
        if (value && (c == ']' || c == '}') && depth > 0) --depth;
        if (!value && c == '=') value = true;
        if (c != '.') {
          bare = !(c == ' ' || c == '\t' || c == '\r' || c == '=' || c == ',' || c == '[' || c == ']' || c == '{' ||
                   c == '}' || c == '#' || c == '"' || c == '\'');
        }
        if (c == '#') {
          state = State::comment;
        } else if (starts("\"\"\"")) {
          state = State::multi_basic;
          i += 2;
        } else if (starts("\'\'\'")) {
          state = State::multi_literal;
          i += 2;
        } else if (c == '"') {
          state = State::basic;
        } else if (c == '\'') {
          state = State::literal;
        }
        break;
      case State::basic:
      case State::multi_basic:
        if (c == '\\') {
          // An escape: toml++ checks what follows a backslash (and the whitespace of a
          // line-ending one) against its Unicode tables; no escape takes a non-ASCII character.
          std::size_t k = i + 1;
          while (state == State::multi_basic && k < text.size() && (text[k] == ' ' || text[k] == '\t')) ++k;
          if (k < text.size() && static_cast<unsigned char>(text[k]) >= 0x80U) {
            return fmt::format("non-ASCII character after a backslash at line {} (not an escape)", line);
          }
        }
        if (c == '\\' && state == State::multi_basic) {
          // A line-ending backslash: toml++ trims the whitespace after it, checking the first
          // other character against its Unicode tables; a non-ASCII one there is refused.
          std::size_t j = i + 1;
          while (j < text.size() && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r')) ++j;
          if (j < text.size() && text[j] == '\n') {
            std::size_t lines = 0;
            while (j < text.size() && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r' || text[j] == '\n')) {
              if (text[j] == '\n') ++lines;
              ++j;
            }
            if (j < text.size() && static_cast<unsigned char>(text[j]) >= 0x80U) {
              return fmt::format("non-ASCII character after a line-ending backslash at line {} (unsupported)",
                                 line + lines);
            }
            line += lines;
            i = j - 1;
            break;
          }
        }
        if (c == '\\') {
          ++i;
        } else if (state == State::basic && c == '"') {
          state = State::normal;
        } else if (state == State::multi_basic && starts("\"\"\"")) {
          state = State::normal;
          i += closing_quotes(i, '"') - 1;
        }
        break;
      case State::literal:
        if (c == '\'') state = State::normal;
        break;
      case State::multi_literal:
        if (starts("\'\'\'")) {
          state = State::normal;
          i += closing_quotes(i, '\'') - 1;
        }
        break;
      case State::comment:
        break;
    }
  }
  return std::nullopt;
}

}  // namespace vwheel
