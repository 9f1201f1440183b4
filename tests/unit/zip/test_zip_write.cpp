#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "vwheel/zip/zip.hpp"
#include "zip_test_support.hpp"

namespace {

using namespace vwheel::zip;
using namespace vwheel::zip::testing;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<LibzipMember> source_members() {
  return {
      {"pkg/__init__.py", text(200, "import os"), true, 0100644, 1700000000},
      {"pkg/data.bin", noise(10000, 1), false, 0100755, 1600000000},
      {"pkg/module.py", text(300, "def f(): pass"), true, 0100644, 1700000100},
      {"pkg/empty.txt", "", true, 0100600, 1700000002},
      {"pkg/sub/", "", false, 040755, 1700000004},
      {"pkg-1.0.dist-info/METADATA", text(20, "Metadata-Version: 2.1"), true, 0100644, 1700000006},
      {"pkg-1.0.dist-info/RECORD", text(30, "pkg/__init__.py,sha256=abc,123"), true, 0100644, 1700000008},
  };
}

NewMember new_member(std::string name, std::string data, Method method = Method::Deflate) {
  NewMember m;
  m.name = std::move(name);
  m.data = std::move(data);
  m.method = method;
  return m;
}

TEST(ZipWrite, CopiesInsertsAndReplacesMembers) {
  use_utc();
  TempDir dir;
  const auto source_path = dir / "source.whl";
  const auto members = source_members();
  make_libzip_archive(source_path, members, "source comment");
  auto source = Archive::open(source_path);
  ASSERT_TRUE(source) << source.error().message;

  // Drop nothing, insert after member 1, replace member 5 (METADATA) in its place.
  const std::string inserted = text(40, "variant.json");
  const std::string metadata = text(25, "Metadata-Version: 2.4");
  WritePlan plan;
  plan.members = {std::size_t{0},
                  std::size_t{1},
                  new_member("pkg-1.0.dist-info/variant.json", inserted),
                  std::size_t{2},
                  std::size_t{3},
                  std::size_t{4},
                  new_member(members[5].name, metadata),
                  std::size_t{6}};
  const auto output = dir / "output.whl";
  auto written = write_archive(&*source, plan, output);
  ASSERT_TRUE(written) << written.error().message;
  EXPECT_THAT(dir.listing(), ElementsAre("output.whl", "source.whl"));

  LibzipReader in(source_path);
  LibzipReader out(output);
  ASSERT_TRUE(in.ok());
  ASSERT_TRUE(out.ok()) << "libzip cannot open the output: error " << out.error();
  ASSERT_EQ(out.size(), 8);
  EXPECT_EQ(out.comment(), "source comment");
  const std::vector<std::string> names = {members[0].name, members[1].name, "pkg-1.0.dist-info/variant.json",
                                          members[2].name, members[3].name, members[4].name,
                                          members[5].name, members[6].name};
  const std::vector<int> from = {0, 1, -1, 2, 3, 4, -1, 6};  // index in the source, or -1 for a new member
  auto result = Archive::open(output);
  ASSERT_TRUE(result) << result.error().message;
  const std::string source_bytes = read_bytes(source_path);
  const std::string output_bytes = read_bytes(output);
  const auto source_records = central_records(source_bytes, source->central_directory_offset(), 7);
  const auto output_records = central_records(output_bytes, result->central_directory_offset(), 8);
  for (zip_uint64_t i = 0; i < 8; ++i) {
    SCOPED_TRACE(names[i]);
    EXPECT_EQ(out.name(i), names[i]);
    const zip_stat_t st = out.stat(i);
    const Entry& entry = result->entries()[i];
    if (from[i] >= 0) {
      const auto s = static_cast<zip_uint64_t>(from[i]);
      const zip_stat_t original = in.stat(s);
      EXPECT_EQ(st.comp_size, original.comp_size);
      EXPECT_EQ(st.size, original.size);
      EXPECT_EQ(st.crc, original.crc);
      EXPECT_EQ(st.comp_method, original.comp_method);
      EXPECT_EQ(st.mtime, original.mtime);
      EXPECT_EQ(out.external_attributes(i), in.external_attributes(s));
      EXPECT_EQ(out.read(i), members[s].data);
      // The compressed bytes and the central record (but for the offset) are the source's.
      const Entry& original_entry = source->entries()[s];
      EXPECT_EQ(*result->read_raw(entry), *source->read_raw(original_entry));
      std::string expected_record = source_records[s];
      set32(expected_record, 42, static_cast<std::uint32_t>(entry.local_header_offset));
      EXPECT_EQ(output_records[i], expected_record);
      EXPECT_EQ(entry.span_end - entry.local_header_offset,
                original_entry.span_end - original_entry.local_header_offset);
    } else {
      const std::string& data = i == 2 ? inserted : metadata;
      EXPECT_EQ(out.read(i), data);
      EXPECT_EQ(st.comp_method, ZIP_CM_DEFLATE);
      EXPECT_LT(st.comp_size, data.size());
      std::uint8_t opsys = 0;
      EXPECT_EQ(out.external_attributes(i, &opsys), 0100644U << 16);
      EXPECT_EQ(opsys, ZIP_OPSYS_UNIX);
      EXPECT_EQ(st.mtime, 315532800);  // 1980-01-01T00:00:00Z
      EXPECT_EQ(entry.version_made_by, 0x031E);
      EXPECT_EQ(entry.version_needed, 20);
      EXPECT_EQ(entry.flags, 0);
      EXPECT_EQ(*result->read(entry), data);
    }
  }
  expect_python_accepts(output, 8);
}

TEST(ZipWrite, CopyingEverythingInOrderReproducesTheArchive) {
  TempDir dir;
  const auto source_path = dir / "source.whl";
  make_libzip_archive(source_path, source_members(), "comment");
  auto source = Archive::open(source_path);
  ASSERT_TRUE(source) << source.error().message;
  const std::uint64_t opened = source->bytes_read();
  WritePlan plan;
  for (std::size_t i = 0; i < source->entries().size(); ++i) plan.members.emplace_back(i);
  const auto output = dir / "copy.whl";
  auto written = write_archive(&*source, plan, output);
  ASSERT_TRUE(written) << written.error().message;
  EXPECT_EQ(read_bytes(output), read_bytes(source_path));
  // The copy reads the members' bytes once, and nothing else.
  EXPECT_EQ(source->bytes_read() - opened, source->central_directory_offset());

  // Another comment, and members in reverse order (no two contiguous).
  plan.comment = "new comment";
  std::reverse(plan.members.begin(), plan.members.end());
  auto reversed = write_archive(&*source, plan, output);
  ASSERT_TRUE(reversed) << reversed.error().message;
  LibzipReader out(output);
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(out.comment(), "new comment");
  const auto members = source_members();
  ASSERT_EQ(out.size(), static_cast<zip_int64_t>(members.size()));
  for (std::size_t i = 0; i < members.size(); ++i) {
    EXPECT_EQ(out.name(i), members[members.size() - 1 - i].name);
    EXPECT_EQ(out.read(i), members[members.size() - 1 - i].data);
  }

  plan.comment = "";
  ASSERT_TRUE(write_archive(&*source, plan, output));
  EXPECT_EQ(LibzipReader(output).comment(), "");
}

TEST(ZipWrite, NewMembersOnly) {
  use_utc();
  TempDir dir;
  WritePlan plan;
  plan.members.emplace_back(new_member("stored.bin", noise(3000, 5), Method::Store));
  plan.members.emplace_back(new_member("deflated.txt", text(100, "deflate me")));
  plan.members.emplace_back(new_member("empty-deflated", ""));
  NewMember no_date = new_member("empty-stored", "", Method::Store);
  no_date.dos_date = 0;  // no date: 1980-01-01
  plan.members.emplace_back(no_date);
  plan.members.emplace_back(new_member("incompressible", noise(500, 6)));
  NewMember script = new_member("bin/tool", "#!/bin/sh\n", Method::Store);
  script.unix_mode = 0100755;
  const auto [time, date] = dos_time_date(1700000000);
  script.dos_time = time;
  script.dos_date = date;
  plan.members.emplace_back(script);
  NewMember directory = new_member("share/", "", Method::Store);
  directory.unix_mode = 040755;
  plan.members.emplace_back(directory);
  plan.members.emplace_back(new_member("caf\xc3\xa9.txt", "unicode"));
  plan.comment = "made by vwheel";
  const auto output = dir / "new.zip";
  auto written = write_archive(nullptr, plan, output);
  ASSERT_TRUE(written) << written.error().message;

  LibzipReader out(output);
  ASSERT_TRUE(out.ok()) << out.error();
  ASSERT_EQ(out.size(), 8);
  EXPECT_EQ(out.comment(), "made by vwheel");
  for (std::size_t i = 0; i < plan.members.size(); ++i) {
    const auto& m = std::get<NewMember>(plan.members[i]);
    SCOPED_TRACE(m.name);
    EXPECT_EQ(out.name(i), m.name);
    EXPECT_EQ(out.read(i), m.data);
    EXPECT_EQ(out.stat(i).comp_method, m.method == Method::Store ? ZIP_CM_STORE : ZIP_CM_DEFLATE);
    EXPECT_EQ(out.external_attributes(i) >> 16, m.unix_mode);
  }
  EXPECT_EQ(out.stat(5).mtime, 1700000000);
  EXPECT_EQ(out.stat(3).mtime, 315532800);

  auto archive = Archive::open(output);
  ASSERT_TRUE(archive) << archive.error().message;
  const auto& e = archive->entries();
  EXPECT_EQ(e[5].unix_mode(), 0100755U);
  EXPECT_EQ(e[6].unix_mode(), 040755U);
  EXPECT_TRUE(e[6].is_directory());
  EXPECT_EQ(e[6].external_attributes & 0x10, 0x10U);
  EXPECT_EQ(e[7].flags, 0x0800);
  EXPECT_EQ(e[0].flags, 0);
  EXPECT_EQ(e[0].compressed_size, 3000U);
  EXPECT_EQ(e[3].dos_date, 0x21);
  EXPECT_EQ(e[3].dos_time, 0);
  for (std::size_t i = 0; i < e.size(); ++i) {
    EXPECT_EQ(*archive->read(e[i]), std::get<NewMember>(plan.members[i]).data);
  }
  expect_python_accepts(output, 8);

  // No members at all.
  auto empty = write_archive(nullptr, WritePlan{}, dir / "empty.zip");
  ASSERT_TRUE(empty) << empty.error().message;
  EXPECT_EQ(fs::file_size(dir / "empty.zip"), 22U);
  LibzipReader empty_reader(dir / "empty.zip");
  ASSERT_TRUE(empty_reader.ok());
  EXPECT_EQ(empty_reader.size(), 0);
}

TEST(ZipWrite, BadPlansWriteNothing) {
  TempDir dir;
  const auto source_path = dir / "source.whl";
  make_libzip_archive(source_path, source_members());
  auto source = Archive::open(source_path);
  ASSERT_TRUE(source) << source.error().message;
  const auto output = dir / "output.whl";

  const auto expect_failure = [&](const Archive* from, const WritePlan& plan, const std::string& message) {
    auto written = write_archive(from, plan, output);
    ASSERT_FALSE(written) << message;
    EXPECT_THAT(written.error().message, HasSubstr(message));
    EXPECT_EQ(written.error().message.rfind(output.string() + ": ", 0), 0U) << written.error().message;
    EXPECT_THAT(dir.listing(), ElementsAre("source.whl"));
  };
  WritePlan plan;
  plan.members = {std::size_t{0}, std::size_t{1}, new_member("pkg/data.bin", "x")};
  expect_failure(&*source, plan, "member name `pkg/data.bin` appears twice");
  plan.members = {std::size_t{2}, std::size_t{2}};
  expect_failure(&*source, plan, "member name `pkg/module.py` appears twice");
  plan.members = {new_member("a", "1"), new_member("a", "2")};
  expect_failure(nullptr, plan, "member name `a` appears twice");
  plan.members = {std::size_t{7}};
  expect_failure(&*source, plan, "copies member 7 but");
  plan.members = {std::size_t{0}};
  expect_failure(nullptr, plan, "no source archive");
  plan.members = {new_member("", "x")};
  expect_failure(nullptr, plan, "new member name of 0 bytes");
  NewMember odd = new_member("odd", "x");
  odd.method = static_cast<Method>(12);
  plan.members = {odd};
  expect_failure(nullptr, plan, "compression method 12 not supported");
  plan.members = {};
  plan.comment = std::string(70000, 'c');
  expect_failure(nullptr, plan, "archive comment of 70000 bytes");

  plan.comment.reset();
  EXPECT_FALSE(write_archive(nullptr, plan, dir / "missing-directory" / "out.zip"));
}

TEST(ZipWrite, ReplacesAnExistingOutput) {
  TempDir dir;
  const auto source_path = dir / "source.whl";
  make_libzip_archive(source_path, source_members());
  auto source = Archive::open(source_path);
  ASSERT_TRUE(source) << source.error().message;
  const auto output = dir / "output.whl";
  write_bytes(output, "old content");
  ASSERT_EQ(::chmod(output.c_str(), 0600), 0);
  ASSERT_EQ(::link(output.c_str(), (dir / "hard-link").c_str()), 0);

  WritePlan plan;
  plan.members = {std::size_t{0}, new_member("new.txt", "new")};
  auto written = write_archive(&*source, plan, output);
  ASSERT_TRUE(written) << written.error().message;
  // A new file was renamed into place: the old one lives on under its other name.
  EXPECT_EQ(read_bytes(dir / "hard-link"), "old content");
  auto result = Archive::open(output);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->entries().size(), 2U);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  struct stat st {};
  ASSERT_EQ(::stat(output.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644U & ~mask);
  EXPECT_THAT(dir.listing(), ElementsAre("hard-link", "output.whl", "source.whl"));

  // The source itself can be the output: the open archive keeps reading the old file.
  plan.members = {std::size_t{1}, std::size_t{0}};
  auto in_place = write_archive(&*source, plan, source_path);
  ASSERT_TRUE(in_place) << in_place.error().message;
  auto rewritten = Archive::open(source_path);
  ASSERT_TRUE(rewritten) << rewritten.error().message;
  ASSERT_EQ(rewritten->entries().size(), 2U);
  EXPECT_EQ(rewritten->entries()[0].name, "pkg/data.bin");
  EXPECT_EQ(*rewritten->read(rewritten->entries()[0]), noise(10000, 1));
}

TEST(ZipWrite, CopiesDataDescriptorMembers) {
  TempDir dir;
  std::vector<RawMember> members = {deflated_member("streamed.txt", text(100, "streamed")),
                                    stored_member("stored.bin", noise(100, 3)),
                                    stored_member("streamed-stored.bin", noise(50, 4))};
  members[0].data_descriptor = true;
  members[2].data_descriptor = true;
  members[1].central_extra = std::string("UT\x05\x00\x01\x10\x20\x30\x40", 9);
  members[1].local_extra = std::string("UT\x05\x00\x01\x10\x20\x30\x40", 9);
  const auto source_path = dir / "streamed.zip";
  write_bytes(source_path, build_raw(members));
  auto source = Archive::open(source_path);
  ASSERT_TRUE(source) << source.error().message;
  EXPECT_EQ(source->entries()[0].flags & 8, 8);
  EXPECT_EQ(source->entries()[1].extra, members[1].central_extra);

  WritePlan plan;
  plan.members = {new_member("first.txt", "first"), std::size_t{0}, std::size_t{1}, new_member("middle", "m"),
                  std::size_t{2}};
  const auto output = dir / "output.zip";
  auto written = write_archive(&*source, plan, output);
  ASSERT_TRUE(written) << written.error().message;

  LibzipReader out(output);
  ASSERT_TRUE(out.ok()) << out.error();
  ASSERT_EQ(out.size(), 5);
  EXPECT_EQ(out.read(0), "first");
  EXPECT_EQ(out.read(1), text(100, "streamed"));
  EXPECT_EQ(out.read(2), noise(100, 3));
  EXPECT_EQ(out.read(3), "m");
  EXPECT_EQ(out.read(4), noise(50, 4));
  auto result = Archive::open(output);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->entries()[1].flags & 8, 8);
  EXPECT_EQ(result->entries()[2].extra, members[1].central_extra);
  EXPECT_EQ(*result->read(result->entries()[1]), text(100, "streamed"));
  EXPECT_EQ(*result->read_raw(result->entries()[1]), members[0].stored);
  expect_python_accepts(output, 5);
}

