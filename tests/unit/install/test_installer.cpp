#include <gtest/gtest.h>

#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/install/install.hpp"
#include "vwheel/wheel/record.hpp"
#include "vwheel/zip/zip.hpp"

namespace fs = std::filesystem;
using namespace vwheel;
using namespace vwheel::install;

namespace {

struct Member {
  Member(std::string d, std::uint32_t m = 0100644, bool listed = true, std::optional<std::string> hash = std::nullopt)
      : data(std::move(d)), mode(m), in_record(listed), record_hash(std::move(hash)) {}
  std::string data;
  std::uint32_t mode = 0100644;
  bool in_record = true;
  std::optional<std::string> record_hash;  ///< overrides the real hash
};

class InstallTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / fmt_name();
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
    fs::create_directories(root_ / "wheels");
    options_.jobs = 2;
  }
  void TearDown() override { fs::remove_all(root_); }

  static std::string fmt_name() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    return std::string("vwheel-install-") + info->name() + "-" + std::to_string(::getpid());
  }

  /// Writes a wheel `NAME-VERSION-py3-none-any.whl` with METADATA, WHEEL, RECORD and `members`.
  fs::path make_wheel(const std::string& name, const std::string& version, std::map<std::string, Member> members,
                      bool record_extra_missing = false) {
    const auto di = name + "-" + version + ".dist-info";
    members.emplace(di + "/METADATA", Member{"Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n"});
    members.emplace(di + "/WHEEL", Member{"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"});
    zip::WritePlan plan;
    std::string record;
    for (const auto& [path, m] : members) {
      zip::NewMember nm;
      nm.name = path;
      nm.data = m.data;
      nm.unix_mode = m.mode;
      plan.members.emplace_back(nm);
      if (m.in_record) {
        record += path + "," + m.record_hash.value_or(wheel::record_hash(m.data)) + "," + std::to_string(m.data.size()) + "\n";
      }
    }
    if (record_extra_missing) record += name + "/ghost.py,sha256=x,1\n";
    record += di + "/RECORD,,\n";
    zip::NewMember rec;
    rec.name = di + "/RECORD";
    rec.data = record;
    plan.members.emplace_back(rec);
    const auto path = root_ / "wheels" / (name + "-" + version + "-py3-none-any.whl");
    auto ok = zip::write_archive(nullptr, plan, path);
    EXPECT_TRUE(ok) << (ok ? "" : ok.error().message);
    return path;
  }

  fs::path simple_wheel(const std::string& version = "1.0") {
    return make_wheel("demo", version,
                      {{"demo/__init__.py", {"VALUE = '" + version + "'\n"}},
                       {"demo/cli.py", {"def main():\n    print('hi')\n    return 0\n"}},
                       {"demo-" + version + ".data/scripts/raw", {"#!python\nprint('raw')\n", 0100755}},
                       {"demo-" + version + ".data/headers/demo.h", {"int x;\n"}},
                       {"demo-" + version + ".dist-info/entry_points.txt", {"[console_scripts]\ndemo-cli = demo.cli:main\n"}}});
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

  fs::path root_;
  Environment env_;
  InstallOptions options_;
};

}  // namespace

