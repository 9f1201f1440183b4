// api::cache_clean_projects: only what the cache holds for the projects named goes, each file
// told by what vwheel wrote in it (a skeleton's .dist-info, a wheel's file name, METADATA's Name,
// the URL a page or member was read from); everything else stays.
#include "vwheel/api/cache.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "temp_dir_test.hpp"
#include "vwheel/zip/zip.hpp"

namespace vwheel::api {
namespace {
namespace fs = std::filesystem;

class CacheCleanProjects : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    cache_ = dir_ / "cache";
    fs::create_directories(cache_);
    request_.cache_dir = cache_;
  }

  fs::path put(const fs::path& rel, const std::string& text) {
    const auto p = cache_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

  /// An unpacked entry with one member file, and a skeleton holding `dist_info`/METADATA when
  /// `dist_info` is not empty.
  fs::path unpacked(const std::string& sha, const std::string& dist_info) {
    const auto entry = cache_ / "unpacked" / sha;
    put(entry / "0", "member\n");
    put(entry / "manifest", "0 7 1.0\n");
    if (!dist_info.empty()) {
      zip::WritePlan plan;
      plan.members.emplace_back(zip::NewMember{dist_info + "/METADATA", "Metadata-Version: 2.1\n"});
      EXPECT_TRUE(zip::write_archive(nullptr, plan, entry / "wheel-skeleton"));
    }
    return entry;
  }

  static std::string record(const std::string& url) { return "{\"url\": \"" + url + "\", \"present\": true}\nbody\n"; }

  fs::path cache_;
  CacheRequest request_;
};

TEST_F(CacheCleanProjects, RemovesOnlyTheNamedProjectsFiles) {
  const std::string a(64, 'a'), b(64, 'b'), c(64, 'c');
  const std::vector<fs::path> torch = {
      unpacked(a, "torch-2.9.0.dist-info"),
      put("archives/" + a + "/torch-2.9.0-cp311-cp311-linux_x86_64.whl", "zip"),
      put("archives/url-1/torch-2.9.0-cp311-cp311-linux_x86_64.whl.origin.json", "{}"),
      put("metadata/m1", "Metadata-Version: 2.1\r\nName: Torch\r\nVersion: 2.9.0\r\n\r\nName: numpy\n"),
      put("wheel-members/" + a + "/METADATA", record("http://x/files/torch-2.9.0-cp311-cp311-linux_x86_64.whl")),
      put("http/h1", record("http://x/simple/torch/")),
      put("http/h2", record("http://x/simple/torch/torch-2.9.0-variants.json")),
  };
  const std::vector<fs::path> foo_bar = {
      unpacked(c, ""),  // no skeleton: told by the wheel kept beside it
      put("archives/" + c + "/Foo_Bar-1.0-py3-none-any.whl", "zip"),
  };
  const std::vector<fs::path> kept = {
      unpacked(b, "numpy-2.1.0.dist-info"),
      put("archives/" + b + "/numpy-2.1.0-cp311-cp311-linux_x86_64.whl", "zip"),
      put("metadata/m2", "Metadata-Version: 2.1\nName: numpy\n"),
      put("metadata/m3", "Metadata-Version: 2.1\nSummary: no name\n\nName: torch\n"),
      put("wheel-members/" + b + "/METADATA", record("http://x/files/numpy-2.1.0-py3-none-any.whl?x=torch")),
      put("http/h3", record("http://x/simple/numpy/#torch")),
      put("http/h4", record("http://x/links/")),
      put("http/h5", "not a record\n"),
      put("interpreters/i1", "torch"),
      put("detect/d1", "torch"),
  };

  auto got = cache_clean_projects(request_, {"Torch", "foo.bar", "absent", "TORCH"});
  ASSERT_TRUE(got) << got.error().message;
  ASSERT_EQ(got->size(), 3u);
  EXPECT_EQ((*got)[0].project, "Torch");
  EXPECT_EQ((*got)[0].usage.files, 9u);  // the entry's 3 files, 2 records, METADATA, member, 2 pages
  EXPECT_EQ((*got)[1].project, "foo.bar");
  EXPECT_EQ((*got)[1].usage.files, 3u);
  EXPECT_EQ((*got)[2].project, "absent");
  EXPECT_EQ((*got)[2].usage.files, 0u);
  for (const auto& p : torch) EXPECT_FALSE(fs::exists(p)) << p;
  for (const auto& p : foo_bar) EXPECT_FALSE(fs::exists(p)) << p;
  for (const auto& p : kept) EXPECT_TRUE(fs::exists(p)) << p;
  // Directories left empty go; nothing is left aside.
  EXPECT_FALSE(fs::exists(cache_ / "archives" / a));
  EXPECT_FALSE(fs::exists(cache_ / "archives" / "url-1"));
  EXPECT_FALSE(fs::exists(cache_ / "wheel-members" / a));
  for (const auto& e : fs::directory_iterator(cache_)) EXPECT_FALSE(e.path().filename().string().starts_with(".trash-"));
}

TEST_F(CacheCleanProjects, AnInvalidNameRemovesNothing) {
  const auto entry = unpacked(std::string(64, 'a'), "torch-2.9.0.dist-info");
  auto got = cache_clean_projects(request_, {"torch", "bad name!"});
  ASSERT_FALSE(got);
  EXPECT_NE(got.error().message.find("bad name!: not a valid project name"), std::string::npos) << got.error().message;
  EXPECT_TRUE(fs::exists(entry / "0"));
}

TEST_F(CacheCleanProjects, NoCacheYetIsNothingFound) {
  request_.cache_dir = dir_ / "none";
  auto got = cache_clean_projects(request_, {"torch"});
  ASSERT_TRUE(got) << got.error().message;
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0].usage.files, 0u);
  EXPECT_FALSE(fs::exists(dir_ / "none"));
}

}  // namespace
}  // namespace vwheel::api
