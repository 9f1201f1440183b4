#pragma once
// Private: the PEP 440 version grammar as a hand-written matcher (no regex), shared by Version,
// Specifier and the PEP 508 tokenizer in the markers component.

#include "vwheel/core/text.hpp"
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/pep440/version.hpp"

namespace vwheel::pep440::detail {

constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
constexpr char to_lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
constexpr bool is_alnum(char c) noexcept { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
/// The characters Python's `str.isspace()` accepts in ASCII.
constexpr bool is_space(char c) noexcept {
  return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f');
}

std::string_view strip_ascii_space(std::string_view s) noexcept;

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
