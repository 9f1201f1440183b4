#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "vwheel/zip/zip.hpp"
#include "zip_test_support.hpp"

namespace {

using namespace vwheel::zip;
using namespace vwheel::zip::testing;
using ::testing::HasSubstr;

bool in_dist_info(const Entry& e) { return e.name.starts_with("pkg-1.0.dist-info/"); }

std::vector<LibzipMember> members() {
  return {
      {"pkg/__init__.py", text(200, "import os"), true, 0100644, 1700000000},
      {"pkg/big.bin", noise(std::size_t{4} << 20, 7), false, 0100644, 1700000000},
      {"pkg/lib.so", noise(std::size_t{1} << 20, 8), true, 0100755, 1700000000},
      {"pkg-1.0.dist-info/METADATA", text(20, "Metadata-Version: 2.1"), true, 0100644, 1700000006},
      {"pkg-1.0.dist-info/RECORD", text(30, "pkg/__init__.py,sha256=abc,123"), true, 0100644, 1700000008},
  };
}

TEST(ZipSkeleton, KeepsTheChosenMembersAndTheCentralDirectoryInAFileWithHoles) {
  TempDir dir;
  make_libzip_archive(dir / "pkg.whl", members(), "a comment");
  auto source = Archive::open(dir / "pkg.whl");
  ASSERT_TRUE(source) << source.error().message;
  ASSERT_TRUE(write_skeleton(*source, in_dist_info, dir / "skeleton"));

  struct stat st {};
  ASSERT_EQ(::stat((dir / "skeleton").c_str(), &st), 0);
  EXPECT_EQ(static_cast<std::uint64_t>(st.st_size), source->file_size());
  // The 5 MiB of members outside the .dist-info are a hole (tmpfs and ext4 allocate in 4 KiB).
  EXPECT_LT(static_cast<std::uint64_t>(st.st_blocks) * 512, std::uint64_t{64} << 10);

  auto skeleton = Archive::open(dir / "skeleton");
  ASSERT_TRUE(skeleton) << skeleton.error().message;
  ASSERT_EQ(skeleton->entries().size(), source->entries().size());
  EXPECT_EQ(skeleton->comment(), "a comment");
  for (const auto& m : members()) {
    const auto* e = skeleton->find(m.name);
    ASSERT_NE(e, nullptr) << m.name;
    auto data = skeleton->read(*e);
    if (m.name.starts_with("pkg-1.0.dist-info/")) {
      ASSERT_TRUE(data) << data.error().message;
      EXPECT_EQ(*data, m.data);
    } else {
      // Zeros where its local header was: a clear error, never wrong bytes.
      ASSERT_FALSE(data) << m.name;
      EXPECT_THAT(data.error().message, HasSubstr(m.name));
    }
  }
}

TEST(ZipSkeleton, NeverReplacesAFileAndLeavesNothingOnFailure) {
  TempDir dir;
  make_libzip_archive(dir / "pkg.whl", members(), "");
  auto source = Archive::open(dir / "pkg.whl");
  ASSERT_TRUE(source) << source.error().message;
  write_bytes(dir / "taken", "mine");
  auto r = write_skeleton(*source, in_dist_info, dir / "taken");
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("taken"));
  EXPECT_EQ(read_bytes(dir / "taken"), "mine");
  // The archive shrank after it was opened: the copy fails and removes what it wrote.
  ::truncate((dir / "pkg.whl").c_str(), 100);
  r = write_skeleton(*source, in_dist_info, dir / "skeleton");
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("pkg.whl"));
  EXPECT_FALSE(fs::exists(dir / "skeleton"));
}

}  // namespace
