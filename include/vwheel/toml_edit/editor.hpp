#pragma once
/// \file
/// Editing a TOML document in place: set a key, remove a table or key, insert into or remove from
/// an array, while everything the edit does not touch stays byte for byte (comments, blank lines,
/// key order, quoting, spacing). The edits work on the statements of `scan.hpp`; callers decide
/// what the result must mean and check it (e.g. by parsing it again).
///
/// Where things go:
///
/// * A key that exists gets its value replaced (the key, its spacing and its trailing comment stay).
/// * A new key of an existing table goes after that table's last key, in the table's style: under
///   a `[header]` as `key = value`, or as a dotted key (`b.c.d = 1`) after the last dotted key that
///   defines the table, with the same indentation.
/// * A new table goes next to its closest relatives: walking up from its parent, the first level
///   that has `[headers]` below it gets a new `[header]` after the last of them (preceded by a
///   blank line); a level written with dotted keys gets dotted keys; a level with just its own
///   `[header]` gets the new header after it; otherwise the table goes at the end of the file.
/// * Arrays are edited in place and keep their style: inline arrays get `, x` (with the separator
///   the array uses), multi-line arrays with one element per line get a new line with the same
///   indentation, and a trailing comma stays or stays absent. Comments inside the array stay.
/// * Removing a table removes its header through its last key plus one blank line before the
///   header (comment lines after its last key, and above its header, stay). Dotted keys defining
///   a removed table are removed line by line; a `[header]` left without keys or comments goes too.
/// * New lines use the file's line breaks (CRLF stays CRLF).
///
/// A key inside an inline table or any other value (`a = { b = 1 }` when setting `a.b`) cannot
/// be edited in place: that fails with one line naming the line and suggesting a `[table]`.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/toml_edit/scan.hpp"

namespace vwheel::toml_edit {

/// A key path from the root table, keys decoded (`["tool", "a.b"]` is `tool."a.b"`).
using TomlPath = std::vector<std::string>;

/// `items` as an inline TOML array of basic strings: `["a", "b"]`.
[[nodiscard]] std::string toml_string_array(const std::vector<std::string>& items);

/// `path` from index `from` on as TOML dotted-key text: `a."b.c".d`.
[[nodiscard]] std::string toml_path_text(const TomlPath& path, std::size_t from = 0);

/// A TOML text and its statements, rescanned after every edit. Values are given as TOML text
/// (e.g. from `toml_string`); the editor does not check them.
class Editor {
 public:
  /// Scans `text`; fails (`line N: ...`) where the scanner cannot split it.
  [[nodiscard]] static Result<Editor> open(std::string_view text);

  Editor(Editor&&) noexcept;
  Editor& operator=(Editor&&) noexcept;
  ~Editor();

  /// The current text.
  [[nodiscard]] const std::string& text() const noexcept;
  /// The statements of the current text.
  [[nodiscard]] const std::vector<TomlStatement>& statements() const noexcept;

  /// Sets `table.key = value`: replaces an existing value, else adds the key (and the table).
  /// `value` is TOML text.
  [[nodiscard]] Result<void> set_value(const TomlPath& table, const std::string& key, const std::string& value);

  /// Removes everything that defines `path` (a table or a key); returns how many statements went.
  /// `table`: the table to suggest as a `[header]` when `path` is inside an inline table.
  [[nodiscard]] Result<std::size_t> remove(const TomlPath& path, const TomlPath& table);

  /// Inserts `value` (TOML text) at `index` of the array at `key`, keeping the array's style.
  [[nodiscard]] Result<void> array_insert(const TomlPath& key, std::size_t index, const std::string& value);

  /// Removes every string element equal to `value` from the array at `key`; returns how many.
  [[nodiscard]] Result<std::size_t> array_remove(const TomlPath& key, std::string_view value);

  /// The number of elements of the array at `key`.
  [[nodiscard]] Result<std::size_t> array_size(const TomlPath& key);

 private:
  class Impl;
  explicit Editor(std::unique_ptr<Impl> impl) noexcept;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vwheel::toml_edit
