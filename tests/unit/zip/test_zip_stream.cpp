#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

#include "vwheel/zip/zip.hpp"
#include "zip/format.hpp"
#include "zip_test_support.hpp"

namespace {

using namespace vwheel::zip;
using namespace vwheel::zip::testing;
using ::testing::HasSubstr;

// Everything read_streamed passes to its sink, and the largest piece.
struct Collected {
  std::string data;
  std::size_t largest = 0;
  std::size_t pieces = 0;
  bool outside_scratch = false;  // a piece that was not in the caller's memory
};

vwheel::Result<Collected> stream(const Archive& archive, const Entry& entry, std::size_t chunk,
                                 std::span<char> scratch = {}) {
  Collected c;
  auto ok = archive.read_streamed(
      entry,
      [&](std::string_view piece) -> vwheel::Result<void> {
        c.data.append(piece);
        c.largest = std::max(c.largest, piece.size());
        ++c.pieces;
        if (!piece.empty() && !scratch.empty()) {
          c.outside_scratch |=
              piece.data() < scratch.data() || piece.data() + piece.size() > scratch.data() + scratch.size();
        }
        return {};
      },
      chunk, std::uint64_t{1} << 40, scratch);
  if (!ok) return vwheel::fail(ok.error());
  return c;
}

// Every test runs with each streaming inflater: ISA-L's (the one used where libisal.so.2 loads)
// and zlib's (the fallback), and with the default (`automatic`), which inflates a member that fits
// one piece at once with libdeflate and goes back to streaming when that fails: all must give the
// same bytes and the same errors.
class ZipStream : public ::testing::TestWithParam<vwheel::zip::detail::StreamInflater> {
 protected:
  void SetUp() override {
    if (!vwheel::zip::detail::set_stream_inflater(GetParam())) GTEST_SKIP() << "libisal.so.2 cannot be loaded";
  }
  void TearDown() override { vwheel::zip::detail::set_stream_inflater(vwheel::zip::detail::StreamInflater::automatic); }
};

INSTANTIATE_TEST_SUITE_P(Inflaters, ZipStream,
                         ::testing::Values(vwheel::zip::detail::StreamInflater::isal,
                                           vwheel::zip::detail::StreamInflater::zlib,
                                           vwheel::zip::detail::StreamInflater::automatic),
                         [](const ::testing::TestParamInfo<vwheel::zip::detail::StreamInflater>& param) {
                           switch (param.param) {
                             case vwheel::zip::detail::StreamInflater::isal:
                               return "isal";
                             case vwheel::zip::detail::StreamInflater::zlib:
                               return "zlib";
                             default:
                               return "automatic";
                           }
                         });

// Compressible and incompressible stretches, so that inflate's output per input varies a lot.
std::string mixed(std::size_t size) {
  std::string out;
  for (std::uint32_t seed = 1; out.size() < size; ++seed) {
    out += noise(5000, seed);
    out += std::string(70000, static_cast<char>('a' + seed % 26));
  }
  out.resize(size);
  return out;
}

TEST_P(ZipStream, StreamsWhatReadReadsInBoundedPieces) {
  TempDir dir;
  const auto big = mixed(3 << 20);
  const auto path = dir / "members.zip";
  write_bytes(path, build_raw({deflated_member("big.bin", big), stored_member("stored.bin", noise(300000, 4)),
                               deflated_member("empty.txt", ""), stored_member("empty-stored.txt", ""),
                               deflated_member("small.txt", text(10, "small"))}));
  auto archive = Archive::open(path);
  ASSERT_TRUE(archive) << archive.error().message;
  for (const auto& e : archive->entries()) {
    auto whole = archive->read(e);
    ASSERT_TRUE(whole) << whole.error().message;
    for (std::size_t chunk : {std::size_t{4096}, std::size_t{65536}, std::size_t{1} << 20}) {
      auto c = stream(*archive, e, chunk);
      ASSERT_TRUE(c) << e.name << ": " << c.error().message;
      EXPECT_EQ(c->data, *whole) << e.name << " " << chunk;
      EXPECT_LE(c->largest, chunk) << e.name;
      if (e.uncompressed_size > chunk) {
        EXPECT_GE(c->pieces, e.uncompressed_size / chunk) << e.name;
      }
      // The same through the caller's memory: both pieces in it, none allocated apart.
      std::vector<char> scratch(2 * chunk);
      auto in_scratch = stream(*archive, e, chunk, scratch);
      ASSERT_TRUE(in_scratch) << e.name << ": " << in_scratch.error().message;
      EXPECT_EQ(in_scratch->data, *whole) << e.name << " " << chunk;
      EXPECT_FALSE(in_scratch->outside_scratch) << e.name << " " << chunk;
    }
  }
}

TEST_P(ZipStream, CorruptDataIsAnErrorNamingTheMember) {
  TempDir dir;
  const auto content = mixed(2 << 20);
  auto member = deflated_member("pkg/big.so", content);
  const auto good_size = member.stored.size();
  // A flipped byte in the middle: either the deflate stream breaks or the CRC-32 does not match.
  auto flipped = member;
  flipped.name = "pkg/flipped.so";
  flipped.stored[good_size / 2] = static_cast<char>(flipped.stored[good_size / 2] ^ 0x55);
  // Cut short, and declared one byte smaller than the data inflates to.
  auto cut = member;
  cut.name = "pkg/cut.so";
  cut.stored.resize(good_size / 2);
  auto longer = member;
  longer.name = "pkg/longer.so";
  longer.size = content.size() - 1;
  const auto path = dir / "bad.whl";
  write_bytes(path, build_raw({flipped, cut, longer}));
  auto archive = Archive::open(path);
  ASSERT_TRUE(archive) << archive.error().message;
  for (const auto& e : archive->entries()) {
    auto c = stream(*archive, e, 65536);
    ASSERT_FALSE(c) << e.name;
    EXPECT_THAT(c.error().message, HasSubstr("member `" + e.name + "`"));
    EXPECT_THAT(c.error().message, HasSubstr("bad.whl"));
  }
  EXPECT_THAT(stream(*archive, archive->entries()[1], 65536).error().message, HasSubstr("ends before the stream does"));
  EXPECT_THAT(stream(*archive, archive->entries()[2], 65536).error().message, HasSubstr("inflates to more than"));
}

// Members that fit one piece (what `automatic` inflates at once) fail as streamed ones do: the
// same errors whichever way they were inflated.
TEST_P(ZipStream, SmallCorruptMembersFailAsStreamedOnesDo) {
  TempDir dir;
  const auto content = mixed(40000);
  const auto member = deflated_member("pkg/small.py", content);
  auto cut = member;
  cut.name = "pkg/cut.py";
  cut.stored.resize(member.stored.size() / 2);
  auto longer = member;
  longer.name = "pkg/longer.py";
  longer.size = content.size() - 1;
  auto shorter = member;
  shorter.name = "pkg/shorter.py";
  shorter.size = content.size() + 1;
  auto crc = member;
  crc.name = "pkg/crc.py";
  crc.crc ^= 1;
  auto garbage = member;
  garbage.name = "pkg/garbage.py";
  garbage.stored = noise(member.stored.size(), 11);
  const auto path = dir / "small.whl";
  write_bytes(path, build_raw({member, cut, longer, shorter, crc, garbage}));
  auto archive = Archive::open(path);
  ASSERT_TRUE(archive) << archive.error().message;
  const auto& e = archive->entries();
  for (std::size_t chunk : {std::size_t{65536}, std::size_t{1} << 20}) {
    std::vector<char> scratch(2 * chunk);
    for (std::span<char> memory : {std::span<char>(), std::span<char>(scratch)}) {
      auto good = stream(*archive, e[0], chunk, memory);
      ASSERT_TRUE(good) << good.error().message;
      EXPECT_EQ(good->data, content);
      EXPECT_EQ(good->pieces, 1U);
      EXPECT_THAT(stream(*archive, e[1], chunk, memory).error().message,
                  HasSubstr("member `pkg/cut.py`: deflate data ends before the stream does"));
      EXPECT_THAT(stream(*archive, e[2], chunk, memory).error().message,
                  HasSubstr("member `pkg/longer.py`: inflates to more than the 39999 bytes"));
      EXPECT_THAT(stream(*archive, e[3], chunk, memory).error().message,
                  HasSubstr("member `pkg/shorter.py` inflates to 40000 bytes, the central directory says 40001"));
      EXPECT_THAT(stream(*archive, e[4], chunk, memory).error().message,
                  HasSubstr("member `pkg/crc.py`: CRC-32 mismatch"));
      auto bad = stream(*archive, e[5], chunk, memory);
      ASSERT_FALSE(bad);
      EXPECT_THAT(bad.error().message, HasSubstr("member `pkg/garbage.py`"));
    }
  }
}

// A stored member whose two sizes differ is refused; a deflate stream followed by more bytes than
// it uses still gives exactly its content (as reading it whole does).
TEST_P(ZipStream, StoredSizeMismatchAndTrailingBytes) {
  TempDir dir;
  auto stored = stored_member("pkg/stored.bin", noise(100000, 9));
  stored.size = 99999;
  const auto content = mixed(300000);
  auto trailing = deflated_member("pkg/trailing.bin", content);
  trailing.stored += noise(5000, 3);
  const auto path = dir / "odd.whl";
  write_bytes(path, build_raw({stored, trailing}));
  auto archive = Archive::open(path);
  ASSERT_TRUE(archive) << archive.error().message;
  auto refused = stream(*archive, archive->entries()[0], 4096);
  ASSERT_FALSE(refused);
  EXPECT_THAT(
      refused.error().message,
      HasSubstr("member `pkg/stored.bin` is stored but its compressed size 100000 differs from its size 99999"));
  auto c = stream(*archive, archive->entries()[1], 4096);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->data, content);
}

TEST_P(ZipStream, SinkErrorStopsTheRead) {
  TempDir dir;
  const auto path = dir / "a.zip";
  write_bytes(path, build_raw({deflated_member("a.bin", mixed(1 << 20))}));
  auto archive = Archive::open(path);
  ASSERT_TRUE(archive) << archive.error().message;
  std::size_t calls = 0;
  auto ok = archive->read_streamed(
      archive->entries()[0],
      [&](std::string_view) -> vwheel::Result<void> {
        ++calls;
        return vwheel::fail("disk full");
      },
      4096);
  ASSERT_FALSE(ok);
  EXPECT_EQ(ok.error().message, "disk full");
  EXPECT_EQ(calls, 1U);
  auto limited = archive->read_streamed(
      archive->entries()[0], [](std::string_view) -> vwheel::Result<void> { return {}; }, 4096, 1000);
  ASSERT_FALSE(limited);
  EXPECT_THAT(limited.error().message, HasSubstr("exceeds the limit of 1000 bytes"));
}

}  // namespace
