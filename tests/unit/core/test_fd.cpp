// The shared file-descriptor helpers: ownership of UniqueFd, write_all through short writes (a
// non-blocking pipe drained by another thread), pread_all to the end of a file, errno_text.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <string>
#include <thread>
#include <utility>

#include <gtest/gtest.h>

#include "vwheel/core/fd.hpp"

namespace {

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

std::pair<int, int> make_pipe() {
  int fds[2] = {-1, -1};
  EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  return {fds[0], fds[1]};
}

TEST(UniqueFd, ClosesWhatItOwns) {
  const auto [r, w] = make_pipe();
  {
    const vwheel::UniqueFd a(r);
    const vwheel::UniqueFd b(w);
    EXPECT_TRUE(a);
    EXPECT_EQ(a.get(), r);
  }
  EXPECT_FALSE(is_open(r));
  EXPECT_FALSE(is_open(w));
}

TEST(UniqueFd, EmptyAndNegativeOwnNothing) {
  const vwheel::UniqueFd none;
  EXPECT_FALSE(none);
  EXPECT_EQ(none.get(), -1);
  const vwheel::UniqueFd failed(::open("/nonexistent/x", O_RDONLY | O_CLOEXEC));
  EXPECT_FALSE(failed);
  EXPECT_EQ(failed.get(), -1);
}

TEST(UniqueFd, MoveTransfersOwnership) {
  const auto [r, w] = make_pipe();
  vwheel::UniqueFd a(r);
  vwheel::UniqueFd b(std::move(a));
  EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move): the moved-from state is what is checked
  EXPECT_EQ(b.get(), r);
  vwheel::UniqueFd c(w);
  c = std::move(b);  // closes w, takes r
  EXPECT_FALSE(is_open(w));
  EXPECT_TRUE(is_open(r));
  EXPECT_EQ(c.get(), r);
}

TEST(UniqueFd, ReleaseHandsOverResetCloses) {
  const auto [r, w] = make_pipe();
  vwheel::UniqueFd a(r);
  const int raw = a.release();
  EXPECT_FALSE(a);
  EXPECT_EQ(raw, r);
  a.reset(w);
  EXPECT_TRUE(is_open(r));  // released: not closed by reset
  EXPECT_EQ(::close(raw), 0);
  a.reset();
  EXPECT_FALSE(is_open(w));
  EXPECT_FALSE(a);
}

TEST(WriteAll, WritesEverythingThroughShortWrites) {
  // A pipe buffer is 64 KiB: 1 MiB written at once reaches the reader in many partial writes.
  const auto [r, w] = make_pipe();
  vwheel::UniqueFd reader(r);
  vwheel::UniqueFd writer(w);
  std::string data(std::size_t{1} << 20, '\0');
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 131 % 251);
  std::string got;
  std::thread drain([&] {
    char buffer[4096];
    for (;;) {
      const ssize_t n = ::read(reader.get(), buffer, sizeof buffer);
      if (n <= 0) break;
      got.append(buffer, static_cast<std::size_t>(n));
    }
  });
  EXPECT_EQ(vwheel::write_all(writer.get(), data), 0);
  writer.reset();
  drain.join();
  EXPECT_EQ(got.size(), data.size());
  EXPECT_TRUE(got == data);
}

TEST(WriteAll, ReportsTheErrno) {
  const auto [r, w] = make_pipe();
  vwheel::UniqueFd writer(w);
  ::close(r);  // no reader: EPIPE (SIGPIPE ignored for the test)
  const auto old = ::signal(SIGPIPE, SIG_IGN);
  EXPECT_EQ(vwheel::write_all(writer.get(), "x"), EPIPE);
  ::signal(SIGPIPE, old);
  EXPECT_EQ(vwheel::write_all(-1, "x"), EBADF);
  EXPECT_EQ(vwheel::write_all(-1, ""), 0);  // nothing to write: no call at all
}

TEST(PwriteAllPreadAll, AtOffsetsAndToTheEnd) {
  char name[] = "/tmp/vwheel-test-fd-XXXXXX";
  const vwheel::UniqueFd fd(::mkstemp(name));
  ASSERT_TRUE(fd);
  ::unlink(name);
  ASSERT_EQ(vwheel::pwrite_all(fd.get(), "hello world", 0), 0);
  ASSERT_EQ(vwheel::pwrite_all(fd.get(), "W", 6), 0);
  EXPECT_EQ(::lseek(fd.get(), 0, SEEK_CUR), 0);  // the offset is not moved
  std::string buffer(32, '\0');
  EXPECT_EQ(vwheel::pread_all(fd.get(), buffer.data(), 5, 6), 5);
  EXPECT_EQ(buffer.substr(0, 5), "World");
  // Asking past the end: the count read, short only because the file ends.
  EXPECT_EQ(vwheel::pread_all(fd.get(), buffer.data(), buffer.size(), 3), 8);
  EXPECT_EQ(buffer.substr(0, 8), "lo World");
  errno = 0;
  EXPECT_EQ(vwheel::pread_all(-1, buffer.data(), 1, 0), -1);
  EXPECT_EQ(errno, EBADF);
}

TEST(ErrnoText, AsStrerror) {
  EXPECT_EQ(vwheel::errno_text(ENOENT), "No such file or directory");
  EXPECT_EQ(vwheel::errno_text(EACCES), "Permission denied");
  EXPECT_FALSE(vwheel::errno_text(123456).empty());
}

}  // namespace
