#pragma once
// Internals of the install component: RECORD and file hashing, file writes, and the transaction
// that moves staged files into place and can put everything back.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"

namespace vwheel::install::detail {

/// `ALGO=urlsafe-b64-digest` of data for `sha256`, `sha384` or `sha512`; nullopt for any other algorithm.
[[nodiscard]] std::optional<std::string> record_digest(std::string_view algorithm, std::string_view data);
/// Whether a RECORD hash names an accepted algorithm (sha256, sha384, sha512; at least SHA-256
/// strength, as pip requires): the error says why not (md5 and sha1 are refused as too weak).
[[nodiscard]] Result<void> check_record_algorithm(std::string_view hash);
/// `sha256=...` of data.
[[nodiscard]] std::string record_sha256(std::string_view data);
/// Lowercase hex SHA-256 of a whole file (mmap).
[[nodiscard]] Result<std::string> file_sha256_hex(const std::filesystem::path& path);

/// Creates `path` (which must not exist) with `data` and permission bits `mode`.
[[nodiscard]] Result<void> write_new_file(const std::filesystem::path& path, std::string_view data, unsigned mode);

/// Writes `data` to `path` through a temporary file and a rename (replacing any old file), without
/// fsync: for cache hints whose loss or truncation after a crash is harmless.
[[nodiscard]] Result<void> write_replace(const std::filesystem::path& path, std::string_view data);

/// Hard-links `from` to `to`, copying when linking is impossible (another file system).
[[nodiscard]] Result<void> link_or_copy(const std::filesystem::path& from, const std::filesystem::path& to);

/// A random suffix for temporary names (pid and 48 random bits, hex).
[[nodiscard]] std::string unique_suffix();

/// Moves prepared files into place, recording every step so that `rollback` (or destruction
/// without `commit`) restores the previous state.
class Transaction {
 public:
  /// `backup_dir` must be on the same file system as the destinations and not exist yet.
  explicit Transaction(std::filesystem::path backup_dir, std::function<bool(std::size_t)> fail_at = {});
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();

  /// Moves `src` to `dest`: a rename when `dest` does not exist; when both are directories (not
  /// symlinks) the contents are merged; otherwise `dest` is backed up and replaced.
  [[nodiscard]] Result<void> move_into(const std::filesystem::path& src, const std::filesystem::path& dest);
  /// Moves every entry of directory `src` into directory `dest` (created when missing).
  [[nodiscard]] Result<void> move_contents(const std::filesystem::path& src, const std::filesystem::path& dest);
  /// Moves `path` (a file or a whole directory) to the backup.
  [[nodiscard]] Result<void> remove(const std::filesystem::path& path);
  /// Creates `dir` and missing parents, recording the topmost one created.
  [[nodiscard]] Result<void> ensure_dir(const std::filesystem::path& dir);
  /// Keeps the changes and deletes the backup.
  void commit();
  /// Undoes every step, newest first. Errors are ignored (best effort).
  void rollback() noexcept;

 private:
  enum class Kind { Created, Replaced, Removed };
  struct Op {
    Kind kind;
    std::filesystem::path target;
    std::filesystem::path backup;
  };
  [[nodiscard]] Result<std::filesystem::path> next_backup();

  std::filesystem::path backup_dir_;
  std::function<bool(std::size_t)> fail_at_;
  std::vector<Op> ops_;
  std::size_t moves_ = 0;
  std::size_t backups_ = 0;
  bool finished_ = false;
};

/// Removes `dir` and its parents while they are empty, stopping at (and never removing) `stop`
/// or anything outside it.
void remove_empty_parents(std::filesystem::path dir, const std::filesystem::path& stop) noexcept;

}  // namespace vwheel::install::detail
