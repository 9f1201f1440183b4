#include "index/files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <set>
#include <system_error>

#include <fmt/format.h>

#include "vwheel/core/hash.hpp"

namespace vwheel::index::detail {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kChunk = std::size_t{1} << 20;

[[noreturn]] void throw_errno(int err, const std::string& what) {
  throw std::system_error(err, std::generic_category(), what);
}

// `.NAME.tmp-PID-N` beside `path`; unique within the process, O_EXCL/EEXIST handle the rest.
fs::path temp_path(const fs::path& path) {
  static std::atomic<std::uint64_t> counter{0};
  return path.parent_path() / fmt::format(".{}.tmp-{}-{}", path.filename().string(), ::getpid(), counter++);
}

void write_or_throw(int fd, std::string_view data, const fs::path& path) {
  if (const int err = write_all(fd, data); err != 0) throw_errno(err, fmt::format("{}: write error", path.string()));
}

void rename_into_place(const fs::path& tmp, const fs::path& path) {
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw_errno(err, fmt::format("{}: cannot rename into place", path.string()));
  }
}

// Copies `source` to the new file `tmp` (copy_file_range, else read/write) and gives it the
// source's modification time. Returns the inode of `tmp`.
std::uint64_t copy_to(const fs::path& source, const fs::path& tmp) {
  UniqueFd in(::open(source.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.get() < 0) throw_errno(errno, fmt::format("{}: cannot open", source.string()));
  struct stat st {};
  if (::fstat(in.get(), &st) != 0) throw_errno(errno, fmt::format("{}: cannot stat", source.string()));
  UniqueFd out(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (out.get() < 0) throw_errno(errno, fmt::format("{}: cannot create", tmp.string()));
  try {
    bool fallback = false;
    for (;;) {
      const ssize_t n = ::copy_file_range(in.get(), nullptr, out.get(), nullptr, kChunk * 64, 0);
      if (n > 0) continue;
      if (n == 0) break;
      if (errno == EINTR) continue;
      if (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP) {
        fallback = true;
        break;
      }
      throw_errno(errno, fmt::format("{}: copy error", tmp.string()));
    }
    if (fallback) {
      if (::lseek(in.get(), 0, SEEK_SET) < 0 || ::ftruncate(out.get(), 0) != 0 || ::lseek(out.get(), 0, SEEK_SET) < 0) {
        throw_errno(errno, fmt::format("{}: copy error", tmp.string()));
      }
      auto buffer = std::make_unique<char[]>(kChunk);
      for (;;) {
        const ssize_t n = ::read(in.get(), buffer.get(), kChunk);
        if (n < 0) {
          if (errno == EINTR) continue;
          throw_errno(errno, fmt::format("{}: read error", source.string()));
        }
        if (n == 0) break;
        write_or_throw(out.get(), {buffer.get(), static_cast<std::size_t>(n)}, tmp);
      }
    }
    const struct timespec times[2] = {st.st_atim, st.st_mtim};
    if (::futimens(out.get(), times) != 0) throw_errno(errno, fmt::format("{}: cannot set times", tmp.string()));
    struct stat copy {};
    if (::fstat(out.get(), &copy) != 0) throw_errno(errno, fmt::format("{}: cannot stat", tmp.string()));
    if (::close(out.release()) != 0) throw_errno(errno, fmt::format("{}: write error", tmp.string()));
    return static_cast<std::uint64_t>(copy.st_ino);
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
}

}  // namespace

FileStat file_stat(const struct stat& st) noexcept {
  FileStat out;
  out.size = static_cast<std::uint64_t>(st.st_size);
  out.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  out.inode = static_cast<std::uint64_t>(st.st_ino);
  out.device = static_cast<std::uint64_t>(st.st_dev);
  return out;
}

std::optional<struct stat> stat_path(const fs::path& path) noexcept {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return st;
}

Result<HashedFile> hash_file(const fs::path& path) {
  auto digest = sha256_file(path);
  if (!digest) return fail(digest.error());
  return HashedFile{FileStat{digest->size, digest->mtime_ns, digest->inode, digest->device}, std::move(digest->sha256)};
}

void write_atomic(const fs::path& path, std::string_view content) {
  for (;;) {
    const fs::path tmp = temp_path(path);
    UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    if (fd.get() < 0) {
      if (errno == EEXIST) continue;
      throw_errno(errno, fmt::format("{}: cannot create", tmp.string()));
    }
    try {
      write_or_throw(fd.get(), content, tmp);
      if (::close(fd.release()) != 0) throw_errno(errno, fmt::format("{}: write error", tmp.string()));
    } catch (...) {
      ::unlink(tmp.c_str());
      throw;
    }
    rename_into_place(tmp, path);
    return;
  }
}

Placed place_file(const fs::path& source, const fs::path& target, const FileStat& source_stat) {
  // AT_SYMLINK_FOLLOW: a symbolic link in WHEELDIR stands for its target.
  const auto link = [&](const fs::path& to) {
    return ::linkat(AT_FDCWD, source.c_str(), AT_FDCWD, to.c_str(), AT_SYMLINK_FOLLOW) == 0 ? 0 : errno;
  };
  const auto copyable = [](int err) {
    return err == EXDEV || err == EPERM || err == EMLINK || err == EOPNOTSUPP || err == EACCES;
  };
  // A new name: one link, atomic by itself.
  int err = link(target);
  if (err == 0) return Placed{source_stat.inode, false};
  if (err == EEXIST) {
    // Already this file: renaming a second link over it would do nothing and leave the link.
    if (const auto dst = stat_path(target); dst && static_cast<std::uint64_t>(dst->st_ino) == source_stat.inode &&
                                            static_cast<std::uint64_t>(dst->st_dev) == source_stat.device) {
      return Placed{source_stat.inode, false};
    }
  } else if (!copyable(err)) {
    throw_errno(err, fmt::format("{}: cannot link to {}", target.string(), source.string()));
  }
  for (;;) {
    const fs::path tmp = temp_path(target);
    Placed placed{source_stat.inode, false};
    if (err == EEXIST && (err = link(tmp)) == EEXIST) continue;  // a stale temporary name
    if (err != 0 && err != EEXIST) {
      if (!copyable(err)) throw_errno(err, fmt::format("{}: cannot link to {}", target.string(), source.string()));
      placed = Placed{copy_to(source, tmp), true};
    }
    rename_into_place(tmp, target);
    return placed;
  }
}

void sync_filesystem(const fs::path& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0 || ::syncfs(fd.get()) != 0) throw_errno(errno, fmt::format("{}: cannot sync", path.string()));
}

void make_durable(const std::vector<fs::path>& paths, const fs::path& site) {
  constexpr std::size_t kMaxFsyncs = 64;
  if (paths.empty()) return;
  std::set<fs::path> dirs;
  for (const auto& p : paths) {
    dirs.insert(p.parent_path());
    dirs.insert(p.parent_path().parent_path());
  }
  if (paths.size() + dirs.size() > kMaxFsyncs) {
    sync_filesystem(site);
    return;
  }
  const auto sync = [](const fs::path& path, int flags) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | flags));
    if (fd.get() < 0 || ::fsync(fd.get()) != 0) throw_errno(errno, fmt::format("{}: cannot sync", path.string()));
  };
  for (const auto& p : paths) sync(p, 0);
  for (const auto& d : dirs) sync(d, O_DIRECTORY);
}

