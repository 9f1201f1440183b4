#pragma once
/// \file
/// The machine a command works for: a target profile given with `--target`, or this machine,
/// detected by the native providers.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/provider/registry.hpp"
#include "vwheel/variant/ordering.hpp"

namespace vwheel::api {

struct TargetRequest {
  /// A target profile file; without one, this machine is detected.
  std::optional<std::filesystem::path> profile;
  /// Skip the persistent detection cache.
  bool no_cache = false;
};

/// What a command knows about its target.
struct ResolvedTarget {
  variant::SupportedProperties properties;
  std::optional<std::map<std::string, std::string, std::less<>>> environment;
  std::optional<std::vector<std::string>> tags;
  /// One line: "target profile FILE" / "this machine (detected)".
  std::string description;
  /// Detection notes, one line each.
  std::vector<std::string> notes;
  /// The detection behind `properties` (empty answers when a profile was given).
  provider::MachineReport machine;
};

/// Loads the profile, or detects this machine. Nothing is detected when a profile is given.
[[nodiscard]] Result<ResolvedTarget> resolve_target(const TargetRequest& request);

}  // namespace vwheel::api
