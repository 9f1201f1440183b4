#pragma once
/// \file
/// Core metadata files (`METADATA` in a wheel, `FILE.metadata` on an index, PEP 658): RFC 822
/// style headers. Only what an installer needs is kept.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/markers/requirement.hpp"

namespace vwheel::simple {

/// The fields of a core metadata file an installer uses.
struct CoreMetadata {
  std::string metadata_version;                ///< `Metadata-Version`, `""` when absent
  std::string name;                            ///< `Name` (required), as written
  std::string version;                         ///< `Version` (required), as written
  std::optional<std::string> requires_python;  ///< `Requires-Python`, nullopt when absent or empty
  std::vector<std::string> requires_dist;      ///< every `Requires-Dist`, in order, as written (trimmed)
  std::vector<std::string> provides_extra;     ///< every `Provides-Extra`, in order

  friend bool operator==(const CoreMetadata&, const CoreMetadata&) = default;
};

/// Parses a core metadata file: headers up to the first blank line (the body, i.e. the
/// description, is ignored), case-insensitive names, continuation lines (starting with a space or
/// tab) joined with a single space; CRLF and a UTF-8 BOM accepted. For single-valued fields the
/// first occurrence wins; empty `Requires-Dist`/`Provides-Extra` values are dropped. As in Python's
/// email parser, a line that is not a header (`Name: value`) ends the headers. `Name` and
/// `Version` are required and must be non-empty; the error names `source`.
[[nodiscard]] Result<CoreMetadata> parse_core_metadata(std::string_view text, const std::string& source);

/// Parses each `Requires-Dist` as a PEP 508 requirement (variant markers included). Errors name
/// `source` and the requirement.
[[nodiscard]] Result<std::vector<markers::Requirement>> parse_requires_dist(const CoreMetadata& md,
                                                                            const std::string& source);

}  // namespace vwheel::simple
