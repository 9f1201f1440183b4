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
  /// Only some namespaces were asked for (`--namespace`): the profile is a partial one.
  bool partial = false;
};

/// Detects this machine (through the cache unless `no_cache`). Unknown namespaces in the
/// filter are an error naming them.
[[nodiscard]] Result<PlatformReport> analyze_platform(const PlatformRequest& request);

/// Human view: each namespace, its features and values in preference order, and the source.
[[nodiscard]] std::string format_platform_text(const PlatformReport& report);

/// A target profile (JSON) that every `--target` accepts. A partial report (`--namespace`) gives
/// just that part: its namespaces' properties and `"detect": true`, no environment or tags, so
/// that the file pins those namespaces and leaves the rest to detection where it is used.
[[nodiscard]] std::string format_platform_profile(const PlatformReport& report);

/// What `list_providers` looks at.
struct ProvidersRequest {
  /// A `variants.toml` (its `allow_python_providers` list); the configuration search path when absent.
  std::optional<std::filesystem::path> config;
  bool no_cache = false;
};

/// `vwheel providers`' answer.
struct ProvidersReport {
  provider::MachineReport machine;
  /// The namespaces allowed to run Python providers.
  std::vector<std::string> allowed_python;
};

/// Loads the user configuration and detects this machine (through the cache unless
/// `no_cache`). A configuration that cannot be read is an error.
[[nodiscard]] Result<ProvidersReport> list_providers(const ProvidersRequest& request);

/// `vwheel providers`: every provider, native or not, its version, whether it is enabled here
/// and why; one table row each.
[[nodiscard]] std::string format_providers_text(const ProvidersReport& report);
/// The same as a JSON array (stable keys, trailing newline).
[[nodiscard]] std::string format_providers_json(const ProvidersReport& report);

}  // namespace vwheel::api
