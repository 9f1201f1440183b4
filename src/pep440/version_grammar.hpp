#pragma once
// Private: the PEP 440 version grammar as a hand-written matcher (no regex), shared by Version,
// Specifier and the PEP 508 tokenizer in the markers component.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/text.hpp"
#include "vwheel/pep440/version.hpp"

namespace vwheel::pep440::detail {

using vwheel::printable;

/// The parts of a matched version (release never empty).
struct VersionParts {
  Number epoch;
  std::vector<Number> release;
  std::optional<PreRelease> pre;
  std::optional<Number> post;
  std::optional<Number> dev;
  std::vector<LocalPart> local;
  bool wildcard = false;  ///< the version ended in `.*` (only with `allow_wildcard`)
};

struct VersionSyntax {
  bool allow_local = true;
  bool allow_wildcard = false;        ///< `release.*` (then no pre/post/dev/local)
  std::size_t min_release_parts = 1;  ///< 2 for `~=`
};

/// Matches the longest version starting at `pos` in `s` the way packaging's (greedy) version
/// regex does, and returns where it ends, or `npos` when no version starts there. Fills `out`
/// when not null. No surrounding whitespace is skipped.
std::size_t match_version(std::string_view s, std::size_t pos, VersionParts* out, VersionSyntax syntax = {});

}  // namespace vwheel::pep440::detail
