// The TOML structure scanner: statement kinds, spans, keys, array elements and errors.

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "vwheel/toml_edit/scan.hpp"

namespace vwheel::toml_edit {
namespace {

using Kind = TomlStatementKind;

std::string span(std::string_view text, std::size_t b, std::size_t e) { return std::string(text.substr(b, e - b)); }

bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

std::vector<TomlStatement> scan_ok(std::string_view text) {
  auto st = scan_toml(text);
  EXPECT_TRUE(st) << (st ? "" : st.error().message);
  if (!st) return {};
  // Every byte belongs to exactly one statement, in order.
  std::size_t pos = 0;
  for (const auto& s : *st) {
    EXPECT_EQ(s.begin, pos);
    EXPECT_LT(s.begin, s.end);
    pos = s.end;
  }
  EXPECT_EQ(pos, text.size());
  return *st;
}

TEST(TomlScanner, StatementKindsKeysAndValueSpans) {
  const std::string text =
      "# top comment\n"
      "\n"
      "name = \"x\" # trailing\n"
      "[ variant . providers . \"a.b\" ]  # header comment\n"
      "  requires = [\n"
      "    \"p1 >=1 ; python_version >= '3.8'\",  # one\n"
      "    'p2[extra]',\n"
      "    # a comment with ] and \"\n"
      "    [\"nested\", [1, 2]],\n"
      "  ]\n"
      "'enable-if' = \"\"\"\n"
      "a ] \"\" # not a comment\n"
      "\"\"\"\"\"\n"
      "lit = '''x ''' # c\n"
      "inline = { a = 1, b = { c = [\"}\"] } }\n"
      "when = 1979-05-27 07:32:00Z # time\n"
      "[[tool.array]]\n"
      "x.\"y\".z = -1.5e3";
  const auto st = scan_ok(text);
  ASSERT_EQ(st.size(), 11U);
  EXPECT_EQ(st[0].kind, Kind::Comment);
  EXPECT_EQ(st[1].kind, Kind::Blank);
  EXPECT_EQ(st[2].kind, Kind::KeyValue);
  EXPECT_EQ(st[2].key, (std::vector<std::string>{"name"}));
  EXPECT_EQ(span(text, st[2].value_begin, st[2].value_end), "\"x\"");
  EXPECT_EQ(st[3].kind, Kind::Table);
  EXPECT_EQ(st[3].key, (std::vector<std::string>{"variant", "providers", "a.b"}));
  EXPECT_EQ(span(text, st[3].key_begin, st[3].key_end), "variant . providers . \"a.b\"");
  EXPECT_EQ(st[3].line, 4U);
  EXPECT_EQ(st[4].kind, Kind::KeyValue);
  EXPECT_EQ(st[4].key, (std::vector<std::string>{"requires"}));
  EXPECT_EQ(st[4].line, 5U);
  EXPECT_TRUE(span(text, st[4].value_begin, st[4].value_end).starts_with("[\n    \"p1"));
  EXPECT_TRUE(span(text, st[4].value_begin, st[4].value_end).ends_with("]],\n  ]"));
  EXPECT_EQ(st[5].key, (std::vector<std::string>{"enable-if"}));
  EXPECT_EQ(st[5].line, 11U);
  EXPECT_TRUE(span(text, st[5].value_begin, st[5].value_end).ends_with("comment\n\"\"\"\"\""));
  EXPECT_EQ(span(text, st[6].value_begin, st[6].value_end), "'''x '''");
  EXPECT_EQ(span(text, st[7].value_begin, st[7].value_end), "{ a = 1, b = { c = [\"}\"] } }");
  EXPECT_EQ(span(text, st[8].value_begin, st[8].value_end), "1979-05-27 07:32:00Z");
  EXPECT_EQ(st[9].kind, Kind::ArrayTable);
  EXPECT_EQ(st[9].key, (std::vector<std::string>{"tool", "array"}));
  EXPECT_EQ(st[10].key, (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_EQ(span(text, st[10].value_begin, st[10].value_end), "-1.5e3");
  EXPECT_EQ(st[10].end, text.size());
}

TEST(TomlScanner, CrlfAndQuotedKeyEscapes) {
  const std::string text = "[\"va\\u0072iant\".'x y']\r\n\"k\\\"q\" = [ 'a' ,\r\n \"b\" ] \r\n\r\n";
  const auto st = scan_ok(text);
  ASSERT_EQ(st.size(), 3U);
  EXPECT_EQ(st[0].key, (std::vector<std::string>{"variant", "x y"}));
  EXPECT_EQ(st[0].end, text.find("\"k"));
  EXPECT_EQ(st[1].key, (std::vector<std::string>{"k\"q"}));
  EXPECT_EQ(st[1].line, 2U);
  EXPECT_EQ(span(text, st[1].value_begin, st[1].value_end), "[ 'a' ,\r\n \"b\" ]");
  EXPECT_EQ(st[2].kind, Kind::Blank);
  EXPECT_EQ(st[2].line, 4U);
}

TEST(TomlScanner, ArrayElementsAreDecoded) {
  const std::string text = "x = [ \"a\\tb\", 'c\\d', [\"n\"], 3, \"\"\"\nml\"\"\", # c ]\n '''\nraw''', ]";
  const auto st = scan_ok(text);
  ASSERT_EQ(st.size(), 1U);
  auto elements = scan_toml_array(text, st[0].value_begin);
  ASSERT_TRUE(elements) << elements.error().message;
  ASSERT_EQ(elements->size(), 6U);
  EXPECT_EQ((*elements)[0].string, "a\tb");
  EXPECT_EQ((*elements)[1].string, "c\\d");
  EXPECT_FALSE((*elements)[2].string);
  EXPECT_EQ(span(text, (*elements)[2].begin, (*elements)[2].end), "[\"n\"]");
  EXPECT_FALSE((*elements)[3].string);
  EXPECT_EQ((*elements)[4].string, "ml");
  EXPECT_EQ((*elements)[5].string, "raw");
}

TEST(TomlScanner, ErrorsNameTheLine) {
  for (const auto& [text, line] : std::vector<std::pair<std::string, std::string>>{
           {"a = 1\nb = \"open\n", "line 2"},
           {"a = 1\n\n[x\n", "line 3"},
           {"a = [1,\n2\n", "line 1"},
           {"a = 1 b\n", "line 1"},
           {"= 1\n", "line 1"},
           {"a = '''never closed\n\n", "line 1"},
       }) {
    auto st = scan_toml(text);
    ASSERT_FALSE(st) << text;
    EXPECT_TRUE(contains(st.error().message, line)) << st.error().message;
  }
}

}  // namespace
}  // namespace vwheel::toml_edit
