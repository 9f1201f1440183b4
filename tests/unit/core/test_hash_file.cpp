#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"

namespace fs = std::filesystem;

namespace {

class Sha256File : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vwheel-test-hash-file-" + vwheel::unique_token());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path write(const std::string& name, const std::string& data) {
    const auto path = dir_ / name;
    std::ofstream(path, std::ios::binary) << data;
    return path;
  }
  fs::path dir_;
};

TEST_F(Sha256File, KnownDigestsAndSizes) {
  auto abc = vwheel::sha256_file(write("abc", "abc"));
  ASSERT_TRUE(abc) << abc.error().message;
  EXPECT_EQ(abc->sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(abc->size, 3U);
  EXPECT_NE(abc->inode, 0U);

  auto empty = vwheel::sha256_file(write("empty", ""));
  ASSERT_TRUE(empty) << empty.error().message;
  EXPECT_EQ(empty->sha256, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(empty->size, 0U);
}

TEST_F(Sha256File, FileOfSeveralBuffers) {
  // 3.5 MiB and a few bytes: several 1 MiB reads and a short last one.
  std::string data((std::size_t{7} << 19) + 13, '\0');
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>((i * 131) ^ (i >> 11));
  auto digest = vwheel::sha256_file(write("big", data));
  ASSERT_TRUE(digest) << digest.error().message;
  EXPECT_EQ(digest->sha256, vwheel::sha256_hex(data));
  EXPECT_EQ(digest->size, data.size());

  // One million 'a' (FIPS 180-2's long message), a file just under one buffer.
  auto million = vwheel::sha256_file(write("million", std::string(1000000, 'a')));
  ASSERT_TRUE(million) << million.error().message;
  EXPECT_EQ(million->sha256, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_F(Sha256File, MissingFileIsAnErrorNamingIt) {
  const auto path = dir_ / "absent.whl";
  auto digest = vwheel::sha256_file(path);
  ASSERT_FALSE(digest);
  const auto& message = digest.error().message;
  EXPECT_NE(message.find(path.string()), std::string::npos) << message;
  EXPECT_NE(message.find("cannot open"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST_F(Sha256File, DirectoryIsNotARegularFile) {
  auto digest = vwheel::sha256_file(dir_);
  ASSERT_FALSE(digest);
  EXPECT_EQ(digest.error().message, dir_.string() + ": is a directory, expected a regular file");
}

}  // namespace
