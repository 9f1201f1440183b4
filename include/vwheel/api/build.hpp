#pragma once
/// \file
/// `vwheel build`: a PEP 517 frontend that builds a project's variant wheels (the Building draft,
/// `../shared/spec/drafts/pep-building.rst`). The pure part (reading `[build-system]` and
/// `[variant.variants]`, choosing which wheels to build and each build's `config_settings`) is
/// separate from running the backend, so it can be tested without Python.

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/api/install.hpp"
#include "vwheel/api/maintain.hpp"
#include "vwheel/core/error.hpp"
#include "vwheel/provider/python.hpp"
#include "vwheel/variant/metadata.hpp"
#include "vwheel/variant/property.hpp"

namespace vwheel::api {

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

/// What `build` does.
struct BuildRequest {
  /// A source tree, or an sdist (`.tar.gz`) to build the wheels from.
  std::filesystem::path source = ".";
  /// Build the sdist first, then the wheels from it, as `python -m build` does. The sdist is
  /// published into `output_dir` with the wheels, and only when every wheel was built from it.
  bool sdist = false;
  std::filesystem::path output_dir = "dist";
  BuildSelection selection;
  /// The interpreter that runs the backend (a path, or a name looked up in $PATH).
  std::string python = "python3";
  /// The interpreter's environment provides the requirements (checked, not installed). Otherwise
  /// each build gets a fresh venv (`--without-pip`) into which vwheel's installer puts
  /// `[build-system] requires` and what `get_requires_for_build_wheel` asks for, from `sources`.
  bool no_isolation = false;
  /// Where the isolated builds' requirements come from (as for `install`).
  SourceRequest sources;
  std::chrono::milliseconds timeout{std::chrono::minutes(30)};
  unsigned jobs = 1;
  /// Run `generate-index-json` over the output folder at the end.
  bool index = true;
  /// How the properties of variants vwheel makes itself are checked (as for `make-variant`).
  PropertyValidation validation;
  wheel::VariantJsonFormat format = wheel::VariantJsonFormat::Draft003;
};

/// One build's outcome.
struct BuildOutcome {
  BuildJob job;
  /// The wheel (or sdist) written into the output folder, or why this build failed.
  Result<std::filesystem::path> wheel = std::filesystem::path{};
  /// Backend output (the last lines) when it failed.
  std::string backend_tail;
  /// Time spent in the backend's hook subprocesses (wheel builds).
  std::chrono::milliseconds backend_time{0};
  /// The whole build of this wheel: copying, environment, hooks, checks, making the variant.
  std::chrono::milliseconds total_time{0};
};

/// What `build` did.
struct BuildReport {
  /// In plan order, after the sdist when one was asked for (no wheel is built when it fails).
  std::vector<BuildOutcome> outcomes;
  std::vector<std::string> warnings;
  /// `{name}-{version}-variants.json` files written.
  std::vector<std::filesystem::path> index_files;
  [[nodiscard]] std::size_t failed() const;
};

/// Plans the builds, then runs each in its own folder under `{output_dir}/.vwheel-build-*` (a copy
/// of the source tree, HOME and TMPDIR; with isolation, a fresh venv), in parallel with `jobs`. A
/// wheel without `variant.json` becomes the variant wheel (make-variant's raw copy) with the
/// project's `[variant]` metadata, `build-requires` providers resolved into `static-properties`
/// by their plugins in the build environment; every wheel is checked to be the project's (name,
/// version, variant.json describing exactly the variant built), to pass the checks `install`
/// makes (dist-info, WHEEL, METADATA's Name and Version, RECORD with every member's hash and size)
/// and that its hook wrote nothing outside its output folder. Only after all builds: the output folder must hold nothing
/// new that a backend put there, and the variant wheels must agree (`check_matrix`); then they
/// are renamed into the output folder, which finally gets `generate-index-json`. A request-level
/// problem (no pyproject, bad tables, no interpreter, an sdist that cannot be unpacked, a stray
/// write into the output folder, a matrix that disagrees) fails the call and publishes no wheel; a
/// failed build is its outcome (with the backend's last lines) and the others still run.
[[nodiscard]] Result<BuildReport> build(const BuildRequest& request);

}  // namespace vwheel::api