TEST_F(InstallTest, InstallsEveryScheme) {
  auto wheel = simple_wheel();
  auto r = install_wheels(env_, {{wheel, true, true}}, options_);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->size(), 1U);
  const auto sp = env_.scheme.purelib;
  EXPECT_EQ(*read_file(sp / "demo/__init__.py"), "VALUE = '1.0'\n");
  EXPECT_EQ(*read_file(env_.scheme.scripts / "raw"), "#!/usr/bin/python3\nprint('raw')\n");
  EXPECT_TRUE(fs::exists(env_.scheme.headers / "demo" / "demo.h"));
  auto launcher = *read_file(env_.scheme.scripts / "demo-cli");
  EXPECT_NE(launcher.find("from demo.cli import main"), std::string::npos);
  EXPECT_EQ(fs::status(env_.scheme.scripts / "demo-cli").permissions() & fs::perms::owner_exec, fs::perms::owner_exec);
  EXPECT_EQ(*read_file(sp / "demo-1.0.dist-info/INSTALLER"), "vwheel\n");
  EXPECT_TRUE(fs::exists(sp / "demo-1.0.dist-info/REQUESTED"));
  EXPECT_NE(read_file(sp / "demo-1.0.dist-info/direct_url.json")->find("\"url\":\"file://"), std::string::npos);
  auto record = *read_file(sp / "demo-1.0.dist-info/RECORD");
  EXPECT_NE(record.find("../../bin/raw,sha256="), std::string::npos) << record;
  EXPECT_NE(record.find("../../bin/demo-cli,sha256="), std::string::npos) << record;
  EXPECT_NE(record.find("../../include/site/python3.11/demo/demo.h,sha256="), std::string::npos) << record;
  EXPECT_NE(record.find("demo-1.0.dist-info/RECORD,,"), std::string::npos);
  // The rewritten script's hash is the new content's.
  EXPECT_NE(record.find(wheel::record_hash("#!/usr/bin/python3\nprint('raw')\n")), std::string::npos);
  // No staging left behind.
  for (const auto& e : fs::directory_iterator(sp)) EXPECT_EQ(e.path().filename().string().find(".vwheel-tmp"), std::string::npos);

  auto list = list_distributions(env_);
  ASSERT_EQ(list.size(), 1U);
  EXPECT_EQ(list[0].installer, "vwheel");
  auto un = uninstall(env_, "Demo");
  ASSERT_TRUE(un) << un.error().message;
  auto left = snapshot();
  for (const auto& [p, c] : left) EXPECT_TRUE(c == "<dir>") << p;
  EXPECT_FALSE(fs::exists(sp / "demo"));
  EXPECT_FALSE(fs::exists(env_.scheme.headers / "demo"));
  EXPECT_TRUE(fs::exists(env_.scheme.scripts));
}

TEST_F(InstallTest, RecordVerification) {
  auto before = snapshot();
  auto bad_hash = make_wheel("bad", "1.0", {{"bad/__init__.py", {"x = 1\n", 0100644, true, wheel::record_hash("y")}}});
  auto r = install_wheels(env_, {{bad_hash, true, true}}, options_);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("does not match RECORD"), std::string::npos) << r.error().message;
  EXPECT_EQ(snapshot(), before);

  auto unlisted = make_wheel("bad", "1.1", {{"bad/__init__.py", {"x = 1\n", 0100644, false}}});
  r = install_wheels(env_, {{unlisted, true, true}}, options_);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("not listed in RECORD"), std::string::npos) << r.error().message;

  auto ghost = make_wheel("bad", "1.2", {{"bad/__init__.py", {"x = 1\n"}}}, true);
  r = install_wheels(env_, {{ghost, true, true}}, options_);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("not in the wheel"), std::string::npos) << r.error().message;
  EXPECT_EQ(snapshot(), before);
}

TEST_F(InstallTest, RecordAcceptsSha384AndSha512AndRefusesWeakAlgorithms) {
  auto b64 = [](const auto& digest) {
    return wheel::base64url_nopad(std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
  };
  const std::string a = "A = 1\n";
  const std::string b = "B = 2\n";
  auto strong = make_wheel("strong", "1.0", {{"strong/a.py", {a, 0100644, true, "sha384=" + b64(sha384(a))}},
                                             {"strong/b.py", {b, 0100644, true, "sha512=" + b64(sha512(b))}}});
  auto r = install_wheels(env_, {{strong, true, true}}, options_);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(fs::exists(env_.scheme.purelib / "strong" / "b.py"));
  auto record = read_file(env_.scheme.purelib / "strong-1.0.dist-info" / "RECORD");
  ASSERT_TRUE(record);
  EXPECT_NE(record->find("strong/a.py,sha384=" + b64(sha384(a))), std::string::npos) << *record;

  // A wrong sha512 digest is a mismatch like any other.
  auto wrong = make_wheel("wrong", "1.0", {{"wrong/a.py", {a, 0100644, true, "sha512=" + b64(sha512(b))}}});
  r = install_wheels(env_, {{wrong, true, true}}, options_);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("does not match RECORD"), std::string::npos) << r.error().message;

  auto before = snapshot();
  for (const std::string algo : {"md5", "sha1"}) {
    auto weak = make_wheel("weak" + algo, "1.0", {{"weak/a.py", {a, 0100644, true, algo + "=AAAA"}}});
    r = install_wheels(env_, {{weak, true, true}}, options_);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find(algo + " is too weak"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("weak/a.py"), std::string::npos) << r.error().message;
  }
  auto unknown = make_wheel("unknown", "1.0", {{"unknown/a.py", {a, 0100644, true, "blake2b=AAAA"}}});
  r = install_wheels(env_, {{unknown, true, true}}, options_);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("expected sha256=, sha384= or sha512="), std::string::npos) << r.error().message;
  EXPECT_EQ(snapshot(), before);
}

