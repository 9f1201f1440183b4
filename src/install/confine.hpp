#pragma once
// The confinement rule: what the installer creates, renames or removes lies inside the environment.

#include <filesystem>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/install/install.hpp"

namespace vwheel::install::detail {

/// Decides whether an entry is inside the environment: the real path of the directory holding it
/// (symbolic links resolved, as the kernel resolves them when the entry is renamed or removed)
/// must be one of the environment's scheme directories (purelib, platlib, scripts, headers, data)
/// or its prefix, or lie below one of them, those compared by their real paths too (a
/// site-packages that is itself a link elsewhere is still the environment's).
///
/// Why real paths: a lexical check passes `site-packages/linked/y.txt` when `linked` is a link to
/// a checkout, and removing it would delete the checkout's file; and a journal or RECORD that
/// names an absolute path elsewhere must not make a run act there. Every path that an uninstall,
/// an upgrade, an install (into an existing directory) or a recovery acts on is checked here
/// first; a path outside is refused before anything changes.
///
/// Directories are resolved once each (a removal asks for every file).
class Confinement {
 public:
  explicit Confinement(const Environment& env);

  /// Whether `path` (absolute; its last component a name, not `.` or `..`) may be created,
  /// renamed or removed: the error says where its directory really is and names the environment.
  [[nodiscard]] Result<void> check(const std::filesystem::path& path);
  /// Whether entries may be created in directory `dir` (absolute): its real path is inside.
  [[nodiscard]] Result<void> check_dir(const std::filesystem::path& dir);

  /// The real path of `path`: symbolic links resolved in the part that exists, the rest (which
  /// cannot hold a link) normalized lexically. Nullopt when it cannot be resolved (a dangling
  /// link on the way, a directory that cannot be searched).
  [[nodiscard]] static std::optional<std::filesystem::path> real_path(const std::filesystem::path& path);

 private:
  std::filesystem::path prefix_;                                      ///< the environment's name in messages
  std::vector<std::string> roots_;                                    ///< the scheme directories' real paths
  std::unordered_map<std::string, std::optional<std::string>> real_;  ///< directory -> its real path
};

/// Whether there is an entry at `path` (a link counts, whatever it points to).
[[nodiscard]] bool exists_no_follow(const std::filesystem::path& path);

}  // namespace vwheel::install::detail
