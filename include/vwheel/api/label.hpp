#pragma once
/// \file
/// `vwheel label`: the label of a variant from its properties.

#include <optional>
#include <string>
#include <vector>

#include "vwheel/core/error.hpp"

namespace vwheel::api {

/// The variant to label.
struct LabelRequest {
  /// `ns :: feature :: value` texts; none for the null variant.
  std::vector<std::string> properties;
  /// A custom label to validate and use instead of the hash.
  std::optional<std::string> custom;
};

/// The label, and what is worth knowing about it.
struct LabelReport {
  std::string label;
  /// One line each (a label too long for today's installers).
  std::vector<std::string> warnings;
};

/// Parses the properties (errors name `--property`), makes their set and its label: the 8-hex
/// hash, `null` for no properties, or the validated custom label (errors name `--label`).
[[nodiscard]] Result<LabelReport> make_label(const LabelRequest& request);

}  // namespace vwheel::api
