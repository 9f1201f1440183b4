// build_site end to end on real wheels written with the zip component: pages, metadata files,
// variants.json, yanking, incremental rebuilds, removal, atomicity and failures.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "index/files.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/index/site.hpp"
#include "vwheel/wheel/index_json.hpp"
#include "vwheel/wheel/record.hpp"
#include "vwheel/wheel_name/wheel_name.hpp"
#include "vwheel/zip/zip.hpp"

namespace vwheel::index {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

std::string variant_json(const std::string& label, const std::string& value) {
  return R"({"$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json", )"
         R"("default-priorities": {"namespace": ["a"]}, "variants": {")" +
         label + R"(": {"a": {"f": [")" + value + R"("]}}}})";
}

class SiteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vwheel-index-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(wheels_dir());
  }
  void TearDown() override { fs::remove_all(dir_); }

  [[nodiscard]] fs::path wheels_dir() const { return dir_ / "wheels"; }
  [[nodiscard]] fs::path site() const { return dir_ / "site"; }

  // A wheel whose METADATA matches its file name (plus `extra` headers); a variant.json when given.
  fs::path write_wheel(const std::string& filename, const std::string& extra = {}, const std::string& vjson = {},
                       std::optional<std::string> metadata_name = std::nullopt) {
    auto name = wheel_name::parse_wheel_name(filename);
    EXPECT_TRUE(name) << filename;
    const std::string di = name->name + "-" + name->version + ".dist-info";
    std::vector<std::pair<std::string, std::string>> files = {
        {"pkg/__init__.py", "VALUE = 1\n"},
        {di + "/METADATA", "Metadata-Version: 2.1\nName: " + metadata_name.value_or(name->name) +
                               "\nVersion: " + name->version + "\n" + extra + "\nA description.\n"},
        {di + "/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"},
    };
    if (!vjson.empty()) files.emplace_back(di + "/variant.json", vjson);
    zip::WritePlan plan;
    std::string record;
    for (auto& [member, data] : files) {
      record += wheel::record_line(member, data);
      zip::NewMember m;
      m.name = member;
      m.data = data;
      plan.members.emplace_back(std::move(m));
    }
    record += di + "/RECORD,,\n";
    zip::NewMember r;
    r.name = di + "/RECORD";
    r.data = record;
    plan.members.emplace_back(std::move(r));
    const auto path = wheels_dir() / filename;
    auto ok = zip::write_archive(nullptr, plan, path);
    EXPECT_TRUE(ok) << (ok ? "" : ok.error().message);
    return path;
  }

  [[nodiscard]] BuildOptions opts() const {
    BuildOptions o;
    o.wheel_dir = wheels_dir();
    o.site = site();
    o.jobs = 2;
    return o;
  }

  BuildReport build(BuildOptions options = {}) {
    options.wheel_dir = wheels_dir();
    options.site = site();
    if (options.jobs == 1) options.jobs = 2;
    auto report = build_site(options);
    EXPECT_TRUE(report) << (report ? "" : report.error().message);
    return report ? *report : BuildReport{};
  }

  json page_json(const std::string& project) const {
    return json::parse(*read_file(site() / "simple" / project / "index.json"));
  }
  std::string page_html(const std::string& project) const {
    return *read_file(site() / "simple" / project / "index.html");
  }

  static const json* find_file(const json& page, const std::string& filename) {
    for (const auto& f : page["files"]) {
      if (f["filename"] == filename) return &f;
    }
    return nullptr;
  }

  // Every path of SITE with its size, modification time and content hash.
  std::map<std::string, std::string> snapshot() const {
    std::map<std::string, std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(site())) {
      const std::string rel = fs::relative(e.path(), site()).string();
      if (e.is_directory()) {
        out[rel] = "dir";
        continue;
      }
      struct stat st {};
      ::stat(e.path().c_str(), &st);
      out[rel] = std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
                 std::to_string(st.st_mtim.tv_nsec) + ":" + sha256_hex(*read_file(e.path()));
    }
    return out;
  }

  // Paths in SITE that look like temporary files.
  std::vector<std::string> temp_files() const {
    std::vector<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(site())) {
      const std::string name = e.path().filename().string();
      if (name.find(".tmp-") != std::string::npos) out.push_back(e.path().string());
    }
    return out;
  }

  static void set_mtime(const fs::path& path, std::int64_t seconds) {
    const struct timespec times[2] = {{seconds, 0}, {seconds, 0}};
    ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
  }

  fs::path dir_;
};

