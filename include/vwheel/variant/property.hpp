#pragma once
/// \file
/// Variant properties (`namespace :: feature :: value`), features, namespaces and labels, as
/// defined by PEP 825, plus the configuration a provider reports for one feature.

#include <compare>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"

namespace vwheel::variant {

/// `namespace :: feature :: value`. Ordered by (namespace, feature, value), bytewise.
struct Property {
  std::string ns;       ///< namespace, `^[a-z0-9_]+$`
  std::string feature;  ///< feature name, `^[a-z0-9_]+$`
  std::string value;    ///< feature value, `^[a-z0-9_.]+$`

  auto operator<=>(const Property&) const = default;
  bool operator==(const Property&) const = default;

  /// Canonical text: `"{ns} :: {feature} :: {value}"`.
  [[nodiscard]] std::string to_string() const;
  /// Canonical text of the feature: `"{ns} :: {feature}"`.
  [[nodiscard]] std::string feature_string() const;
};

/// `namespace :: feature`.
struct FeatureRef {
  std::string ns;
  std::string feature;

  auto operator<=>(const FeatureRef&) const = default;
  bool operator==(const FeatureRef&) const = default;

  [[nodiscard]] std::string to_string() const;
};

/// A set of properties: sorted, without duplicates. The empty set is the null variant.
using PropertySet = std::vector<Property>;

/// What a provider reports for one feature: its values in preference order (most preferred
/// first) and whether a wheel may list several of them.
struct FeatureConfig {
  std::string name;
  std::vector<std::string> values;
  bool multi_value = false;

  bool operator==(const FeatureConfig&) const = default;
};

/// `^[a-z0-9_]+$`
[[nodiscard]] bool is_valid_namespace(std::string_view s) noexcept;
/// `^[a-z0-9_]+$`
[[nodiscard]] bool is_valid_feature_name(std::string_view s) noexcept;
/// `^[a-z0-9_.]+$`
[[nodiscard]] bool is_valid_feature_value(std::string_view s) noexcept;
/// PEP 825 label: `^[0-9a-z_.]+$`, any length.
[[nodiscard]] bool is_valid_label(std::string_view s) noexcept;

/// Longest label today's variant-enabled installers accept (PEP 817's limit). Longer labels are
/// read, but writing one deserves a warning.
inline constexpr std::size_t kMaxPortableLabelLength = 16;
/// The label reserved for the variant with no properties.
inline constexpr std::string_view kNullLabel = "null";

/// Parses `ns :: feature :: value`; surrounding whitespace and whitespace around `::` (Unicode
/// whitespace, as the reference's regex) is ignored.
[[nodiscard]] Result<Property> parse_property(std::string_view text);
/// Parses `ns :: feature`, with the same whitespace rules.
[[nodiscard]] Result<FeatureRef> parse_feature(std::string_view text);

/// Builds a property after validating each field; the error names the offending field.
[[nodiscard]] Result<Property> make_property(std::string ns, std::string feature, std::string value);

/// Sorts and validates a list of properties; duplicates are an error naming the property.
[[nodiscard]] Result<PropertySet> make_property_set(std::vector<Property> properties);

}  // namespace vwheel::variant
