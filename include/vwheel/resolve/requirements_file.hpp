#pragma once
/// \file
/// A pure parser for pip requirements files (`requirements.txt`), the subset vwheel supports:
/// PEP 508 requirements by name (no URLs, no editables), per-requirement `--hash` options, nested
/// `-r`/`-c` references (returned as data; the caller loads them) and the index options.
///
/// Syntax: a `\` at the very end of a line joins it with the next one; a `#` at the start of a
/// line or after whitespace starts a comment; blank lines are ignored. Options may be written
/// `--opt value` or `--opt=value` (short ones also `-ivalue` / `-i value`).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/markers/requirement.hpp"

namespace vwheel::resolve {

/// One requirement line.
struct RequirementEntry {
  markers::Requirement requirement;
  /// `--hash` values as `algorithm:hex` (algorithm lowercase, one of `sha256`, `sha384`,
  /// `sha512`; hex lowercase with the digest's length), in the order written.
  std::vector<std::string> hashes;
  std::size_t line = 0;  ///< 1-based line where the (possibly continued) line starts
};

/// A nested file reference: `-r FILE` / `--requirement FILE` or `-c FILE` / `--constraint FILE`.
struct FileReference {
  enum class Kind { requirement, constraint };
  Kind kind = Kind::requirement;
  /// The path as written (relative paths are relative to the including file's directory; the
  /// caller resolves them).
  std::string path;
  std::size_t line = 0;
};

/// A parsed requirements file.
struct RequirementsFile {
  std::string source;  ///< the name passed to the parser (used in error messages)
  std::vector<RequirementEntry> requirements;
  std::vector<FileReference> references;
  std::vector<std::string> index_urls;        ///< `--index-url` / `-i` values, in order (the last one wins)
  std::vector<std::string> extra_index_urls;  ///< `--extra-index-url` values, in order
  std::vector<std::string> find_links;        ///< `--find-links` / `-f` values, in order
  bool no_index = false;                      ///< `--no-index`
  bool pre = false;                           ///< `--pre`
  bool require_hashes = false;                ///< `--require-hashes`
};

/// Parses the text of a requirements file. `source` names it in errors, which read
/// "SOURCE:LINE: ..." and name what is wrong or not supported (editables, URLs and paths,
/// unknown options, a bad hash, an option without its value, a requirement that does not parse).
[[nodiscard]] Result<RequirementsFile> parse_requirements_file(std::string_view text, const std::string& source);

}  // namespace vwheel::resolve