TEST_F(SiteTest, FullBuildWritesPagesFilesAndMetadata) {
  const auto w = write_wheel("Foo.Bar-1.0-py3-none-any.whl", "Requires-Python: >=3.8\n");
  write_wheel("Foo.Bar-0.9-py3-none-any.whl");
  write_wheel("other-2.0-py3-none-any.whl");
  { std::ofstream(wheels_dir() / "README.txt") << "not a distribution"; }
  const auto report = build();
  EXPECT_EQ(report.projects, 2U);
  EXPECT_EQ(report.files, 3U);
  EXPECT_EQ(report.projects_written, 2U);
  EXPECT_EQ(report.files_hashed, 3U);
  EXPECT_TRUE(report.root_written);
  EXPECT_TRUE(report.warnings.empty());

  const auto root = json::parse(*read_file(site() / "simple" / "index.json"));
  EXPECT_EQ(root["projects"], json::parse(R"([{"name": "foo-bar"}, {"name": "other"}])"));
  const std::string root_html = *read_file(site() / "simple" / "index.html");
  EXPECT_NE(root_html.find(R"(<a href="foo-bar/">foo-bar</a>)"), std::string::npos);

  const auto page = page_json("foo-bar");
  EXPECT_EQ(page["name"], "foo-bar");
  EXPECT_EQ(page["versions"], json::array({"0.9", "1.0"}));
  ASSERT_EQ(page["files"].size(), 2U);
  EXPECT_EQ(page["files"][0]["filename"], "Foo.Bar-0.9-py3-none-any.whl");  // version order
  const json& f = page["files"][1];
  EXPECT_EQ(f["url"], "../../files/foo-bar/Foo.Bar-1.0-py3-none-any.whl");
  const std::string wheel_bytes = *read_file(w);
  EXPECT_EQ(f["hashes"]["sha256"], sha256_hex(wheel_bytes));
  EXPECT_EQ(f["size"], wheel_bytes.size());
  EXPECT_EQ(f["requires-python"], ">=3.8");
  EXPECT_EQ(f["yanked"], false);
  EXPECT_TRUE(f.contains("upload-time"));
  EXPECT_FALSE(page["files"][0].contains("requires-python"));

  // The wheel is a hard link; its metadata is METADATA byte for byte, with the advertised hash.
  const fs::path placed = site() / "files" / "foo-bar" / "Foo.Bar-1.0-py3-none-any.whl";
  EXPECT_TRUE(fs::equivalent(placed, w));
  const std::string metadata = *read_file(site() / "files" / "foo-bar" / "Foo.Bar-1.0-py3-none-any.whl.metadata");
  EXPECT_EQ(metadata.rfind("Metadata-Version: 2.1\nName: Foo.Bar\n", 0), 0U);
  EXPECT_EQ(f["core-metadata"]["sha256"], sha256_hex(metadata));
  EXPECT_FALSE(f.contains("dist-info-metadata"));

  const std::string html = page_html("foo-bar");
  EXPECT_NE(
      html.find("href=\"../../files/foo-bar/Foo.Bar-1.0-py3-none-any.whl#sha256=" + sha256_hex(wheel_bytes) +
                "\" data-requires-python=\"&gt;=3.8\" data-core-metadata=\"sha256=" + sha256_hex(metadata) + "\""),
      std::string::npos)
      << html;
  EXPECT_TRUE(fs::exists(site() / ".vwheel" / "state.json"));
  EXPECT_TRUE(temp_files().empty());
}

TEST_F(SiteTest, HostileMetadataIsEscaped) {
  write_wheel("pkg-1.0-py3-none-any.whl", "Requires-Python: >=3\"><script>alert('x')</script>\xff\n");
  build();
  const std::string html = page_html("pkg");
  EXPECT_EQ(html.find("<script>"), std::string::npos) << html;
  EXPECT_NE(
      html.find("data-requires-python=\"&gt;=3&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;\xEF\xBF\xBD\""),
      std::string::npos)
      << html;
  const auto page = page_json("pkg");  // valid JSON, invalid UTF-8 replaced
  EXPECT_EQ(page["files"][0]["requires-python"], ">=3\"><script>alert('x')</script>\xEF\xBF\xBD");
  EXPECT_EQ(build().projects_written, 0U);  // the state reads it back unchanged
}

