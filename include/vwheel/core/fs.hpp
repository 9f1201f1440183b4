#pragma once
/// \file
/// Small file-system helpers shared by the I/O components and the CLI.

#include <filesystem>
#include <string>
#include <string_view>

#include "vwheel/core/error.hpp"

namespace vwheel {

/// Reads a whole file. The error names the path and the reason (not found, a directory, ...).
[[nodiscard]] Result<std::string> read_file(const std::filesystem::path& path);

/// Whether write_file_atomic() waits for the data to reach the disk before the rename.
enum class Durability {
  sync,  ///< fsync before the rename: after a crash the file is either old or new, never empty
  none,  ///< no fsync (caches: a lost entry is only fetched again)
};

/// Writes `content` to a temporary file next to `path`, flushes it, and renames it over `path`,
/// so a reader never sees a half-written file and a failure leaves nothing behind.
[[nodiscard]] Result<void> write_file_atomic(const std::filesystem::path& path, std::string_view content,
                                             Durability durability = Durability::sync);

/// vwheel's cache root: `$XDG_CACHE_HOME/vwheel`, else `~/.cache/vwheel`, else a folder in the
/// temporary directory. Detection, interpreter queries, HTTP answers, wheels and unpacked wheels
/// live below it.
[[nodiscard]] std::filesystem::path default_cache_dir();

/// Whether a regular file has a hole before its end (lseek SEEK_HOLE). A download kept in the
/// archive cache never has one, unless members were punched out of it while it was unpacked as
/// it arrived (zip::Archive::punch_out) and the process was killed before it removed the
/// download: such a file must not be trusted as the verified wheel. (A file system that stores
/// runs of zeros as holes, such as ZFS with compression, makes this true for a sound file now and
/// then: the wheel is downloaded again.) False when the file cannot be opened.
[[nodiscard]] bool has_hole_before_end(const std::filesystem::path& path);

/// "<pid>-<12 hex digits>": a token for naming temporary files that no other process or thread
/// picks at the same time (a per-thread generator, seeded once).
[[nodiscard]] std::string unique_token();

/// A folder made with mkdtemp(), removed with its contents when destroyed unless released.
class TempDir {
 public:
  /// A new folder `<parent>/<prefix>XXXXXX`; the error names `parent` and the reason.
  [[nodiscard]] static Result<TempDir> create(const std::filesystem::path& parent, std::string_view prefix);
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&&) = delete;
  ~TempDir();
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  /// Keeps the folder: the destructor no longer removes it.
  void release() noexcept { path_.clear(); }

 private:
  explicit TempDir(std::filesystem::path path) : path_(std::move(path)) {}
  std::filesystem::path path_;
};

}  // namespace vwheel
