// Members that cannot all be written (`x` and `x/y`, names too long for the file system), found
// while planning, before anything is written; and the index of the transaction's pending renames
// (which replaced a scan of all of them per wheel) deciding the same flushes as the scan did.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "install/transaction.hpp"
#include "install/journal.hpp"
#include "install/prepare.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/install/install.hpp"
#include "vwheel/wheel/record.hpp"
#include "vwheel/zip/zip.hpp"

namespace vwheel::install::detail {
namespace {
namespace fs = std::filesystem;

void spit(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

/// A prepared wheel `demo` 1.0 with these files (scheme, relative path).
Prepared prepared(const std::vector<std::pair<SchemeKey, std::string>>& files, const std::string& name = "demo") {
  Prepared p;
  p.name = name;
  p.version = "1.0";
  p.dist_info = name + "-1.0.dist-info";
  for (std::size_t i = 0; i < files.size(); ++i) p.files.push_back({i, files[i].first, files[i].second, "", "", 0644});
  return p;
}

std::string message(const Result<void>& r) { return r ? std::string("<passed>") : r.error().message; }

class MemberPathsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("vwheel-member-paths-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    env_.prefix = root_ / "env";
    env_.scheme.purelib = env_.prefix / "lib" / "site-packages";
    env_.scheme.platlib = env_.scheme.purelib;
    env_.scheme.scripts = env_.prefix / "bin";
    env_.scheme.headers = env_.prefix / "include" / "site" / "python3.11";
    env_.scheme.data = env_.prefix;
    env_.lock_dir = env_.scheme.purelib;
    env_.python = "/usr/bin/python3";
    fs::create_directories(env_.scheme.purelib);
    fs::create_directories(env_.scheme.scripts);
  }
  void TearDown() override { fs::remove_all(root_); }

  /// Writes `NAME-1.0-py3-none-any.whl` with METADATA, WHEEL, RECORD and `members` (path → data).
  fs::path make_wheel(const std::string& name, const std::map<std::string, std::string>& members) {
    const auto di = name + "-1.0.dist-info";
    auto all = members;
    all.emplace(di + "/METADATA", "Metadata-Version: 2.1\nName: " + name + "\nVersion: 1.0\n");
    all.emplace(di + "/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n");
    zip::WritePlan plan;
    std::string record;
    for (const auto& [path, data] : all) {
      zip::NewMember m;
      m.name = path;
      m.data = data;
      m.unix_mode = 0100644;
      plan.members.emplace_back(m);
      record += path + "," + wheel::record_hash(data) + "," + std::to_string(data.size()) + "\n";
    }
    record += di + "/RECORD,,\n";
    zip::NewMember rec;
    rec.name = di + "/RECORD";
    rec.data = record;
    plan.members.emplace_back(rec);
    fs::create_directories(root_ / "wheels");
    const auto path = root_ / "wheels" / (name + "-1.0-py3-none-any.whl");
    auto ok = zip::write_archive(nullptr, plan, path);
    EXPECT_TRUE(ok) << (ok ? "" : ok.error().message);
    return path;
  }

  /// Every path under the environment with its content (files) or `<dir>`.
  std::map<std::string, std::string> snapshot() const {
    std::map<std::string, std::string> out;
    for (auto it = fs::recursive_directory_iterator(env_.prefix); it != fs::recursive_directory_iterator(); ++it) {
      const auto rel = fs::relative(it->path(), env_.prefix).string();
      if (rel.find(".vwheel.lock") != std::string::npos) continue;
      out[rel] = it->is_directory() ? std::string("<dir>") : *read_file(it->path());
    }
    return out;
  }

  Result<std::vector<Installed>> install(const std::vector<fs::path>& wheels) {
    std::vector<WheelRequest> requests;
    for (const auto& w : wheels) requests.push_back({w, true, true});
    InstallOptions options;
    options.compile = false;
    return install_wheels(env_, requests, options);
  }

  fs::path root_;
  Environment env_;
};

TEST(MemberPaths, AFileWithAMemberBelowItNamesBoth) {
  for (const auto& files : {std::vector<std::pair<SchemeKey, std::string>>{{SchemeKey::Purelib, "pkg/x"},
                                                                            {SchemeKey::Purelib, "pkg/x/y"}},
                            std::vector<std::pair<SchemeKey, std::string>>{{SchemeKey::Purelib, "pkg/x/y"},
                                                                            {SchemeKey::Purelib, "pkg/x"}}}) {
    EXPECT_EQ(message(check_member_paths(prepared(files))),
              "member `pkg/x` is a file, but member `pkg/x/y` is below it (expected a path to be a file or a "
              "directory, not both)");
  }
  // Deeper below, and in another scheme (named by its `.data` member).
  EXPECT_EQ(message(check_member_paths(prepared({{SchemeKey::Scripts, "a"}, {SchemeKey::Scripts, "a/b/c/d"}}))),
            "member `demo-1.0.data/scripts/a` is a file, but member `demo-1.0.data/scripts/a/b/c/d` is below it "
            "(expected a path to be a file or a directory, not both)");
}

TEST(MemberPaths, NeighboursAndOtherSchemesPass) {
  EXPECT_TRUE(check_member_paths(prepared({{SchemeKey::Purelib, "x"},
                                           {SchemeKey::Purelib, "x.py"},
                                           {SchemeKey::Purelib, "x-y/z"},
                                           {SchemeKey::Purelib, "xy/z"},
                                           {SchemeKey::Purelib, "w/x"},
                                           {SchemeKey::Purelib, "w/y/z"},
                                           {SchemeKey::Scripts, "x/y"}})));
  EXPECT_TRUE(check_member_paths(prepared({})));
}

TEST(MemberPaths, OverLongNamesAreNamedAbbreviated) {
  EXPECT_TRUE(check_member_length("pkg/" + std::string(255, 'a')));
  const auto component = message(check_member_length("pkg/" + std::string(256, 'a') + "/x.py"));
  EXPECT_EQ(component, "member `pkg/" + std::string(28, 'a') + "…" + std::string(27, 'a') +
                           "/x.py`: a path component of 256 bytes, `" + std::string(32, 'a') + "…" +
                           std::string(32, 'a') + "` (at most 255 bytes expected)");
  std::string long_name;
  while (long_name.size() < 4096) long_name += "abcdefgh/";
  long_name.resize(4096);
  const auto whole = message(check_member_length(long_name));
  EXPECT_NE(whole.find("a name of 4096 bytes (a path has at most 4095 bytes)"), std::string::npos) << whole;
  EXPECT_LT(whole.size(), 200U) << whole;
}

TEST(MemberPaths, AbbreviationCutsBetweenCharacters) {
  EXPECT_EQ(abbreviated("short"), "short");
  std::string accents;
  for (int i = 0; i < 100; ++i) accents += "é";  // two bytes each
  const auto shown = abbreviated(accents);
  // 16 characters each side (the 32 bytes fall on a boundary: nothing is cut).
  std::string sixteen;
  for (int i = 0; i < 16; ++i) sixteen += "é";
  EXPECT_EQ(shown, sixteen + "…" + sixteen);
  const auto odd = abbreviated("x" + accents);  // byte 32 is inside a character: cut before it
  EXPECT_EQ(odd, "x" + std::string(sixteen.substr(0, 30)) + "…" + sixteen);
}

TEST_F(MemberPathsTest, PathsTooLongForTheEnvironmentAreNamed) {
  std::string deep;
  while (deep.size() < 4050) deep += std::string(99, 'd') + "/";
  deep += "x.py";
  auto p = prepared({{SchemeKey::Purelib, "pkg/ok.py"}, {SchemeKey::Purelib, deep}});
  const auto r = message(check_path_lengths(env_, p));
  EXPECT_NE(r.find("member `dddd"), std::string::npos) << r;
  EXPECT_NE(r.find("…"), std::string::npos) << r;
  EXPECT_NE(r.find("(a path has at most 4095 bytes)"), std::string::npos) << r;
  // The staging directory is longer than the scheme directory: a name that fits only in the latter.
  auto short_one = prepared({{SchemeKey::Purelib, std::string(4094 - env_.scheme.purelib.native().size() - 1, 'f')}});
  EXPECT_TRUE(check_path_lengths(env_, short_one));
  short_one.staging = env_.scheme.purelib / ".vwheel-tmp-x";
  short_one.tag = "0";
  EXPECT_FALSE(check_path_lengths(env_, short_one));
}

TEST_F(MemberPathsTest, WheelsThatMakeOnePathAFileAndADirectoryAreBothNamed) {
  const auto a = prepared({{SchemeKey::Purelib, "shared/x"}}, "alpha");
  const auto b = prepared({{SchemeKey::Purelib, "shared/x/y.py"}}, "beta");
  const auto path = (env_.scheme.purelib / "shared" / "x").string();
  EXPECT_EQ(message(check_between_wheels(env_, {{&a, "alpha.whl"}, {&b, "beta.whl"}})),
            "`" + path +
                "` would be a file (alpha.whl, member `shared/x`) and a directory (beta.whl, member "
                "`shared/x/y.py`); expected one or the other");
  EXPECT_EQ(message(check_between_wheels(env_, {{&b, "beta.whl"}, {&a, "alpha.whl"}})),
            "`" + path +
                "` would be a file (alpha.whl, member `shared/x`) and a directory (beta.whl, member "
                "`shared/x/y.py`); expected one or the other");
  // The same file from two wheels is no conflict (the later one wins), nor are neighbours.
  const auto c = prepared({{SchemeKey::Purelib, "shared/x"}, {SchemeKey::Purelib, "shared/z/y.py"}}, "gamma");
  EXPECT_TRUE(check_between_wheels(env_, {{&a, "alpha.whl"}, {&c, "gamma.whl"}}));
}

TEST_F(MemberPathsTest, SchemesSharingADirectoryAreOnePlace) {
  // The data scheme is the prefix, which holds purelib: one wheel's two members meet there.
  const auto one = prepared({{SchemeKey::Purelib, "pkg/x"}, {SchemeKey::Data, "lib/site-packages/pkg/x/y"}});
  EXPECT_EQ(message(check_between_wheels(env_, {{&one, "demo.whl"}})),
            "demo.whl: `" + (env_.scheme.purelib / "pkg" / "x").string() +
                "` would be a file (member `pkg/x`) and a directory (member "
                "`demo-1.0.data/data/lib/site-packages/pkg/x/y`); expected one or the other");
  // Platlib through a link to purelib (a venv's `lib64 -> lib`).
  fs::create_directory_symlink("lib", env_.prefix / "lib64");
  env_.scheme.platlib = env_.prefix / "lib64" / "site-packages";
  const auto pure = prepared({{SchemeKey::Purelib, "ns/mod"}}, "pure");
  const auto plat = prepared({{SchemeKey::Platlib, "ns/mod/ext.so"}}, "plat");
  EXPECT_FALSE(check_between_wheels(env_, {{&pure, "pure.whl"}, {&plat, "plat.whl"}}));
}

TEST_F(MemberPathsTest, InstallingAWheelWithAFileAndAMemberBelowItChangesNothing) {
  const auto before = snapshot();
  const auto wheel = make_wheel("demo", {{"demo/__init__.py", ""}, {"demo/x", "file"}, {"demo/x/y", "below"}});
  auto r = install({wheel});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::input);
  EXPECT_EQ(r.error().message,
            "demo-1.0-py3-none-any.whl: member `demo/x` is a file, but member `demo/x/y` is below it (expected a path "
            "to be a file or a directory, not both)");
  EXPECT_EQ(snapshot(), before);
}

TEST_F(MemberPathsTest, InstallingAComponentOverNameMaxChangesNothing) {
  const auto before = snapshot();
  const auto wheel = make_wheel("demo", {{"demo/__init__.py", ""}, {"demo/" + std::string(300, 'n') + ".py", "x"}});
  auto r = install({wheel});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::input);
  EXPECT_NE(r.error().message.find("demo-1.0-py3-none-any.whl: member `demo/nnn"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("a path component of 303 bytes"), std::string::npos) << r.error().message;
  EXPECT_EQ(snapshot(), before);
}

TEST_F(MemberPathsTest, TwoWheelsOfOneRunThatConflictAreBothNamedAndNothingChanges) {
  const auto before = snapshot();
  const auto alpha = make_wheel("alpha", {{"alpha.py", ""}, {"shared/x", "file"}});
  const auto beta = make_wheel("beta", {{"beta.py", ""}, {"shared/x/y.py", "below"}});
  auto r = install({alpha, beta});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::input);
  EXPECT_EQ(r.error().message, "`" + (env_.scheme.purelib / "shared" / "x").string() +
                                   "` would be a file (alpha-1.0-py3-none-any.whl, member `shared/x`) and a directory "
                                   "(beta-1.0-py3-none-any.whl, member `shared/x/y.py`); expected one or the other");
  EXPECT_EQ(snapshot(), before);
}

