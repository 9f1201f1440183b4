// Confinement: the one check every path the installer creates, renames or removes goes through.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "install/confine.hpp"

namespace vwheel::install::detail {
namespace {
namespace fs = std::filesystem;

class ConfinementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() / ("vwheel-confine-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(base_);
    venv_ = base_ / "venv";
    site_ = venv_ / "lib" / "site-packages";
    outside_ = base_ / "checkout";
    fs::create_directories(site_);
    fs::create_directories(venv_ / "bin");
    fs::create_directories(outside_ / "linked");
    std::ofstream(outside_ / "linked" / "y.txt") << "y";
    env_.scheme.purelib = env_.scheme.platlib = site_;
    env_.scheme.scripts = venv_ / "bin";
    env_.scheme.headers = venv_ / "include" / "site" / "python3.12";
    env_.scheme.data = env_.prefix = venv_;
  }
  void TearDown() override { fs::remove_all(base_); }

  fs::path base_, venv_, site_, outside_;
  Environment env_;
};

TEST_F(ConfinementTest, AcceptsWhatIsInsideIncludingWhatDoesNotExistYet) {
  Confinement c(env_);
  EXPECT_TRUE(c.check(site_ / "pkg" / "a.py"));
  EXPECT_TRUE(c.check(site_ / "new" / "deeper" / "b.py"));  // missing directories below the scheme directory
  EXPECT_TRUE(c.check(venv_ / "bin" / "tool"));
  EXPECT_TRUE(c.check(env_.scheme.headers / "dist" / "x.h"));  // the headers directory does not exist
  EXPECT_TRUE(c.check(venv_ / "share" / "man" / "x.1"));       // data: the prefix
  EXPECT_TRUE(c.check_dir(site_));
  // A link inside the environment to a directory inside it (a venv's lib64 -> lib).
  fs::create_directory_symlink("lib", venv_ / "lib64");
  EXPECT_TRUE(c.check(venv_ / "lib64" / "site-packages" / "m.py"));
}

TEST_F(ConfinementTest, RefusesAnEntryWhoseDirectoryIsALinkOutside) {
  fs::create_directory_symlink(outside_ / "linked", site_ / "linked");
  Confinement c(env_);
  auto r = c.check(site_ / "linked" / "y.txt");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "`" + (site_ / "linked" / "y.txt").string() + "` is outside the environment " +
                                   venv_.string() + ": `" + (site_ / "linked").string() + "` is " +
                                   fs::canonical(outside_ / "linked").string());
  // Also below it, where nothing exists yet (it would be created there).
  EXPECT_FALSE(c.check(site_ / "linked" / "new" / "z.txt"));
  EXPECT_FALSE(c.check_dir(site_ / "linked"));
  // The link itself is an entry of site-packages: removing or renaming it touches nothing outside.
  EXPECT_TRUE(c.check(site_ / "linked"));
}

TEST_F(ConfinementTest, RefusesAbsolutePathsOutsideAndDotDotOut) {
  Confinement c(env_);
  EXPECT_FALSE(c.check(outside_ / "linked" / "y.txt"));
  EXPECT_FALSE(c.check("/tmp/xyz-outside"));
  EXPECT_FALSE(c.check(venv_));  // the environment's own directory is an entry of its parent
  // `..` is resolved as the kernel resolves it: after the links before it.
  EXPECT_FALSE(c.check(site_ / ".." / ".." / ".." / "checkout" / "linked" / "y.txt"));
  EXPECT_TRUE(c.check(site_ / ".." / "site-packages" / "pkg.py"));
  fs::create_directory_symlink(outside_ / "linked", site_ / "linked");
  EXPECT_FALSE(c.check(site_ / "linked" / ".." / "escaped.txt"));  // lexically site-packages, really the checkout
  // A last component that names no entry.
  EXPECT_FALSE(c.check(site_ / ".."));
  EXPECT_FALSE(c.check(site_ / "."));
  EXPECT_FALSE(c.check("relative/path"));
}

TEST_F(ConfinementTest, ALinkToNothingOnTheWayIsRefused) {
  // It could be pointed anywhere before the path is used.
  fs::create_directory_symlink(base_ / "missing", site_ / "dangling");
  Confinement c(env_);
  auto r = c.check(site_ / "dangling" / "x.py");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("cannot be resolved"), std::string::npos) << r.error().message;
}

TEST_F(ConfinementTest, ASchemeDirectoryThatIsALinkElsewhereIsStillTheEnvironments) {
  // A site-packages (or a whole prefix) kept on another disk and linked in.
  const auto real_site = base_ / "disk" / "site-packages";
  fs::create_directories(real_site.parent_path());
  fs::rename(site_, real_site);
  fs::create_directory_symlink(real_site, site_);
  Confinement c(env_);
  EXPECT_TRUE(c.check(site_ / "pkg" / "a.py"));
  EXPECT_TRUE(c.check(real_site / "pkg" / "a.py"));
  EXPECT_TRUE(c.check(site_ / ".vwheel-tmp-1"));
  // Its siblings on that disk are not.
  EXPECT_FALSE(c.check(base_ / "disk" / "other" / "a.py"));
  EXPECT_FALSE(c.check(site_ / ".." / "escaped.py"));  // `..` from the link's target: the disk
}

TEST(ConfinementRealPath, ResolvesTheExistingPartAndKeepsTheRest) {
  const auto tmp = fs::temp_directory_path();
  const auto real_tmp = fs::canonical(tmp);
  EXPECT_EQ(Confinement::real_path(tmp / "vwheel-no-such-dir" / "a" / ".." / "b"),
            real_tmp / "vwheel-no-such-dir" / "b");
  EXPECT_EQ(Confinement::real_path(tmp / "vwheel-no-such-dir/"), real_tmp / "vwheel-no-such-dir");
  EXPECT_EQ(Confinement::real_path("relative"), std::nullopt);
}

}  // namespace
}  // namespace vwheel::install::detail
