// plan_removal: which directories an uninstall or upgrade moves aside whole, and which files one by
// one. A directory goes whole only when everything in it is the distribution's; anything else in
// the environment stays where it is.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "install/installed.hpp"

namespace vwheel::install::detail {
namespace {
namespace fs = std::filesystem;

class RemovalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("vwheel-removal-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    env_.prefix = root_;
    env_.scheme.purelib = env_.scheme.platlib = root_ / "lib" / "python3.11" / "site-packages";
    env_.scheme.scripts = root_ / "bin";
    env_.scheme.headers = root_ / "include" / "site" / "python3.11";
    env_.scheme.data = root_;
    fs::create_directories(site());
    fs::create_directories(env_.scheme.scripts);
    file(env_.scheme.scripts / "python");  // the environment's own
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path site() const { return env_.scheme.purelib; }

  static void file(const fs::path& p) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << "x";
  }

  /// Creates every file and lists it (compiled when it is in a `__pycache__`).
  std::vector<RemovedFile> listed(const std::vector<fs::path>& paths, bool create = true) {
    std::vector<RemovedFile> out;
    for (const auto& p : paths) {
      if (create) file(p);
      out.push_back({p.lexically_normal(), p.parent_path().filename() == "__pycache__"});
    }
    return out;
  }

  static std::vector<std::string> names(std::vector<fs::path> paths, const fs::path& base) {
    std::vector<std::string> out;
    for (const auto& p : paths) out.push_back(p.lexically_relative(base).generic_string());
    std::sort(out.begin(), out.end());
    return out;
  }

