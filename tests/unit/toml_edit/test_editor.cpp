// The TOML editor on documents that have nothing to do with [variant]: exact output, layout kept.

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "vwheel/core/text.hpp"
#include "vwheel/toml_edit/editor.hpp"

namespace vwheel::toml_edit {
namespace {

Editor open_ok(std::string_view text) {
  auto ed = Editor::open(text);
  EXPECT_TRUE(ed) << (ed ? "" : ed.error().message);
  return std::move(*ed);
}

TEST(TomlEditHelpers, PathAndArrayText) {
  EXPECT_EQ(toml_path_text({"tool", "a.b", "c"}), "tool.\"a.b\".c");
  EXPECT_EQ(toml_path_text({"tool", "x", "y"}, 1), "x.y");
  EXPECT_EQ(toml_string_array({"a", "b\"c"}), "[\"a\", \"b\\\"c\"]");
  EXPECT_EQ(toml_string_array({}), "[]");
}

TEST(TomlEditor, SetReplacesAValueAndKeepsItsComment) {
  auto ed = open_ok("# top\n[tool.x]\nname = \"old\"  # why\nother = 1\n");
  ASSERT_TRUE(ed.set_value({"tool", "x"}, "name", toml_string("new")));
  EXPECT_EQ(ed.text(), "# top\n[tool.x]\nname = \"new\"  # why\nother = 1\n");
}

TEST(TomlEditor, NewKeysAndTablesFollowTheFile) {
  auto ed = open_ok("[tool.x]\r\na = 1\r\n\r\n[other]\r\nz = 0\r\n");
  ASSERT_TRUE(ed.set_value({"tool", "x"}, "b", "2"));
  EXPECT_EQ(ed.text(), "[tool.x]\r\na = 1\r\nb = 2\r\n\r\n[other]\r\nz = 0\r\n");
  ASSERT_TRUE(ed.set_value({"tool", "y"}, "c", "true"));
  EXPECT_EQ(ed.text(), "[tool.x]\r\na = 1\r\nb = 2\r\n\r\n[tool.y]\r\nc = true\r\n\r\n[other]\r\nz = 0\r\n");
}

TEST(TomlEditor, ArraysKeepTheirStyle) {
  auto ed = open_ok("list = [\n    \"a\",  # first\n    \"b\",\n]\n");
  ASSERT_TRUE(ed.array_insert({"list"}, 1, toml_string("x")));
  EXPECT_EQ(ed.text(), "list = [\n    \"a\",  # first\n    \"x\",\n    \"b\",\n]\n");
  auto removed = ed.array_remove({"list"}, "a");
  ASSERT_TRUE(removed);
  EXPECT_EQ(*removed, 1U);
  EXPECT_EQ(ed.text(), "list = [\n    \"x\",\n    \"b\",\n]\n");
  auto size = ed.array_size({"list"});
  ASSERT_TRUE(size);
  EXPECT_EQ(*size, 2U);
}

TEST(TomlEditor, RemoveATable) {
  auto ed = open_ok("[a]\nk = 1\n\n[b]\nk = 2\n# after b\n\n[c]\nk = 3\n");
  auto removed = ed.remove({"b"}, {"b"});
  ASSERT_TRUE(removed);
  EXPECT_EQ(*removed, 1U);
  EXPECT_EQ(ed.text(), "[a]\nk = 1\n# after b\n\n[c]\nk = 3\n");
}

TEST(TomlEditor, InlineTablesAreNotEditedInPlace) {
  auto ed = open_ok("[tool]\nx = { y = 1 }\n");
  auto r = ed.set_value({"tool", "x"}, "z", "2");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("line 2"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("[tool.x]"), std::string::npos) << r.error().message;
  EXPECT_EQ(ed.text(), "[tool]\nx = { y = 1 }\n");
}

TEST(TomlEditor, OpenFailsOnTextTheScannerCannotSplit) {
  auto ed = Editor::open("a = \"unterminated\n");
  ASSERT_FALSE(ed);
  EXPECT_EQ(ed.error().message.rfind("line 1:", 0), 0U) << ed.error().message;
}

}  // namespace
}  // namespace vwheel::toml_edit
