#include "vwheel/core/fd.hpp"

#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace vwheel {

void UniqueFd::reset(int fd) noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd < 0 ? -1 : fd;
}

namespace {

// strerror_r comes in two forms: GNU returns its text (perhaps a static string, not the buffer),
// XSI fills the buffer and returns 0. Overloads take either, so the code builds with both.
[[maybe_unused]] std::string strerror_result(const char* text, const char*, int) { return text; }
[[maybe_unused]] std::string strerror_result(int rc, const char* buffer, int err) {
  return rc == 0 ? std::string(buffer) : "Unknown error " + std::to_string(err);
}

}  // namespace

std::string errno_text(int err) {
  char buffer[256] = {};
  return strerror_result(::strerror_r(err, buffer, sizeof buffer), buffer, err);
}

namespace {

/// Writes all of `data`, by `write_some(pointer, size, done)`; see write_all().
template <class WriteSome>
int write_loop(std::string_view data, WriteSome write_some) noexcept {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = write_some(data.data() + done, data.size() - done, done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) {
      errno = EIO;
      return EIO;
    }
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

}  // namespace

int write_all(int fd, std::string_view data) noexcept {
  return write_loop(data, [fd](const char* p, std::size_t n, std::size_t) { return ::write(fd, p, n); });
}

int pwrite_all(int fd, std::string_view data, std::uint64_t offset) noexcept {
  return write_loop(data, [fd, offset](const char* p, std::size_t n, std::size_t done) {
    return ::pwrite(fd, p, n, static_cast<off_t>(offset + done));
  });
}

long long pread_all(int fd, char* buffer, std::size_t size, std::uint64_t offset) noexcept {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd, buffer + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  return static_cast<long long>(done);
}

}  // namespace vwheel