  fs::path root_;
  Environment env_;
};

TEST_F(RemovalTest, APackageDirectoryGoesWhole) {
  const auto s = site();
  auto files = listed({s / "pkg/__init__.py", s / "pkg/sub/a.py", s / "pkg/sub/deeper/b.so",
                       s / "pkg/__pycache__/__init__.cpython-311.pyc", s / "top.py", env_.scheme.scripts / "pkg-cli"});
  fs::create_directories(s / "pkg" / "empty");  // left empty by the package: goes with it
  const auto plan = plan_removal(env_, files);
  EXPECT_EQ(names(plan.directories, root_), std::vector<std::string>{"lib/python3.11/site-packages/pkg"});
  // Files directly in a scheme directory go one by one: the directory is never taken.
  EXPECT_EQ(names(plan.files, root_), (std::vector<std::string>{"bin/pkg-cli", "lib/python3.11/site-packages/top.py"}));
  EXPECT_EQ(plan.counted, 5U);  // not the compiled file
}

TEST_F(RemovalTest, AnythingElseInADirectoryStays) {
  const auto s = site();
  auto files = listed({s / "pkg/__init__.py", s / "pkg/sub/a.py", s / "pkg/other/b.py"});
  file(s / "pkg" / "other" / "user-notes.txt");  // not the distribution's
  const auto plan = plan_removal(env_, files);
  // pkg/ is not taken; pkg/sub/ is; the files beside the foreign one go one by one.
  EXPECT_EQ(names(plan.directories, s), std::vector<std::string>{"pkg/sub"});
  EXPECT_EQ(names(plan.files, s), (std::vector<std::string>{"pkg/__init__.py", "pkg/other/b.py"}));
  EXPECT_EQ(plan.counted, 3U);
}

TEST_F(RemovalTest, ANamespaceDirectorySharedWithAnotherDistributionStays) {
  const auto s = site();
  auto files = listed({s / "nvidia/cublas/lib/libcublas.so.12", s / "nvidia/cublas/__init__.py"});
  file(s / "nvidia" / "cudnn" / "lib" / "libcudnn.so.9");
  const auto plan = plan_removal(env_, files);
  EXPECT_EQ(names(plan.directories, s), std::vector<std::string>{"nvidia/cublas"});
  EXPECT_TRUE(plan.files.empty());
}

TEST_F(RemovalTest, CompiledFilesOfOtherModulesKeepTheirDirectory) {
  const auto s = site();
  auto files = listed({s / "pkg/a.py", s / "pkg/__pycache__/a.cpython-311.pyc"});
  file(s / "pkg" / "__pycache__" / "gone.cpython-311.pyc");  // of a module this version does not have
  const auto plan = plan_removal(env_, files);
  EXPECT_TRUE(plan.directories.empty());
  EXPECT_EQ(names(plan.files, s), (std::vector<std::string>{"pkg/__pycache__/a.cpython-311.pyc", "pkg/a.py"}));
  EXPECT_EQ(plan.counted, 1U);
}

TEST_F(RemovalTest, MissingFilesAreNotCounted) {
  const auto s = site();
  auto files = listed({s / "pkg/a.py", s / "pkg/b.py"});
  auto missing = listed({s / "pkg/gone.py", s / "lonely/gone.py"}, false);
  files.insert(files.end(), missing.begin(), missing.end());
  const auto plan = plan_removal(env_, files);
  EXPECT_EQ(names(plan.directories, s), std::vector<std::string>{"pkg"});
  EXPECT_TRUE(plan.files.empty());
  EXPECT_EQ(plan.counted, 2U);
}

TEST_F(RemovalTest, ALinkToADirectoryIsNotMovedForItsFiles) {
  const auto s = site();
  fs::create_directories(root_ / "elsewhere");
  fs::create_directory_symlink(root_ / "elsewhere", s / "pkg");
  auto files = listed({s / "pkg/a.py", s / "pkg/b.py"});
  const auto plan = plan_removal(env_, files);
  // Moving the link would leave the files where they are: they go one by one, through it.
  EXPECT_TRUE(plan.directories.empty());
  EXPECT_EQ(names(plan.files, s), (std::vector<std::string>{"pkg/a.py", "pkg/b.py"}));
  // A link inside a directory taken whole is one of its files (listed, it goes with it).
  file(root_ / "target");
  auto more = listed({s / "other/x.py"});
  fs::create_symlink(root_ / "target", s / "other" / "link");
  more.push_back({s / "other" / "link", false});
  const auto plan2 = plan_removal(env_, more);
  EXPECT_EQ(names(plan2.directories, s), std::vector<std::string>{"other"});
  EXPECT_EQ(plan2.counted, 2U);
}

TEST_F(RemovalTest, DataAndHeadersGoWholeBelowTheirSchemeDirectory) {
  auto files = listed({root_ / "share/pkg/notes.txt", root_ / "share/pkg/more/a.txt",
                       env_.scheme.headers / "pkg" / "pkg.h", root_ / "etc/pkg.conf"});
  file(root_ / "etc" / "other.conf");
  const auto plan = plan_removal(env_, files);
  // share/ holds nothing else, so it goes (the empty-parent clean-up would have taken it after
  // the files); etc/ holds another file, so only the listed one goes.
  EXPECT_EQ(names(plan.directories, root_), (std::vector<std::string>{"include/site/python3.11/pkg", "share"}));
  EXPECT_EQ(names(plan.files, root_), std::vector<std::string>{"etc/pkg.conf"});
  EXPECT_EQ(plan.counted, 4U);
}

TEST_F(RemovalTest, SchemeDirectoriesAndTheirParentsAreNeverTaken) {
  // Every file the environment has, listed: still no scheme directory, nor lib/ above them.
  auto files = listed({site() / "only.py", root_ / "lib" / "python3.11" / "stray.py", env_.scheme.scripts / "python"});
  const auto plan = plan_removal(env_, files);
  EXPECT_TRUE(plan.directories.empty());
  EXPECT_EQ(names(plan.files, root_), (std::vector<std::string>{"bin/python", "lib/python3.11/site-packages/only.py",
                                                                "lib/python3.11/stray.py"}));
}

TEST(CompiledFrom, TheNamesPythonGivesACompiledModule) {
  EXPECT_TRUE(compiled_from("mod.cpython-311.pyc", "mod"));
  EXPECT_TRUE(compiled_from("mod.cpython-311.opt-1.pyc", "mod"));
  EXPECT_TRUE(compiled_from("mod.pypy310.opt-2.pyc", "mod"));
  EXPECT_TRUE(compiled_from("my.mod.cpython-311.pyc", "my.mod"));
  EXPECT_FALSE(compiled_from("mod.cpython-311.pyc", "mo"));
  EXPECT_FALSE(compiled_from("module.cpython-311.pyc", "mod"));
  EXPECT_FALSE(compiled_from("mod.pyc", "mod"));
  EXPECT_FALSE(compiled_from("mod..pyc", "mod"));
  EXPECT_FALSE(compiled_from("mod.cpython-311.opt.pyc", "mod"));
  EXPECT_FALSE(compiled_from("mod.cpython-311.opt-x.pyc", "mod"));
  EXPECT_FALSE(compiled_from("mod.cpython-311.py", "mod"));
}

}  // namespace
}  // namespace vwheel::install::detail
