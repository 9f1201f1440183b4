#pragma once
/// \file
/// Editing the `[variant]` table of a `pyproject.toml` (PEP 817) in place, for
/// `vwheel pyproject add-provider|remove-provider`. Pure functions: text in, text out; no I/O.
///
/// Everything the edit does not change is kept byte for byte: comments, blank lines, key order,
/// quoting, spacing, the other tables, and inside the variant tables every key and comment that is
/// not edited. Edits work on byte spans found by the TOML structure scanner and editor of the
/// `toml_edit` component (`vwheel/toml_edit/editor.hpp`, where the placement rules are general);
/// toml++ decides what the document means. Every result is parsed again, compared with the
/// intended document (the original as toml++ reads it, with just the intended changes; tables that
/// an edit leaves empty inside `[variant]` may go) and checked with `check_pyproject`: an edit whose
/// result would not be valid TOML, would mean anything else, or would have hard errors fails and
/// returns no text.
///
/// Where things go:
///
/// * A key that exists gets its value replaced (the key, its spacing and its trailing comment stay).
/// * A new key of an existing table goes after that table's last key, in the table's style: under
///   a `[header]` as `key = value`, or as a dotted key (`providers.ns.optional = true`) after the
///   last dotted key that defines the table, with the same indentation.
/// * A new table goes next to its closest relatives. Walking up from its parent
///   (`variant.providers`, then `variant`), the first level that has `[headers]` below it gets a
///   new `[variant.…]` header after the last of them (after that table's last key, preceded by a
///   blank line); a level written with dotted keys (`[variant]` + `providers.x.requires = [...]`,
///   or top-level `variant.…` keys) gets dotted keys after the last of them; a level with just its
///   own `[header]` gets the new header after it. Without any `[variant…]` the new table goes at the
///   end of the file, after a blank line. So a new provider lands after the last
///   `[variant.providers.*]` table, and a new `default-priorities.feature.NS` next to `namespace`
///   as `feature.NS = [...]`.
/// * Arrays (`default-priorities.namespace`, `default-priorities.feature.NS`) are edited in place
///   and keep their style: inline arrays get `, "x"` (with the separator the array uses), multi-line
///   arrays with one element per line get a new line with the same indentation, and the presence or
///   absence of a trailing comma is kept. Comments inside the array stay.
/// * Removing a table removes its header through its last key (comments between its keys go with
///   it; comment lines after its last key, and comments above its header, stay: they may describe
///   what follows) plus one blank line right before the header. Dotted keys defining a removed table
///   are removed line by line. A `[header]` left without keys or comments by a removal is removed
///   too, and so is a `namespace` list left empty.
/// * Line breaks of new lines follow the file (CRLF stays CRLF). Values are written as TOML basic
///   strings (with `\"`, `\\` and control characters escaped), inline arrays and booleans.
///
/// Forms that cannot be edited safely fail with one line naming the line number and suggesting the
/// `[table]` header to use instead (e.g. `[variant.providers.x]`): an inline table (or any
/// non-table value) that contains the key to change (`providers = { x = { ... } }`), an array of
/// tables (`[[variant…]]`), and a `default-priorities.namespace` that is not an array. An inline table that is replaced
/// or removed as a whole (`providers.x = { ... }` when removing `x`) is fine.
///
/// Round trip: adding a provider to a file that does not have it and removing it again gives back
/// the original text, except that a file without a final line break gets one and an empty
/// `namespace = []` list, left empty again, is removed.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vwheel/core/error.hpp"

namespace vwheel::metadata {

// ---- provider edits ----

/// What `add_provider` writes for one namespace. Unset fields leave the file's value alone.
struct ProviderSpec {
  std::string ns;                         ///< namespace, `[a-z0-9_]+`
  std::vector<std::string> requires_;     ///< PEP 508 requirements; empty: `requires` is left alone
  std::optional<std::string> plugin_api;  ///< `module` or `module:attr`
  std::optional<std::string> enable_if;   ///< a PEP 508 environment marker
  std::optional<bool> optional;
  /// `install-time`. Given static properties and no value, `false` is written (an ahead-of-time
  /// provider without a plugin); `true` together with static properties is an error.
  std::optional<bool> install_time;
  /// `static-properties.NS`: feature -> values (most preferred first), in the order given. A feature
  /// that exists gets its values replaced; others are kept. Only for ahead-of-time providers
  /// without `requires` (checked). When the namespace ends up with several static features, those
  /// not yet in `default-priorities.feature.NS` are appended to it in this order (PEP 817 needs
  /// their order), then any other static features, sorted.
  std::vector<std::pair<std::string, std::vector<std::string>>> static_properties;
  /// 0-based position in `default-priorities.namespace` (0 = highest priority). Unset: a new
  /// namespace is appended and a listed one stays where it is; set: the namespace is inserted, or
  /// moved, there. Must be at most the number of other namespaces in the list.
  std::optional<std::size_t> priority;
};

/// Adds the provider `spec.ns`, or updates the keys `spec` gives of an existing one: its
/// `[variant.providers.NS]` keys (`requires`, `enable-if`, `plugin-api`, `optional`,
/// `install-time`, in that order when new), its `static-properties`, and its place in
/// `default-priorities.namespace` (created as `[variant.default-priorities]` with
/// `namespace = ["NS"]` when missing). Fails (no text) on an invalid namespace, requirement, marker,
/// plugin-api, feature or value; on a form that cannot be edited in place (see the file comment);
/// and when the result would not be valid TOML or `check_pyproject` would report hard errors.
/// Conformance problems of the result are not errors (see `check_pyproject`).
[[nodiscard]] Result<std::string> add_provider(std::string_view toml_text, const ProviderSpec& spec);

/// Removes namespace `ns`: its `variant.providers.NS` table, its entry in
/// `default-priorities.namespace` (every occurrence), and its `static-properties.NS`,
/// `default-priorities.feature.NS` and `default-priorities.property.NS`. Fails when `ns` is in none
/// of them, on a form that cannot be edited in place, and when the result would not be valid.
[[nodiscard]] Result<std::string> remove_provider(std::string_view toml_text, std::string_view ns);

}  // namespace vwheel::metadata
