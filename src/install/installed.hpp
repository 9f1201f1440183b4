#pragma once
// Removing an installed distribution inside a transaction (uninstall, and upgrades).

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "detail.hpp"
#include "vwheel/install/install.hpp"

namespace vwheel::install::detail {

/// What removing a distribution touched.
struct Removal {
  std::size_t files = 0;
  std::vector<std::filesystem::path> parents;  ///< directories that may now be empty
  std::vector<std::string> warnings;
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

/// Moves the distribution's RECORD files (only those inside the environment's prefix), the
/// `__pycache__` files of its `.py` files, and its dist-info directory to the transaction's backup.
[[nodiscard]] Result<Removal> remove_distribution(const Environment& env, const Distribution& dist, Transaction& tx);

/// One file a run will install: its scheme directory and its path below it (`/`-separated).
struct Destination {
  const std::filesystem::path* root = nullptr;
  std::string_view relative;
};

/// The paths the distribution's RECORD lists inside the environment, normalized (those an
/// upgrade moves aside before the new files go in).
[[nodiscard]] std::set<std::filesystem::path> owned_paths(const Environment& env, const Distribution& dist);

/// Fails, naming the file (`label(i)` for `files[i]`: what it comes from) and the environment's
/// path, when a file would replace a directory or a directory is needed where the environment has
/// a file (both of which the move into place would otherwise resolve by moving the environment's
/// entry aside for good), unless what is in the way is `replaced`: files of the same project's
/// installed version (normalized paths), removed first.
[[nodiscard]] Result<void> check_type_conflicts(const std::vector<Destination>& files,
                                                const std::set<std::filesystem::path>& replaced,
                                                const std::function<std::string(std::size_t)>& label);

/// Removes the now-empty directories of a removal (after commit).
void cleanup_parents(const Environment& env, const Removal& removal) noexcept;

}  // namespace vwheel::install::detail
