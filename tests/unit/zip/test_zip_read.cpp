#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "vwheel/zip/zip.hpp"
#include "zip_test_support.hpp"

namespace {

using namespace vwheel::zip;
using namespace vwheel::zip::testing;
using ::testing::HasSubstr;

// The error message of opening `path`, or "" when it opens.
std::string open_error(const fs::path& path) {
  auto archive = Archive::open(path);
  return archive ? std::string() : archive.error().message;
}

std::string open_error_of_bytes(const TempDir& dir, std::string_view bytes) {
  const auto path = dir / "hostile.zip";
  write_bytes(path, bytes);
  return open_error(path);
}

std::vector<LibzipMember> sample_members() {
  return {
      {"pkg/__init__.py", text(200, "import os"), true, 0100644, 1700000000},
      {"pkg/data.bin", noise(10000, 1), false, 0100755, 1600000000},
      {"pkg/empty.txt", "", true, 0100600, 1700000002},
      {"pkg/sub/", "", false, 040755, 1700000004},
      {"pkg/donn\xc3\xa9"
       "es.txt",
       "caf\xc3\xa9\n", false, 0100644, 1700000006},
      {"pkg-1.0.dist-info/RECORD", text(30, "pkg/__init__.py,sha256=abc,123"), true, 0100644, 1700000008},
  };
}

TEST(ZipRead, LibzipArchiveEntriesAndContent) {
  use_utc();
  TempDir dir;
  const auto path = dir / "sample.whl";
  const auto members = sample_members();
  make_libzip_archive(path, members, "the archive comment");

  auto archive = Archive::open(path);
  ASSERT_TRUE(archive) << archive.error().message;
  EXPECT_EQ(archive->path(), path);
  EXPECT_EQ(archive->file_size(), fs::file_size(path));
  EXPECT_EQ(archive->comment(), "the archive comment");
  const auto& entries = archive->entries();
  ASSERT_EQ(entries.size(), members.size());

  LibzipReader oracle(path);
  ASSERT_TRUE(oracle.ok()) << oracle.error();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    SCOPED_TRACE(e.name);
    const zip_stat_t st = oracle.stat(i);
    EXPECT_EQ(e.name, members[i].name);
    EXPECT_EQ(e.name, oracle.name(i));
    EXPECT_EQ(e.compressed_size, st.comp_size);
    EXPECT_EQ(e.uncompressed_size, st.size);
    EXPECT_EQ(e.crc32, st.crc);
    EXPECT_EQ(e.method, st.comp_method);
    EXPECT_EQ(e.unix_mode(), members[i].mode);
    EXPECT_EQ(e.is_directory(), members[i].name.back() == '/');
    const auto [time, date] = dos_time_date(members[i].mtime);
    EXPECT_EQ(e.dos_time, time);
    EXPECT_EQ(e.dos_date, date);
    auto content = archive->read(e);
    ASSERT_TRUE(content) << content.error().message;
    EXPECT_EQ(*content, members[i].data);
    auto raw = archive->read_raw(e);
    ASSERT_TRUE(raw) << raw.error().message;
    EXPECT_EQ(raw->size(), e.compressed_size);
  }
  EXPECT_EQ(entries[0].method, 8);
  EXPECT_EQ(entries[1].method, 0);

  // Spans tile the members up to the central directory.
  for (std::size_t i = 0; i + 1 < entries.size(); ++i)
    EXPECT_EQ(entries[i].span_end, entries[i + 1].local_header_offset);
  EXPECT_EQ(entries.back().span_end, archive->central_directory_offset());
  EXPECT_LT(archive->central_directory_offset(), archive->file_size());

  EXPECT_EQ(archive->find("pkg/data.bin"), &entries[1]);
  EXPECT_EQ(archive->find("pkg/sub/"), &entries[3]);
  EXPECT_EQ(archive->find("pkg/data.bi"), nullptr);
  EXPECT_EQ(archive->find("pkg/data.bin2"), nullptr);
  EXPECT_EQ(archive->find(""), nullptr);

