// PEP 751's other sources: `sdist`, `archive`, `directory` and `vcs` round-trip with every field,
// and what PEP 751 requires of them (one source per entry, `commit-id`, `hashes`, ...) is an
// error naming the entry and the field.

#include <string>

#include <gtest/gtest.h>

#include "pylock_text.hpp"
#include "vwheel/lock/pylock.hpp"

namespace vwheel::lock {
namespace {

using test::error_of;
using test::kSha256;
using test::lock_with;

Lock every_kind() {
  Lock lock;
  LockedPackage sdist;
  sdist.name = "a-sdist";
  sdist.version = "1.0";
  sdist.index = "https://pypi.org/simple";
  sdist.sdist = LockedSdist{"a_sdist-1.0.tar.gz",
                            "https://files.example/a_sdist-1.0.tar.gz",
                            "dist/a_sdist-1.0.tar.gz",
                            "2025-03-12T10:00:00Z",
                            1234,
                            {{"sha256", kSha256}, {"sha512", std::string(128, 'b')}}};
  LockedWheel wheel;
  wheel.name = "a_sdist-1.0-py3-none-any.whl";
  wheel.url = "https://files.example/" + wheel.name;
  wheel.hashes = {{"sha256", kSha256}};
  sdist.wheels = {wheel};
  lock.packages.push_back(sdist);

  LockedPackage archive;
  archive.name = "b-archive";
  archive.version = "2.0";
  archive.archive = LockedArchive{"https://h.example/b.tar.gz", "../b.tar.gz", "2024-01-01T00:00:00Z", 99,
                                  {{"sha256", kSha256}},        "python/b"};
  lock.packages.push_back(archive);

  LockedPackage directory;
  directory.name = "c-dir";
  directory.directory = LockedDirectory{"src/c", false, "pkg"};
  lock.packages.push_back(directory);

  LockedPackage vcs;
  vcs.name = "d-vcs";
  vcs.vcs = LockedVcs{"git", "https://git.example/d.git", "../d", "v1.0", std::string(40, 'c'), "sub/dir"};
  lock.packages.push_back(vcs);
  return lock;
}

TEST(PylockSources, EveryFieldRoundTrips) {
  const Lock lock = every_kind();
  const std::string text = write_pylock(lock);
  EXPECT_NE(text.find("sdist = { name = \"a_sdist-1.0.tar.gz\", upload-time = 2025-03-12T10:00:00Z, url = "
                      "\"https://files.example/a_sdist-1.0.tar.gz\", path = \"dist/a_sdist-1.0.tar.gz\", size = 1234, "
                      "hashes = { sha256 = \"" +
                      kSha256),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("archive = { upload-time = 2024-01-01T00:00:00Z, url = \"https://h.example/b.tar.gz\", path = "
                      "\"../b.tar.gz\", size = 99, hashes = { sha256 = \"" +
                      kSha256 + "\" }, subdirectory = \"python/b\" }\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("directory = { path = \"src/c\", editable = false, subdirectory = \"pkg\" }\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("vcs = { type = \"git\", url = \"https://git.example/d.git\", path = \"../d\", "
                      "requested-revision = \"v1.0\", commit-id = \"" +
                      std::string(40, 'c') + "\", subdirectory = \"sub/dir\" }\n"),
            std::string::npos)
      << text;
  auto parsed = parse_pylock(text, "pylock.toml");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(*parsed, lock);
  EXPECT_EQ(write_pylock(*parsed), text);
}

TEST(PylockSources, ReadAsOtherToolsWriteThem) {
  // Tables rather than inline tables, the vcs without `url` (a local repository), no version.
  auto parsed = parse_pylock(
      "lock-version = \"1.0\"\n[[packages]]\nname = \"v\"\n[packages.vcs]\ntype = \"git\"\npath = \"repo\"\n"
      "commit-id = \"abc123\"\n\n[[packages]]\nname = \"a\"\nversion = \"1\"\n[packages.archive]\npath = \"a.whl\"\n"
      "hashes = { sha256 = \"" +
          kSha256 + "\" }\n",
      "L");
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->packages.size(), 2U);
  ASSERT_TRUE(parsed->packages[0].vcs);
  EXPECT_EQ(*parsed->packages[0].vcs, (LockedVcs{"git", std::nullopt, "repo", std::nullopt, "abc123", std::nullopt}));
  EXPECT_EQ(parsed->packages[0].version, "");
  ASSERT_TRUE(parsed->packages[1].archive);
  EXPECT_EQ(parsed->packages[1].archive->path, "a.whl");
  EXPECT_FALSE(parsed->packages[1].archive->size);
}

TEST(PylockSources, WhatPep751RequiresIsAnErrorNamingTheEntryAndField) {
  const std::string sha = "hashes = { sha256 = \"" + kSha256 + "\" }";
  EXPECT_EQ(error_of(lock_with("vcs = { type = \"git\", url = \"https://x/y\" }\n")),
            "pylock.toml: package `demo` `1.0`: vcs: `commit-id` is missing (PEP 751 requires it)");
  EXPECT_EQ(error_of(lock_with("vcs = { url = \"https://x/y\", commit-id = \"abc\" }\n")),
            "pylock.toml: package `demo` `1.0`: vcs: `type` is missing (PEP 751 requires it)");
  EXPECT_EQ(error_of(lock_with("vcs = { type = \"git\", commit-id = \"abc\" }\n")),
            "pylock.toml: package `demo` `1.0`: vcs: neither `url` nor `path` is given (PEP 751 requires one)");
  EXPECT_EQ(error_of(lock_with("vcs = { type = \"git\", url = \"u\", commit-id = 7 }\n")),
            "pylock.toml: package `demo` `1.0`: vcs.commit-id: expected a string, got an integer");
  EXPECT_EQ(error_of(lock_with("archive = { url = \"https://x/a.tar.gz\" }\n")),
            "pylock.toml: package `demo` `1.0`: archive: `hashes` is missing (PEP 751 requires the file's hashes)");
  EXPECT_EQ(error_of(lock_with("archive = { " + sha + " }\n")),
            "pylock.toml: package `demo` `1.0`: archive: neither `url` nor `path` is given (PEP 751 requires one)");
  EXPECT_EQ(error_of(lock_with("archive = { path = \"a.whl\", size = -1, " + sha + " }\n")),
            "pylock.toml: package `demo` `1.0`: archive: size: expected a non-negative integer, got -1");
  EXPECT_EQ(error_of(lock_with("archive = { path = \"a.whl\", " + sha + ", subdirectory = [] }\n")),
            "pylock.toml: package `demo` `1.0`: archive.subdirectory: expected a string, got an array");
  EXPECT_EQ(error_of(lock_with("directory = { path = \"p\", subdirectory = 1 }\n")),
            "pylock.toml: package `demo` `1.0`: directory.subdirectory: expected a string, got an integer");
  EXPECT_EQ(error_of(lock_with("sdist = { url = \"https://x/demo-1.0.tar.gz\" }\n")),
            "pylock.toml: package `demo` `1.0`: sdist: `hashes` is missing (PEP 751 requires the file's hashes)");
  EXPECT_EQ(error_of(lock_with("archive = { path = \"a.whl\", " + sha + " }\nsdist = { path = \"demo-1.0.tar.gz\", " +
                               sha + " }\n")),
            "pylock.toml: package `demo` `1.0`: `archive` and `sdist` are mutually exclusive (PEP 751): one source per "
            "entry");
  EXPECT_EQ(
      error_of(lock_with("directory = { path = \"p\" }\nvcs = { type = \"git\", url = \"u\", commit-id = \"c\" }\n")),
      "pylock.toml: package `demo` `1.0`: `vcs` and `directory` are mutually exclusive (PEP 751): one source per "
      "entry");
  // An archive or sdist without `version` is not a source tree: the version is required.
  EXPECT_EQ(
      error_of("lock-version = \"1.0\"\n[[packages]]\nname = \"p\"\narchive = { path = \"a.whl\", " + sha + " }\n"),
      "pylock.toml: packages[0] `p`: `version` is missing");
}

TEST(PylockSources, SdistAndWheelsGoTogether) {
  const std::string sha = "hashes = { sha256 = \"" + kSha256 + "\" }";
  auto parsed = parse_pylock(lock_with("sdist = { path = \"demo-1.0.tar.gz\", " + sha + " }\n" +
                                       test::wheels_line("demo-1.0-py3-none-any.whl")),
                             "L");
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_TRUE(parsed->packages[0].sdist);
  EXPECT_EQ(parsed->packages[0].sdist->name, "demo-1.0.tar.gz");  // from the path
}

}  // namespace
}  // namespace vwheel::lock
