// `vwheel lock` of a project, and `vwheel sync --locked`'s check that the lock is still its own.

#include "vwheel/api/project.hpp"

#include <string>
#include <system_error>

#include <fmt/format.h>

#include "vwheel/core/fs.hpp"

namespace vwheel::api {
namespace fs = std::filesystem;

namespace {

constexpr const char* kPyproject = "pyproject.toml";

}  // namespace

Result<std::optional<ProjectToLock>> find_project(const fs::path& directory) {
  const fs::path file = directory / kPyproject;
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::optional<ProjectToLock>();
  auto text = read_file(file);
  if (!text) return fail(with_kind(text.error(), ErrorKind::environment));
  auto project = metadata::parse_project(*text, file.lexically_normal().string());
  if (!project) return fail(project.error());
  if (!*project) return std::optional<ProjectToLock>();
  return std::optional<ProjectToLock>(ProjectToLock{std::move(**project), directory});
}

Result<plan::Requirements> project_requirements(const metadata::Project& project,
                                                const std::vector<fs::path>& constraint_files,
                                                plan::Settings& settings) {
  plan::Requirements out;
  if (auto ok = plan::load_requirements({}, {}, constraint_files, out, settings); !ok) return fail(ok.error());
  const auto add = [&](const std::vector<markers::Requirement>& requirements, plan::RootOrigin origin) {
    for (const auto& r : requirements) {
      out.roots.push_back(r);
      out.origins.push_back(origin);
    }
  };
  add(project.dependencies, {plan::RootOrigin::Kind::dependencies, ""});
  for (const auto& [extra, requirements] : project.optional_dependencies) {
    add(requirements, {plan::RootOrigin::Kind::extra, extra});
  }
  for (const auto& [group, requirements] : project.dependency_groups) {
    add(requirements, {plan::RootOrigin::Kind::group, group});
  }
  out.requires_python = project.requires_python;
  return out;
}

void add_project(lock::Lock& lock, const ProjectToLock& project, const fs::path& lock_file) {
  lock.extras.clear();
  for (const auto& [extra, _] : project.project.optional_dependencies) lock.extras.push_back(extra);
  lock.dependency_groups.clear();
  for (const auto& [group, _] : project.project.dependency_groups) lock.dependency_groups.push_back(group);
  lock.default_groups = {std::string(plan::kDefaultGroup)};
  lock.project_inputs = metadata::project_inputs_digest(project.project);
  lock::LockedPackage entry;
  entry.name = project.project.name;
  entry.version = project.project.version.value_or("");
  entry.marker = fmt::format("\"{}\" in dependency_groups", plan::kDefaultGroup);
  // PEP 751: relative to the lock file's directory, POSIX separators.
  const fs::path from = fs::absolute(lock_file).parent_path().lexically_normal();
  const std::string path = fs::absolute(project.directory).lexically_normal().lexically_relative(from).generic_string();
  const auto end = path.find_last_not_of('/');  // `dir/.` normalizes to `dir/`
  entry.directory =
      lock::LockedDirectory{end == std::string::npos ? "." : path.substr(0, end + 1), std::nullopt, std::nullopt};
  lock.packages.push_back(std::move(entry));
}

Result<void> check_locked(const lock::Lock& lock, const fs::path& lock_path) {
  if (!lock.project_inputs) return {};
  // The project is the source tree the lock itself names (`vwheel lock -o elsewhere/pylock.toml`
  // writes a relative path to it), else the lock's own directory.
  fs::path dir = lock_path.parent_path();
  for (const auto& p : lock.packages) {
    if (p.directory && p.marker && p.marker->find(plan::kDefaultGroup) != std::string::npos) {
      const fs::path where(p.directory->path);
      dir = where.is_absolute() ? where : (dir / where).lexically_normal();
      break;
    }
  }
  auto project = find_project(dir);
  if (!project) return fail(project.error());
  const fs::path pyproject = dir / kPyproject;
  if (!*project) {
    return fail(fmt::format("{} has no [project] table, but {} was made from a project: run vwheel lock",
                            pyproject.string(), lock_path.string()));
  }
  if (metadata::project_inputs_digest((*project)->project) != *lock.project_inputs) {
    return fail(fmt::format("{} changed since {} was written: run vwheel lock", pyproject.string(), lock_path.string()));
  }
  return {};
}

}  // namespace vwheel::api
