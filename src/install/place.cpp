#include "place.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "vwheel/core/fd.hpp"

#include "extract.hpp"

namespace vwheel::install::detail {
namespace fs = std::filesystem;

Result<void> write_new_file(const fs::path& path, std::string_view data, unsigned mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return fail(fmt::format("{}: cannot create: {}", path.string(), errno_text(errno)));
  std::size_t done = 0;
  while (done < data.size()) {
    const auto n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return fail(io_error(path, "cannot write", err));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) return fail(io_error(path, "cannot write", errno));
  return {};
}

Result<void> make_dir(const fs::path& dir) {
  if (::mkdir(dir.c_str(), 0755) == 0 || errno == EEXIST) return {};
  if (errno == ENOENT && dir.has_parent_path() && dir.parent_path() != dir) {
    if (auto ok = make_dir(dir.parent_path()); !ok) return ok;
    if (::mkdir(dir.c_str(), 0755) == 0 || errno == EEXIST) return {};
  }
  return fail(fmt::format("{}: cannot create: {}", dir.string(), errno_text(errno)));
}

Result<void> write_replacing(const fs::path& path, std::string_view data, unsigned mode) {
  if (write_new_file(path, data, mode)) return {};
  ::unlink(path.c_str());
  return write_new_file(path, data, mode);
}

Result<void> link_or_copy(const fs::path& from, const fs::path& to) {
  if (::link(from.c_str(), to.c_str()) == 0) return {};
  if (errno != EXDEV && errno != EPERM && errno != EMLINK) {
    return fail(fmt::format("{}: cannot link from {}: {}", to.string(), from.string(), errno_text(errno)));
  }
  std::error_code ec;
  fs::copy_file(from, to, fs::copy_options::none, ec);
  if (ec) return fail(fmt::format("{}: cannot copy from {}: {}", to.string(), from.string(), ec.message()));
  return {};
}

namespace {

// Set once a clone fails for want of support, so later files go straight to the fallback.
std::atomic<bool> reflink_unsupported{false};

Result<void> copy_plain(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::copy_file(from, to, fs::copy_options::none, ec);
  if (ec) return fail(fmt::format("{}: cannot copy from {}: {}", to.string(), from.string(), ec.message()));
  return {};
}

// FICLONE of `from` into the new file `to`: true when cloned; false (nothing left at `to`) when
// the file system cannot; an error otherwise.
Result<bool> try_reflink(const fs::path& from, const fs::path& to) {
  if (reflink_unsupported.load(std::memory_order_relaxed)) return false;
  const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return fail(fmt::format("{}: cannot open: {}", from.string(), errno_text(errno)));
  struct stat st {};
  const mode_t mode = ::fstat(in, &st) == 0 ? (st.st_mode & 07777) : 0644;
  const int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (out < 0) {
    const int err = errno;
    ::close(in);
    return fail(fmt::format("{}: cannot create: {}", to.string(), errno_text(err)));
  }
  const bool cloned = ::ioctl(out, FICLONE, in) == 0;
  const int err = errno;
  ::close(in);
  const bool closed = ::close(out) == 0;
  if (cloned && closed) return true;
  ::unlink(to.c_str());
  if (!cloned && (err == EOPNOTSUPP || err == ENOTTY || err == EXDEV || err == EINVAL || err == ENOSYS)) {
    if (err != EXDEV) reflink_unsupported.store(true, std::memory_order_relaxed);
    return false;
  }
  return fail(fmt::format("{}: cannot clone from {}: {}", to.string(), from.string(), errno_text(cloned ? EIO : err)));
}

}  // namespace

Result<void> place_file(const fs::path& from, const fs::path& to, LinkMode mode) {
  switch (mode) {
    case LinkMode::hardlink:
      return link_or_copy(from, to);
    case LinkMode::copy:
      return copy_plain(from, to);
    case LinkMode::reflink:
    case LinkMode::automatic: {
      auto cloned = try_reflink(from, to);
      if (!cloned) return fail(cloned.error());
      if (*cloned) return {};
      return mode == LinkMode::reflink ? copy_plain(from, to) : link_or_copy(from, to);
    }
  }
  return link_or_copy(from, to);
}

}  // namespace vwheel::install::detail
