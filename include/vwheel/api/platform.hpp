#pragma once
/// \file
/// `vwheel analyze-platform` and `vwheel providers`: what this machine supports, and which
/// providers exist.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/provider/registry.hpp"
#include "vwheel/python/interpreter.hpp"

namespace vwheel::api {

struct PlatformRequest {
  bool no_cache = false;
  /// Only these namespaces (empty: all).
  std::vector<std::string> namespaces;
  /// Also describe the default Python interpreter (marker environment and tags).
  bool with_interpreter = false;
  std::optional<std::filesystem::path> python;
};

struct PlatformReport {
  provider::MachineReport machine;
  std::optional<python::Interpreter> interpreter;
  /// Why there is no interpreter description, when asked for one.
  std::string interpreter_note;
};

/// Detects this machine (through the cache unless `no_cache`). Unknown namespaces in the
/// filter are an error naming them.
[[nodiscard]] Result<PlatformReport> analyze_platform(const PlatformRequest& request);

/// Human view: each namespace, its features and values in preference order, and the source.
[[nodiscard]] std::string format_platform_text(const PlatformReport& report);

/// A target profile (JSON) that every `--target` accepts.
[[nodiscard]] std::string format_platform_profile(const PlatformReport& report);

/// `vwheel providers`: every provider, native or not, its version, whether it is enabled here
/// and why. `allowed_python` are the namespaces allowed to run Python providers.
[[nodiscard]] std::string format_providers_text(const provider::MachineReport& machine,
                                                const std::vector<std::string>& allowed_python);
[[nodiscard]] std::string format_providers_json(const provider::MachineReport& machine,
                                                const std::vector<std::string>& allowed_python);

}  // namespace vwheel::api
