#include <gtest/gtest.h>

#include <string>

#include "vwheel/zip/zip.hpp"
#include "zip/format.hpp"

namespace {

using namespace vwheel::zip;

constexpr std::uint16_t dos_time(int h, int m, int s) {
  return static_cast<std::uint16_t>((h << 11) | (m << 5) | (s / 2));
}
constexpr std::uint16_t dos_date(int y, int m, int d) {
  return static_cast<std::uint16_t>(((y - 1980) << 9) | (m << 5) | d);
}

TEST(ZipFormat, Crc32) {
  EXPECT_EQ(crc32(""), 0U);
  EXPECT_EQ(crc32("123456789"), 0xCBF43926U);
  EXPECT_EQ(crc32("The quick brown fox jumps over the lazy dog"), 0x414FA339U);
}

TEST(ZipFormat, DosTimeDate) {
  using P = std::pair<std::uint16_t, std::uint16_t>;
  EXPECT_EQ(dos_time_date(315532800), P(0, dos_date(1980, 1, 1)));
  EXPECT_EQ(dos_time_date(0), P(0, dos_date(1980, 1, 1)));
  EXPECT_EQ(dos_time_date(-1000000), P(0, dos_date(1980, 1, 1)));
  EXPECT_EQ(dos_time_date(1709214330), P(dos_time(13, 45, 30), dos_date(2024, 2, 29)));
  EXPECT_EQ(dos_time_date(1709214331), P(dos_time(13, 45, 30), dos_date(2024, 2, 29)));
  EXPECT_EQ(dos_time_date(951782400), P(0, dos_date(2000, 2, 29)));
  EXPECT_EQ(dos_time_date(1704067199), P(dos_time(23, 59, 58), dos_date(2023, 12, 31)));
  EXPECT_EQ(dos_time_date(4354819199), P(dos_time(23, 59, 58), dos_date(2107, 12, 31)));
  EXPECT_EQ(dos_time_date(9000000000), P(dos_time(23, 59, 58), dos_date(2107, 12, 31)));
}

TEST(ZipFormat, UnixMode) {
  Entry e;
  e.external_attributes = (0100755U << 16) | 0x20;
  e.version_made_by = 0x031E;
  EXPECT_EQ(e.unix_mode(), 0100755U);
  e.version_made_by = 0x0014;  // MS-DOS
  EXPECT_EQ(e.unix_mode(), 0U);
  e.name = "dir/";
  EXPECT_TRUE(e.is_directory());
  e.name = "";
  EXPECT_FALSE(e.is_directory());
}

Entry sample_entry() {
  Entry e;
  e.name = "pkg/big.bin";
  e.version_made_by = 0x0314;
  e.version_needed = 20;
  e.flags = 0x0808;
  e.method = 8;
  e.dos_time = 0x1234;
  e.dos_date = 0x5678;
  e.crc32 = 0xDEADBEEF;
  e.compressed_size = 1000;
  e.uncompressed_size = 3000;
  e.internal_attributes = 1;
  e.external_attributes = 0100644U << 16;
  e.extra = std::string("UT\x05\x00\x01\x00\x00\x00\x00", 9);
  e.comment = "a comment";
  return e;
}

Entry round_trip(const Entry& e, std::uint64_t offset, std::string* record = nullptr) {
  std::string out = "prefix";
  vwheel::zip::detail::append_central_record(out, e, offset);
  EXPECT_EQ(out.size() - 6, vwheel::zip::detail::central_record_size(e, offset));
  Entry parsed;
  auto used = vwheel::zip::detail::parse_central_record(out, 6, 0, parsed);
  EXPECT_TRUE(used) << used.error().message;
  if (used) {
    EXPECT_EQ(*used, out.size() - 6);
  }
  if (record != nullptr) *record = out.substr(6);
  return parsed;
}

void expect_same_fields(const Entry& a, const Entry& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.version_made_by, b.version_made_by);
  EXPECT_EQ(a.flags, b.flags);
  EXPECT_EQ(a.method, b.method);
  EXPECT_EQ(a.dos_time, b.dos_time);
  EXPECT_EQ(a.dos_date, b.dos_date);
  EXPECT_EQ(a.crc32, b.crc32);
  EXPECT_EQ(a.compressed_size, b.compressed_size);
  EXPECT_EQ(a.uncompressed_size, b.uncompressed_size);
  EXPECT_EQ(a.internal_attributes, b.internal_attributes);
  EXPECT_EQ(a.external_attributes, b.external_attributes);
  EXPECT_EQ(a.extra, b.extra);
  EXPECT_EQ(a.comment, b.comment);
}