  // The Archive moves.
  Archive moved = std::move(*archive);
  EXPECT_EQ(moved.find("pkg/empty.txt"), &moved.entries()[2]);
}

TEST(ZipRead, OpenReadsOnlyTheEndOfTheFile) {
  TempDir dir;
  const auto path = dir / "big.zip";
  std::vector<LibzipMember> members;
  for (int i = 0; i < 64; ++i) members.push_back({"data/file" + std::to_string(i), noise(16384, i), false});
  members.push_back({"data/text.txt", text(500, "words"), true});
  make_libzip_archive(path, members);
  ASSERT_GT(fs::file_size(path), 1000000U);

  auto archive = Archive::open(path);
  ASSERT_TRUE(archive) << archive.error().message;
  const std::uint64_t cd_size = archive->file_size() - archive->central_directory_offset() - 22;
  EXPECT_LT(archive->bytes_read(), 2048 + cd_size);
  EXPECT_GE(archive->bytes_read(), cd_size + 22);

  const Entry* entry = archive->find("data/file7");
  ASSERT_NE(entry, nullptr);
  const std::uint64_t before = archive->bytes_read();
  auto content = archive->read(*entry);
  ASSERT_TRUE(content) << content.error().message;
  EXPECT_EQ(*content, members[7].data);
  const std::uint64_t used = archive->bytes_read() - before;
  EXPECT_GE(used, entry->compressed_size + 30 + entry->name.size());
  EXPECT_LE(used, entry->compressed_size + 30 + entry->name.size() + 128);

  // A small archive is read with one read of at most 1 KiB.
  const auto small = dir / "small.zip";
  make_libzip_archive(small, {{"a.txt", "a"}, {"b.txt", "b"}});
  auto small_archive = Archive::open(small);
  ASSERT_TRUE(small_archive) << small_archive.error().message;
  EXPECT_EQ(small_archive->bytes_read(), fs::file_size(small));
}

