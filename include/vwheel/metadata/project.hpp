#pragma once
/// \file
/// What locking a project reads from its `pyproject.toml`: the `[project]` table's name, version,
/// `dependencies`, `optional-dependencies` and `requires-python` (PEP 621), and the
/// `[dependency-groups]` table (PEP 735). Pure: text in, model out; no file I/O.
///
/// References to the project itself (`myproj[a,b]` in an extra or a group) are expanded into the
/// requirements of the extras they name (their markers joined with `and`), so that a resolver never
/// looks for the project on an index; a self-reference without extras adds nothing (the project
/// is in the lock as its directory entry). Extras may refer to each other in a cycle (each then
/// holds the union); groups may not (`{include-group = ...}` cycles are errors, as PEP 735 says).

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/markers/requirement.hpp"
#include "vwheel/pep440/specifier.hpp"

namespace vwheel::metadata {

/// The locking inputs of one project.
struct Project {
  std::string name;                    ///< `project.name`, normalized (PEP 503)
  std::optional<std::string> version;  ///< `project.version`, normalized; nullopt when dynamic
  std::vector<markers::Requirement> dependencies;
  /// Normalized extra name -> its requirements, self-references expanded.
  std::map<std::string, std::vector<markers::Requirement>> optional_dependencies;
  /// Normalized group name -> its requirements, `include-group` and self-references expanded.
  std::map<std::string, std::vector<markers::Requirement>> dependency_groups;
  std::optional<pep440::SpecifierSet> requires_python;
};

/// Reads a `pyproject.toml` text; nullopt when it has no `[project]` table. `source` names the
/// file in errors, which are one line each: the table and key, the value, and what was expected
/// (`pyproject.toml: project.dependencies[1]: `foo >=` is not a PEP 508 requirement: ...`).
/// Refused: TOML syntax errors; a missing or invalid `name`; a `version` that is missing without
/// being `dynamic`, or not PEP 440; `dependencies` or `optional-dependencies` listed in
/// `dynamic` (nothing static to lock); a wrong type anywhere; a requirement that does not parse;
/// an invalid `requires-python`; an invalid or duplicate (after normalization) extra or group
/// name; a group named `default` (the lock's synthetic default group, `plan::kDefaultGroup`);
/// an `include-group` of an unknown group or in a cycle; a group entry that is neither a string
/// nor `{include-group = "..."}`; a self-reference naming an extra the project does not define.
[[nodiscard]] Result<std::optional<Project>> parse_project(std::string_view toml_text, std::string_view source);

/// `sha256:<hex>` of a canonical serialization of what a lock of `project` depends on: name,
/// version (or that it is dynamic), requires-python, and the requirements of the dependencies,
/// every extra and every group (after expansion, normalized, sorted). Formatting, comments, key
/// order, order of requirements and any other table do not change it.
[[nodiscard]] std::string project_inputs_digest(const Project& project);

}  // namespace vwheel::metadata
