#pragma once
// The frontend's backend side, private to src/build/: copying the source, preparing the build
// environment, running the PEP 517 hooks in a subprocess, and checking that a hook wrote nothing
// outside its output folder. frontend.cpp decides what to build and publishes what was built.

#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "vwheel/build/frontend.hpp"
#include "vwheel/core/error.hpp"
#include "vwheel/metadata/document.hpp"

namespace vwheel::build::detail {

/// What every build of one `build_project` call shares.
struct HookContext {
  std::filesystem::path python;
  /// The source tree the builds copy.
  std::filesystem::path source;
  /// Fills the isolated environments and makes the variant wheels.
  BuildServices* services = nullptr;
  /// Installs into the isolated environments one at a time (they share the download cache).
  std::mutex* install_lock = nullptr;
  /// The variables passed on to the backend (see `backend_environment`).
  std::vector<std::string> base_env;
  const BuildProject* project = nullptr;
  const BuildRequest* request = nullptr;
  std::filesystem::path pyproject;
  /// The project's `[variant]` table, when it has one.
  std::optional<metadata::ParsedDocument> variant_table;
};

/// What a backend run produced.
struct BackendRun {
  /// The file name the build hook returned, checked to be in `{dir}/out` (a folder for
  /// `prepare_metadata_for_build_wheel`; empty when the backend has no such hook).
  std::string file;
  /// The interpreter of the build environment (the isolated venv's, or `--python`).
  std::filesystem::path python;
  /// Time spent in the hook subprocesses.
  std::chrono::milliseconds hook_time{0};
};

/// The variables of vwheel's environment that a backend gets (compilers, flags, locale, PATH);
/// every other one is dropped. `HOME` and `TMPDIR` are set per build, inside its folder.
[[nodiscard]] std::vector<std::string> backend_environment();

/// The last `count` lines of a backend's output.
[[nodiscard]] std::string tail_lines(std::string_view text, std::size_t count);

/// The `build-requires` of the project's providers (the Building draft), which a variant build
/// installs (isolated) or checks (`--no-isolation`) beside the backend's requirements.
[[nodiscard]] std::vector<std::string> provider_build_requires(const HookContext& ctx);

/// In `dir` (a build's own folder): copies the source to `src/` (an editable build runs in the
/// source tree itself), prepares the requirements
/// (isolated: an environment in `env/` filled by the services; else: checked against the interpreter's
/// environment) and runs `get_requires_for_build_{kind}` and `build_{kind}` with cwd `src/`
/// (a backend without `build_{kind}` fails the build, naming the backend),
/// `HOME` in `home/` and `TMPDIR` in `tmp/`. The returned file must be a plain name in `out/`,
/// and the hook must have left nothing in `dir` but those folders and no wheel or sdist outside
/// `out/`; otherwise the build fails. `tail` gets the backend's last lines on failure.
[[nodiscard]] Result<BackendRun> run_backend(const HookContext& ctx, const BuildJob& job,
                                             const std::filesystem::path& dir, const std::string& kind,
                                             std::string& tail, bool metadata = false);

/// Unpacks an sdist with the interpreter's tarfile (plain files and folders only) into `dest`;
/// returns its one top-level folder, which must hold a pyproject.toml.
[[nodiscard]] Result<std::filesystem::path> unpack_sdist(const HookContext& ctx, const std::filesystem::path& archive,
                                                         const std::filesystem::path& dest);

/// A folder's entries (names) with their modification times, to tell afterwards what a backend
/// added or replaced there.
using FolderSnapshot = std::map<std::string, std::filesystem::file_time_type>;
[[nodiscard]] FolderSnapshot snapshot_folder(const std::filesystem::path& folder);

/// The names that are new or modified in `folder` since `before`, except `ignored` (vwheel's own).
[[nodiscard]] std::vector<std::string> changed_entries(const std::filesystem::path& folder, const FolderSnapshot& before,
                                                       const std::set<std::string>& ignored);

}  // namespace vwheel::build::detail