TEST_F(InstallTest, StreamedMembersAreVerifiedLikeWholeOnes) {
  // Every member streamed (zlib, piece by piece, hashed as written), large and libcrypto-sized
  // ones included, in each RECORD algorithm.
  options_.whole_member_max = 0;
  auto b64 = [](const auto& digest) {
    return wheel::base64url_nopad(std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
  };
  std::string big;
  for (std::uint32_t i = 0; big.size() < (std::size_t{3} << 20) + 5; ++i) big += std::to_string(i * 2654435761U % 9973) + ",";
  const std::string a = "A = 1\n";
  auto w = make_wheel("streamed", "1.0",
                      {{"streamed/a.py", {a}},
                       {"streamed/empty.py", {""}},
                       {"streamed/big384.bin", {big, 0100644, true, "sha384=" + b64(sha384(big))}},
                       {"streamed/big512.bin", {big + "x", 0100755, true, "sha512=" + b64(sha512(big + "x"))}}});
  auto r = install_wheels(env_, {{w, true, true}}, options_);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*read_file(env_.scheme.purelib / "streamed" / "a.py"), a);
  EXPECT_EQ(*read_file(env_.scheme.purelib / "streamed" / "empty.py"), "");
  EXPECT_EQ(*read_file(env_.scheme.purelib / "streamed" / "big384.bin"), big);
  EXPECT_EQ(*read_file(env_.scheme.purelib / "streamed" / "big512.bin"), big + "x");
  struct stat st {};
  ASSERT_EQ(::stat((env_.scheme.purelib / "streamed" / "big512.bin").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755U);

  // A mismatch found only at the end of the stream: an input error naming the member, nothing
  // installed, no staging left.
  const auto before = snapshot();
  auto wrong = make_wheel("wrongbig", "1.0", {{"wrongbig/big.bin", {big, 0100644, true, "sha512=" + b64(sha512(a))}}});
  r = install_wheels(env_, {{wrong, true, true}}, options_);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("member `wrongbig/big.bin`: hash sha512="), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().kind, ErrorKind::input);
  EXPECT_EQ(snapshot(), before);
}

TEST_F(InstallTest, RefusesHostileMembers) {
  auto before = snapshot();
  for (const auto& [name, mode] : std::vector<std::pair<std::string, std::uint32_t>>{
           {"../escape.py", 0100644}, {"/tmp/abs.py", 0100644}, {"bad/link", 0120777}, {"bad\\win.py", 0100644}}) {
    auto w = make_wheel("bad", "1.0", {{name, {"x", mode}}});
    auto r = install_wheels(env_, {{w, true, true}}, options_);
    ASSERT_FALSE(r) << name;
    EXPECT_NE(r.error().message.find("member"), std::string::npos) << r.error().message;
    EXPECT_EQ(snapshot(), before);
  }
  EXPECT_FALSE(fs::exists(root_ / "escape.py"));
}

TEST_F(InstallTest, RefusesZipBombs) {
  auto w = make_wheel("bomb", "1.0", {{"bomb/zeros.bin", {std::string(std::size_t{4} << 20, '\0')}}});
  options_.limits.max_ratio = 100;
  auto r = install_wheels(env_, {{w, true, true}}, options_);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("ratio"), std::string::npos) << r.error().message;
  options_.limits.max_ratio = 100000;
  options_.limits.max_total_size = 1 << 20;
  r = install_wheels(env_, {{w, true, true}}, options_);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("total"), std::string::npos) << r.error().message;
}

TEST_F(InstallTest, RefusesDistInfoMismatchAndBadWheelVersion) {
  auto w = make_wheel("demo", "1.0", {{"other-1.0.dist-info/METADATA", {"Name: other\n"}}});
  // Two dist-info directories: open_wheel refuses.
  EXPECT_FALSE(install_wheels(env_, {{w, true, true}}, options_));
  auto v2 = make_wheel("demo", "2.0", {{"demo-2.0.dist-info/WHEEL", {"Wheel-Version: 2.0\n"}}});
  auto r = install_wheels(env_, {{v2, true, true}}, options_);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("Wheel-Version"), std::string::npos) << r.error().message;
}