TEST_F(SiteTest, SecondBuildWritesNothingAndTouchRewritesOneProject) {
  write_wheel("a-1.0-py3-none-any.whl");
  const auto b = write_wheel("b-1.0-py3-none-any.whl");
  write_wheel("c-1.0-py3-none-any.whl");
  build();
  const auto before = snapshot();
  const auto again = build();
  EXPECT_EQ(again.projects_written, 0U);
  EXPECT_EQ(again.files_hashed, 0U);
  EXPECT_EQ(again.files_placed, 0U);
  EXPECT_FALSE(again.root_written);
  EXPECT_EQ(snapshot(), before);  // not even the state file was rewritten

  set_mtime(b, 1'700'000'000);
  const auto touched = build();
  EXPECT_EQ(touched.files_hashed, 1U);
  EXPECT_EQ(touched.projects_written, 1U);
  EXPECT_FALSE(touched.root_written);
  EXPECT_EQ((*find_file(page_json("b"), "b-1.0-py3-none-any.whl"))["upload-time"], "2023-11-14T22:13:20.000000Z");

  // New content under the same name: new hash on the page.
  fs::remove(b);
  write_wheel("b-1.0-py3-none-any.whl", "Requires-Python: >=3.12\n");
  const auto changed = build();
  EXPECT_EQ(changed.projects_written, 1U);
  const auto b_page = page_json("b");
  const auto& entry = *find_file(b_page, "b-1.0-py3-none-any.whl");
  EXPECT_EQ(entry["hashes"]["sha256"], sha256_hex(*read_file(b)));
  EXPECT_EQ(entry["requires-python"], ">=3.12");
  EXPECT_TRUE(fs::equivalent(site() / "files" / "b" / "b-1.0-py3-none-any.whl", b));
  EXPECT_TRUE(temp_files().empty());
}

TEST_F(SiteTest, RemovedWheelsDisappear) {
  write_wheel("pkg-1.0-py3-none-any.whl");
  const auto two = write_wheel("pkg-2.0-py3-none-any.whl");
  const auto gone = write_wheel("gone-1.0-py3-none-any.whl");
  build();
  ASSERT_TRUE(fs::exists(site() / "simple" / "gone" / "index.html"));
  fs::remove(two);
  fs::remove(gone);
  const auto report = build();
  EXPECT_EQ(report.files_removed, 2U);
  EXPECT_EQ(report.projects, 1U);
  EXPECT_EQ(report.projects_written, 1U);
  EXPECT_TRUE(report.root_written);
  EXPECT_FALSE(fs::exists(site() / "files" / "pkg" / "pkg-2.0-py3-none-any.whl"));
  EXPECT_FALSE(fs::exists(site() / "files" / "pkg" / "pkg-2.0-py3-none-any.whl.metadata"));
  EXPECT_TRUE(fs::exists(site() / "files" / "pkg" / "pkg-1.0-py3-none-any.whl.metadata"));
  EXPECT_EQ(find_file(page_json("pkg"), "pkg-2.0-py3-none-any.whl"), nullptr);
  EXPECT_EQ(page_json("pkg")["versions"], json::array({"1.0"}));
  EXPECT_FALSE(fs::exists(site() / "simple" / "gone"));
  EXPECT_FALSE(fs::exists(site() / "files" / "gone"));
  const auto root = json::parse(*read_file(site() / "simple" / "index.json"));
  EXPECT_EQ(root["projects"], json::parse(R"([{"name": "pkg"}])"));
}

TEST_F(SiteTest, MissingSiteFilesAreRestored) {
  write_wheel("pkg-1.0-py3-none-any.whl");
  build();
  fs::remove(site() / "files" / "pkg" / "pkg-1.0-py3-none-any.whl.metadata");
  fs::remove(site() / "simple" / "pkg" / "index.json");
  const auto report = build();
  EXPECT_EQ(report.files_hashed, 1U);
  EXPECT_EQ(report.projects_written, 1U);
  EXPECT_TRUE(fs::exists(site() / "files" / "pkg" / "pkg-1.0-py3-none-any.whl.metadata"));
  EXPECT_TRUE(fs::exists(site() / "simple" / "pkg" / "index.json"));
}

TEST_F(SiteTest, VariantsJsonIsWrittenListedAndKeptUpToDate) {
  const auto x = write_wheel("pkg-1.0-py3-none-any-x.whl", "", variant_json("x", "1"));
  const auto y = write_wheel("pkg-1.0-py3-none-any-y.whl", "", variant_json("y", "2"));
  write_wheel("pkg-1.0-py3-none-any.whl");
  write_wheel("pkg-0.5-py3-none-any.whl");
  const auto report = build();
  EXPECT_EQ(report.variants_files, 1U);
  EXPECT_EQ(report.variants_written, 1U);
  EXPECT_EQ(report.files, 4U);

  const fs::path vpath = site() / "files" / "pkg" / "pkg-1.0-variants.json";
  const std::string text = *read_file(vpath);
  auto expected = wheel::build_index_json(std::vector<fs::path>{x, y});
  ASSERT_TRUE(expected);
  EXPECT_EQ(text, expected->files.at(0).text);
  const auto doc = json::parse(text);
  EXPECT_TRUE(doc["variants"].contains("x"));
  EXPECT_TRUE(doc["variants"].contains("y"));

  const auto page = page_json("pkg");
  const json* entry = find_file(page, "pkg-1.0-variants.json");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ((*entry)["hashes"]["sha256"], sha256_hex(text));
  EXPECT_EQ((*entry)["size"], text.size());
  EXPECT_EQ((*entry)["url"], "../../files/pkg/pkg-1.0-variants.json");
  EXPECT_FALSE(entry->contains("core-metadata"));
  EXPECT_EQ(page["files"][0]["filename"], "pkg-0.5-py3-none-any.whl");
  EXPECT_NE(page_html("pkg").find("<a href=\"../../files/pkg/pkg-1.0-variants.json#sha256=" + sha256_hex(text) +
                                  "\">pkg-1.0-variants.json</a>"),
            std::string::npos);

  // Unchanged: not rebuilt. One variant removed: rebuilt without it. None left: removed.
  EXPECT_EQ(build().variants_written, 0U);
  fs::remove(y);
  const auto less = build();
  EXPECT_EQ(less.variants_written, 1U);
  EXPECT_FALSE(json::parse(*read_file(vpath))["variants"].contains("y"));
  EXPECT_EQ((*find_file(page_json("pkg"), "pkg-1.0-variants.json"))["hashes"]["sha256"], sha256_hex(*read_file(vpath)));
  fs::remove(x);
  const auto none = build();
  EXPECT_EQ(none.variants_files, 0U);
  EXPECT_FALSE(fs::exists(vpath));
  EXPECT_EQ(find_file(page_json("pkg"), "pkg-1.0-variants.json"), nullptr);
  EXPECT_TRUE(temp_files().empty());
}

TEST_F(SiteTest, ConflictingVariantsFailUnlessSkipped) {
  write_wheel("pkg-1.0-py3-none-any-x.whl", "", variant_json("x", "1"));
  write_wheel("pkg-1.0-cp312-none-any-x.whl", "", variant_json("x", "2"));
  write_wheel("pkg-1.0-py3-none-any.whl");
  BuildOptions options = opts();
  auto failed = build_site(options);
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message.find("conflicts with"), std::string::npos) << failed.error().message;
  EXPECT_FALSE(fs::exists(site() / "simple"));
  options.skip_invalid = true;
  auto skipped = build_site(options);
  ASSERT_TRUE(skipped) << skipped.error().message;
  EXPECT_EQ(skipped->files, 1U);
  ASSERT_FALSE(skipped->warnings.empty());
  EXPECT_NE(skipped->warnings[0].find("variant wheel(s) skipped"), std::string::npos);
}

