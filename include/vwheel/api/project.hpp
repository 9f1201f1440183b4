#pragma once
/// \file
/// `vwheel lock` of a project: what it locks when given no requirements (the `pyproject.toml` of
/// the current directory, read by `vwheel/metadata/project.hpp`), what the lock records of the
/// project (PEP 751 `extras`, `dependency-groups`, `default-groups`, the project as a `directory`
/// entry, `[tool.vwheel] project-inputs`), and whether a lock is still the project's
/// (`vwheel sync --locked`).

#include <filesystem>
#include <optional>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/lock/pylock.hpp"
#include "vwheel/metadata/project.hpp"
#include "vwheel/plan/plan.hpp"

namespace vwheel::api {

/// A project to lock, and where its pyproject.toml is.
struct ProjectToLock {
  metadata::Project project;
  std::filesystem::path directory;
};

/// The project of `directory/pyproject.toml`; nullopt when there is no such file or it has no
/// `[project]` table. A file that cannot be read is an environmental error, one that is not a
/// valid project an input error (metadata::parse_project's).
[[nodiscard]] Result<std::optional<ProjectToLock>> find_project(const std::filesystem::path& directory);

/// The roots of a project's lock, with their origins (plan::RootOrigin): `[project].dependencies`,
/// then each extra's requirements, then each group's (both by normalized name), the project's
/// `requires-python`, and the constraints of `constraint_files` (their options go to `settings`).
[[nodiscard]] Result<plan::Requirements> project_requirements(const metadata::Project& project,
                                                              const std::vector<std::filesystem::path>& constraint_files,
                                                              plan::Settings& settings);

/// Records the project in its lock, written to `lock_file`: every extra and group (normalized,
/// sorted), `default-groups = ["default"]` (plan::kDefaultGroup), the project as a `[[packages]]`
/// entry with `directory = { path = ... }` relative to the lock file's directory, its version
/// when static, and the marker `"default" in dependency_groups`, and `project-inputs`.
void add_project(lock::Lock& lock, const ProjectToLock& project, const std::filesystem::path& lock_file);

/// For `vwheel sync --locked`: fails (one line, an input error) when the pyproject.toml of the
/// lock's project (its `directory` entry, relative to `lock_path`'s directory; else next to
/// `lock_path`) no longer gives the lock's `[tool.vwheel] project-inputs` ("pyproject.toml changed
/// since pylock.toml was written: run vwheel lock"), or no longer has a `[project]` table. A lock
/// without `project-inputs` was not made from a project: nothing to check.
[[nodiscard]] Result<void> check_locked(const lock::Lock& lock, const std::filesystem::path& lock_path);

}  // namespace vwheel::api
