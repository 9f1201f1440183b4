#include "vwheel/core/file_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include <fmt/format.h>

namespace vwheel {
namespace {

/// The cache's lock file, with `operation` taken (waiting), or the error.
Result<FileLock> take(const std::filesystem::path& cache_dir, int operation, const std::function<void()>& on_wait) {
  std::error_code ec;
  std::filesystem::create_directories(cache_dir, ec);
  return lock_file(cache_dir / ".lock", operation, true, on_wait);
}

/// The lock file, opened (created when missing), or the error naming it.
Result<UniqueFd> open_lock_file(const std::filesystem::path& file) {
  UniqueFd fd(::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!fd) return fail(fmt::format("{}: cannot create the lock file: {}", file.string(), errno_text(errno)));
  return fd;
}

/// The error of a failed flock(2) other than EWOULDBLOCK (`err`).
tl::unexpected<Error> lock_failed(const std::filesystem::path& file, int err) {
  return fail(fmt::format("{}: cannot lock: {}", file.string(), errno_text(err)));
}

}  // namespace

Result<FileLock> lock_file(const std::filesystem::path& file, int operation, bool wait, const std::function<void()>& on_wait) {
  auto fd = open_lock_file(file);
  if (!fd) return fail(fd.error());
  bool told = false;
  while (::flock(fd->get(), operation | (told ? 0 : LOCK_NB)) != 0) {
    if (errno == EINTR) continue;
    if (errno == EWOULDBLOCK && wait && !told) {
      told = true;
      if (on_wait) on_wait();
      continue;
    }
    if (errno != EWOULDBLOCK) return lock_failed(file, errno);
    return fail(fmt::format("{}: another vwheel process holds the lock", file.string()));
  }
  return FileLock(std::move(*fd));
}

Result<FileLock> lock_file_until(const std::filesystem::path& file, int operation,
                                 std::chrono::steady_clock::time_point deadline) {
  auto fd = open_lock_file(file);
  if (!fd) return fail(fd.error());
  while (::flock(fd->get(), operation | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK) return lock_failed(file, errno);
    if (std::chrono::steady_clock::now() >= deadline) {
      return fail(fmt::format("timed out waiting for another process that holds {}", file.string()));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return FileLock(std::move(*fd));
}

CacheLock CacheLock::shared(const std::filesystem::path& cache_dir, const std::function<void()>& on_wait) {
  auto lock = take(cache_dir, LOCK_SH, on_wait);
  return CacheLock(lock ? std::move(*lock) : FileLock());
}

Result<CacheLock> CacheLock::exclusive(const std::filesystem::path& cache_dir, const std::function<void()>& on_wait) {
  auto lock = take(cache_dir, LOCK_EX, on_wait);
  if (!lock) return tl::unexpected(lock.error());
  return CacheLock(std::move(*lock));
}

}  // namespace vwheel