TEST_F(SiteTest, BrokenWheelFailsWithoutChangingTheSite) {
  write_wheel("pkg-1.0-py3-none-any.whl");
  build();
  const auto before = snapshot();
  write_wheel("pkg-2.0-py3-none-any.whl");
  { std::ofstream(wheels_dir() / "pkg-3.0-py3-none-any.whl") << "not a zip"; }
  { std::ofstream(wheels_dir() / "bad name.whl") << "x"; }
  BuildOptions options = opts();
  auto failed = build_site(options);
  ASSERT_FALSE(failed);
  const std::string all = failed.error().message + (failed.error().details.empty() ? "" : failed.error().details[0]);
  EXPECT_NE(all.find("pkg-3.0-py3-none-any.whl"), std::string::npos) << all;
  EXPECT_NE(all.find("bad name.whl"), std::string::npos) << all;
  EXPECT_EQ(snapshot(), before);

  options.skip_invalid = true;
  auto skipped = build_site(options);
  ASSERT_TRUE(skipped) << skipped.error().message;
  EXPECT_EQ(skipped->files, 2U);
  EXPECT_EQ(skipped->warnings.size(), 2U);
  EXPECT_NE(find_file(page_json("pkg"), "pkg-2.0-py3-none-any.whl"), nullptr);
}

