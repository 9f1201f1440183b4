#pragma once
// flock(2) locks, which the kernel releases when the process ends, even by kill -9: the one
// primitive (lock_file), and the cache's lock (CacheLock): every run that reads or writes the
// cache holds a shared lock on `<cache>/.lock` while `vwheel cache clean|prune` holds the
// exclusive one. (An environment's lock is install::EnvironmentLock.)

#include <filesystem>
#include <functional>

#include "vwheel/core/error.hpp"

namespace vwheel {

/// Opens `file` (creating it) and takes the flock(2) `operation` (LOCK_SH or LOCK_EX) on it: at
/// once when no other process holds a conflicting lock; else, with `wait`, calls `on_wait` (when
/// set) once and waits; without, fails ("another vwheel process holds the lock"). Returns the
/// descriptor, which holds the lock until closed. Errors name the file.
[[nodiscard]] Result<int> lock_file(const std::filesystem::path& file, int operation, bool wait,
                                    const std::function<void()>& on_wait = {});

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

  CacheLock(CacheLock&& other) noexcept;
  CacheLock& operator=(CacheLock&& other) noexcept;
  CacheLock(const CacheLock&) = delete;
  CacheLock& operator=(const CacheLock&) = delete;
  ~CacheLock();

  /// Whether a lock is held (false for a shared lock that could not be made).
  [[nodiscard]] bool held() const noexcept { return fd_ >= 0; }

 private:
  explicit CacheLock(int fd) noexcept : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace vwheel
