#pragma once
// What the use cases of install.cpp and download.cpp share: the run's cache, its interpreter,
// its requirements and its lock file.

#include <filesystem>
#include <optional>

#include "vwheel/api/install.hpp"
#include "vwheel/core/error.hpp"
#include "vwheel/core/file_lock.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/lock/pylock.hpp"
#include "vwheel/plan/plan.hpp"
#include "vwheel/python/interpreter.hpp"

namespace vwheel::api {

/// The cache root a run names: --cache-dir, else the default.
[[nodiscard]] std::filesystem::path cache_dir_of(const SourceRequest& sources);

/// The cache root a run uses, or nullopt with --no-cache.
[[nodiscard]] std::optional<std::filesystem::path> cache_root(const SourceRequest& sources);

/// The resolver settings of a run that resolves requirements (install, download): its sources'
/// settings with the request's `no_deps`, `require_hashes` and `quiet`.
template <class Request>
[[nodiscard]] plan::Settings resolve_settings(const Request& request) {
  auto settings = make_settings(request.sources);
  settings.no_deps = request.no_deps;
  settings.require_hashes = request.require_hashes;
  settings.quiet = request.quiet;
  return settings;
}

/// With --no-cache, a temporary folder that `settings.cache_dir` points to for the run (removed
/// with the returned TempDir); without, nothing.
[[nodiscard]] Result<std::optional<TempDir>> no_cache_dir(const SourceRequest& sources, plan::Settings& settings);

/// The installer's options with the run's cache.
[[nodiscard]] install::InstallOptions with_cache(install::InstallOptions options, const SourceRequest& sources);

/// A shared lock on the run's cache (none with --no-cache), so that `vwheel cache clean|prune`
/// never removes what the run uses.
[[nodiscard]] std::optional<CacheLock> use_cache(const SourceRequest& sources);

/// The interpreter of `python` (or the default one), queried; nullopt when there is none.
[[nodiscard]] Result<std::optional<python::Interpreter>> find_and_query(
    const std::optional<std::filesystem::path>& python, const SourceRequest& sources);

/// The requirements and constraints of a run; none at all is a usage error (`none`).
[[nodiscard]] Result<plan::Requirements> load_roots(const std::vector<std::string>& items,
                                                    const std::vector<std::filesystem::path>& requirement_files,
                                                    const std::vector<std::filesystem::path>& constraint_files,
                                                    plan::Settings& settings, const char* none);

/// Reads and parses a pylock.toml; the error is one line (the first problem, and how many more).
[[nodiscard]] Result<lock::Lock> read_lock(const std::filesystem::path& lock_file);

}  // namespace vwheel::api
