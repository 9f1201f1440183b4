// Project names: PEP 503 normalization (the table of the packaging guide's "Names and
// normalization" plus packaging's test_utils.py), PEP 508 validity and the wheel-file form.

#include <gtest/gtest.h>

#include "vwheel/wheel_name/names.hpp"

namespace {

using namespace vwheel::wheel_name;

TEST(Names, CanonicalizeName) {
  const std::pair<const char*, const char*> cases[] = {
      {"foo", "foo"},
      {"Foo", "foo"},
      {"fOo", "foo"},
      {"foo.bar", "foo-bar"},
      {"Foo.Bar", "foo-bar"},
      {"Foo.....Bar", "foo-bar"},
      {"foo_bar", "foo-bar"},
      {"foo___bar", "foo-bar"},
      {"foo-bar", "foo-bar"},
      {"foo----bar", "foo-bar"},
      {"Friendly-Bard", "friendly-bard"},
      {"FRIENDLY-BARD", "friendly-bard"},
      {"friendly.bard", "friendly-bard"},
      {"friendly_bard", "friendly-bard"},
      {"friendly--bard", "friendly-bard"},
      {"FrIeNdLy-._.-bArD", "friendly-bard"},
      {"a-_.b", "a-b"},
      {"", ""},
  };
  for (const auto& [input, expected] : cases) {
    EXPECT_EQ(canonicalize_name(input), expected) << input;
    EXPECT_TRUE(is_normalized_name(expected)) << expected;
    EXPECT_EQ(canonicalize_name(expected), expected) << "idempotent: " << expected;
  }
}

TEST(Names, IsNormalizedName) {
  for (const char* s : {"foo", "foo-bar", "foo-bar-9", "a"}) EXPECT_TRUE(is_normalized_name(s)) << s;
  for (const char* s : {"Foo", "foo_bar", "foo.bar", "foo--bar"}) EXPECT_FALSE(is_normalized_name(s)) << s;
}

TEST(Names, IsValidProjectName) {
  for (const char* s : {"a", "A", "9", "foo", "Foo.Bar", "foo_bar-baz.qux", "a-b", "a--b", "x1"}) {
    EXPECT_TRUE(is_valid_project_name(s)) << s;
  }
  for (const char* s : {"", "-a", "a-", "_a", "a_", ".a", "a.", "a b", "a+b", "a/b", "café", "a\tb"}) {
    EXPECT_FALSE(is_valid_project_name(s)) << s;
  }
}

TEST(Names, EscapeWheelName) {
  EXPECT_EQ(escape_wheel_name("Foo.Bar-baz"), "foo_bar_baz");
  EXPECT_EQ(escape_wheel_name("foo__bar"), "foo_bar");
  EXPECT_EQ(escape_wheel_name("foo-_.-bar"), "foo_bar");
  EXPECT_EQ(escape_wheel_name("numpy"), "numpy");
  EXPECT_EQ(escape_wheel_name("NVIDIA-CUDA-Runtime-CU12"), "nvidia_cuda_runtime_cu12");
}

}  // namespace
