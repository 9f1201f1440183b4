#include <gtest/gtest.h>

#include "vwheel/wheel/record.hpp"

namespace vwheel::wheel {
namespace {

TEST(Record, ParsesPlainQuotedAndBlankLines) {
  auto rows = parse_record("a.py,sha256=abc,3\r\n\n\"we,ird\"\"name.py\",sha256=def,10\npkg-1.0.dist-info/RECORD,,\n");
  ASSERT_TRUE(rows) << rows.error().message;
  ASSERT_EQ(rows->size(), 3U);
  EXPECT_EQ((*rows)[0].path, "a.py");
  EXPECT_EQ((*rows)[0].hash, "sha256=abc");
  EXPECT_EQ((*rows)[0].size, "3");
  EXPECT_EQ((*rows)[1].path, "we,ird\"name.py");
  EXPECT_EQ((*rows)[2].hash, "");
}

TEST(Record, RejectsWrongFieldCountAndOpenQuote) {
  auto two = parse_record("a.py,sha256=abc\n");
  ASSERT_FALSE(two);
  EXPECT_NE(two.error().message.find("line 1"), std::string::npos);
  EXPECT_NE(two.error().message.find("found 2"), std::string::npos);
  auto open = parse_record("ok.py,,\n\"never closed,,\n");
  ASSERT_FALSE(open);
  EXPECT_NE(open.error().message.find("unterminated"), std::string::npos);
}

TEST(Record, HashIsUrlsafeBase64WithoutPadding) {
  // sha256("") = e3b0c442...; its urlsafe base64 is well known from pip's RECORD files.
  EXPECT_EQ(record_hash(""), "sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
  EXPECT_EQ(base64url_nopad("f"), "Zg");
  EXPECT_EQ(base64url_nopad("fo"), "Zm8");
  EXPECT_EQ(base64url_nopad("foo"), "Zm9v");
  EXPECT_EQ(base64url_nopad("\xfb\xff"), "-_8");
}

TEST(Record, LineQuotesPathsThatNeedIt) {
  EXPECT_EQ(record_line("a/b.json", "x"), "a/b.json,sha256=LXEWQrcmsEQBYnyp-6wy9chTD7GQPMTbAiWHF5IaSIE,1\n");
  const auto line = record_line("a,\"b", "");
  EXPECT_EQ(line.substr(0, 8), "\"a,\"\"b\",");
  auto back = parse_record(line);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->front().path, "a,\"b");
}

TEST(Record, ReplaceKeepsOtherLinesByteForByte) {
  const std::string record = "a.py,sha256=x,1\r\nd/variant.json,sha256=old,5\r\nd/RECORD,,\r\n";
  auto out = replace_record_entry(record, "d/variant.json", std::string_view("d/variant.json,sha256=new,6\n"));
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, "a.py,sha256=x,1\r\nd/RECORD,,\r\nd/variant.json,sha256=new,6\n");
  auto dropped = replace_record_entry(*out, "d/variant.json", std::nullopt);
  ASSERT_TRUE(dropped);
  EXPECT_EQ(*dropped, "a.py,sha256=x,1\r\nd/RECORD,,\r\n");
}

TEST(Record, ReplaceAddsLineEndBeforeAppending) {
  auto out = replace_record_entry("a.py,sha256=x,1", "v.json", std::string_view("v.json,sha256=y,2\n"));
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, "a.py,sha256=x,1\nv.json,sha256=y,2\n");
}

}  // namespace
}  // namespace vwheel::wheel
