#pragma once
/// \file
/// File descriptors: one owning handle, the read/write loops every component needs (a signal
/// may interrupt a call, and a pipe, a socket or a full disk may take part of a write), and the
/// text of an errno value for messages. Each exists once here, so that a descriptor is never
/// leaked or closed twice by a hand-written class and no loop forgets EINTR or a short write.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace vwheel {

/// An owned file descriptor, closed when destroyed or reset. Move-only; -1 means none.
class UniqueFd {
 public:
  UniqueFd() noexcept = default;
  /// Takes ownership of `fd` (a negative value, such as a failed open(2)'s, owns nothing).
  explicit UniqueFd(int fd) noexcept : fd_(fd < 0 ? -1 : fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(std::exchange(other.fd_, -1));
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  /// The descriptor (still owned), or -1.
  [[nodiscard]] int get() const noexcept { return fd_; }
  /// Whether a descriptor is owned.
  [[nodiscard]] explicit operator bool() const noexcept { return fd_ >= 0; }
  /// Hands the descriptor over without closing it: the caller closes it (e.g. to check what
  /// close(2) says after a write) and this owns nothing.
  [[nodiscard]] int release() noexcept { return std::exchange(fd_, -1); }
  /// Closes the owned descriptor, if any, and owns `fd` instead. close(2)'s result is ignored:
  /// a caller that must know it (a written file) closes `release()` itself.
  void reset(int fd = -1) noexcept;

 private:
  int fd_ = -1;
};

/// The text of an errno value, as strerror(3) gives it (`No such file or directory`), for the end
/// of a one-line message. Thread-safe, unlike strerror(3).
[[nodiscard]] std::string errno_text(int err);

/// Writes all of `data` at the descriptor's offset, retrying after EINTR and short writes.
/// Returns 0, or the errno of the write(2) that failed (errno is left set too). A write that
/// makes no progress (returns 0) is reported as EIO rather than retried forever.
[[nodiscard]] int write_all(int fd, std::string_view data) noexcept;

/// write_all() at `offset` with pwrite(2): the descriptor's offset is neither used nor moved.
[[nodiscard]] int pwrite_all(int fd, std::string_view data, std::uint64_t offset) noexcept;

/// Reads up to `size` bytes at `offset` with pread(2), retrying after EINTR and short reads until
/// `size` bytes or the end of the file. Returns the count read (less than `size` only at the end
/// of the file), or -1 with errno set.
[[nodiscard]] long long pread_all(int fd, char* buffer, std::size_t size, std::uint64_t offset) noexcept;

}  // namespace vwheel
