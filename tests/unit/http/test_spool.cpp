// Spool, a download's part file: the bytes written are those appended, in order, across buffer
// boundaries and reopenings, and the digest (computed on another thread) is that of every byte
// appended or hashed since the last finish() or reset().

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "http/spool.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/growing_file.hpp"
#include "vwheel/core/hash.hpp"

namespace vwheel::http::detail {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const char* name) {
  auto dir = fs::temp_directory_path() / ("vwheel-spool-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

// Bytes that differ from one buffer to the next, so that a lost or repeated buffer shows.
std::string pattern(std::size_t n, unsigned seed) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + seed * 7 + i / 4099) & 0xff);
  return s;
}

TEST(Spool, WritesAndHashesEveryByteAcrossBuffers) {
  const auto file = scratch("a.part");
  // Several buffers' worth, in pieces of awkward sizes, more than the hasher's queue holds.
  const auto data = pattern(Spool::kBuffer * (AsyncSha256::kQueued + 3) + 12345, 1);
  Spool spool;
  ASSERT_TRUE(spool.open(file, false));
  for (std::size_t at = 0; at < data.size(); at += 16411) {
    ASSERT_TRUE(spool.append(std::string_view(data).substr(at, 16411)));
  }
  ASSERT_TRUE(spool.close());
  EXPECT_EQ(to_hex(spool.finish()), sha256_hex(data));
  EXPECT_EQ(read_file(file).value_or(""), data);
  fs::remove_all(file.parent_path());
}

TEST(Spool, ResumesAfterBytesOnDiskAndForgetsOnReset) {
  const auto file = scratch("b.part");
  const auto head = pattern(3 * Spool::kBuffer + 7, 2);
  const auto tail = pattern(Spool::kBuffer / 2, 3);
  ASSERT_TRUE(write_file_atomic(file, head));
  Spool spool;
  spool.hash_only(head);  // as a resumed download hashes its part file
  ASSERT_TRUE(spool.open(file, true, head.size()));
  ASSERT_TRUE(spool.append(tail));
  ASSERT_TRUE(spool.close());
  EXPECT_EQ(to_hex(spool.finish()), sha256_hex(head + tail));
  EXPECT_EQ(read_file(file).value_or(""), head + tail);
  // After finish(), and after reset(), hashing starts afresh.
  spool.hash_only("forgotten");
  spool.reset();
  ASSERT_TRUE(spool.open(file, false));
  ASSERT_TRUE(spool.append("abc"));
  ASSERT_TRUE(spool.close());
  EXPECT_EQ(to_hex(spool.finish()), sha256_hex("abc"));
  EXPECT_EQ(read_file(file).value_or(""), "abc");
  fs::remove_all(file.parent_path());
}

TEST(Spool, APausedSpoolGoesOnWithItsFileWhenResumed) {
  // An attempt that ends (a dropped connection) pauses the spool; the next one appends after the
  // bytes it has. A paused spool opened to start again from nothing truncates as ever.
  const auto file = scratch("c.part");
  const auto first = pattern(Spool::kBuffer + 999, 4);
  const auto second = pattern(Spool::kBuffer / 3, 5);
  Spool spool;
  ASSERT_TRUE(spool.open(file, false));
  ASSERT_TRUE(spool.append(first));
  ASSERT_TRUE(spool.pause());
  EXPECT_TRUE(spool.is_open());
  EXPECT_EQ(read_file(file).value_or(""), first);  // the partial buffer was handed over
  ASSERT_TRUE(spool.open(file, true, first.size()));
  ASSERT_TRUE(spool.append(second));
  ASSERT_TRUE(spool.close());
  EXPECT_EQ(to_hex(spool.finish()), sha256_hex(first + second));
  EXPECT_EQ(read_file(file).value_or(""), first + second);
  ASSERT_TRUE(spool.open(file, false));
  ASSERT_TRUE(spool.append("x"));
  ASSERT_TRUE(spool.pause());
  spool.reset();
  ASSERT_TRUE(spool.open(file, false));
  ASSERT_TRUE(spool.append("yz"));
  ASSERT_TRUE(spool.close());
  EXPECT_EQ(read_file(file).value_or(""), "yz");
  fs::remove_all(file.parent_path());
}

TEST(Spool, WhatIsHeldStaysHeldAcrossAttempts) {
  // The point of pause(): a reader unpacking the download from memory (GrowingFile::read_once)
  // keeps it there through attempts that got nothing (a 503) and through a resume. Closing the
  // file between attempts would write what is held and end the holding.
  const auto file = scratch("d.part");
  const auto first = pattern(Spool::kBuffer + 999, 6);
  const auto second = pattern(Spool::kBuffer / 3, 7);
  GrowingFile growing;
  const auto generation = growing.generation();
  growing.read_once(generation);
  Spool spool;
  spool.publish_to(&growing);
  ASSERT_TRUE(spool.open(file, false));
  ASSERT_TRUE(spool.pause());  // an attempt that got no byte
  ASSERT_TRUE(spool.open(file, false));
  EXPECT_TRUE(growing.holding());
  ASSERT_TRUE(spool.append(first));
  ASSERT_TRUE(spool.pause());  // a dropped connection
  ASSERT_TRUE(spool.open(file, true, first.size()));
  EXPECT_TRUE(growing.holding());
  ASSERT_TRUE(spool.append(second));
  ASSERT_TRUE(spool.pause());
  EXPECT_EQ(fs::file_size(file), 0U) << "held bytes were written";
  // The reader is done without giving anything back: the close writes it all, in place.
  growing.done_reading(generation);
  ASSERT_TRUE(spool.close());
  EXPECT_EQ(read_file(file).value_or(""), first + second);
  EXPECT_EQ(to_hex(spool.finish()), sha256_hex(first + second));
  fs::remove_all(file.parent_path());
}

TEST(Spool, AFailedOpenIsReported) {
  Spool spool;
  EXPECT_FALSE(spool.open("/nonexistent-dir-for-vwheel/x.part", false));
  EXPECT_TRUE(spool.close());
}

}  // namespace
}  // namespace vwheel::http::detail