TEST(ZipWrite, Zip64WithMoreThan65535Members) {
  TempDir dir;
  constexpr std::size_t count = 65537;
  WritePlan plan;
  plan.members.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    NewMember m;
    m.name = fmt::format("d/{:05}", i);
    m.method = Method::Store;
    plan.members.emplace_back(std::move(m));
  }
  std::get<NewMember>(plan.members[1234]).data = "content of 1234";
  const auto path = dir / "many.zip";
  auto written = write_archive(nullptr, plan, path);
  ASSERT_TRUE(written) << written.error().message;

  const std::string bytes = read_bytes(path);
  EXPECT_EQ(get32(bytes, bytes.size() - 22 - 20), 0x07064b50U);  // zip64 locator
  EXPECT_EQ(get16(bytes, bytes.size() - 22 + 10), 0xFFFF);

  auto archive = Archive::open(path);
  ASSERT_TRUE(archive) << archive.error().message;
  ASSERT_EQ(archive->entries().size(), count);
  const Entry* e = archive->find("d/01234");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(*archive->read(*e), "content of 1234");
  EXPECT_EQ(archive->entries().back().name, "d/65536");

  LibzipReader oracle(path);
  ASSERT_TRUE(oracle.ok()) << oracle.error();
  EXPECT_EQ(oracle.size(), static_cast<zip_int64_t>(count));
  EXPECT_EQ(oracle.name(count - 1), "d/65536");
  EXPECT_EQ(oracle.read(1234), "content of 1234");

  // Copied, with one member dropped and one added.
  WritePlan copy;
  for (std::size_t i = 1; i < count; ++i) copy.members.emplace_back(i);
  copy.members.emplace_back(new_member("last", "last"));
  const auto copied = dir / "copied.zip";
  auto again = write_archive(&*archive, copy, copied);
  ASSERT_TRUE(again) << again.error().message;
  auto reopened = Archive::open(copied);
  ASSERT_TRUE(reopened) << reopened.error().message;
  ASSERT_EQ(reopened->entries().size(), count);
  EXPECT_EQ(reopened->entries().front().name, "d/00001");
  EXPECT_EQ(*reopened->read(*reopened->find("last")), "last");
  EXPECT_EQ(*reopened->read(*reopened->find("d/01234")), "content of 1234");
}

