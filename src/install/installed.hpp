#pragma once
// Removing an installed distribution inside a transaction (uninstall, and upgrades).

#include <filesystem>
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

/// Moves the distribution's RECORD files (only those inside the environment's prefix), the
/// `__pycache__` files of its `.py` files, and its dist-info directory to the transaction's backup.
[[nodiscard]] Result<Removal> remove_distribution(const Environment& env, const Distribution& dist, Transaction& tx);

/// Removes the now-empty directories of a removal (after commit).
void cleanup_parents(const Environment& env, const Removal& removal) noexcept;

}  // namespace vwheel::install::detail
