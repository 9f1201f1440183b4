// zip::tail_needs: from a zip's last bytes alone, where its central directory starts and from
// where the end of the file holds the members a reader wants first (a wheel's .dist-info).

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "vwheel/zip/zip.hpp"
#include "zip_test_support.hpp"

namespace {

using namespace vwheel::zip;
using namespace vwheel::zip::testing;

bool dist_info(std::string_view name) { return name.starts_with("pkg-1.0.dist-info/"); }

struct Sample {
  std::string bytes;
  std::uint64_t metadata = 0;  // METADATA's local header offset: the first .dist-info member
  std::uint64_t cd = 0;        // the central directory's offset
};

// A wheel-shaped archive: `members` modules, then the .dist-info as wheel builders write it (last).
Sample sample(int members, const RawOptions& options = {}) {
  std::vector<RawMember> raw;
  for (int i = 0; i < members; ++i) raw.push_back(deflated_member("pkg/m" + std::to_string(i) + ".py", noise(300, i)));
  raw.push_back(stored_member("pkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n"));
  raw.push_back(deflated_member("pkg-1.0.dist-info/RECORD", std::string(5000, 'r')));
  Sample s;
  s.bytes = build_raw(raw, options);
  TempDir dir;
  write_bytes(dir / "pkg.zip", s.bytes);
  auto archive = Archive::open(dir / "pkg.zip");
  EXPECT_TRUE(archive) << archive.error().message;
  s.metadata = archive->find("pkg-1.0.dist-info/METADATA")->local_header_offset;
  s.cd = archive->central_directory_offset();
  return s;
}

std::string_view last(const std::string& bytes, std::size_t n) {
  return std::string_view(bytes).substr(bytes.size() - std::min(n, bytes.size()));
}

TEST(TailNeeds, ATailHoldingTheCentralDirectoryNamesTheWantedMembersStart) {
  const auto s = sample(20);
  for (const std::size_t n : {s.bytes.size() - s.cd, s.bytes.size() - s.metadata, s.bytes.size()}) {
    const auto needs = tail_needs(last(s.bytes, n), s.bytes.size(), dist_info);
    ASSERT_TRUE(needs) << n;
    EXPECT_EQ(needs->central_directory, s.cd);
    EXPECT_EQ(needs->wanted, s.metadata);
  }
  // Nothing wanted: the central directory is all.
  const auto none = tail_needs(s.bytes, s.bytes.size(), [](std::string_view) { return false; });
  ASSERT_TRUE(none);
  EXPECT_EQ(none->wanted, s.cd);
}

TEST(TailNeeds, ATailShortOfTheCentralDirectoryNamesItsStart) {
  const auto s = sample(200);
  ASSERT_GT(s.bytes.size() - s.cd, 4096U);
  const auto needs = tail_needs(last(s.bytes, 4096), s.bytes.size(), dist_info);
  ASSERT_TRUE(needs);
  EXPECT_EQ(needs->central_directory, s.cd);
  EXPECT_EQ(needs->wanted, s.cd);
}

TEST(TailNeeds, Zip64RecordsAreRead) {
  RawOptions zip64;
  zip64.zip64 = true;
  const auto s = sample(20, zip64);
  const auto needs = tail_needs(last(s.bytes, s.bytes.size() - s.cd), s.bytes.size(), dist_info);
  ASSERT_TRUE(needs);
  EXPECT_EQ(needs->central_directory, s.cd);
  EXPECT_EQ(needs->wanted, s.metadata);
  // The zip64 record cut off from the tail: not readable from it.
  EXPECT_FALSE(tail_needs(last(s.bytes, 40), s.bytes.size(), dist_info));
}

TEST(TailNeeds, WhatIsNotTheEndOfAZipIsRefused) {
  const auto s = sample(20);
  EXPECT_FALSE(tail_needs(std::string(4096, 'x'), 100000, dist_info));
  EXPECT_FALSE(tail_needs("", 100000, dist_info));
  // The end record must end the file: the same tail said to end a longer file is not it.
  EXPECT_FALSE(tail_needs(s.bytes, s.bytes.size() + 10, dist_info));
  EXPECT_FALSE(tail_needs(s.bytes, s.bytes.size() - 1, dist_info));  // longer than the file
  // A central directory record damaged: refused, not guessed around.
  auto damaged = s.bytes;
  damaged[s.cd] = 'X';
  EXPECT_FALSE(tail_needs(damaged, damaged.size(), dist_info));
  // An end record that puts the central directory past itself.
  auto past = s.bytes;
  const auto eocd = past.size() - 22;
  past[eocd + 16] = '\xFF';
  past[eocd + 17] = '\xFF';
  past[eocd + 18] = '\xFF';
  past[eocd + 19] = '\x0F';
  EXPECT_FALSE(tail_needs(past, past.size(), dist_info));
}

}  // namespace