TEST(ZipFormat, CentralRecordWithoutZip64) {
  const Entry e = sample_entry();
  std::string record;
  const Entry parsed = round_trip(e, 123456, &record);
  expect_same_fields(parsed, e);
  EXPECT_EQ(parsed.local_header_offset, 123456U);
  EXPECT_EQ(parsed.version_needed, 20);
  EXPECT_EQ(record.size(), 46 + e.name.size() + e.extra.size() + e.comment.size());
}

TEST(ZipFormat, CentralRecordWithZip64) {
  Entry e = sample_entry();
  constexpr std::uint64_t gib = std::uint64_t{1} << 30;

  std::string record;
  Entry parsed = round_trip(e, 6 * gib, &record);  // only the offset needs zip64
  expect_same_fields(parsed, e);
  EXPECT_EQ(parsed.local_header_offset, 6 * gib);
  EXPECT_EQ(parsed.version_needed, 45);
  EXPECT_EQ(record.size(), 46 + e.name.size() + 12 + e.extra.size() + e.comment.size());

  e.uncompressed_size = 5 * gib;  // the size and the offset
  parsed = round_trip(e, 0xFFFFFFFF, &record);
  expect_same_fields(parsed, e);
  EXPECT_EQ(parsed.local_header_offset, 0xFFFFFFFFU);
  EXPECT_EQ(record.size(), 46 + e.name.size() + 20 + e.extra.size() + e.comment.size());

  e.compressed_size = 0xFFFFFFFF;  // all three
  parsed = round_trip(e, 7 * gib, &record);
  expect_same_fields(parsed, e);
  EXPECT_EQ(parsed.local_header_offset, 7 * gib);
  EXPECT_EQ(record.size(), 46 + e.name.size() + 28 + e.extra.size() + e.comment.size());

  e.compressed_size = 0xFFFFFFFE;  // just below: fits in 32 bits
  e.uncompressed_size = 0xFFFFFFFE;
  parsed = round_trip(e, 0xFFFFFFFE, &record);
  expect_same_fields(parsed, e);
  EXPECT_EQ(parsed.version_needed, 20);
  EXPECT_EQ(record.size(), 46 + e.name.size() + e.extra.size() + e.comment.size());
}

TEST(ZipFormat, CentralRecordErrors) {
  Entry parsed;
  std::string record;
  vwheel::zip::detail::append_central_record(record, sample_entry(), 10);
  auto short_record = vwheel::zip::detail::parse_central_record(std::string_view(record).substr(0, 40), 0, 100, parsed);
  ASSERT_FALSE(short_record);
  EXPECT_NE(short_record.error().message.find("at offset 100 is cut short"), std::string::npos);
  auto cut =
      vwheel::zip::detail::parse_central_record(std::string_view(record).substr(0, record.size() - 1), 0, 0, parsed);
  ASSERT_FALSE(cut);
  EXPECT_NE(cut.error().message.find("runs past the end of the central directory"), std::string::npos);
  std::string on_disk_2 = record;
  on_disk_2[34] = 2;
  auto disk = vwheel::zip::detail::parse_central_record(on_disk_2, 0, 0, parsed);
  ASSERT_FALSE(disk);
  EXPECT_NE(disk.error().message.find("starts on disk 2"), std::string::npos);
}

}  // namespace
