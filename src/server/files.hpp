#pragma once
// The files of a served SITE: resolving a request's segments to a path that stays inside the
// canonical root (symlinks resolved and checked), and a small cache of file contents keyed by
// path and validated by device, inode, size and modification time on every use.

#include <sys/stat.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

namespace vwheel::server {

/// What a path inside the root is.
struct ResolvedPath {
  std::string path;   ///< canonical, inside the root
  struct stat st {};  ///< of the file itself (symlinks followed)

  [[nodiscard]] bool is_directory() const noexcept { return S_ISDIR(st.st_mode); }
  [[nodiscard]] bool is_regular() const noexcept { return S_ISREG(st.st_mode); }
};

/// Resolves `segments` (already free of `.`, `..`, separators and hidden names) below `root`
/// (canonical, no trailing `/`). A symlink anywhere on the way is resolved with realpath(3); the
/// result must stay inside `root` and must not pass through a hidden directory. nullopt when
/// missing, unreadable or escaping.
[[nodiscard]] std::optional<ResolvedPath> resolve_inside(const std::string& root,
                                                         std::span<const std::string> segments);

/// The validators of a file version.
struct FileIdentity {
  std::uint64_t dev = 0;
  std::uint64_t ino = 0;
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;

  [[nodiscard]] static FileIdentity of(const struct stat& st) noexcept;
  bool operator==(const FileIdentity&) const = default;
};

/// A cached file.
struct CachedFile {
  FileIdentity identity;
  std::string body;
};

/// Contents of small files (index pages, core metadata, variants.json), reused while the file's
/// identity is unchanged. A rebuilt page is a new inode (written and renamed), so it is re-read.
class FileCache {
 public:
  /// Files up to `max_file` bytes are cached, `max_total` bytes in all (the cache is emptied when
  /// full).
  FileCache(std::uint64_t max_file, std::uint64_t max_total) : max_file_(max_file), max_total_(max_total) {}

  [[nodiscard]] std::uint64_t max_file() const noexcept { return max_file_; }

  /// The cached contents of `path` if they match `identity`.
  [[nodiscard]] std::shared_ptr<const CachedFile> find(const std::string& path, const FileIdentity& identity) const;
  /// Remembers `file` (no-op when too large).
  void put(const std::string& path, std::shared_ptr<const CachedFile> file);

 private:
  std::uint64_t max_file_;
  std::uint64_t max_total_;
  mutable std::shared_mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const CachedFile>> files_;
  std::uint64_t total_ = 0;
};

/// Reads a whole regular file from an open descriptor (at most `expected` + 1 bytes are
/// requested, so a file that grew is noticed). nullopt on a read error or a size change.
[[nodiscard]] std::optional<std::string> read_exact(int fd, std::uint64_t expected);

}  // namespace vwheel::server
