#pragma once
// The one JSON reader for documents that come from outside (variant metadata from an index, a
// wheel or an upload; target profiles; PEP 691 pages). Private to libvwheel, like core/toml.hpp:
// nlohmann::json stays out of the public headers.
//
// Why not `nlohmann::json::parse`: with a callback (the only way it reports duplicate keys) its
// DOM builder rescans an object's members each time a member object ends, so many labels are
// quadratic (100,000 labels: 158 s), and nesting is limited by nothing but memory. This reader
// drives nlohmann's SAX parser (an explicit stack, no recursion) with its own builder: time and
// memory are linear in the input (object keys go through the object's own std::map, so a
// document costs O(n log k) for objects of k members), nesting deeper than `max_depth` stops the
// parse at the byte that opens the extra level, and a key repeated within one object is an error
// found by the insert that would have overwritten it (no path is built unless there is an error).
// Measured against the callback parser in bench/bench_json.cpp.

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>
#include <tl/expected.hpp>

namespace vwheel {

/// What one document may hold. The defaults suit variant metadata and target profiles; callers
/// whose documents are legitimately larger (a PEP 691 page lists every file of a project) raise
/// `max_members`.
struct JsonLimits {
  /// Containers (objects and arrays) nested more deeply than this are refused. 64 is what the
  /// PEP 691 page parser always allowed; variant metadata nests 5 deep.
  std::size_t max_depth = 64;
  /// Members of one object or elements of one array. 10,000 labels (or values of one feature, or
  /// namespaces) is three orders of magnitude above real variant metadata (torch 2.9/2.10: 7
  /// labels; variantlib's test project: 10), and keeps what one hostile object costs every later
  /// step (ranking, validation, merging) bounded, not only the parse.
  std::size_t max_members = 10'000;

  /// No limit on members (depth is still limited).
  static constexpr std::size_t unlimited = std::numeric_limits<std::size_t>::max();
};

/// One step of the way to a place in a document: an object key or an array index.
using JsonPathSegment = std::variant<std::string, std::size_t>;

/// Why a document was refused, and where.
struct JsonError {
  enum class Kind : unsigned char {
    syntax,            ///< not JSON (nlohmann's message, which names line and column)
    depth,             ///< nested more than `max_depth`
    duplicate_key,     ///< a key repeated within one object
    too_many_members,  ///< an object or array with more than `max_members` entries
  };
  Kind kind = Kind::syntax;
  /// One line without the place: `parse error at line 1, column 2: ...`, `nested more than 64
  /// levels deep`, `key "l" appears twice in the same object`, `more than 10000 members in one
  /// object`. Control characters escaped, at most about 300 characters.
  std::string what;
  /// From the root: to the container that would be too deep, the repeated member (its key last),
  /// or the container with too many entries. Empty for syntax errors.
  std::vector<JsonPathSegment> path;
  /// 1-based line and column (in bytes) of the byte at fault: the bracket opening the level too
  /// many, the closing quote of the repeated key, the end of the entry one over the limit.
  std::size_t line = 0;
  std::size_t column = 0;

  /// `path` as an RFC 6901 JSON pointer ("" for the root); long keys are shortened (`...`) so the
  /// result fits one message line.
  [[nodiscard]] std::string pointer() const;
  /// One line: `what`, then for non-syntax errors ` at POINTER (line L, column C)`.
  [[nodiscard]] std::string message() const;
};

/// Parses `text` (strict RFC 8259 JSON, UTF-8, nothing after the value) within `limits`.
tl::expected<nlohmann::json, JsonError> parse_untrusted_json(std::string_view text, const JsonLimits& limits = {});

}  // namespace vwheel
