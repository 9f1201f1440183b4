#pragma once
// Placing files: creating, replacing, linking, copying or cloning one file or directory (each a
// single step that a Transaction journals around).

#include <filesystem>
#include <string_view>

#include "vwheel/core/error.hpp"
#include "vwheel/install/install.hpp"

namespace vwheel::install::detail {

/// Creates `path` (which must not exist) with `data` and permission bits `mode`.
[[nodiscard]] Result<void> write_new_file(const std::filesystem::path& path, std::string_view data, unsigned mode);

/// mkdir(2) of `dir`, making its missing parents only when that fails with ENOENT (one syscall
/// in the usual case, where create_directories() stats every level first). An existing entry is
/// accepted as it is: creating a file under it reports anything wrong.
[[nodiscard]] Result<void> make_dir(const std::filesystem::path& dir);

/// write_new_file(), replacing a file already at `path` (tried only when creating it fails).
[[nodiscard]] Result<void> write_replacing(const std::filesystem::path& path, std::string_view data, unsigned mode);

/// Hard-links `from` to `to`, copying when linking is impossible (another file system).
[[nodiscard]] Result<void> link_or_copy(const std::filesystem::path& from, const std::filesystem::path& to);

/// Places `from` at the new path `to` as `mode` says (see LinkMode; each falls back to a copy
/// where the file system cannot do it).
[[nodiscard]] Result<void> place_file(const std::filesystem::path& from, const std::filesystem::path& to,
                                      LinkMode mode);

}  // namespace vwheel::install::detail