// Many trees into one directory under different names share one sync (no flush decided by the
// index); a tree into a name that a pending rename creates, that a removal takes, or into a
// directory above a pending tree, is merged after those are done.
TEST_F(MemberPathsTest, PendingRenamesAreFoundByTheirNamesAndDirectories) {
  const auto site = env_.scheme.purelib;
  const auto run = site / ".vwheel-tmp-1";
  constexpr int kTrees = 300;
  for (int i = 0; i < kTrees; ++i) spit(run / std::to_string(i) / ("pkg" + std::to_string(i)) / "__init__.py", "");
  spit(run / "late" / "pkg7" / "extra.py", "extra");
  spit(site / "old.py", "old");
  spit(run / "again" / "old.py", "new");
  spit(run / "data" / "share" / "x.txt", "x");
  auto journal = Journal::create(journal_path(env_), run);
  ASSERT_TRUE(journal);
  {
    Transaction tx(run / "backup", {}, &*journal);
    for (int i = 0; i < kTrees; ++i) ASSERT_TRUE(tx.move_contents(run / std::to_string(i), site));
    EXPECT_EQ(journal->syncs(), 0U);
    ASSERT_TRUE(tx.move_contents(run / "late", site));  // into pkg7/, which a pending rename makes
    EXPECT_EQ(journal->syncs(), 1U);
    EXPECT_TRUE(fs::exists(site / "pkg7" / "__init__.py"));
    ASSERT_TRUE(tx.remove(site / "old.py"));
    ASSERT_TRUE(tx.move_contents(run / "again", site));  // old.py: the removal goes first
    EXPECT_EQ(journal->syncs(), 2U);
    ASSERT_TRUE(tx.move_contents(run / "data", env_.prefix));  // above the pending tree into site
    EXPECT_EQ(journal->syncs(), 3U);
    ASSERT_TRUE(tx.commit());
  }
  journal->finish();
  EXPECT_EQ(*read_file(site / "pkg7" / "extra.py"), "extra");
  EXPECT_EQ(*read_file(site / "old.py"), "new");
  EXPECT_EQ(*read_file(env_.prefix / "share" / "x.txt"), "x");
  EXPECT_TRUE(fs::exists(site / ("pkg" + std::to_string(kTrees - 1)) / "__init__.py"));
}

}  // namespace
}  // namespace vwheel::install::detail
