#pragma once
// Removing an installed distribution inside a transaction (uninstall, and upgrades).

#include <filesystem>
#include <map>
#include <optional>
#include <string>
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

/// Removes the now-empty directories of a removal (after commit).
void cleanup_parents(const Environment& env, const Removal& removal) noexcept;

}  // namespace vwheel::install::detail
