// check_type_conflicts: what the environment has where a run's files go, looked at before anything
// moves. The integration tests (test_transactions.py) run it through `vwheel install`; these cover
// the cases the look-up's short cuts must not change: directories met again, absent subtrees,
// links, replaced files, and names that are not normalized.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unordered_set>
#include <vector>

#include "install/installed.hpp"

namespace vwheel::install::detail {
namespace {
namespace fs = std::filesystem;

class ConflictsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("vwheel-conflicts-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "site");
    site_ = root_ / "site";
    env_.scheme.purelib = env_.scheme.platlib = site_;
    env_.scheme.scripts = root_ / "bin";
    env_.scheme.headers = root_ / "include";
    env_.scheme.data = env_.prefix = root_;
    outside_ = root_.string() + "-outside";
    fs::remove_all(outside_);
  }
  void TearDown() override {
    fs::remove_all(root_);
    fs::remove_all(outside_);
  }

  void file(const fs::path& p) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << "x";
  }

  /// The check of `relatives` (below site/), each file labelled by its name.
  Result<void> check(const std::vector<std::string>& relatives, const std::unordered_set<std::string>& replaced = {}) {
    std::vector<Destination> files;
    for (const auto& r : relatives) files.push_back({&site_, r});
    Confinement confinement(env_);
    return check_type_conflicts(files, replaced, confinement,
                                [&](std::size_t i) { return "member `" + relatives[i] + "`"; });
  }

  fs::path root_;
  fs::path site_;
  fs::path outside_;  ///< beside the environment, not in it
  Environment env_;
};

TEST_F(ConflictsTest, NothingInTheWayPasses) {
  file(site_ / "other" / "mod.py");
  EXPECT_TRUE(check({"pkg/a.py", "pkg/sub/b.py", "pkg/sub/c.py", "top.py", "other/new.py"}));
  // Files the environment already has in place are overwritten, not conflicts.
  file(site_ / "pkg" / "sub" / "b.py");
  EXPECT_TRUE(check({"pkg/a.py", "pkg/sub/b.py"}));
}

TEST_F(ConflictsTest, AFileWhereADirectoryIsNeededIsNamed) {
  file(site_ / "pkg" / "sub");  // a file where the wheel has a directory
  auto r = check({"pkg/a.py", "pkg/sub/b.py"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "member `pkg/sub/b.py` needs `" + (site_ / "pkg" / "sub").string() +
                                   "` to be a directory, but the environment has a file there");
  // Also when the directory was met before, by a file that did not need it to be one.
  r = check({"pkg/sub", "pkg/sub/b.py"});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("member `pkg/sub/b.py` needs"), std::string::npos) << r.error().message;
}

TEST_F(ConflictsTest, ADirectoryWhereAFileGoesIsNamed) {
  file(site_ / "pkg" / "data" / "inside.txt");
  auto r = check({"pkg/a.py", "pkg/data"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "member `pkg/data` is a file, but the environment has a directory at `" +
                                   (site_ / "pkg" / "data").string() + "`");
  // Unless every file in it is replaced (the installed version's own files, removed first).
  EXPECT_TRUE(check({"pkg/a.py", "pkg/data"}, {(site_ / "pkg" / "data" / "inside.txt").lexically_normal().native()}));
}

TEST_F(ConflictsTest, AReplacedFileMayBecomeADirectory) {
  file(site_ / "pkg" / "thing");
  const std::unordered_set<std::string> replaced{(site_ / "pkg" / "thing").lexically_normal().native()};
  EXPECT_TRUE(check({"pkg/thing/__init__.py", "pkg/thing/deeper/x.py"}, replaced));
}

TEST_F(ConflictsTest, ALinkToADirectoryIsADirectoryToMergeInto) {
  fs::create_directories(root_ / "elsewhere");
  file(root_ / "elsewhere" / "blocked");
  fs::create_directory_symlink(root_ / "elsewhere", site_ / "pkg");
  EXPECT_TRUE(check({"pkg/a.py"}));
  // Through the link, what is below it still counts.
  auto r = check({"pkg/blocked/x.py"});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("`" + (site_ / "pkg" / "blocked").string() + "` to be a directory"),
            std::string::npos)
      << r.error().message;
  // A dangling link is nothing to merge into: nothing below it exists.
  fs::create_directory_symlink(root_ / "missing", site_ / "gone");
  EXPECT_TRUE(check({"gone/a.py"}));
}

TEST_F(ConflictsTest, ADirectoryOutsideTheEnvironmentIsNoPlaceToInstallInto) {
  // A package directory that is a link to a checkout: the new files would be written there.
  fs::create_directories(outside_ / "pkg");
  fs::create_directory_symlink(outside_ / "pkg", site_ / "pkg");
  auto r = check({"top.py", "pkg/a.py"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "member `pkg/a.py` would be installed into `" + (site_ / "pkg").string() +
                                   "`, which is outside the environment " + root_.string() + ": `" +
                                   (site_ / "pkg").string() + "` is " + (outside_ / "pkg").string());
  EXPECT_TRUE(check({"top.py", "other/a.py"}));
  // A scheme directory that is itself a link elsewhere is still the environment's.
  fs::rename(site_, outside_ / "site");
  fs::create_directory_symlink(outside_ / "site", site_);
  fs::remove(outside_ / "site" / "pkg");
  EXPECT_TRUE(check({"top.py", "pkg/a.py"}));
}

TEST_F(ConflictsTest, AbsentSubtreesAndDirectoriesMetOutOfOrder) {
  // Directories absent at their first file (their state is kept for the others: the run holds the
  // environment's lock, so nothing changes in between).
  std::vector<std::string> many;
  for (int i = 0; i < 200; ++i) many.push_back("fresh/pkg" + std::to_string(i % 7) + "/m" + std::to_string(i) + ".py");
  EXPECT_TRUE(check(many));
  // A directory is looked at once, whatever order its files come in.
  file(site_ / "mixed" / "sub");
  auto r = check({"mixed/a.py", "fresh/b.py", "mixed/c.py", "mixed/sub/d.py"});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("member `mixed/sub/d.py`"), std::string::npos) << r.error().message;
}

TEST_F(ConflictsTest, NamesAreNormalizedAsTheReplacedPathsAre) {
  file(site_ / "pkg" / "thing");
  const std::unordered_set<std::string> replaced{(site_ / "pkg" / "thing").lexically_normal().native()};
  EXPECT_TRUE(check({"pkg/./thing//x.py"}, replaced));
  auto r = check({"pkg/./thing//x.py"});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("`" + (site_ / "pkg" / "thing").string() + "` to be a directory"), std::string::npos)
      << r.error().message;
}

}  // namespace
}  // namespace vwheel::install::detail
