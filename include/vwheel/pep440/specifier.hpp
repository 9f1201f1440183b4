#pragma once
/// \file
/// PEP 440 version specifiers (`>=1.0`, `~=2.2`, `==1.4.*`, `===foo`) and comma-separated sets of
/// them, with the matching and pre-release rules of `packaging.specifiers`.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/pep440/version.hpp"

namespace vwheel::pep440 {

/// A specifier's comparison operator.
enum class Operator : std::uint8_t {
  compatible,     ///< `~=`
  equal,          ///< `==` (possibly with a `.*` wildcard)
  not_equal,      ///< `!=` (possibly with a `.*` wildcard)
  less_equal,     ///< `<=`
  greater_equal,  ///< `>=`
  less,           ///< `<`
  greater,        ///< `>`
  arbitrary,      ///< `===` (plain string equality)
};

/// The operator's spelling, e.g. `~=`.
[[nodiscard]] std::string_view to_string(Operator op) noexcept;

/// One version specifier, e.g. `>=1.0` or `==1.2.*`.
class Specifier {
 public:
  /// Parses one specifier; whitespace around the operator and the version is allowed. The
  /// version must fit the operator: a `.*` wildcard only with `==`/`!=`, a local label only with
  /// `==`/`!=`/`===`, at least two release numbers with `~=`; `===` takes any text without
  /// whitespace, `;` or `)`. The error names the text and what is wrong.
  [[nodiscard]] static Result<Specifier> parse(std::string_view text);

  [[nodiscard]] Operator op() const noexcept { return op_; }
  /// The version as written (without surrounding whitespace), including any `.*`.
  [[nodiscard]] const std::string& version_text() const noexcept { return text_; }
  /// The parsed version (without the `.*` of a wildcard). Absent only for a `===` whose text is
  /// not a valid version.
  [[nodiscard]] const std::optional<Version>& version() const noexcept { return version_; }
  /// True for `==X.*` and `!=X.*`.
  [[nodiscard]] bool is_wildcard() const noexcept { return wildcard_; }

  /// Whether the specifier itself admits pre-releases: true when its operator is one of `==`,
  /// `>=`, `<=`, `~=`, `===` and its version is a pre-release or dev release (e.g. `>=1.0rc1`).
  [[nodiscard]] bool prereleases() const noexcept;

  /// Whether `version` satisfies the specifier. Pre-releases are rejected unless `prereleases`
  /// is true, or unset and `prereleases()` is true.
  [[nodiscard]] bool contains(const Version& version, std::optional<bool> prereleases = std::nullopt) const;
  /// As above for a version string. An invalid version matches only `===` with the same text
  /// (ASCII case-insensitively) and nothing else.
  [[nodiscard]] bool contains(std::string_view version, std::optional<bool> prereleases = std::nullopt) const;

  /// Operator followed by the version as written, e.g. `>=1.0`.
  [[nodiscard]] std::string to_string() const;

  /// Equality as packaging: same operator and same version after normalization (trailing
  /// zeros ignored except for `~=`).
  friend bool operator==(const Specifier& a, const Specifier& b);

 private:
  [[nodiscard]] std::string canonical_text() const;

  Operator op_ = Operator::equal;
  std::string text_;
  std::optional<Version> version_;
  bool wildcard_ = false;
};

/// A set of specifiers that must all hold (`>=1.0,!=1.3.*,<2`). The empty set admits every
/// final release.
class SpecifierSet {
 public:
  SpecifierSet() = default;

  /// Parses comma-separated specifiers; empty items and surrounding whitespace are ignored, so
  /// `""` is the empty set. The error names the offending specifier and the whole text.
  [[nodiscard]] static Result<SpecifierSet> parse(std::string_view text);

  /// The specifiers, sorted by their text, without duplicates.
  [[nodiscard]] const std::vector<Specifier>& specifiers() const noexcept { return specs_; }
  [[nodiscard]] bool empty() const noexcept { return specs_.empty(); }
  [[nodiscard]] std::size_t size() const noexcept { return specs_.size(); }

  /// Unset for the empty set, else whether any specifier admits pre-releases.
  [[nodiscard]] std::optional<bool> prereleases() const noexcept;

  /// Whether `version` satisfies every specifier. Pre-releases are rejected unless
  /// `prereleases` is true, or unset and `prereleases()` is true (so the empty set rejects them
  /// by default, as packaging does).
  [[nodiscard]] bool contains(const Version& version, std::optional<bool> prereleases = std::nullopt) const;
  /// As above for a version string; an invalid version is only matched by `===` specifiers.
  [[nodiscard]] bool contains(std::string_view version, std::optional<bool> prereleases = std::nullopt) const;

  /// The specifiers joined by `,` in sorted order, e.g. `<2,>=1.0`; `""` for the empty set.
  [[nodiscard]] std::string to_string() const;

  /// Adds the specifiers of `other` (the intersection of both sets).
  void merge(const SpecifierSet& other);

  friend bool operator==(const SpecifierSet& a, const SpecifierSet& b) { return a.specs_ == b.specs_; }

 private:
  void insert(Specifier spec);

  std::vector<Specifier> specs_;
};

/// The length of the longest prefix of `text` that is one specifier as the PEP 508 tokenizer
/// reads it (operator, optional whitespace, then a version fitting the operator), or 0 when
/// `text` does not start with one. Used to find where a specifier ends inside a requirement.
[[nodiscard]] std::size_t match_specifier(std::string_view text);

}  // namespace vwheel::pep440
