// Archive::open_arriving: an archive read while it is still being written front to back, its
// last bytes given apart (a download with its tail fetched by a Range request).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "vwheel/core/growing_file.hpp"
#include "vwheel/zip/zip.hpp"
#include "zip_test_support.hpp"

namespace {

using namespace vwheel::zip;
using namespace vwheel::zip::testing;
using ::testing::HasSubstr;

std::string sample_archive() {
  std::vector<RawMember> members;
  for (int i = 0; i < 8; ++i) members.push_back(deflated_member("pkg/m" + std::to_string(i), noise(40000, i)));
  members.push_back(stored_member("pkg-1.0.dist-info/RECORD", "pkg/m0,,\n"));
  return build_raw(members);
}

// Writes `bytes` to `path` in pieces, announcing each, then finishes.
void write_slowly(const fs::path& path, const std::string& bytes, vwheel::GrowingFile& growing) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  growing.advance(0);
  constexpr std::size_t piece = 7001;  // members straddle the pieces
  for (std::size_t at = 0; at < bytes.size(); at += piece) {
    const auto n = std::min(piece, bytes.size() - at);
    ASSERT_EQ(::write(fd, bytes.data() + at, n), static_cast<ssize_t>(n));
    growing.advance(at + n);
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  ::close(fd);
}

Arriving arriving_for(const TempDir& dir, const std::string& bytes, std::shared_ptr<vwheel::GrowingFile> growing,
                      std::size_t tail) {
  Arriving a;
  a.path = dir / "pkg.whl.part";
  a.final_path = dir / "pkg.whl";
  a.size = bytes.size();
  a.tail = bytes.substr(bytes.size() - tail);
  a.growing = std::move(growing);
  return a;
}

// An archive whose bytes have all been written, its download not finished yet (nothing is read
// from memory but the tail, the last `tail` bytes).
struct AllArrived {
  std::shared_ptr<vwheel::GrowingFile> growing;
  Arriving file;
  decltype(Archive::open_arriving(nullptr)) archive;
};
AllArrived all_arrived(const TempDir& dir, const std::string& bytes, std::size_t tail) {
  auto growing = std::make_shared<vwheel::GrowingFile>();
  auto file = arriving_for(dir, bytes, growing, tail);
  write_bytes(file.path, bytes);
  growing->advance(bytes.size());
  auto archive = Archive::open_arriving(std::make_shared<const Arriving>(file));
  return {std::move(growing), std::move(file), std::move(archive)};
}

TEST(ZipArriving, ReadsEveryMemberAsItArrives) {
  TempDir dir;
  const auto bytes = sample_archive();
  write_bytes(dir / "whole.zip", bytes);
  auto whole = Archive::open(dir / "whole.zip");
  ASSERT_TRUE(whole) << whole.error().message;

  auto growing = std::make_shared<vwheel::GrowingFile>();
  const auto file = arriving_for(dir, bytes, growing, 2000);
  std::thread writer([&] { write_slowly(file.path, bytes, *growing); });
  auto archive = Archive::open_arriving(std::make_shared<const Arriving>(file));
  ASSERT_TRUE(archive) << archive.error().message;
  ASSERT_EQ(archive->entries().size(), whole->entries().size());
  for (std::size_t i = 0; i < whole->entries().size(); ++i) {
    auto got = archive->read(archive->entries()[i]);
    auto want = whole->read(whole->entries()[i]);
    ASSERT_TRUE(got) << got.error().message;
    EXPECT_EQ(*got, *want) << whole->entries()[i].name;
  }
  writer.join();
  growing->finish({});
}

TEST(ZipArriving, AFailedDownloadFailsTheReads) {
  TempDir dir;
  const auto bytes = sample_archive();
  auto growing = std::make_shared<vwheel::GrowingFile>();
  const auto file = arriving_for(dir, bytes, growing, bytes.size() / 4);
  write_bytes(file.path, bytes.substr(0, 100));
  growing->advance(100);
  auto archive = Archive::open_arriving(std::make_shared<const Arriving>(file));  // the central directory is in the tail
  ASSERT_TRUE(archive) << archive.error().message;
  std::thread failer([&] { growing->finish(vwheel::fail("https://example.org/pkg.whl: HTTP 500")); });
  auto r = archive->read(archive->entries()[3]);
  failer.join();
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("pkg.whl: https://example.org/pkg.whl: HTTP 500"));
}

