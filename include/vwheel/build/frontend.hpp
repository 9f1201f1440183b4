#pragma once
/// \file
/// vwheel's PEP 517 frontend: runs a project's backend in a subprocess for each build that
/// `plan_builds` chose, checks what it built, and publishes the wheels (and the sdist) into an
/// output folder. Filling an isolated build environment and making a variant wheel of a plain one
/// belong to the layers above (vwheel's installer, make-variant's validation): the frontend asks
/// for them through `BuildServices`, so that the installer can build sdists with it.

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "vwheel/build/plan.hpp"
#include "vwheel/core/error.hpp"
#include "vwheel/metadata/document.hpp"

namespace vwheel::build {

/// A backend's plain wheel that becomes the variant wheel of one build (make-variant's raw copy).
struct VariantWheelRequest {
  /// The backend's wheel, without `variant.json`.
  std::filesystem::path wheel;
  /// An empty folder of the build's own, for the variant wheel.
  std::filesystem::path output_dir;
  /// The variant built: its label (`null` for the null variant) and properties.
  const BuildJob* job = nullptr;
  /// The project's pyproject.toml.
  std::filesystem::path pyproject;
  /// Its `[variant]` table when it has one, with every `build-requires` provider's
  /// `static-properties` filled from its plugin (`fill_static_properties`); without one, the
  /// services read `pyproject` themselves.
  std::optional<metadata::ParsedDocument> variant_table;
};

/// What the frontend needs from the layers above it. `api::build` implements it with vwheel's
/// installer and make-variant.
class BuildServices {
 public:
  virtual ~BuildServices() = default;
  /// Creates a fresh, empty virtual environment in `dir` (which does not exist yet) from the
  /// interpreter `base`; returns the environment's interpreter.
  virtual Result<std::filesystem::path> create_environment(const std::filesystem::path& dir,
                                                           const std::filesystem::path& base) = 0;
  /// Installs `requirements` (PEP 508 texts) into the environment of `python`. The frontend calls
  /// it one build at a time, so the installs may share a download cache.
  virtual Result<void> install(const std::filesystem::path& python, const std::vector<std::string>& requirements) = 0;
  /// Writes the variant wheel for `request` into its `output_dir` and returns its path; `warnings`
  /// gets the notes about it, also when it fails.
  virtual Result<std::filesystem::path> make_variant(const VariantWheelRequest& request,
                                                     std::vector<std::string>& warnings) = 0;
};

/// What `build_project` does.
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
  /// each build gets a fresh environment (`BuildServices::create_environment`) into which
  /// `BuildServices::install` puts `[build-system] requires` and what
  /// `get_requires_for_build_wheel` asks for.
  bool no_isolation = false;
  /// When set (and isolated), the environments are kept here and reused, one per interpreter and
  /// set of requirements (`<sha256 of both>/`): made once, under a lock, and never changed after;
  /// a build whose `get_requires_for_build_wheel` asks for more uses the one of the larger set.
  /// An installer building twenty sdists with one backend fills one environment, not twenty
  /// (bench/install_sdists.sh: 40 `python -m venv` and installs per cold run before).
  std::filesystem::path environments_dir;
  std::chrono::milliseconds timeout{std::chrono::minutes(30)};
  /// The option that sets `timeout`, for the message of a build that ran past it.
  std::string timeout_option = "--timeout";
  unsigned jobs = 1;
  /// Build editable wheels (PEP 660: `get_requires_for_build_editable`, `build_editable`) of a
  /// source tree. The backend runs in the tree itself, not in a copy: the wheel it builds points
  /// at the tree's files. A backend without `build_editable` fails the build, naming it.
  bool editable = false;
  /// When set, every hook's whole output is appended to this file (a failed build's log; the
  /// outcome keeps only its last lines).
  std::optional<std::filesystem::path> log;
  /// Instead of building: PEP 517's `prepare_metadata_for_build_wheel` for the first planned
  /// wheel only (environment and requirements as for its build), whose `METADATA` becomes
  /// `BuildReport::metadata`; a backend without the hook leaves it nullopt. The one outcome is
  /// the `.dist-info` folder (removed with the work folder) or why the hook failed.
  bool metadata_only = false;
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

/// What `build_project` did.
struct BuildReport {
  /// In plan order, after the sdist when one was asked for (no wheel is built when it fails).
  std::vector<BuildOutcome> outcomes;
  /// `metadata_only`: the METADATA the backend prepared (nullopt: it has no such hook).
  std::optional<std::string> metadata;
  /// Sorted, each once.
  std::vector<std::string> warnings;
  [[nodiscard]] std::size_t failed() const;
};

/// Plans the builds, then runs each in its own folder under `{output_dir}/.vwheel-build-*` (a copy
/// of the source tree, HOME and TMPDIR; with isolation, a fresh environment), in parallel with
/// `jobs`. A wheel without `variant.json` becomes the variant wheel (`services.make_variant`) with
/// the project's `[variant]` metadata, `build-requires` providers resolved into
/// `static-properties` by their plugins in the build environment; every wheel is checked to be the
/// project's (name, version, variant.json describing exactly the variant built), to pass the checks
/// an installer makes (dist-info, WHEEL, METADATA's Name and Version, RECORD with every member's
/// hash and size) and that its hook wrote nothing outside its output folder. Only after all builds:
/// the output folder must hold nothing new that a backend put there, and the variant wheels must
/// agree (`check_matrix`); then they are renamed into the output folder. A request-level problem
/// (no pyproject, bad tables, no interpreter, an sdist that cannot be unpacked, a stray write into
/// the output folder, a matrix that disagrees) fails the call and publishes no wheel; a failed
/// build is its outcome (with the backend's last lines) and the others still run.
[[nodiscard]] Result<BuildReport> build_project(const BuildRequest& request, BuildServices& services);

}  // namespace vwheel::build