TEST_F(InstallTest, UpgradeRollsBackOnFailureAtEveryStep) {
  ASSERT_TRUE(install_wheels(env_, {{simple_wheel("1.0"), true, true}}, options_));
  const auto after_v1 = snapshot();
  auto v2 = simple_wheel("2.0");
  // Every move of the upgrade fails in turn (the old version's package directory goes aside whole,
  // its scripts and dist-info one by one, then the new ones come in), until none is left to fail.
  std::size_t k = 0;
  Result<std::vector<Installed>> r = fail("not run");
  for (;; ++k) {
    ASSERT_LT(k, 50U) << "no end to the moves";
    options_.fail_at_move = [k](std::size_t n) { return n == k; };
    r = install_wheels(env_, {{v2, true, true}}, options_);
    if (r) break;
    EXPECT_NE(r.error().message.find("injected"), std::string::npos) << r.error().message;
    EXPECT_EQ(snapshot(), after_v1) << "failure at move " << k;
  }
  EXPECT_GE(k, 5U);
  options_.fail_at_move = {};
  EXPECT_EQ((*r)[0].replaced, "1.0");
  EXPECT_FALSE(fs::exists(env_.scheme.purelib / "demo-1.0.dist-info"));
  EXPECT_EQ(*read_file(env_.scheme.purelib / "demo/__init__.py"), "VALUE = '2.0'\n");
  // Same version again: skipped unless forced.
  r = install_wheels(env_, {{v2, true, true}}, options_);
  ASSERT_TRUE(r);
  EXPECT_TRUE((*r)[0].skipped);
}

TEST_F(InstallTest, CacheIsHardLinkedOnTheSecondInstall) {
  options_.cache_dir = root_ / "cache";
  auto w = simple_wheel();
  auto first = install_wheels(env_, {{w, true, true}}, options_);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_FALSE((*first)[0].from_cache);
  ASSERT_TRUE(uninstall(env_, "demo"));
  auto second = install_wheels(env_, {{w, true, true}}, options_);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_TRUE((*second)[0].from_cache);
  struct stat st {};
  ASSERT_EQ(::stat((env_.scheme.purelib / "demo/cli.py").c_str(), &st), 0);
  EXPECT_GE(st.st_nlink, 2U);
  // The rewritten script is a new file, not the cached one modified.
  EXPECT_EQ(*read_file(env_.scheme.scripts / "raw"), "#!/usr/bin/python3\nprint('raw')\n");
  // The cache keeps the script as the wheel has it (its files are named by member number).
  bool found_original = false;
  for (const auto& e : fs::recursive_directory_iterator(root_ / "cache" / "unpacked")) {
    if (e.is_regular_file() && *read_file(e.path()) == "#!python\nprint('raw')\n") found_original = true;
  }
  EXPECT_TRUE(found_original);
}

TEST_F(InstallTest, LockIsExclusive) {
  auto held = EnvironmentLock::acquire(env_.lock_dir);
  ASSERT_TRUE(held);
  auto second = EnvironmentLock::try_acquire(env_.lock_dir);
  ASSERT_FALSE(second);
  EXPECT_NE(second.error().message.find("another vwheel process"), std::string::npos);
  { auto moved = std::move(*held); }
  EXPECT_TRUE(EnvironmentLock::try_acquire(env_.lock_dir));
}