TEST(ZipArriving, AFileFinishedBeforeItWasOpenedIsReadAtItsFinalPath) {
  TempDir dir;
  const auto bytes = sample_archive();
  auto growing = std::make_shared<vwheel::GrowingFile>();
  const auto file = arriving_for(dir, bytes, growing, 500);
  write_bytes(file.final_path, bytes);  // complete and renamed already
  growing->finish({});
  auto archive = Archive::open_arriving(std::make_shared<const Arriving>(file));
  ASSERT_TRUE(archive) << archive.error().message;
  auto r = archive->read(archive->entries()[5]);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, noise(40000, 5));
}

TEST(ZipArriving, AWrongTailIsAnError) {
  TempDir dir;
  const auto bytes = sample_archive();
  auto growing = std::make_shared<vwheel::GrowingFile>();
  auto file = arriving_for(dir, bytes, growing, 300);
  file.tail.assign(300, 'x');  // not the end of a zip
  write_bytes(file.path, bytes);
  growing->advance(bytes.size());
  auto archive = Archive::open_arriving(std::make_shared<const Arriving>(file));
  ASSERT_FALSE(archive);
  EXPECT_THAT(archive.error().message, HasSubstr("pkg.whl"));
}

TEST(ZipArriving, PunchOutGivesBackOneMembersBlocksAndNothingElse) {
  TempDir dir;
  const auto bytes = sample_archive();
  auto [growing, file, archive] = all_arrived(dir, bytes, 2000);
  ASSERT_TRUE(archive) << archive.error().message;
  struct stat before {};
  ASSERT_EQ(::stat(file.path.c_str(), &before), 0);

  {
    // Where the file system cannot punch holes at all, punch_out has nothing to do.
    write_bytes(dir / "probe", std::string(3 * 4096, 'x'));
    const int fd = ::open((dir / "probe").c_str(), O_WRONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    const bool holes = ::fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 4096, 4096) == 0;
    ::close(fd);
    if (!holes) GTEST_SKIP() << "the file system of " << dir.path() << " cannot punch holes";
  }
  const auto& entries = archive->entries();
  ASSERT_TRUE(archive->punch_out(entries[3]));
  struct stat after {};
  ASSERT_EQ(::stat(file.path.c_str(), &after), 0);
  EXPECT_EQ(after.st_size, before.st_size);
  // 40,000 bytes of noise: at least eight whole 4 KiB blocks inside the member's span.
  EXPECT_LE(after.st_blocks * 512, before.st_blocks * 512 - 8 * 4096);
  EXPECT_FALSE(archive->read(entries[3]));  // its bytes are zeros now
  for (const std::size_t i : {std::size_t{2}, std::size_t{4}, entries.size() - 1}) {
    auto r = archive->read(entries[i]);
    EXPECT_TRUE(r) << entries[i].name << ": " << r.error().message;
  }
  // The bytes fetched apart are never punched: the download is compared with them at the end.
  const auto on_disk = read_bytes(file.path);
  EXPECT_EQ(on_disk.substr(on_disk.size() - file.tail.size()), file.tail);
  growing->finish({});

  // Only an archive still arriving gives its blocks back.
  auto whole = Archive::open(file.path);
  ASSERT_TRUE(whole) << whole.error().message;
  EXPECT_FALSE(whole->punch_out(whole->entries()[5]));
}

