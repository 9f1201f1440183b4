#pragma once
// Private to the metadata component: the JSON tree reader shared by the JSON and TOML front ends,
// and text helpers. nlohmann::json stays out of the public headers.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "vwheel/metadata/document.hpp"
#include "vwheel/variant/metadata.hpp"

namespace vwheel::metadata::detail {

using Json = nlohmann::json;

// ---- text helpers (text.cpp) ----

/// Decodes one UTF-8 code point at `s[i]` (core's strict `utf8_decode`), advancing `i`; invalid
/// bytes decode to nullopt (and advance by one).
std::optional<std::uint32_t> next_code_point(std::string_view s, std::size_t& i) noexcept;

/// `[\S ]+` with Python's Unicode `\S`, full match: non-empty, valid UTF-8, no whitespace but ' '.
bool is_single_line_text(std::string_view s) noexcept;

/// variantlib's plugin-api pattern, full match: `[\w.]+(\s*:\s*[\w.]+)?` (Unicode `\w`
/// approximated: ASCII letters, digits, `_`, and non-ASCII letters outside the punctuation and
/// symbol blocks).
bool is_plugin_api_reference(std::string_view s) noexcept;

/// Python `json.dumps(s, ensure_ascii=True)`: quoted, `\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`,
/// everything outside 0x20..0x7e as lowercase `\uXXXX` (surrogate pairs above U+FFFF). Invalid
/// UTF-8 bytes are written as `\ufffd`.
void append_python_json_string(std::string& out, std::string_view s);
std::string python_json_string(std::string_view s);

/// Python `json.dumps(value, indent=4, sort_keys=True)` of a tree (nlohmann's object map is
/// already sorted bytewise, which is code-point order for UTF-8). No trailing newline.
std::string python_json_dump(const Json& value);

/// One-line, ASCII rendering of a value for messages, truncated to about 80 characters.
std::string describe_value(const Json& value);
/// "a string", "an array", ... of a value, for messages.
std::string_view type_name(const Json& value) noexcept;

/// Makes a message one line: control characters and invalid UTF-8 become escapes.
std::string single_line(std::string_view text);

/// `a, b, c` with each item JSON-quoted; at most `limit` items, then `, ...`.
std::string quoted_list(const std::vector<std::string>& items, std::size_t limit = 8);

/// Key path helpers: `parent.key` when `key` is a plain word (letters, digits, `_.$-`), else
/// `parent["key"]`; `parent[index]`.
std::string child_path(std::string_view parent, std::string_view key);
std::string index_path(std::string_view parent, std::size_t index);

// ---- the reader (reader.cpp) ----

struct ReadOutcome {
  variant::VariantMetadata metadata;
  std::vector<std::string> errors;       // hard errors
  std::vector<std::string> conformance;  // conformance problems
  std::vector<Finding> findings;         // both, in order, with severities (pointer filled by the caller)
};

/// Fills each finding's JSON pointer from its dotted `location`, resolving keys that contain dots
/// against `root` when given (labels may contain dots); keys not found split at every dot.
void fill_pointers(std::vector<Finding>& findings, const Json* root);

/// Per namespace, the feature names of `providers.NS.static-properties` in the order `json_text`
/// writes them (key_order.cpp): the parsed tree sorts object keys, and v0.2.0 makes that order the
/// features' priority. Empty for an empty or invalid text.
std::map<std::string, std::vector<std::string>> static_feature_order(std::string_view json_text);

/// Reads a parsed JSON tree as a document of `kind`. For Pyproject, `root` is the content of the
/// `[variant]` table and key paths are prefixed `variant.`. `json_text` is the text `root` was
/// parsed from, when JSON: v0.2.0 static features take their order from it (sorted without it).
ReadOutcome read_document(const Json& root, DocumentKind kind, std::optional<std::string_view> expected_label,
                          std::string_view json_text = {});

/// Converts ReadOutcome to the public result.
Result<ParsedDocument> to_result(ReadOutcome outcome);

}  // namespace vwheel::metadata::detail