TEST_F(InstallTest, InstallWaitsForTheLockAndSaysSo) {
  auto w = make_wheel("waiter", "1.0", {{"waiter/__init__.py", {"x = 1\n"}}});
  std::optional<EnvironmentLock> held;
  {
    auto l = EnvironmentLock::acquire(env_.lock_dir);
    ASSERT_TRUE(l);
    held.emplace(std::move(*l));
  }
  std::atomic<int> waits{0};
  options_.on_lock_wait = [&](const Environment& e) {
    EXPECT_EQ(e.prefix, env_.prefix);
    ++waits;
  };
  std::optional<Result<std::vector<Installed>>> result;
  std::thread t([&] { result = install_wheels(env_, {{w, true, true}}, options_); });
  for (int i = 0; i < 500 && waits == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(waits, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(fs::exists(env_.scheme.purelib / "waiter-1.0.dist-info")) << "installed while the lock was held";
  held.reset();
  t.join();
  ASSERT_TRUE(result && *result) << (result ? result->error().message : "no result");
  EXPECT_TRUE(fs::exists(env_.scheme.purelib / "waiter" / "__init__.py"));
  EXPECT_EQ(waits, 1);

  // Uncontended: no wait reported.
  waits = 0;
  options_.force_reinstall = true;
  ASSERT_TRUE(install_wheels(env_, {{w, true, true}}, options_));
  EXPECT_EQ(waits, 0);
}

TEST_F(InstallTest, SessionStagesWheelsAsTheyAreAddedAndInstallsInSlotOrder) {
  const auto a = make_wheel("alpha", "1.0", {{"alpha/__init__.py", {"A = 1\n"}}});
  const auto b = make_wheel("beta", "2.0", {{"beta/__init__.py", {"B = 2\n"}}});
  const auto before = snapshot();
  auto session = Session::begin(env_, options_, 2);
  ASSERT_TRUE(session) << session.error().message;
  (*session)->add(1, {b, true, false});  // slots in any order, as downloads finish
  (*session)->add(0, {a, false, false});
  auto done = (*session)->finish();
  ASSERT_TRUE(done) << done.error().message;
  ASSERT_EQ(done->size(), 2U);
  EXPECT_EQ((*done)[0].name, "alpha");
  EXPECT_EQ((*done)[1].name, "beta");
  EXPECT_EQ(*read_file(env_.scheme.purelib / "beta/__init__.py"), "B = 2\n");
  EXPECT_TRUE(fs::exists(env_.scheme.purelib / "beta-2.0.dist-info/REQUESTED"));
  EXPECT_FALSE(fs::exists(env_.scheme.purelib / "alpha-1.0.dist-info/REQUESTED"));
  // Each: its package directory and file, its dist-info directory with METADATA, WHEEL, INSTALLER
  // and RECORD; and beta's REQUESTED.
  EXPECT_EQ(snapshot().size(), before.size() + 15U);
  for (const auto& e : fs::directory_iterator(env_.scheme.purelib)) {
    EXPECT_FALSE(e.path().filename().string().starts_with(".vwheel-tmp")) << e.path();
  }
}

TEST_F(InstallTest, SessionAbandonedLeavesTheEnvironmentAsItWas) {
  const auto a = make_wheel("alpha", "1.0", {{"alpha/__init__.py", {"A = 1\n"}}});
  const auto before = snapshot();
  {
    auto session = Session::begin(env_, options_, 2);
    ASSERT_TRUE(session);
    (*session)->add(0, {a, true, false});
    // Slot 1 never comes (its download failed): the session is dropped.
  }
  EXPECT_EQ(snapshot(), before);
  // The lock was released with it.
  EXPECT_TRUE(EnvironmentLock::try_acquire(env_.lock_dir));
}

TEST_F(InstallTest, SessionReportsTheFailingWheelAndMovesNothing) {
  const auto good = make_wheel("alpha", "1.0", {{"alpha/__init__.py", {"A = 1\n"}}});
  const auto bad = make_wheel("beta", "1.0", {{"beta/__init__.py", {"B\n", 0644, true, "sha256=AAAA"}}});
  const auto before = snapshot();
  auto session = Session::begin(env_, options_, 2);
  ASSERT_TRUE(session);
  (*session)->add(0, {good, true, false});
  (*session)->add(1, {bad, true, false});
  auto done = (*session)->finish();
  ASSERT_FALSE(done);
  EXPECT_NE(done.error().message.find("beta-1.0-py3-none-any.whl"), std::string::npos) << done.error().message;
  EXPECT_NE(done.error().message.find("does not match RECORD"), std::string::npos) << done.error().message;
  session->reset();
  EXPECT_EQ(snapshot(), before);
}

TEST_F(InstallTest, KnownArchiveHashFindsTheUnpackedCacheWithoutHashing) {
  options_.cache_dir = root_ / "cache";
  const auto w = simple_wheel();
  const auto sha = sha256_hex(*read_file(w));
  auto first = install_wheels(env_, {{w, true, false, sha}}, options_);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_FALSE((*first)[0].from_cache);
  EXPECT_TRUE(fs::is_directory(root_ / "cache" / "unpacked" / sha));
  EXPECT_FALSE(fs::exists(root_ / "cache" / "unpacked" / "by-stat")) << "a known hash needs no per-file hint";
  ASSERT_TRUE(uninstall(env_, "demo"));
  // A copy elsewhere (another stat identity) with the same known hash is linked from the cache.
  const auto copy = root_ / "elsewhere" / w.filename();
  fs::create_directories(copy.parent_path());
  fs::copy_file(w, copy);
  auto second = install_wheels(env_, {{copy, true, false, sha}}, options_);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_TRUE((*second)[0].from_cache);
  EXPECT_EQ(*read_file(env_.scheme.purelib / "demo/__init__.py"), "VALUE = '1.0'\n");
}

TEST_F(InstallTest, ADownloadInTheArchiveCacheGivesWayToItsTreeAndSkeleton) {
  options_.cache_dir = root_ / "cache";
  const auto w = simple_wheel();
  const auto sha = sha256_hex(*read_file(w));
  const auto archive = root_ / "cache" / "archives" / sha / w.filename();
  const auto entry = root_ / "cache" / "unpacked" / sha;
  fs::create_directories(archive.parent_path());
  fs::copy_file(w, archive);
  auto first = install_wheels(env_, {{archive, true, false, sha}}, options_);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_FALSE((*first)[0].from_cache);
  // One copy: the tree, with a skeleton the size of the wheel; the download is gone.
  EXPECT_FALSE(fs::exists(archive.parent_path()));
  ASSERT_EQ(cached_skeleton(root_ / "cache", sha), entry / "wheel-skeleton");
  EXPECT_EQ(fs::file_size(entry / "wheel-skeleton"), fs::file_size(w));

  // The request still names the download (found before another run removed it): the skeleton
  // stands in for it.
  ASSERT_TRUE(uninstall(env_, "demo"));
  auto second = install_wheels(env_, {{archive, true, false, sha}}, options_);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_TRUE((*second)[0].from_cache);
  EXPECT_EQ(*read_file(env_.scheme.purelib / "demo/__init__.py"), "VALUE = '1.0'\n");

  // As fetch_wheels asks for it.
  ASSERT_TRUE(uninstall(env_, "demo"));
  WheelRequest from_skeleton(archive, true, false, sha);
  from_skeleton.skeleton = entry / "wheel-skeleton";
  auto third = install_wheels(env_, {from_skeleton}, options_);
  ASSERT_TRUE(third) << third.error().message;
  EXPECT_TRUE((*third)[0].from_cache);

  // A cached file changed through a hard link: the entry no longer stands in for the archive.
  for (const auto& e : fs::directory_iterator(entry)) {
    if (e.path().filename() == "manifest" || e.path().filename() == "wheel-skeleton") continue;
    std::ofstream(e.path(), std::ios::app) << "# edited\n";
    break;
  }
  EXPECT_FALSE(cached_skeleton(root_ / "cache", sha));
  EXPECT_TRUE(cached_skeleton(root_ / "cache", sha, false));  // the cheap guess does not look
}

TEST_F(InstallTest, KeepArchivesKeepsTheDownloadAndAFileGivenByPathIsNeverRemoved) {
  options_.cache_dir = root_ / "cache";
  options_.keep_archives = true;
  const auto w = simple_wheel();
  const auto sha = sha256_hex(*read_file(w));
  const auto archive = root_ / "cache" / "archives" / sha / w.filename();
  fs::create_directories(archive.parent_path());
  fs::copy_file(w, archive);
  ASSERT_TRUE(install_wheels(env_, {{archive, true, false, sha}}, options_));
  EXPECT_TRUE(fs::exists(archive));
  EXPECT_FALSE(fs::exists(root_ / "cache" / "unpacked" / sha / "wheel-skeleton"));
  // Without the option, a wheel outside the archive cache is the user's: it stays.
  options_.keep_archives = false;
  options_.force_reinstall = true;
  ASSERT_TRUE(install_wheels(env_, {{w, true, false, sha}}, options_));
  EXPECT_TRUE(fs::exists(w));
}

TEST_F(InstallTest, StagingLeftByAKilledRunIsRemoved) {
  const auto stale = env_.scheme.purelib / ".vwheel-tmp-99999-0123456789ab" / "0-purelib" / "pkg";
  fs::create_directories(stale);
  std::ofstream(stale / "__init__.py") << "x = 1\n";
  auto r = install_wheels(env_, {{simple_wheel(), true, false}}, options_);
  ASSERT_TRUE(r) << r.error().message;
  for (const auto& e : fs::directory_iterator(env_.scheme.purelib)) {
    EXPECT_FALSE(e.path().filename().string().starts_with(".vwheel-tmp")) << e.path();
  }
}
