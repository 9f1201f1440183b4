#pragma once
/// \file
/// A TOML structure scanner: splits a document into statements (blank lines, comments, table
/// headers, key/values) with byte spans, and an array value into its elements, so that an editor
/// can change one value and keep everything else byte for byte (comments, layout, quoting).
/// Pure functions, no I/O; toml++ (not this scanner) decides what a document means.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"

namespace vwheel::toml_edit {

/// What one statement of a TOML document is.
enum class TomlStatementKind {
  Blank,       ///< an empty line or one with only spaces and tabs
  Comment,     ///< a line with only a comment
  Table,       ///< a `[table]` header
  ArrayTable,  ///< an `[[array-of-tables]]` header
  KeyValue,    ///< `key = value`; the value may span several lines
};

/// One statement: whole lines, from the start of its first line through the line break that ends
/// its last line (or the end of the text). A statement's trailing comment belongs to it.
struct TomlStatement {
  TomlStatementKind kind = TomlStatementKind::Blank;
  std::size_t line = 1;   ///< 1-based line number of `begin`
  std::size_t begin = 0;  ///< start of the first line
  std::size_t end = 0;    ///< just after the line break ending the statement, or the text's size
  /// Table/ArrayTable: the header's key path; KeyValue: the (dotted) key, relative to the table.
  /// Quoted keys are decoded (`"a.b"` is one key `a.b`).
  std::vector<std::string> key;
  std::size_t key_begin = 0;    ///< Table/ArrayTable/KeyValue: start of the first key part
  std::size_t key_end = 0;      ///< end of the last key part
  std::size_t value_begin = 0;  ///< KeyValue: first byte of the value
  std::size_t value_end = 0;    ///< KeyValue: just after the value (before spaces and a comment)
};

/// Splits a TOML text into statements (every byte belongs to exactly one, in order). Values are
/// skipped structurally: strings of all four kinds (multi-line ones may hold brackets, `#` and
/// line breaks), arrays (nested, multi-line, with comments and trailing commas), inline tables,
/// and scalars (including local date-times with a space). Not a validator: meant for text toml++
/// accepts. Fails with `line N: ...` on text it cannot split.
[[nodiscard]] Result<std::vector<TomlStatement>> scan_toml(std::string_view text);

/// One element of an array value.
struct TomlArrayElement {
  std::size_t begin = 0;              ///< first byte of the element
  std::size_t end = 0;                ///< just after the element
  std::optional<std::string> string;  ///< the decoded value when the element is a string
};

/// The elements of the array value that starts at `value_begin` (a `[`), in order.
[[nodiscard]] Result<std::vector<TomlArrayElement>> scan_toml_array(std::string_view text, std::size_t value_begin);

}  // namespace vwheel::toml_edit
