#pragma once
// flock(2) locks, which the kernel releases when the process ends, even by kill -9: the one
// primitive (lock_file), and the cache's lock (CacheLock): every run that reads or writes the
// cache holds a shared lock on `<cache>/.lock` while `vwheel cache clean|prune` holds the
// exclusive one. (An environment's lock is install::EnvironmentLock.)

#include <chrono>
#include <filesystem>
#include <functional>
#include <utility>

#include "vwheel/core/error.hpp"
#include "vwheel/core/fd.hpp"

namespace vwheel {

/// A flock(2) held through an open descriptor, until destruction (or the process's end: the
/// kernel releases it, even after kill -9). Move-only; a default-constructed one holds nothing.
class FileLock {
 public:
  FileLock() noexcept = default;
  FileLock(FileLock&& other) noexcept = default;
  FileLock& operator=(FileLock&& other) noexcept = default;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock() = default;

  /// Whether a lock is held.
  [[nodiscard]] bool held() const noexcept { return static_cast<bool>(fd_); }

 private:
  friend Result<FileLock> lock_file(const std::filesystem::path&, int, bool, const std::function<void()>&);
  friend Result<FileLock> lock_file_until(const std::filesystem::path&, int, std::chrono::steady_clock::time_point);
  explicit FileLock(UniqueFd fd) noexcept : fd_(std::move(fd)) {}
  UniqueFd fd_;  ///< closing it releases the lock
};

/// Opens `file` (creating it) and takes the flock(2) `operation` (LOCK_SH or LOCK_EX) on it: at
/// once when no other process holds a conflicting lock; else, with `wait`, calls `on_wait` (when
/// set) once and waits; without, fails ("another vwheel process holds the lock"). Errors name
/// the file.
[[nodiscard]] Result<FileLock> lock_file(const std::filesystem::path& file, int operation, bool wait,
                                         const std::function<void()>& on_wait = {});

/// `lock_file` waiting at most until `deadline`: flock(2) cannot time out, so it tries again
/// every 50 ms. Fails with "timed out waiting for another process that holds FILE" at the
/// deadline; other errors as `lock_file`'s.
[[nodiscard]] Result<FileLock> lock_file_until(const std::filesystem::path& file, int operation,
                                               std::chrono::steady_clock::time_point deadline);

/// A flock(2) on `<cache>/.lock`, held until destruction.
class CacheLock {
 public:
  /// A shared lock: waits while a clean or prune runs (`on_wait` is called once first, if it
  /// must wait). Creates the cache directory. Never fails: where the lock file cannot be made (a
  /// read-only cache), the run goes on without it, as it would without a cache.
  [[nodiscard]] static CacheLock shared(const std::filesystem::path& cache_dir, const std::function<void()>& on_wait = {});
  /// The exclusive lock, waiting for every other run using the cache (`on_wait` once first, if it
  /// must wait). The error names the lock file.
  [[nodiscard]] static Result<CacheLock> exclusive(const std::filesystem::path& cache_dir,
                                                   const std::function<void()>& on_wait = {});

  /// Whether a lock is held (false for a shared lock that could not be made).
  [[nodiscard]] bool held() const noexcept { return lock_.held(); }

 private:
  explicit CacheLock(FileLock lock) noexcept : lock_(std::move(lock)) {}
  FileLock lock_;
};

}  // namespace vwheel