TEST(ZipRead, ConcurrentReads) {
  TempDir dir;
  const auto path = dir / "sample.whl";
  const auto members = sample_members();
  make_libzip_archive(path, members);
  auto archive = Archive::open(path);
  ASSERT_TRUE(archive) << archive.error().message;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int round = 0; round < 20; ++round) {
        for (std::size_t i = 0; i < members.size(); ++i) {
          auto content = archive->read(archive->entries()[i]);
          if (!content || *content != members[i].data) ++failures;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(ZipRead, RejectsWhatIsNotAZip) {
  TempDir dir;
  EXPECT_THAT(open_error_of_bytes(dir, ""), HasSubstr("not a zip archive (empty file)"));
  EXPECT_THAT(open_error_of_bytes(dir, "hello"), HasSubstr("not a zip archive"));
  EXPECT_THAT(open_error_of_bytes(dir, text(100, "this is not a zip")), HasSubstr("not a zip archive"));
  EXPECT_THAT(open_error(dir / "missing.zip"), HasSubstr("cannot open"));
  EXPECT_THAT(open_error(dir.path()), HasSubstr("is a directory, expected a regular file"));
  const std::string message = open_error_of_bytes(dir, "hello");
  EXPECT_EQ(message.rfind((dir / "hostile.zip").string() + ": ", 0), 0U) << message;
}

TEST(ZipRead, RejectsTruncatedArchives) {
  TempDir dir;
  const auto path = dir / "sample.whl";
  make_libzip_archive(path, sample_members());
  const std::string bytes = read_bytes(path);
  auto archive = Archive::open(path);
  ASSERT_TRUE(archive) << archive.error().message;
  const std::size_t cd = archive->central_directory_offset();
  for (const std::size_t cut :
       {std::size_t{10}, cd - 5, cd, cd + 10, cd + 60, bytes.size() - 21, bytes.size() - 10, bytes.size() - 1}) {
    SCOPED_TRACE(cut);
    EXPECT_THAT(open_error_of_bytes(dir, bytes.substr(0, cut)), HasSubstr("truncated"));
  }
}

TEST(ZipRead, RejectsBadEndRecords) {
  TempDir dir;
  const auto path = dir / "sample.whl";
  make_libzip_archive(path, sample_members());
  const std::string bytes = read_bytes(path);
  const std::size_t eocd = bytes.size() - 22;
  const std::uint32_t cd_size = get32(bytes, eocd + 12);
  const std::uint32_t cd_offset = get32(bytes, eocd + 16);

  std::string b = bytes;
  set32(b, eocd + 16, static_cast<std::uint32_t>(bytes.size() + 100));
  EXPECT_THAT(open_error_of_bytes(dir, b), HasSubstr("extends past the end of the file"));
  b = bytes;
  set32(b, eocd + 12, static_cast<std::uint32_t>(bytes.size()));
  EXPECT_THAT(open_error_of_bytes(dir, b), HasSubstr("truncated: central directory at offset"));
  b = bytes;
  set32(b, eocd + 16, cd_offset + 8);
  EXPECT_THAT(open_error_of_bytes(dir, b), HasSubstr("overlaps the end-of-central-directory"));
  b = bytes;
  b[cd_offset] = 'X';
  EXPECT_THAT(open_error_of_bytes(dir, b), HasSubstr("no central directory record signature (PK\\1\\2) at offset"));
  b = bytes;
  b[cd_offset + cd_size - 10] = 'X';  // inside the last record's name: the records still parse
  EXPECT_EQ(open_error_of_bytes(dir, b), "");
  // An offset too small looks like data before the archive.
  b = bytes;
  set32(b, eocd + 16, cd_offset - 8);
  EXPECT_THAT(open_error_of_bytes(dir, b), HasSubstr("not at offset"));
  b = bytes;
  set16(b, eocd + 8, 5);
  set16(b, eocd + 10, 5);
  EXPECT_THAT(open_error_of_bytes(dir, b), HasSubstr("bytes after its 5 entries"));
  b = bytes;
  set16(b, eocd + 8, 7);
  set16(b, eocd + 10, 7);
  EXPECT_THAT(open_error_of_bytes(dir, b), HasSubstr("cut short"));
  b = bytes;
  set16(b, eocd + 10, 1000);
  set16(b, eocd + 8, 1000);
  EXPECT_THAT(open_error_of_bytes(dir, b), HasSubstr("cannot hold the 1000 entries"));
  b = bytes;
  set16(b, eocd + 4, 1);
  EXPECT_THAT(open_error_of_bytes(dir, b), HasSubstr("multi-disk"));
  b = bytes;
  set16(b, eocd + 8, 2);
  EXPECT_THAT(open_error_of_bytes(dir, b), HasSubstr("multi-disk"));

  // Offsets not adjusted for data before the archive.
  EXPECT_THAT(open_error_of_bytes(dir, std::string(100, '#') + bytes),
              HasSubstr("prefixed archives are not supported"));
  RawOptions zip64;
  zip64.zip64 = true;
  zip64.prefix = std::string(64, '#');
  EXPECT_THAT(open_error_of_bytes(dir, build_raw({stored_member("a", "a")}, zip64)),
              HasSubstr("prefixed archives are not supported"));
}

TEST(ZipRead, RejectsBadMembers) {
  TempDir dir;
  const std::vector<RawMember> good = {stored_member("a.txt", "alpha"), deflated_member("b.txt", text(20, "beta")),
                                       stored_member("c.txt", "gamma")};
  ASSERT_EQ(open_error_of_bytes(dir, build_raw(good)), "");

  auto members = good;
  members[1].flags = 1;
  EXPECT_THAT(open_error_of_bytes(dir, build_raw(members)), HasSubstr("member `b.txt` is encrypted"));

  members = good;
  members[2].name = "a.txt";
  EXPECT_THAT(open_error_of_bytes(dir, build_raw(members)), HasSubstr("member name `a.txt` appears twice"));

  members = good;
  members[1].central_offset = 0;
  EXPECT_THAT(open_error_of_bytes(dir, build_raw(members)), HasSubstr("both start at offset 0"));

  members = good;
  members[1].central_offset = 10;
  EXPECT_THAT(open_error_of_bytes(dir, build_raw(members)), HasSubstr("overlaps member"));

  members = good;
  members[2].central_offset = 100000;
  EXPECT_THAT(open_error_of_bytes(dir, build_raw(members)), HasSubstr("extends into the central directory"));

  members = good;
  members[0].size = members[0].stored.size() + 1000;  // stored but sizes differ
  auto raw = build_raw(members);
  const auto path = dir / "sizes.zip";
  write_bytes(path, raw);
  auto archive = Archive::open(path);
  ASSERT_TRUE(archive) << archive.error().message;
  auto content = archive->read(archive->entries()[0]);
  ASSERT_FALSE(content);
  EXPECT_THAT(content.error().message, HasSubstr("is stored but its compressed size"));
}

TEST(ZipRead, ReadChecksTheMember) {
  TempDir dir;
  auto members = std::vector<RawMember>{stored_member("stored.txt", text(10, "stored")),
                                        deflated_member("deflated.txt", text(100, "deflated")),
                                        stored_member("method12.bin", "xyz"), stored_member("renamed.txt", "r"),
                                        deflated_member("garbage.txt", text(10, "g"))};
  members[2].method = 12;
  members[3].local_name = "RENAMED.txt";
  members[4].stored = noise(members[4].stored.size(), 9);
  const auto path = dir / "members.zip";
  write_bytes(path, build_raw(members));
  auto archive = Archive::open(path);
  ASSERT_TRUE(archive) << archive.error().message;
  const auto& entries = archive->entries();

  auto ok = archive->read(entries[1]);
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(*ok, text(100, "deflated"));

  const std::uint64_t before = archive->bytes_read();
  auto limited = archive->read(entries[1], 100);
  ASSERT_FALSE(limited);
  EXPECT_THAT(limited.error().message, HasSubstr("exceeds the limit of 100 bytes"));
  EXPECT_EQ(archive->bytes_read(), before);
  EXPECT_TRUE(archive->read(entries[1], entries[1].uncompressed_size));

  auto method = archive->read(entries[2]);
  ASSERT_FALSE(method);
  EXPECT_THAT(method.error().message, HasSubstr("compression method 12 not supported"));
  auto raw = archive->read_raw(entries[2]);
  ASSERT_TRUE(raw) << raw.error().message;
  EXPECT_EQ(*raw, "xyz");

  auto renamed = archive->read(entries[3]);
  ASSERT_FALSE(renamed);
  EXPECT_THAT(renamed.error().message, HasSubstr("names `RENAMED.txt`"));

  auto garbage = archive->read(entries[4]);
  ASSERT_FALSE(garbage);
  EXPECT_THAT(garbage.error().message, HasSubstr("member `garbage.txt`"));
}

// read_into: the same content and the same errors as read, in the caller's memory, and a clear
// error when that memory is too small. One member has a local extra field the central directory
// does not have (the second read of the header), one the longest a zip allows.
TEST(ZipRead, ReadIntoTheCallersMemory) {
  TempDir dir;
  auto members = std::vector<RawMember>{stored_member("stored.txt", text(10, "stored")),
                                        deflated_member("deflated.bin", noise(200000, 3) + text(5000, "tail")),
                                        deflated_member("extra.txt", text(50, "extra")),
                                        deflated_member("longest-extra.txt", text(50, "longest")),
                                        deflated_member("garbage.txt", text(10, "g")),
                                        deflated_member("empty.txt", "")};
  members[2].local_extra = std::string(3000, 'x');
  members[3].local_extra = std::string(0xFFFF, 'y');
  members[4].stored = noise(members[4].stored.size(), 9);
  const auto path = dir / "members.zip";
  write_bytes(path, build_raw(members));
  auto archive = Archive::open(path);
  ASSERT_TRUE(archive) << archive.error().message;
  for (const auto& e : archive->entries()) {
    const auto whole = archive->read(e);
    std::vector<char> scratch(Archive::scratch_size(e));
    const auto into = archive->read_into(e, scratch);
    ASSERT_EQ(bool(whole), bool(into)) << e.name;
    if (!whole) {
      EXPECT_EQ(into.error().message, whole.error().message) << e.name;
      continue;
    }
    EXPECT_EQ(*into, *whole) << e.name;
    if (!into->empty()) {
      EXPECT_GE(into->data(), scratch.data()) << e.name;
      EXPECT_LE(into->data() + into->size(), scratch.data() + scratch.size()) << e.name;
    }
    std::vector<char> short_by_one(scratch.size() - 1);
    const auto refused = archive->read_into(e, short_by_one);
    ASSERT_FALSE(refused) << e.name;
    EXPECT_THAT(refused.error().message,
                HasSubstr(fmt::format("{} bytes to read it into, {} needed", short_by_one.size(), scratch.size())));
  }
  std::vector<char> scratch(Archive::scratch_size(archive->entries()[1]));
  const auto limited = archive->read_into(archive->entries()[1], scratch, 100);
  ASSERT_FALSE(limited);
  EXPECT_THAT(limited.error().message, HasSubstr("exceeds the limit of 100 bytes"));
}

TEST(ZipRead, CrcMismatch) {
  TempDir dir;
  const auto path = dir / "sample.whl";
  make_libzip_archive(path, sample_members());
  std::string bytes = read_bytes(path);
  std::size_t data_at = 0;
  {
    auto archive = Archive::open(path);
    ASSERT_TRUE(archive) << archive.error().message;
    const Entry* e = archive->find("pkg/data.bin");
    ASSERT_NE(e, nullptr);
    ASSERT_EQ(e->method, 0);
    const std::size_t at = e->local_header_offset;
    data_at = at + 30 + get16(bytes, at + 26) + get16(bytes, at + 28) + 1234;
  }
  bytes[data_at] = static_cast<char>(bytes[data_at] ^ 0x20);
  write_bytes(path, bytes);
  auto archive = Archive::open(path);
  ASSERT_TRUE(archive) << archive.error().message;
  auto content = archive->read(*archive->find("pkg/data.bin"));
  ASSERT_FALSE(content);
  EXPECT_THAT(content.error().message, HasSubstr("CRC-32 mismatch"));
  EXPECT_THAT(content.error().message, HasSubstr("pkg/data.bin"));
  EXPECT_TRUE(archive->read_raw(*archive->find("pkg/data.bin")));
  EXPECT_TRUE(archive->read(*archive->find("pkg/__init__.py")));
}

TEST(ZipRead, CommentsAndTrailingBytes) {
  TempDir dir;
  const auto members = sample_members();
  // A comment with an end-of-central-directory signature in it, longer than the first read.
  std::string comment = "before PK\x05\x06 after ";
  while (comment.size() < 5000) comment += "comment ";
  const auto path = dir / "comment.zip";
  make_libzip_archive(path, members);
  write_bytes(path, with_comment(read_bytes(path), comment));
  auto archive = Archive::open(path);
  ASSERT_TRUE(archive) << archive.error().message;
  EXPECT_EQ(archive->comment(), comment);
  EXPECT_EQ(archive->entries().size(), members.size());
  EXPECT_LT(archive->bytes_read(), 22 + 65535 + 4096U);

  const std::string longest(65535, 'c');
  make_libzip_archive(path, members, longest);
  archive = Archive::open(path);
  ASSERT_TRUE(archive) << archive.error().message;
  EXPECT_EQ(archive->comment(), longest);

  // Bytes after the end record (a padded download) do not hide the archive.
  make_libzip_archive(path, members);
  write_bytes(path, read_bytes(path) + "trailing garbage");
  archive = Archive::open(path);
  ASSERT_TRUE(archive) << archive.error().message;
  ASSERT_EQ(archive->entries().size(), members.size());
  auto content = archive->read(archive->entries()[0]);
  ASSERT_TRUE(content) << content.error().message;
  EXPECT_EQ(*content, members[0].data);
}

TEST(ZipRead, EmptyArchive) {
  TempDir dir;
  const auto path = dir / "empty.zip";
  write_bytes(path, build_raw({}));
  auto archive = Archive::open(path);
  ASSERT_TRUE(archive) << archive.error().message;
  EXPECT_TRUE(archive->entries().empty());
  EXPECT_EQ(archive->central_directory_offset(), 0U);
}

TEST(ZipRead, LocatorLookalikeInsideTheCentralDirectoryIsNotALocator) {
  // The last member's central extra field (an unknown id) ends with what looks like a zip64
  // locator naming 16384 disks, right before the end record, which needs no zip64 values: the
  // bytes belong to the central directory the record describes (found by fuzzing write_archive,
  // which copies extra fields as they are).
  TempDir dir;
  auto m = stored_member("pkg/a.txt", "hello");
  std::string locator = "PK\x06\x07";
  locator += std::string("\x06\x00\x30\x00", 4) + std::string(8, '\0') + std::string("\x00\x40\x00\x00", 4);
  m.central_extra = std::string("\xcd\xab", 2) + std::string(1, static_cast<char>(locator.size())) + std::string(1, '\0') + locator;
  write_bytes(dir / "a.zip", build_raw({m}));
  auto a = Archive::open(dir / "a.zip");
  ASSERT_TRUE(a) << a.error().message;
  ASSERT_EQ(a->entries().size(), 1U);
  EXPECT_EQ(*a->read(a->entries()[0]), "hello");
}

TEST(ZipRead, Zip64RecordsAndExtraFields) {
  TempDir dir;
  const std::string timestamps("UT\x05\x00\x01\x00\x00\x00\x00", 9);
  std::vector<RawMember> members = {stored_member("a.txt", "alpha"), deflated_member("b/c.txt", text(50, "zip64")),
                                    deflated_member("d.txt", text(5, "descriptor"))};
  members[1].central_extra = timestamps;
  members[2].data_descriptor = true;
  RawOptions options;
  options.zip64 = true;
  options.comment = "zip64 comment";
  const auto path = dir / "zip64.zip";
  write_bytes(path, build_raw(members, options));

  auto archive = Archive::open(path);
  ASSERT_TRUE(archive) << archive.error().message;
  ASSERT_EQ(archive->entries().size(), 3U);
  EXPECT_EQ(archive->comment(), "zip64 comment");
  const auto& e = archive->entries();
  EXPECT_EQ(e[0].local_header_offset, 0U);
  EXPECT_EQ(e[0].compressed_size, 5U);
  EXPECT_EQ(e[0].uncompressed_size, 5U);
  EXPECT_EQ(e[0].extra, "");
  EXPECT_EQ(e[1].extra, timestamps);
  EXPECT_EQ(e[1].local_header_offset, e[0].span_end);
  EXPECT_EQ(e[1].uncompressed_size, text(50, "zip64").size());
  EXPECT_EQ(e[1].compressed_size, members[1].stored.size());
  EXPECT_EQ(e[2].span_end, archive->central_directory_offset());
  EXPECT_EQ(*archive->read(e[0]), "alpha");
  EXPECT_EQ(*archive->read(e[1]), text(50, "zip64"));
  EXPECT_EQ(*archive->read(e[2]), text(5, "descriptor"));

  // The hand-made archive is valid for libzip too.
  LibzipReader oracle(path);
  ASSERT_TRUE(oracle.ok()) << oracle.error();
  ASSERT_EQ(oracle.size(), 3);
  EXPECT_EQ(oracle.read(1).value_or("<error>"), text(50, "zip64"));
  EXPECT_EQ(oracle.stat(1).comp_size, e[1].compressed_size);

  // A zip64 extra field too short for the fields the record defers to it.
  std::string bytes = read_bytes(path);
  const std::size_t cd = archive->central_directory_offset();
  ASSERT_EQ(get16(bytes, cd + 30), 28);  // a.txt: extra = the zip64 field with 3 values
  set16(bytes, cd + 46 + 5 + 2, 16);     // now only 2 values ...
  set16(bytes, cd + 30, 20);             // ... and a 20-byte extra; the 8 bytes left join the comment
  set16(bytes, cd + 32, 8);
  EXPECT_THAT(open_error_of_bytes(dir, bytes), HasSubstr("lacks the local header offset"));
}

}  // namespace
