// MultipartReceiver, driven directly as cpp-httplib's multipart reader drives it: fields, the
// streamed `content` file, the limits and their exact messages, and cleanup of the temporary folder.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "server/multipart.hpp"
#include "vwheel/core/hash.hpp"

namespace vwheel::server {
namespace {
namespace fs = std::filesystem;

class MultipartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("vwheel-multipart-test-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    limits_.max_file_size = 100;
    limits_.max_field_bytes = 32;
    limits_.max_parts = 4;
  }
  void TearDown() override { fs::remove_all(root_); }

  static bool send(MultipartReceiver& r, const std::string& bytes) { return r.on_data(bytes.data(), bytes.size()); }
  static std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  fs::path root_;
  MultipartLimits limits_;
};

TEST_F(MultipartTest, AcceptsAFormWithFieldsAndAFileInChunks) {
  fs::path temp_dir;
  {
    MultipartReceiver r(root_, limits_);
    ASSERT_TRUE(r.on_part(":action", ""));
    ASSERT_TRUE(send(r, "file_"));
    ASSERT_TRUE(send(r, "upload"));
    ASSERT_TRUE(r.on_part("content", "pkg-1.0-py3-none-any.whl"));
    ASSERT_TRUE(send(r, "PK\x03\x04"));
    ASSERT_TRUE(send(r, "rest"));
    ASSERT_TRUE(r.on_part("gpg_signature", "pkg-1.0-py3-none-any.whl.asc"));  // dropped
    ASSERT_TRUE(send(r, "sig"));
    ASSERT_TRUE(r.on_part("version", ""));
    ASSERT_TRUE(send(r, "1.0"));
    ASSERT_TRUE(r.finish());
    const auto& form = r.form();
    EXPECT_EQ(form.fields, (std::map<std::string, std::string>{{":action", "file_upload"}, {"version", "1.0"}}));
    EXPECT_EQ(form.filename, "pkg-1.0-py3-none-any.whl");
    EXPECT_EQ(form.file.filename(), "pkg-1.0-py3-none-any.whl");
    EXPECT_EQ(form.file.parent_path().parent_path(), root_);
    EXPECT_EQ(read(form.file), "PK\x03\x04rest");
    EXPECT_EQ(form.size, 8U);
    Sha256 sha;
    sha.update("PK\x03\x04rest");
    EXPECT_EQ(form.sha256, to_hex(sha.finish()));
    EXPECT_EQ(r.parts(), 4U);
    EXPECT_EQ(r.field_bytes(), 17U);  // file_upload + sig + 1.0
    EXPECT_FALSE(r.failed());
    temp_dir = form.file.parent_path();
  }
  EXPECT_FALSE(fs::exists(temp_dir));
  EXPECT_TRUE(fs::is_empty(root_));
}

TEST_F(MultipartTest, ARepeatedFieldKeepsTheLastValue) {
  MultipartReceiver r(root_, limits_);
  ASSERT_TRUE(r.on_part("name", ""));
  ASSERT_TRUE(send(r, "first"));
  ASSERT_TRUE(r.on_part("name", ""));
  ASSERT_TRUE(send(r, "second"));
  ASSERT_TRUE(r.finish());
  EXPECT_EQ(r.form().fields.at("name"), "second");
  EXPECT_EQ(r.field_bytes(), 11U);  // both count against the limit
}

TEST_F(MultipartTest, AFormWithoutContentHasNoFileAndTheUploaderSaysSo) {
  MultipartReceiver r(root_, limits_);
  ASSERT_TRUE(r.on_part(":action", ""));
  ASSERT_TRUE(send(r, "file_upload"));
  ASSERT_TRUE(r.on_part("content", ""));  // a plain field named `content`, not a file
  ASSERT_TRUE(send(r, "text"));
  ASSERT_TRUE(r.finish());
  EXPECT_TRUE(r.form().filename.empty());
  EXPECT_TRUE(r.form().file.empty());
  EXPECT_TRUE(r.form().sha256.empty());
  EXPECT_TRUE(fs::is_empty(root_));  // no temporary folder made
  UploadConfig config;
  config.wheel_dir = root_;
  config.site_dir = root_ / "site";
  config.token = "t";
  config.max_file_size = limits_.max_file_size;
  Uploader uploader(config);
  const auto outcome = uploader.commit(r.form());
  EXPECT_EQ(outcome.status, 400);
  EXPECT_EQ(outcome.message, "missing the `content` file");
}

TEST_F(MultipartTest, TooManyParts) {
  MultipartReceiver r(root_, limits_);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(r.on_part("f" + std::to_string(i), ""));
  EXPECT_FALSE(r.on_part("f4", ""));
  EXPECT_EQ(r.failure().status, 400);
  EXPECT_EQ(r.failure().message, "too many form fields (more than 4 parts)");
  EXPECT_FALSE(r.finish());
}

TEST_F(MultipartTest, OversizedFields) {
  MultipartReceiver r(root_, limits_);
  ASSERT_TRUE(r.on_part("a", ""));
  ASSERT_TRUE(send(r, std::string(20, 'x')));
  ASSERT_TRUE(r.on_part("b", ""));
  ASSERT_TRUE(send(r, std::string(12, 'x')));  // exactly the limit
  EXPECT_FALSE(send(r, "y"));
  EXPECT_EQ(r.failure().status, 413);
  EXPECT_EQ(r.failure().message, "the form fields are larger than 32 bytes");
  EXPECT_EQ(r.form().fields.at("b").size(), 12U);  // the refused bytes were not kept
}

TEST_F(MultipartTest, OversizedFieldsInMiB) {
  limits_.max_field_bytes = 16ULL << 20;
  MultipartReceiver r(root_, limits_);
  ASSERT_TRUE(r.on_part("a", ""));
  EXPECT_FALSE(send(r, std::string((16U << 20) + 1, 'x')));
  EXPECT_EQ(r.failure().message, "the form fields are larger than 16 MiB");
}

TEST_F(MultipartTest, IgnoredFilesCountAsFields) {
  MultipartReceiver r(root_, limits_);
  ASSERT_TRUE(r.on_part("gpg_signature", "x.asc"));
  EXPECT_FALSE(send(r, std::string(33, 's')));
  EXPECT_EQ(r.failure().status, 413);
  EXPECT_EQ(r.failure().message, "the form fields are larger than 32 bytes");
}

TEST_F(MultipartTest, OversizedFileIsRefusedAndRemoved) {
  {
    MultipartReceiver r(root_, limits_);
    ASSERT_TRUE(r.on_part("content", "pkg-1.0.tar.gz"));
    ASSERT_TRUE(send(r, std::string(60, 'a')));
    ASSERT_TRUE(send(r, std::string(40, 'b')));  // exactly the limit
    EXPECT_FALSE(send(r, "c"));
    EXPECT_EQ(r.failure().status, 413);
    EXPECT_EQ(r.failure().message, "the file is larger than the limit of 100 bytes");
    EXPECT_EQ(r.form().size, 100U);
    EXPECT_FALSE(r.finish());
  }
  EXPECT_TRUE(fs::is_empty(root_));
}

TEST_F(MultipartTest, TwoContentFiles) {
  MultipartReceiver r(root_, limits_);
  ASSERT_TRUE(r.on_part("content", "pkg-1.0-py3-none-any.whl"));
  ASSERT_TRUE(send(r, "x"));
  EXPECT_FALSE(r.on_part("content", "pkg-2.0-py3-none-any.whl"));
  EXPECT_EQ(r.failure().status, 400);
  EXPECT_EQ(r.failure().message, "more than one `content` file");
}

TEST_F(MultipartTest, UnsafeFileNames) {
  {
    MultipartReceiver r(root_, limits_);
    EXPECT_FALSE(r.on_part("content", "../pkg-1.0-py3-none-any.whl"));
    EXPECT_EQ(r.failure().status, 400);
    EXPECT_EQ(r.failure().message, "file name `../pkg-1.0-py3-none-any.whl` must be a bare file name");
  }
  {
    MultipartReceiver r(root_, limits_);
    EXPECT_FALSE(r.on_part("content", "notes.txt"));
    EXPECT_EQ(r.failure().message, "`notes.txt` is neither a wheel (.whl) nor an sdist (.tar.gz)");
  }
  EXPECT_TRUE(fs::is_empty(root_));
}

TEST_F(MultipartTest, BytesBeforeAnyPart) {
  MultipartReceiver r(root_, limits_);
  EXPECT_FALSE(send(r, "stray"));
  EXPECT_EQ(r.failure().status, 400);
  EXPECT_EQ(r.failure().message, "malformed multipart/form-data body");
}

TEST_F(MultipartTest, TheFirstRefusalSticks) {
  MultipartReceiver r(root_, limits_);
  r.refuse(413, "the upload is too large");
  r.refuse(400, "later");
  EXPECT_FALSE(r.on_part("a", ""));
  EXPECT_FALSE(send(r, "x"));
  EXPECT_FALSE(r.finish());
  EXPECT_EQ(r.failure().status, 413);
  EXPECT_EQ(r.failure().message, "the upload is too large");
  EXPECT_EQ(r.parts(), 0U);
}

TEST_F(MultipartTest, MissingTempRoot) {
  MultipartReceiver r(root_ / "missing", limits_);
  EXPECT_FALSE(r.on_part("content", "pkg-1.0-py3-none-any.whl"));
  EXPECT_EQ(r.failure().status, 500);
  EXPECT_EQ(r.failure().message,
            (root_ / "missing").string() + ": cannot create a temporary folder: No such file or directory");
}

}  // namespace
}  // namespace vwheel::server
