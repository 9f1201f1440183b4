#pragma once
/// \file
/// Building the one `selection::Selection` of a run: from a target profile (or this machine's
/// detection), the user configuration, the interpreter, and the selection options every
/// choosing command accepts (`--target`, `--config`, `--enable-optional-provider(s)`,
/// `--allow-python-provider`, `--abi-dependency`, `--variant`, `--no-variants`).

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/python/interpreter.hpp"
#include "vwheel/selection/selection.hpp"
#include "vwheel/variant/metadata.hpp"

namespace vwheel::api {

/// The selection options of the command line, unparsed.
struct SelectionRequest {
  /// Target profiles, laid over each other in order (later files replace earlier ones per
  /// namespace, and their `environment`/`tags`/`detect`); without any, this machine is detected.
  /// With `"detect": true`, namespaces no profile lists are detected too.
  std::vector<std::filesystem::path> profiles;
  /// A `variants.toml`; without one, the configuration search path is used.
  std::optional<std::filesystem::path> config;
  bool enable_all_optional = false;
  std::vector<std::string> enabled_optional;
  /// Namespaces whose Python providers may run (with the configuration's allow-list).
  std::vector<std::string> allow_python_providers;
  /// `NAME==VERSION` items for the `abi_dependency` namespace (over `VARIANT_ABI_DEPENDENCY`).
  std::vector<std::string> abi_dependencies;
  bool no_variants = false;
  /// `NAME=LABEL` items (`--variant`).
  std::vector<std::string> variants;
  /// Skip the persistent detection cache.
  bool no_cache = false;
  /// Every variant counts (a lock for no particular machine): nothing is detected, no profile
  /// is read, and only the interpreter's environment and the variant choices are kept.
  bool universal = false;
};

/// Builds the selection: the profiles (or detection of this machine; nothing is detected when a
/// profile is given, unless the profiles say `"detect": true`: then only the namespaces they do
/// not list are detected; `property_sources` says which file or detection answered each one), the configuration, the interpreter's environment and tags (nullable; a
/// profile's `environment` and `tags` take precedence), and the `abi_dependency` values: the
/// `installed` distributions, then the profile's `abi_dependency` properties, then
/// `VARIANT_ABI_DEPENDENCY`, then `--abi-dependency` (later ones win per distribution).
/// Errors name the file, option or value.
[[nodiscard]] Result<selection::Selection> make_selection(
    const SelectionRequest& request, const python::Interpreter* interpreter,
    const std::vector<std::pair<std::string, std::string>>& installed = {});

/// Detected machines know the uname variables only: when a provider's `enable-if` in `metadata`
/// needs more (python_version, ...) and no interpreter was given, asks the default interpreter,
/// once, and adds its variables to `selection.environment`.
void complete_environment(selection::Selection& selection, const variant::VariantMetadata& metadata);

/// Fails (naming the target) when the selection has no marker environment or no tags: installing
/// and locking need both (give --python, or a profile with `environment` and `tags`).
[[nodiscard]] Result<void> require_environment_and_tags(const selection::Selection& selection);

}  // namespace vwheel::api
