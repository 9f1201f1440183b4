#pragma once
// Removing an installed distribution inside a transaction (uninstall, and upgrades).

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "confine.hpp"
#include "transaction.hpp"
#include "vwheel/install/install.hpp"

namespace vwheel::install::detail {

/// What removing a distribution touched.
struct Removal {
  std::size_t files = 0;
  std::vector<std::filesystem::path> parents;  ///< directories that may now be empty
};

/// The `*.dist-info` directories of purelib and platlib by canonical project name (from the
/// directory name), listed once per run so that each wheel's look-up costs no directory scan.
/// The same listing gives the staging directories (`.vwheel-tmp-*`) found in the lock directory
/// to `staging` when it is set.
using DistInfoIndex = std::multimap<std::string, std::filesystem::path, std::less<>>;
[[nodiscard]] DistInfoIndex index_dist_infos(const Environment& env,
                                             std::vector<std::filesystem::path>* staging = nullptr);

/// The installed distribution of this canonical name, from the index, or nullopt.
[[nodiscard]] std::optional<Distribution> find_in_index(const DistInfoIndex& index, std::string_view canonical_name);

/// Moves the distribution's RECORD files, the `__pycache__` files of its `.py` files, and its
/// dist-info directory to the transaction's backup. Fails before moving any when one of them that
/// exists is outside the environment (Confinement): the error names its RECORD line.
[[nodiscard]] Result<Removal> remove_distribution(const Environment& env, const Distribution& dist, Transaction& tx);

/// A file a removal takes out: one of the distribution's (normalized, inside the prefix), or a
/// compiled file of one of its modules (not counted as the distribution's).
struct RemovedFile {
  std::filesystem::path path;
  bool compiled = false;
};

/// How to take a distribution's files out (removal.cpp): whole directories where every file below
/// is one of them, one rename each, and the other files that exist one by one.
struct RemovalPlan {
  std::vector<std::filesystem::path> directories;
  std::vector<std::filesystem::path> files;
  std::size_t counted = 0;  ///< files taken (whole directories' included), compiled ones not counted
};

/// The plan for `listed` (no path twice). A directory is taken whole when it is below the deepest
/// scheme directory (or the prefix) that holds it, is no scheme directory nor above one, is not a
/// link, and every file below it (not following links) is listed; empty directories in it go with
/// it. Looks at nothing outside the directories just below those scheme directories.
[[nodiscard]] RemovalPlan plan_removal(const Environment& env, const std::vector<RemovedFile>& listed);

/// Whether `name` in a `__pycache__` directory is a compiled file of module `module`
/// (`module.TAG.pyc` or `module.TAG.opt-N.pyc`).
[[nodiscard]] bool compiled_from(std::string_view name, std::string_view module);

/// One file a run will install: its scheme directory and its path below it (`/`-separated).
struct Destination {
  const std::filesystem::path* root = nullptr;
  std::string_view relative;
};

/// Whether `path` is `dir` or below it, both absolute and lexically normal (string comparison:
/// what `is_within` decides, without building paths; a removal asks it for every file).
[[nodiscard]] bool normal_within(std::string_view path, std::string_view dir) noexcept;

/// The paths the distribution's RECORD lists inside the environment, lexically normal (those an
/// upgrade moves aside before the new files go in).
[[nodiscard]] std::unordered_set<std::string> owned_paths(const Environment& env, const Distribution& dist);

/// Fails, naming the file (`label(i)` for `files[i]`: what it comes from) and the environment's
/// path, when a file would replace a directory or a directory is needed where the environment has
/// a file (both of which the move into place would otherwise resolve by moving the environment's
/// entry aside for good), unless what is in the way is `replaced`: files of the same project's
/// installed version (normalized paths), removed first. Fails too when a directory the file would
/// go into (its scheme directory, or one on the way that exists) is outside the environment
/// (`confinement`): what the run creates below it would be created there.
[[nodiscard]] Result<void> check_type_conflicts(const std::vector<Destination>& files,
                                                const std::unordered_set<std::string>& replaced,
                                                Confinement& confinement,
                                                const std::function<std::string(std::size_t)>& label);

/// Removes the now-empty directories of a removal (after commit), up to the scheme directory
/// holding each, never one outside the environment (Confinement).
void cleanup_parents(const Environment& env, const Removal& removal) noexcept;

}  // namespace vwheel::install::detail
