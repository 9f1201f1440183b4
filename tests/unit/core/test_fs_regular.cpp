#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"

namespace fs = std::filesystem;

namespace {

// Every check here would hang on a FIFO if the file were opened blocking: the FIFO has no writer.
class OpenRegularFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vwheel-test-open-regular-" + vwheel::unique_token());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path fifo(const std::string& name) {
    const auto path = dir_ / name;
    EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0) << std::strerror(errno);
    return path;
  }
  fs::path dir_;
};

TEST_F(OpenRegularFile, ARegularFileIsOpenedBlockingWithItsStat) {
  const auto path = dir_ / "a.txt";
  std::ofstream(path, std::ios::binary) << "hello";
  auto opened = vwheel::open_regular_file(path);
  ASSERT_TRUE(opened) << opened.error().message;
  EXPECT_GE(opened->fd.get(), 0);
  EXPECT_EQ(opened->info.st_size, 5);
  const int flags = ::fcntl(opened->fd.get(), F_GETFL);
  EXPECT_EQ(flags & O_NONBLOCK, 0);  // handed on as an ordinary descriptor
  EXPECT_NE(::fcntl(opened->fd.get(), F_GETFD) & FD_CLOEXEC, 0);
  char buf[8] = {};
  EXPECT_EQ(::read(opened->fd.get(), buf, sizeof buf), 5);
  EXPECT_EQ(std::string(buf, 5), "hello");
  EXPECT_EQ(*vwheel::read_file(path), "hello");
}

TEST_F(OpenRegularFile, AFifoIsRefusedWithoutBlocking) {
  const auto path = fifo("x-1.0-py3-none-any.whl");
  auto opened = vwheel::open_regular_file(path);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().message, path.string() + ": is a FIFO, expected a regular file");
  // The readers built on it say the same.
  auto text = vwheel::read_file(path);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().message, path.string() + ": is a FIFO, expected a regular file");
  auto digest = vwheel::sha256_file(path);
  ASSERT_FALSE(digest);
  EXPECT_EQ(digest.error().message, path.string() + ": is a FIFO, expected a regular file");
}

TEST_F(OpenRegularFile, ADirectoryIsRefused) {
  auto opened = vwheel::open_regular_file(dir_);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().message, dir_.string() + ": is a directory, expected a regular file");
}

TEST_F(OpenRegularFile, ADeviceIsRefused) {
  auto opened = vwheel::open_regular_file("/dev/null");
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().message, "/dev/null: is a character device, expected a regular file");
}

TEST_F(OpenRegularFile, ASocketIsNamedThoughItCannotBeOpened) {
  const auto path = dir_ / "s";
  const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(s, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(path.string().size(), sizeof addr.sun_path);
  std::strcpy(addr.sun_path, path.c_str());
  ASSERT_EQ(::bind(s, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0) << std::strerror(errno);
  auto opened = vwheel::open_regular_file(path);
  ::close(s);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().message, path.string() + ": is a socket, expected a regular file");
}

TEST_F(OpenRegularFile, AMissingFileSaysWhy) {
  const auto path = dir_ / "absent";
  auto opened = vwheel::open_regular_file(path);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().message, path.string() + ": cannot open: No such file or directory");
}

TEST_F(OpenRegularFile, ASymlinkToARegularFileIsFollowed) {
  const auto target = dir_ / "t";
  std::ofstream(target, std::ios::binary) << "abc";
  fs::create_symlink(target, dir_ / "link");
  auto opened = vwheel::open_regular_file(dir_ / "link");
  ASSERT_TRUE(opened) << opened.error().message;
  EXPECT_EQ(opened->info.st_size, 3);
  // One to a FIFO is refused like the FIFO.
  fs::create_symlink(fifo("f"), dir_ / "to-fifo");
  auto refused = vwheel::open_regular_file(dir_ / "to-fifo");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, (dir_ / "to-fifo").string() + ": is a FIFO, expected a regular file");
}

}  // namespace
