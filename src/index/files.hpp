#pragma once
// File-system operations of `build_site`. Writes go to a temporary name in the target's
// directory (`.NAME.tmp-PID-N`) and are renamed into place, so readers see the old file or the
// new one, never a partial one. They are not fsync'ed as they are written (5 ms each on the
// reference VM, 50 s for 10,000 wheels): `make_durable` is the barrier between the files and the
// pages that name them. Failures here are environmental and throw std::system_error naming the
// path.

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "index/state.hpp"
#include "vwheel/core/error.hpp"
#include "vwheel/core/fd.hpp"

namespace vwheel::index::detail {

// The identity of a `struct stat`.
[[nodiscard]] FileStat file_stat(const struct stat& st) noexcept;

// lstat(2)/stat(2) of `path`; nullopt when it does not exist (or cannot be stat'ed).
[[nodiscard]] std::optional<struct stat> stat_path(const std::filesystem::path& path) noexcept;

// A source file's SHA-256 (sha256_file: read in pieces of at most 1 MiB) and the identity of what
// was read. An error
// (not readable) names the file: it is the user's input.
struct HashedFile {
  FileStat stat;
  std::string sha256;
};
[[nodiscard]] Result<HashedFile> hash_file(const std::filesystem::path& path);

// Writes `content` to `path` atomically (temporary file + rename, no fsync).
void write_atomic(const std::filesystem::path& path, std::string_view content);

// Makes `target` the same file as `source` (whose identity is `source_stat`): a hard link, else
// (another file system, no hard links) a copy that keeps the modification time; atomically (a
// new name is linked directly, an existing one replaced by renaming a temporary link or copy).
struct Placed {
  std::uint64_t inode = 0;  // of `target`
  bool copied = false;
};
Placed place_file(const std::filesystem::path& source, const std::filesystem::path& target,
                  const FileStat& source_stat);

// syncfs(2) of the file system holding `path`.
void sync_filesystem(const std::filesystem::path& path);

// The barrier between writing files and writing what names them: fsync(2) of each of `paths`
// and of their directories and those directories' parents when there are few (an incremental
// build), else syncfs(2) of `site` (one call instead of thousands of 5 ms fsyncs; it also flushes
// whatever else is dirty on that file system).
void make_durable(const std::vector<std::filesystem::path>& paths, const std::filesystem::path& site);

// unlink(2), ignoring a missing file. Returns true when something was removed.
bool remove_file(const std::filesystem::path& path);

// Removes the temporaries (`.NAME.tmp-PID-N`, see write_atomic) that a killed build left in SITE's
// page and file folders. Only call it holding the build lock: then no other build is writing any.
void remove_temporaries(const std::filesystem::path& site);

// rmdir(2) when empty; anything else is ignored.
void remove_empty_dir(const std::filesystem::path& path) noexcept;

// A whole file mapped read-only (MAP_POPULATE: one fault-in instead of one per page).
class MappedFile {
 public:
  // nullopt when `path` does not exist; other failures throw.
  [[nodiscard]] static std::optional<MappedFile> open(const std::filesystem::path& path);
  MappedFile(MappedFile&& other) noexcept : data_(other.data_), size_(other.size_) {
    other.data_ = nullptr;
    other.size_ = 0;
  }
  MappedFile& operator=(MappedFile&&) = delete;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();
  [[nodiscard]] std::string_view view() const noexcept { return {static_cast<const char*>(data_), size_}; }

 private:
  MappedFile(void* data, std::size_t size) noexcept : data_(data), size_(size) {}
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

// A directory opened for `*at` calls, closed on destruction; converts to its descriptor.
class DirFd {
 public:
  DirFd() = default;
  explicit DirFd(int fd) noexcept : fd_(fd) {}
  operator int() const noexcept { return fd_.get(); }  // NOLINT(google-explicit-constructor)

 private:
  UniqueFd fd_;
};

// Opens a directory (O_PATH); throws when it cannot.
[[nodiscard]] DirFd open_dir(const std::filesystem::path& path);

// An exclusive lock on a file, held until destruction.
class FileLock {
 public:
  // Locks `path` (created when missing), waiting while another process (or descriptor) holds
  // it. Throws when the file cannot be opened or locked.
  [[nodiscard]] static FileLock acquire(const std::filesystem::path& path);

 private:
  explicit FileLock(UniqueFd fd) noexcept : fd_(std::move(fd)) {}
  UniqueFd fd_;
};

}  // namespace vwheel::index::detail