TEST(ZipWrite, CopiesAcrossFileSystems) {
  // copy_file_range fails between file systems (EXDEV): the plain copy takes over.
  TempDir dir;
  struct stat here {};
  struct stat shm {};
  ASSERT_EQ(::stat(dir.path().c_str(), &here), 0);
  if (::stat("/dev/shm", &shm) != 0 || shm.st_dev == here.st_dev || ::access("/dev/shm", W_OK) != 0) {
    GTEST_SKIP() << "no writable /dev/shm on another file system";
  }
  const auto source_path = dir / "source.whl";
  const auto members = source_members();
  make_libzip_archive(source_path, members);
  auto source = Archive::open(source_path);
  ASSERT_TRUE(source) << source.error().message;
  WritePlan plan;
  for (std::size_t i = 0; i < members.size(); ++i) plan.members.emplace_back(i);
  const fs::path output = fs::path("/dev/shm") / fmt::format("vwheel-zip-test-{}.whl", ::getpid());
  auto written = write_archive(&*source, plan, output);
  ASSERT_TRUE(written) << written.error().message;
  const std::string copy = read_bytes(output);
  fs::remove(output);
  EXPECT_EQ(copy, read_bytes(source_path));
}

TEST(ZipWrite, FailureLeavesNothing) {
  TempDir dir;
  const auto source_path = dir / "source.whl";
  make_libzip_archive(source_path, source_members());
  auto source = Archive::open(source_path);
  ASSERT_TRUE(source) << source.error().message;
  // The source shrinks after it was opened: the copy runs out of bytes.
  fs::resize_file(source_path, source->central_directory_offset() / 2);
  WritePlan plan;
  plan.members = {new_member("first", "1"), std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{3}};
  auto written = write_archive(&*source, plan, dir / "output.whl");
  ASSERT_FALSE(written);
  EXPECT_THAT(written.error().message, HasSubstr("shrank"));
  EXPECT_THAT(dir.listing(), ElementsAre("source.whl"));
}

}  // namespace