TEST_F(SiteTest, MetadataMustMatchTheFileName) {
  write_wheel("pkg-1.0-py3-none-any.whl", "", "", std::string("other"));
  BuildOptions options = opts();
  auto failed = build_site(options);
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message.find("Name: other"), std::string::npos) << failed.error().message;
}

TEST_F(SiteTest, YankedFilesAndVersions) {
  write_wheel("pkg-1.0-py3-none-any.whl");
  write_wheel("pkg-2.0-py3-none-any.whl");
  write_wheel("pkg-2.0-py2-none-any.whl");
  write_wheel("pkg-3.0-py3-none-any.whl");
  const fs::path yanked = dir_ / "yanked.txt";
  ASSERT_TRUE(write_file_atomic(yanked, "# comment\npkg-1.0-py3-none-any.whl\nPKG==2: broken <build>\nnope==1\n"));
  BuildOptions options;
  options.yanked = yanked;
  const auto report = build(options);
  ASSERT_EQ(report.warnings.size(), 1U);
  EXPECT_NE(report.warnings[0].find("`nope==1` matches no file"), std::string::npos);
  const auto page = page_json("pkg");
  EXPECT_EQ((*find_file(page, "pkg-1.0-py3-none-any.whl"))["yanked"], true);
  EXPECT_EQ((*find_file(page, "pkg-2.0-py3-none-any.whl"))["yanked"], "broken <build>");
  EXPECT_EQ((*find_file(page, "pkg-2.0-py2-none-any.whl"))["yanked"], "broken <build>");
  EXPECT_EQ((*find_file(page, "pkg-3.0-py3-none-any.whl"))["yanked"], false);
  const std::string html = page_html("pkg");
  const auto anchor_of = [&](const std::string& file) {
    const auto end = html.find(">" + file + "</a>");
    return end == std::string::npos ? std::string() : html.substr(html.rfind("<a ", end), end - html.rfind("<a ", end));
  };
  EXPECT_NE(anchor_of("pkg-1.0-py3-none-any.whl").find(" data-yanked=\"\""), std::string::npos) << html;
  EXPECT_EQ(anchor_of("pkg-3.0-py3-none-any.whl").find("data-yanked"), std::string::npos) << html;
  EXPECT_NE(html.find("data-yanked=\"broken &lt;build&gt;\""), std::string::npos) << html;

  // Unyanking rewrites the page; a malformed file is an error that changes nothing.
  ASSERT_TRUE(write_file_atomic(yanked, "pkg-1.0-py3-none-any.whl\n"));
  EXPECT_EQ(build(options).projects_written, 1U);
  EXPECT_EQ((*find_file(page_json("pkg"), "pkg-2.0-py3-none-any.whl"))["yanked"], false);
  ASSERT_TRUE(write_file_atomic(yanked, "pkg==???\n"));
  const auto before = snapshot();
  options.wheel_dir = wheels_dir();
  options.site = site();
  auto failed = build_site(options);
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message.find("yanked.txt:1"), std::string::npos) << failed.error().message;
  EXPECT_EQ(snapshot(), before);
}

TEST_F(SiteTest, BaseUrlMakesLinksAbsoluteAndRewritesEverything) {
  write_wheel("pkg-1.0-py3-none-any.whl");
  build();
  BuildOptions options;
  options.base_url = "https://example.org/pypi/";
  const auto report = build(options);
  EXPECT_EQ(report.projects_written, 1U);
  EXPECT_TRUE(report.root_written);
  EXPECT_EQ(page_json("pkg")["files"][0]["url"], "https://example.org/pypi/files/pkg/pkg-1.0-py3-none-any.whl");
  EXPECT_NE(read_file(site() / "simple" / "index.html")->find("href=\"https://example.org/pypi/simple/pkg/\""),
            std::string::npos);
  options.base_url = "not a url";
  options.wheel_dir = wheels_dir();
  options.site = site();
  EXPECT_FALSE(build_site(options));
}

TEST_F(SiteTest, SdistsAreListedWithoutMetadata) {
  { std::ofstream(wheels_dir() / "my_pkg-1.0.tar.gz") << "not really gzip"; }
  write_wheel("my_pkg-1.0-py3-none-any.whl");
  const auto report = build();
  EXPECT_EQ(report.files, 2U);
  const auto page = page_json("my-pkg");
  const json* sdist = find_file(page, "my_pkg-1.0.tar.gz");
  ASSERT_NE(sdist, nullptr);
  EXPECT_FALSE(sdist->contains("core-metadata"));
  EXPECT_FALSE(fs::exists(site() / "files" / "my-pkg" / "my_pkg-1.0.tar.gz.metadata"));
  EXPECT_TRUE(fs::exists(site() / "files" / "my-pkg" / "my_pkg-1.0.tar.gz"));
}

