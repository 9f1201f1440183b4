#pragma once
/// \file
/// PEP 508 dependency specifiers: `name[extra,...] (specifiers) ; marker` or
/// `name[extra,...] @ url ; marker`.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/markers/marker.hpp"
#include "vwheel/pep440/specifier.hpp"

namespace vwheel::markers {

/// A parsed dependency specifier.
struct Requirement {
  std::string name;                 ///< as written (a valid PEP 508 name; not normalized)
  std::vector<std::string> extras;  ///< as written, sorted, without duplicates
  pep440::SpecifierSet specifier;   ///< empty when there is none (always empty with a URL)
  std::string url;                  ///< the URL after `@`, or `""`
  std::optional<Marker> marker;     ///< the marker after `;`, if any

  /// Parses a PEP 508 dependency specifier. Whitespace (spaces, tabs) is allowed between the
  /// parts; the specifiers may be parenthesized; a marker after a URL must be preceded by
  /// whitespace. URLs need a scheme and, except for `file:`, a host. The error names the text,
  /// what was expected and the column (1-based).
  [[nodiscard]] static Result<Requirement> parse(std::string_view text);

  /// Normalized text, e.g. `name[a,b]<2,>=1.0; python_version >= "3.8"` or
  /// `name @ https://host/x.whl ; os_name == "posix"`. Parses back to an equal requirement.
  [[nodiscard]] std::string to_string() const;

  /// Whether the requirement applies in `env`: true without a marker, else the marker's value.
  [[nodiscard]] Result<bool> applies_to(const Environment& env) const;

  friend bool operator==(const Requirement&, const Requirement&) = default;
};

}  // namespace vwheel::markers
