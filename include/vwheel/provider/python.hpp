#pragma once
/// \file
/// Third-party Python variant providers (PEP 817's plugin API), for namespaces vwheel cannot
/// detect natively. They run only when the user explicitly allowed their namespace
/// (`--allow-python-provider NS`, `allow_python_providers = [...]`), each set of requirements in
/// its own virtual environment under a cache folder, in a separate process with a minimal
/// environment, a time limit and an output limit. Nothing is imported in vwheel's own process.

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/variant/metadata.hpp"
#include "vwheel/variant/property.hpp"

namespace vwheel::provider {

/// Which provider of which namespace to run: the `providers.NS` entry of the variant metadata.
struct PythonProviderSpec {
  std::string ns;                         ///< the namespace the provider must report
  std::vector<std::string> requires_;     ///< PEP 508 requirements installed into its environment (≥ 1)
  std::optional<std::string> plugin_api;  ///< `module:attr` object reference; derived from `requires_` when absent
};

/// The spec of namespace `ns`'s provider as declared in variant metadata.
[[nodiscard]] PythonProviderSpec python_provider_spec(std::string ns, const variant::ProviderInfo& info);

/// How Python providers are run.
struct PythonProviderOptions {
  /// Where the virtual environments live (one per set of requirements and interpreter), e.g.
  /// `$XDG_CACHE_HOME/vwheel/python-providers`. Created when missing; it must belong to the
  /// current user and not be writable by others.
  std::filesystem::path cache_dir;
  /// The interpreter that creates the virtual environments: a name looked up in `$PATH`, or a path.
  std::string python = "python3";
  /// Time limit of one provider call (the whole child process).
  std::chrono::milliseconds timeout{60000};
  /// Time limit of creating a virtual environment and of `pip install` (each).
  std::chrono::milliseconds install_timeout{600000};
  /// Extra `pip install` arguments, e.g. `{"--no-index", "--find-links", DIR}`.
  std::vector<std::string> pip_args;
  /// The namespaces the user allowed. A provider of any other namespace is refused before
  /// anything is created or run.
  std::set<std::string, std::less<>> allowed;
  /// Extra environment variables for the provider process (it otherwise gets only `PATH`,
  /// `HOME` and `LANG` from vwheel's environment), e.g. a provider's documented overrides.
  std::map<std::string, std::string, std::less<>> extra_env;
  /// Largest accepted answer on the provider's standard output, in bytes.
  std::size_t max_output = std::size_t{1} << 20;
};

/// Which plugin function to call.
enum class ProviderMethod {
  supported_configs,  ///< `get_supported_configs()`: what this machine supports, in preference order
  all_configs,        ///< `get_all_configs()`: every feature and value the provider knows
};

/// The Python name of `method` (`get_supported_configs`, `get_all_configs`).
[[nodiscard]] std::string_view method_name(ProviderMethod method) noexcept;

/// The object reference that is imported: `spec.plugin_api` when given (validated: `module` or
/// `module:attr`, dotted identifiers), else the first requirement's project name, normalized,
/// with `-` replaced by `_` (PEP 817). The error names the namespace and the offending text.
[[nodiscard]] Result<std::string> resolve_plugin_api(const PythonProviderSpec& spec);

/// Runs `method` of namespace `spec.ns`'s Python provider and returns its validated answer
/// (features in the order given; `multi_value` false when absent).
///
/// Refused, without running anything, unless `spec.ns` is in `options.allowed`. Otherwise
/// creates (or reuses) the provider's virtual environment under `options.cache_dir` — built in a
/// temporary folder and renamed into place, under a lock, so concurrent runs share one and a
/// failed creation leaves nothing — installs `spec.requires_` with that environment's pip, and
/// runs a small loader with the environment's interpreter in isolated mode (`-I`), in a fresh
/// temporary folder, with a minimal environment, in its own process group (killed at the time
/// limit). Errors are one line naming the namespace: refused, install failure, timeout, the
/// provider's exception (the last line of its standard error), or the field and value of an
/// invalid answer. Safe to call from several threads and processes at once.
[[nodiscard]] Result<std::vector<variant::FeatureConfig>> run_python_provider(const PythonProviderSpec& spec,
                                                                              const PythonProviderOptions& options,
                                                                              ProviderMethod method);

/// A plugin's answer with its `all_properties_compatible` attribute (the Building draft: only a
/// plugin that sets it to `True` may fill `static-properties` at build time).
struct PluginAnswer {
  std::vector<variant::FeatureConfig> configs;
  bool all_properties_compatible = false;
};

/// Runs `method` of namespace `spec.ns`'s plugin with `python`, whose environment already holds
/// the plugin: a build environment, where the Building draft resolves `build-requires` with all
/// providers enabled and trusted, so no opt-in is asked and nothing is installed. The same loader,
/// minimal environment, limits and one-line errors as `run_python_provider`; `cwd` is where the
/// loader is written and run (a build-private folder).
[[nodiscard]] Result<PluginAnswer> run_installed_plugin(const std::filesystem::path& python,
                                                        const PythonProviderSpec& spec, ProviderMethod method,
                                                        const std::filesystem::path& cwd,
                                                        std::chrono::milliseconds timeout);

}  // namespace vwheel::provider