TEST_F(SiteTest, CorruptStateRebuildsEverything) {
  write_wheel("pkg-1.0-py3-none-any.whl");
  build();
  ASSERT_TRUE(write_file_atomic(site() / ".vwheel" / "state.json", "{garbage"));
  const auto report = build();
  ASSERT_EQ(report.warnings.size(), 1U);
  EXPECT_NE(report.warnings[0].find("rebuilding everything"), std::string::npos);
  EXPECT_EQ(report.files_hashed, 1U);
  EXPECT_EQ(build().files_hashed, 0U);
}

// Whether /proc/locks lists a process blocked on an flock() of the file with inode `ino` (a
// waiter's line reads `N: -> FLOCK ADVISORY WRITE PID MAJ:MIN:INODE 0 EOF`).
bool flock_waiter_on(ino_t ino) {
  std::ifstream in("/proc/locks");
  const std::string suffix = ":" + std::to_string(ino);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::vector<std::string> w{std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
    if (w.size() >= 7 && w[1] == "->" && w[2] == "FLOCK" && w[6].size() > suffix.size() &&
        w[6].compare(w[6].size() - suffix.size(), suffix.size(), suffix) == 0) {
      return true;
    }
  }
  return false;
}

TEST_F(SiteTest, ConcurrentBuildsWaitForTheLock) {
  write_wheel("pkg-1.0-py3-none-any.whl");
  fs::create_directories(site() / ".vwheel");
  std::optional<detail::FileLock> lock(detail::FileLock::acquire(site() / ".vwheel" / "lock"));
  std::atomic<bool> done{false};
  std::thread builder([&] {
    auto report = build_site(opts());
    EXPECT_TRUE(report);
    done = true;
  });
  // Wait until the builder is provably blocked on the lock (the kernel lists it as a waiter in
  // /proc/locks), or has finished, which it may do only if it ignored the lock.
  struct stat st {};
  ASSERT_EQ(::stat((site() / ".vwheel" / "lock").c_str(), &st), 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);  // a hang guard
  bool waiting = false;
  while (!waiting && !done && std::chrono::steady_clock::now() < deadline) {
    waiting = flock_waiter_on(st.st_ino);
    if (!waiting) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_TRUE(waiting) << "the second build never waited for the lock";
  EXPECT_FALSE(done);
  EXPECT_FALSE(fs::exists(site() / "simple"));
  lock.reset();
  builder.join();
  EXPECT_TRUE(done);
  EXPECT_TRUE(fs::exists(site() / "simple" / "pkg" / "index.json"));
}

TEST_F(SiteTest, CopiesAcrossFileSystems) {
  // /dev/shm is a tmpfs: hard links from there into the temporary directory fail with EXDEV.
  const fs::path shm = fs::path("/dev/shm") / ("vwheel-index-" + std::to_string(::getpid()));
  struct stat a {
  }, b{};
  if (::stat("/dev/shm", &a) != 0 || ::stat(dir_.c_str(), &b) != 0 || a.st_dev == b.st_dev) {
    GTEST_SKIP() << "no second file system at /dev/shm";
  }
  fs::create_directories(shm);
  write_wheel("pkg-1.0-py3-none-any.whl");
  fs::copy_file(wheels_dir() / "pkg-1.0-py3-none-any.whl", shm / "pkg-1.0-py3-none-any.whl");
  set_mtime(shm / "pkg-1.0-py3-none-any.whl", 1'600'000'000);
  BuildOptions options = opts();
  options.wheel_dir = shm;
  auto report = build_site(options);
  fs::path copy = site() / "files" / "pkg" / "pkg-1.0-py3-none-any.whl";
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->files_copied, 1U);
  EXPECT_EQ(*read_file(copy), *read_file(shm / "pkg-1.0-py3-none-any.whl"));
  EXPECT_EQ(fs::last_write_time(copy), fs::last_write_time(shm / "pkg-1.0-py3-none-any.whl"));
  auto again = build_site(options);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->files_hashed, 0U);
  EXPECT_EQ(again->files_placed, 0U);
  fs::remove_all(shm);
}

}  // namespace
}  // namespace vwheel::index
