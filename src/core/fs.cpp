#include "vwheel/core/fs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <random>
#include <utility>

#include <fmt/format.h>

namespace vwheel {

namespace {

/// "<path>: is a FIFO, expected a regular file" (a directory, a device, a socket).
Error not_regular(const std::filesystem::path& path, mode_t mode) {
  const char* kind = S_ISFIFO(mode)  ? "a FIFO"
                     : S_ISDIR(mode) ? "a directory"
                     : S_ISCHR(mode) ? "a character device"
                     : S_ISBLK(mode) ? "a block device"
                     : S_ISSOCK(mode) ? "a socket"
                                      : nullptr;
  if (kind == nullptr) return Error(fmt::format("{}: not a regular file", path.string()));
  return Error(fmt::format("{}: is {}, expected a regular file", path.string(), kind));
}

}  // namespace

Result<OpenedFile> open_regular_file(const std::filesystem::path& path) {
  OpenedFile out;
  out.fd = UniqueFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (out.fd.get() < 0) {
    const int err = errno;
    // A socket cannot be opened at all (ENXIO), a device perhaps not by this user: say what it is.
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return fail(not_regular(path, st.st_mode));
    return fail(fmt::format("{}: cannot open: {}", path.string(), errno_text(err)));
  }
  if (::fstat(out.fd.get(), &out.info) != 0) {
    return fail(fmt::format("{}: cannot stat: {}", path.string(), errno_text(errno)));
  }
  if (!S_ISREG(out.info.st_mode)) return fail(not_regular(path, out.info.st_mode));
  // Reads of a regular file never return EAGAIN, but the flag is cleared all the same: the
  // descriptor is handed on, and none of its users expects a non-blocking one.
  const int flags = ::fcntl(out.fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(out.fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) {
    return fail(fmt::format("{}: cannot clear O_NONBLOCK: {}", path.string(), errno_text(errno)));
  }
  return out;
}

Result<std::string> read_file(const std::filesystem::path& path) {
  auto opened = open_regular_file(path);
  if (!opened) return fail(opened.error());
  const int fd = opened->fd.get();
  const struct stat& st = opened->info;
  std::string out;
  out.resize(static_cast<std::size_t>(st.st_size));
  std::size_t done = 0;
  char probe[4096];  // a file that grew since fstat: read on without zero-filling big blocks
  for (;;) {
    const bool full = done == out.size();
    const ssize_t n = full ? ::read(fd, probe, sizeof probe) : ::read(fd, out.data() + done, out.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(fmt::format("{}: read error: {}", path.string(), errno_text(errno)));
    }
    if (n == 0) break;
    if (full) out.append(probe, static_cast<std::size_t>(n));
    done += static_cast<std::size_t>(n);
  }
  out.resize(done);
  return out;
}

std::string unique_token() {
  static thread_local std::mt19937_64 rng{(std::uint64_t{std::random_device{}()} << 32) ^
                                          static_cast<std::uint64_t>(::getpid())};
  return fmt::format("{}-{:012x}", ::getpid(), rng() & 0xffffffffffffULL);
}

Result<void> write_file_atomic(const std::filesystem::path& path, std::string_view content, Durability durability) {
  const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  const auto tmp = dir / fmt::format(".{}.tmp-{}", path.filename().string(), unique_token());
  UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (!fd) return fail(fmt::format("{}: cannot create: {}", path.string(), errno_text(errno)));
  int write_err = write_all(fd.get(), content);
  if (write_err == 0 && durability == Durability::sync && ::fsync(fd.get()) != 0) write_err = errno;
  if (write_err == 0 && ::close(fd.release()) != 0) write_err = errno;
  if (write_err != 0) {
    ::unlink(tmp.c_str());
    return fail(fmt::format("{}: write error: {}", path.string(), errno_text(write_err)));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return fail(fmt::format("{}: cannot rename into place: {}", path.string(), errno_text(err)));
  }
  return {};
}

}  // namespace vwheel

namespace vwheel {

std::filesystem::path default_cache_dir() {
  for (const char* name : {"XDG_CACHE_HOME", "HOME"}) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') continue;
    return name[0] == 'X' ? std::filesystem::path(value) / "vwheel" : std::filesystem::path(value) / ".cache" / "vwheel";
  }
  return std::filesystem::temp_directory_path() / "vwheel-cache";
}

bool has_hole_before_end(const std::filesystem::path& path) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return false;
  struct stat st {};
  return ::fstat(fd.get(), &st) == 0 && ::lseek(fd.get(), 0, SEEK_HOLE) < st.st_size;
}

Result<TempDir> TempDir::create(const std::filesystem::path& parent, std::string_view prefix) {
  std::string pattern = (parent / (std::string(prefix) + "XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return fail(fmt::format("cannot create a temporary folder in {}: {}", parent.string(), errno_text(errno)));
  }
  return TempDir(std::filesystem::path(pattern));
}

TempDir::TempDir(TempDir&& other) noexcept : path_(std::exchange(other.path_, {})) {}

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace vwheel
