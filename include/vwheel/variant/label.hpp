#pragma once
/// \file
/// Variant labels: the default 8-hex SHA-256 label, `null`, and custom labels.

#include <optional>
#include <string>
#include <string_view>

#include "vwheel/core/error.hpp"
#include "vwheel/variant/property.hpp"

namespace vwheel::variant {

/// The text that is hashed: one `"{ns} :: {feature} :: {value}\n"` line per property, sorted.
[[nodiscard]] std::string canonical_text(const PropertySet& properties);

/// The first 8 hex digits of SHA-256 of `canonical_text(properties)` (also for the empty set).
[[nodiscard]] std::string variant_hash(const PropertySet& properties);

/// The label for a property set: `custom` when given (validated: `null` exactly for the empty
/// set), else `null` for the empty set and `variant_hash` otherwise.
[[nodiscard]] Result<std::string> make_label(const PropertySet& properties,
                                             const std::optional<std::string>& custom = std::nullopt);

}  // namespace vwheel::variant
