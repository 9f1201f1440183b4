#pragma once
/// \file
/// Target profiles: the description of a machine that every command accepts (`--target FILE`)
/// instead of detecting this one. Used to install for another machine (a Docker build without
/// the GPU, a cluster node) and to make tests reproducible.
///
/// ```json
/// {"properties": {"nvidia": [{"name": "cuda_version_lower_bound", "values": ["12.8", "12.7"], "multi_value": false},
///                            {"name": "sm_arch", "values": ["90_real", "90_virtual"], "multi_value": true}]},
///  "environment": {"python_version": "3.12", "platform_machine": "x86_64", "sys_platform": "linux"},
///  "tags": ["cp312-cp312-manylinux_2_36_x86_64", "py3-none-any"]}
/// ```
/// Feature order and value order are significant (most preferred first); namespace key order is not.
///
/// `"detect": true` makes the profile a partial one: the namespaces it lists are its answer (PEP 850's
/// static list instead of a provider's), the others are detected on this machine as usual. Several
/// profiles may be given (`--target a.json --target b.json`); `overlay` combines them.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/variant/property.hpp"

namespace vwheel::target {

/// The supported features of each namespace, in preference order.
using SupportedProperties = std::map<std::string, std::vector<variant::FeatureConfig>>;

/// A target machine: what it supports, and optionally its marker environment and wheel tags.
struct TargetProfile {
  SupportedProperties properties;
  /// PEP 508 marker variables (`python_version`, `sys_platform`, ...), when known.
  std::optional<std::map<std::string, std::string, std::less<>>> environment;
  /// Supported wheel tags, most preferred first, when known.
  std::optional<std::vector<std::string>> tags;
  /// `"detect"`: namespaces not in `properties` are detected on this machine (true) or unsupported
  /// (false); nullopt when the file does not say (then false, or what an earlier file said).
  std::optional<bool> detect;

  bool operator==(const TargetProfile&) const = default;
};

/// Parses and validates a profile. Errors name the key path and the value (`source` prefixes
/// them, e.g. the file name).
[[nodiscard]] Result<TargetProfile> parse_target_profile(std::string_view json_text);

/// Validates one namespace's feature list (names and values well-formed, names unique, values
/// non-empty and unique); `where` prefixes error messages.
[[nodiscard]] Result<void> validate_features(const std::string& ns, const std::vector<variant::FeatureConfig>& features,
                                             std::string_view where);

/// Lays `later` over `base`: each namespace of `later.properties` replaces the same namespace of
/// `base` (others are kept), and `environment`, `tags` and `detect` replace `base`'s when `later`
/// has them (whole values, never merged key by key).
void overlay(TargetProfile& base, TargetProfile later);

/// Writes a profile as JSON (2-space indent, namespaces sorted, trailing newline).
[[nodiscard]] std::string to_json(const TargetProfile& profile);

}  // namespace vwheel::target
