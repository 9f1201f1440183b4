#pragma once
/// \file
/// PEP 440 versions: parsing with the standard normalizations, the normalized text form and the
/// total ordering used by `packaging.version.Version`.

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "vwheel/core/error.hpp"

namespace vwheel::pep440 {

/// A non-negative integer of any size (version numbers are unbounded in PEP 440). Values that
/// fit in 64 bits are stored as an integer, larger ones as their decimal digits; either way the
/// ordering is numeric and nothing overflows.
class Number {
 public:
  Number() = default;
  /// Implicit so that `version.release()[0] == 1` reads naturally.
  Number(std::uint64_t value) : small_(value) {}  // NOLINT(google-explicit-constructor)

  /// Builds a number from one or more ASCII digits (leading zeros are dropped). Returns
  /// `std::nullopt` when `digits` is empty or holds anything but `0`-`9`.
  [[nodiscard]] static std::optional<Number> from_digits(std::string_view digits);

  /// The value when it fits in 64 bits.
  [[nodiscard]] std::optional<std::uint64_t> to_u64() const noexcept;
  [[nodiscard]] bool is_zero() const noexcept { return big_.empty() && small_ == 0; }
  /// Decimal digits without leading zeros (`"0"` for zero).
  [[nodiscard]] std::string to_string() const;

  friend std::strong_ordering operator<=>(const Number& a, const Number& b) noexcept;
  friend bool operator==(const Number& a, const Number& b) noexcept { return (a <=> b) == 0; }

 private:
  std::uint64_t small_ = 0;
  std::string big_;  ///< non-empty only for values above UINT64_MAX: their digits
};

/// The kind of a pre-release, in ascending order. Alternate spellings normalize to these:
/// `alpha` → a, `beta` → b, `c`/`pre`/`preview` → rc.
enum class PreReleaseKind : std::uint8_t { alpha, beta, rc };

/// `a` / `b` / `rc`.
[[nodiscard]] std::string_view to_string(PreReleaseKind kind) noexcept;

/// The pre-release segment, e.g. `rc1`.
struct PreRelease {
  PreReleaseKind kind = PreReleaseKind::alpha;
  Number number;

  auto operator<=>(const PreRelease&) const = default;
  bool operator==(const PreRelease&) const = default;
};

/// One dot-separated part of a local version label: numeric parts compare numerically and sort
/// after alphanumeric parts, which are lowercased and compare lexicographically.
using LocalPart = std::variant<std::string, Number>;

/// A PEP 440 version. Construct it with `Version::parse`; a default-constructed Version is `0`.
///
/// Equality and ordering follow `packaging.version.Version`: trailing zeros of the release do not
/// matter (`1.0 == 1.0.0`), dev releases sort before pre-releases, pre-releases before the
/// final release, post-releases after it, and a local label sorts after the same public version.
class Version {
 public:
  Version();

  /// Parses and normalizes a version: case-insensitive, surrounding whitespace and a leading
  /// `v` ignored, `-`/`_`/`.` separators, alternate spellings (`alpha`, `beta`, `c`, `pre`,
  /// `preview`, `rev`, `r`), implicit numbers (`1.0a` = `1.0a0`), implicit post releases
  /// (`1.0-1`), epochs (`1!2.0`) and local labels (`+ubuntu-1` = `+ubuntu.1`).
  [[nodiscard]] static Result<Version> parse(std::string_view text);

  /// The normalized form, e.g. `1!2.0rc1.post2.dev3+ubuntu.1`.
  [[nodiscard]] std::string to_string() const;
  /// The normalized form without the local label.
  [[nodiscard]] std::string public_version() const;
  /// Epoch and release only, e.g. `1!2.0`.
  [[nodiscard]] std::string base_version() const;

  [[nodiscard]] const Number& epoch() const noexcept { return epoch_; }
  /// The release numbers as written (trailing zeros kept); never empty.
  [[nodiscard]] const std::vector<Number>& release() const noexcept { return release_; }
  [[nodiscard]] const std::optional<PreRelease>& pre() const noexcept { return pre_; }
  [[nodiscard]] const std::optional<Number>& post() const noexcept { return post_; }
  [[nodiscard]] const std::optional<Number>& dev() const noexcept { return dev_; }
  /// The local label's parts; empty when there is no local label.
  [[nodiscard]] const std::vector<LocalPart>& local() const noexcept { return local_; }
  /// The normalized local label (`ubuntu.1`), or `""` when there is none.
  [[nodiscard]] std::string local_string() const;

  [[nodiscard]] bool has_local() const noexcept { return !local_.empty(); }
  /// True for pre-releases and development releases.
  [[nodiscard]] bool is_prerelease() const noexcept { return pre_.has_value() || dev_.has_value(); }
  [[nodiscard]] bool is_postrelease() const noexcept { return post_.has_value(); }
  [[nodiscard]] bool is_devrelease() const noexcept { return dev_.has_value(); }

  /// The first, second and third release numbers (0 when absent).
  [[nodiscard]] Number major() const { return release_part(0); }
  [[nodiscard]] Number minor() const { return release_part(1); }
  [[nodiscard]] Number micro() const { return release_part(2); }

  /// This version without its local label.
  [[nodiscard]] Version without_local() const;
  /// Epoch and release of this version only (what `base_version()` prints).
  [[nodiscard]] Version base() const;

  /// Total order as `packaging.version.Version`.
  [[nodiscard]] std::strong_ordering compare(const Version& other) const noexcept;
  friend std::strong_ordering operator<=>(const Version& a, const Version& b) noexcept { return a.compare(b); }
  friend bool operator==(const Version& a, const Version& b) noexcept { return a.compare(b) == 0; }

 private:
  [[nodiscard]] Number release_part(std::size_t i) const { return i < release_.size() ? release_[i] : Number(); }

  Number epoch_;
  std::vector<Number> release_;
  std::optional<PreRelease> pre_;
  std::optional<Number> post_;
  std::optional<Number> dev_;
  std::vector<LocalPart> local_;
};

/// True when `text` is a valid PEP 440 version.
[[nodiscard]] bool is_valid_version(std::string_view text);

/// The normalized form of `text` when it is a valid version (`1.0-alpha1` gives `1.0a1`), else `text`
/// unchanged: for comparing versions read from files that may hold invalid ones.
[[nodiscard]] std::string normalized_or_verbatim(std::string_view text);

}  // namespace vwheel::pep440