// A member that runs into the tail fetched apart gives back its blocks before the tail only: the
// download's last bytes are compared with that tail when it finishes.
TEST(ZipArriving, PunchOutStopsAtTheTailFetchedApart) {
  TempDir dir;
  const auto bytes = sample_archive();
  auto whole_file = dir / "whole.zip";
  write_bytes(whole_file, bytes);
  auto whole = Archive::open(whole_file);
  ASSERT_TRUE(whole) << whole.error().message;
  const auto& last = whole->entries()[7];  // 40,000 bytes of noise, the RECORD after it
  const std::uint64_t tail_at = last.local_header_offset + 20000;
  auto [growing, file, archive] = all_arrived(dir, bytes, bytes.size() - tail_at);
  ASSERT_TRUE(archive) << archive.error().message;
  struct stat before {};
  ASSERT_EQ(::stat(file.path.c_str(), &before), 0);
  if (!archive->punch_out(archive->entries()[7])) {
    GTEST_SKIP() << "the file system of " << dir.path() << " cannot punch holes";
  }
  struct stat after {};
  ASSERT_EQ(::stat(file.path.c_str(), &after), 0);
  EXPECT_LE(after.st_blocks * 512, before.st_blocks * 512 - 4 * 4096);  // its first 20,000 bytes: 4 whole blocks
  const auto on_disk = read_bytes(file.path);
  ASSERT_EQ(on_disk.size(), bytes.size());
  // From the block the tail starts in: every byte as it was.
  const std::uint64_t tail_block = tail_at / 4096 * 4096;
  EXPECT_EQ(on_disk.substr(tail_block), bytes.substr(tail_block));
  // Before the tail, the blocks inside the member are zeros; the bytes around them are untouched.
  const std::uint64_t first_block = (last.local_header_offset + 4095) / 4096 * 4096;
  EXPECT_EQ(on_disk.substr(first_block, 4096), std::string(4096, '\0'));
  EXPECT_EQ(on_disk.substr(0, last.local_header_offset), bytes.substr(0, last.local_header_offset));
  EXPECT_TRUE(archive->read(archive->entries()[6]));
  growing->finish({});
}

}  // namespace

// read_once(): the writer holds what arrives in memory; each member read is given back and never
// reaches the file, the members `keep` selects and the tail do.
TEST(ZipArriving, ReadOnceTakesMembersFromMemoryAndTheFileGetsOnlyWhatIsKept) {
  TempDir dir;
  const auto bytes = sample_archive();
  auto growing = std::make_shared<vwheel::GrowingFile>();
  const auto file = arriving_for(dir, bytes, growing, 1500);
  const int fd = ::open(file.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  growing->advance(0);
  auto archive = Archive::open_arriving(std::make_shared<const Arriving>(file));
  ASSERT_TRUE(archive) << archive.error().message;
  const auto keep = [](const Entry& e) { return e.name.ends_with("RECORD") || e.name == "pkg/m5"; };
  archive->read_once(keep);
  const vwheel::GrowingFile::WriteAt write = [fd](std::uint64_t at, std::string_view b) {
    return ::pwrite(fd, b.data(), b.size(), static_cast<off_t>(at)) == static_cast<ssize_t>(b.size());
  };
  std::thread writer([&] {
    constexpr std::size_t piece = 7001;
    for (std::size_t at = 0; at < bytes.size(); at += piece) {
      const auto n = std::min(piece, bytes.size() - at);
      ASSERT_TRUE(growing->holding());
      ASSERT_TRUE(growing->hold(
          at, std::make_shared<const vwheel::PageBuffer>(vwheel::PageBuffer::copy_of(bytes.substr(at, n))), write));
      growing->advance(at + n);
    }
    ASSERT_TRUE(growing->write_held(write));
  });
  const auto& entries = archive->entries();
  for (std::size_t i = 0; i + 1 < entries.size(); ++i) {
    std::string got;
    auto ok = archive->read_streamed(entries[i], [&](std::string_view p) -> vwheel::Result<void> {
      got.append(p);
      return {};
    }, 4096);
    ASSERT_TRUE(ok) << entries[i].name << ": " << ok.error().message;
    EXPECT_EQ(got, noise(40000, static_cast<int>(i))) << entries[i].name;
    archive->release(entries[i]);
  }
  archive->done_reading();
  writer.join();
  ::close(fd);
  growing->finish({});
  EXPECT_TRUE(archive->dropped());
  EXPECT_EQ(vwheel::GrowingFile::held_now(), 0u);
  // The member kept, the RECORD and the tail are in the file; the others' middles are not.
  const auto on_disk = read_bytes(file.path);
  ASSERT_EQ(on_disk.size(), bytes.size());
  const auto span = [&](const Entry& e) { return std::pair(e.local_header_offset, e.span_end); };
  for (const auto& e : entries) {
    const auto [from, to] = span(e);
    const auto mid = from + (to - from) / 2;
    if (keep(e) || mid >= bytes.size() - file.tail.size()) {
      EXPECT_EQ(on_disk.substr(from, to - from), bytes.substr(from, to - from)) << e.name;
    } else {
      EXPECT_EQ(on_disk.substr(mid, 100), std::string(100, '\0')) << e.name;
    }
  }
  EXPECT_EQ(on_disk.substr(on_disk.size() - file.tail.size()), file.tail);
}