bool remove_file(const fs::path& path) {
  if (::unlink(path.c_str()) == 0) return true;
  if (errno == ENOENT) return false;
  throw_errno(errno, fmt::format("{}: cannot remove", path.string()));
}

namespace {

// `.NAME.tmp-PID-N`, the names temp_path makes.
bool is_temporary_name(std::string_view name) {
  if (!name.starts_with('.')) return false;
  const auto at = name.rfind(".tmp-");
  if (at == std::string_view::npos || at == 0) return false;
  const auto tail = name.substr(at + 5);
  const auto dash = tail.find('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == tail.size()) return false;
  auto digits = [](std::string_view s) { return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }); };
  return digits(tail.substr(0, dash)) && digits(tail.substr(dash + 1));
}

void remove_temporaries_in(const fs::path& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (is_temporary_name(it->path().filename().string()) && it->is_regular_file(ec)) remove_file(it->path());
  }
}

}  // namespace

void remove_temporaries(const fs::path& site) {
  for (const auto* top : {"simple", "files", ".vwheel"}) {
    const fs::path root = site / top;
    remove_temporaries_in(root);
    std::error_code ec;
    for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_directory(ec) && !it->is_symlink(ec)) remove_temporaries_in(it->path());
    }
  }
}

void remove_empty_dir(const fs::path& path) noexcept { ::rmdir(path.c_str()); }

std::optional<MappedFile> MappedFile::open(const fs::path& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) return std::nullopt;
    throw_errno(errno, fmt::format("{}: cannot open", path.string()));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw_errno(errno, fmt::format("{}: cannot stat", path.string()));
  const auto size = static_cast<std::size_t>(st.st_size);
  if (size == 0) return MappedFile(nullptr, 0);
  void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd.get(), 0);
  if (data == MAP_FAILED) throw_errno(errno, fmt::format("{}: cannot map", path.string()));
  return MappedFile(data, size);
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(data_, size_);
}

DirFd open_dir(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw_errno(errno, fmt::format("{}: cannot open", path.string()));
  return DirFd(fd);
}

FileLock FileLock::acquire(const fs::path& path) {
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (fd.get() < 0) throw_errno(errno, fmt::format("{}: cannot open", path.string()));
  while (::flock(fd.get(), LOCK_EX) != 0) {
    if (errno != EINTR) throw_errno(errno, fmt::format("{}: cannot lock", path.string()));
  }
  return FileLock(std::move(fd));
}

}  // namespace vwheel::index::detail
