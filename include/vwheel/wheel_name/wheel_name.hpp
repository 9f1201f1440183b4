#pragma once
/// \file
/// Wheel file names with the optional variant label of PEP 825:
/// `{distribution}-{version}(-{build tag})?-{python tag}-{abi tag}-{platform tag}(-{variant label})?.whl`
///
/// A build tag starts with a digit and a python tag must not, which makes the six-part form
/// unambiguous: `pkg-1.0-2-py3-none-any.whl` has build tag `2`, while
/// `pkg-1.0-py3-none-any-x86_64_v3.whl` has variant label `x86_64_v3` (and so
/// `pkg-1.0-2-none-any-x.whl` is the non-variant wheel with build tag `2`, python tag `none`,
/// abi tag `any` and platform tag `x`).

#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"

namespace vwheel::wheel_name {

/// A build tag: a number followed by an optional suffix (`1`, `2a`). Ordered by the number
/// (numerically, any size), then the suffix.
struct BuildTag {
  std::string text;  ///< as written; starts with a digit

  /// The leading digits.
  [[nodiscard]] std::string_view number() const noexcept;
  /// What follows the leading digits (possibly empty).
  [[nodiscard]] std::string_view suffix() const noexcept;

  friend std::strong_ordering operator<=>(const BuildTag& a, const BuildTag& b) noexcept;
  friend bool operator==(const BuildTag& a, const BuildTag& b) noexcept { return (a <=> b) == 0; }
};

/// One compatibility tag (an element of the expanded tag set).
struct Tag {
  std::string python;
  std::string abi;
  std::string platform;

  auto operator<=>(const Tag&) const = default;
  bool operator==(const Tag&) const = default;
  /// `python-abi-platform`.
  [[nodiscard]] std::string to_string() const;
};

/// The parts of a wheel file name, as written in it (nothing is normalized).
struct WheelName {
  std::string name;                  ///< distribution, e.g. `Pkg.X` (`[A-Za-z0-9_.]+`)
  std::string version;               ///< e.g. `2.3.2`; not validated against PEP 440 (see pep440::Version::parse)
  std::optional<BuildTag> build;     ///< the build tag, if any
  std::string python_tag;            ///< possibly compressed, e.g. `py2.py3`
  std::string abi_tag;               ///< possibly compressed
  std::string platform_tag;          ///< possibly compressed, e.g. `manylinux_2_27_x86_64.manylinux_2_28_x86_64`
  std::optional<std::string> label;  ///< the variant label (`^[0-9a-z_.]+$`), if any

  /// True when the file name has a variant label.
  [[nodiscard]] bool is_variant() const noexcept { return label.has_value(); }

  /// The compressed tag sets split on `.`.
  [[nodiscard]] std::vector<std::string> python_tags() const;
  [[nodiscard]] std::vector<std::string> abi_tags() const;
  [[nodiscard]] std::vector<std::string> platform_tags() const;
  /// Every python × abi × platform combination, sorted.
  [[nodiscard]] std::vector<Tag> tags() const;

  /// `{name}-{version}` (names `*-variants.json`).
  [[nodiscard]] std::string namever() const;
  /// The file name without the variant label and without `.whl`.
  [[nodiscard]] std::string base_name() const;
  /// The file name (parsing it gives this WheelName back).
  [[nodiscard]] std::string to_string() const;

  bool operator==(const WheelName&) const = default;
};

/// Parses a wheel file name (no directory part) per PEP 825. The error is one line naming the
/// file name and what is wrong (wrong extension, number of parts, a build tag not starting with
/// a digit, a python tag starting with one, an invalid variant label or an empty or malformed
/// component).
[[nodiscard]] Result<WheelName> parse_wheel_name(std::string_view filename);

}  // namespace vwheel::wheel_name
