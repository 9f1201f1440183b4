#pragma once
/// \file
/// Small file-system helpers shared by the I/O components and the CLI.

#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

#include "vwheel/core/error.hpp"
#include "vwheel/core/fd.hpp"

namespace vwheel {

/// A regular file opened for reading, with what fstat(2) said about it once opened.
struct OpenedFile {
  UniqueFd fd;
  struct stat info {};
};

/// Opens `path` for reading, and only if it is a regular file. Every file vwheel reads by a path
/// it was given (a lock entry's `path` or `file://` url, a `--find-links` directory's files, a
/// wheel on the command line, `-r`/`-c` files, profiles, configuration, variants json) goes
/// through here, so that none of them can hang the run: the file is opened with O_NONBLOCK (a
/// FIFO without a writer would block in open(2), where neither `--timeout` nor the interrupt
/// handling reaches), checked with fstat(2) on the descriptor (no window for a swap between a
/// check and the open), and O_NONBLOCK is then cleared. O_NOCTTY: a terminal never becomes the
/// controlling one. The error is one line naming the path and what it is instead
/// (`x.whl: is a FIFO, expected a regular file`), or why it could not be opened.
[[nodiscard]] Result<OpenedFile> open_regular_file(const std::filesystem::path& path);

/// Reads a whole regular file (open_regular_file). The error names the path and the reason (not
/// found, a directory, a FIFO, ...).
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
