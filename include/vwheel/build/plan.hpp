#pragma once
/// \file
/// The pure part of vwheel's PEP 517 frontend (the Building draft,
/// `../shared/spec/drafts/pep-building.rst`): reading `[build-system]` and `[variant.variants]`,
/// choosing which wheels to build and each build's `config_settings`, and checking what the
/// backends answered and built. No I/O here, so all of it can be tested without Python; running the
/// backends is `vwheel/build/frontend.hpp`.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/provider/python.hpp"
#include "vwheel/variant/metadata.hpp"
#include "vwheel/variant/property.hpp"

namespace vwheel::build {

/// `[build-system]` of a pyproject.toml (PEP 517/518).
struct BuildSystem {
  std::vector<std::string> requires_;
  /// `build-backend`; PEP 517's fallback when absent.
  std::string backend = "setuptools.build_meta:__legacy__";
  /// `backend-path`, relative to the source tree.
  std::vector<std::string> backend_path;
};

/// One variant a project lists under `[variant.variants.LABEL]`, with vwheel's per-variant
/// settings from `[tool.vwheel.build.variants.LABEL]` (`config-settings`, `environment`).
struct DeclaredVariant {
  std::string label;
  variant::PropertySet properties;
  std::map<std::string, std::string> config_settings;
  std::map<std::string, std::string> environment;
};

/// What `vwheel build` reads from a project's pyproject.toml.
struct BuildProject {
  BuildSystem build_system;
  /// `[variant.variants]`, sorted by label.
  std::vector<DeclaredVariant> variants;
  /// Whether there is a `[variant]` table at all.
  bool has_variant_table = false;
  /// `[project] name` and `version` when given statically: every wheel built must carry them.
  std::optional<std::string> name;
  std::optional<std::string> version;
};

/// Reads `[build-system]`, `[variant.variants]` and `[tool.vwheel.build.variants]` from a
/// pyproject.toml text; `file` names it in messages. The rest of `[variant]` is read by
/// `metadata::parse_pyproject`. Errors name the key and what was expected.
[[nodiscard]] Result<BuildProject> parse_build_project(std::string_view toml_text, std::string_view file);

/// Which wheels the command line asks for.
struct BuildSelection {
  std::vector<std::string> labels;  ///< `--variant LABEL`, in order given
  bool all_variants = false;        ///< `--all-variants`
  bool null_variant = false;        ///< `--null`
  /// `-p PROPERTY` texts: the properties of the one `--variant` label, when the project has no
  /// `[variant.variants]` table.
  std::vector<std::string> properties;
  /// `-C KEY=VALUE`, in order given (a key given twice becomes a list).
  std::vector<std::string> config_settings;
};

/// One backend run.
struct BuildJob {
  /// The variant label; empty for the plain (non-variant) wheel, `null` for the null variant.
  std::string label;
  variant::PropertySet properties;
  /// PEP 517 `config_settings`: each value a string or, for a key given more than once, a list.
  std::map<std::string, std::vector<std::string>> config_settings;
  /// Extra environment variables for the backend.
  std::map<std::string, std::string> environment;
  /// The sdist (`build_sdist`), not a wheel.
  bool sdist = false;

  [[nodiscard]] bool is_variant() const noexcept { return !label.empty(); }
  /// `variant \`x\``, `the null variant`, `the plain wheel` or `the sdist`, for messages.
  [[nodiscard]] std::string describe() const;
};

/// The builds to run, in order: the null variant first, then the labels (in the order given, or
/// sorted by label with `--all-variants`); the plain wheel alone when nothing is asked for.
/// Every variant build gets the Building draft's `variant-label`, the properties as repeated
/// `variant` settings (`ns :: feature :: value`, scikit-build-core's form), `null-variant=true`
/// for the null variant, the table's own settings, then the `-C` ones (which win).
[[nodiscard]] Result<std::vector<BuildJob>> plan_builds(const BuildProject& project, const BuildSelection& selection);

/// `config_settings` as the JSON object the hook runner passes to the backend.
[[nodiscard]] std::string config_settings_json(const std::map<std::string, std::vector<std::string>>& settings);

/// Checks a backend's `get_requires_for_build_wheel` answer (plus `[build-system] requires`)
/// against what the interpreter has installed (`installed`: normalized name -> version) under
/// its marker environment (`markers`). The error lists every missing or too-old requirement.
[[nodiscard]] Result<void> check_build_requirements(const std::vector<std::string>& requirements,
                                                    const std::map<std::string, std::string>& installed,
                                                    const std::map<std::string, std::string>& markers);

/// The Building draft's "populating static properties from provider plugins" for namespace `ns`,
/// whose provider in `metadata` has `build-requires`: `answer` is its plugin's
/// `get_supported_configs()` from the build environment. Refuses a plugin without
/// `all_properties_compatible = True`, and `properties` (the variant being built) that the answer
/// does not allow (unknown feature or value, several values of a single-value feature); then
/// replaces `build-requires`/`plugin-api` with `static-properties` (the answer's features and
/// values, in its order) and appends any feature missing from `default-priorities.feature.{ns}`
/// when there are several. Errors name the namespace, property and values.
[[nodiscard]] Result<void> fill_static_properties(variant::VariantMetadata& metadata, const std::string& ns,
                                                  const provider::PluginAnswer& answer,
                                                  const variant::PropertySet& properties);

/// One built variant wheel, for `check_matrix`.
struct BuiltVariant {
  std::string label;
  /// Its `variant.json`.
  variant::VariantMetadata metadata;
};

/// Whether the variant wheels of one build agree, as one package version's wheels must before an
/// index aggregates them: the same `default-priorities` (namespace, feature and property orders),
/// the same `providers` and `static-properties`, and no two labels with the same properties. The
/// error names the two variants and the field.
[[nodiscard]] Result<void> check_matrix(const std::vector<BuiltVariant>& built);

}  // namespace vwheel::build
