#include <gtest/gtest.h>

#include "vwheel/plan/sdist.hpp"

using vwheel::plan::add_format_option;
using vwheel::plan::FormatControl;
using vwheel::plan::sdist_metadata_is_static;

TEST(FormatControl, NothingGivenAllowsBoth) {
  FormatControl f;
  EXPECT_TRUE(f.allows_wheel("a"));
  EXPECT_TRUE(f.allows_sdist("a"));
}

TEST(FormatControl, NamesAreCanonicalAndCommaSeparated) {
  FormatControl f;
  ASSERT_TRUE(add_format_option(f, true, "Foo_Bar, baz"));
  EXPECT_FALSE(f.allows_wheel("foo-bar"));
  EXPECT_FALSE(f.allows_wheel("baz"));
  EXPECT_TRUE(f.allows_sdist("foo-bar"));
  EXPECT_TRUE(f.allows_wheel("other"));
}

TEST(FormatControl, AllAndAnExplicitNameOfTheOtherOption) {
  FormatControl f;
  ASSERT_TRUE(add_format_option(f, false, ":all:"));
  EXPECT_FALSE(f.allows_sdist("a"));
  EXPECT_TRUE(f.allows_wheel("a"));
  // pip: `--only-binary :all: --no-binary a` builds a, and only a.
  ASSERT_TRUE(add_format_option(f, true, "a"));
  EXPECT_TRUE(f.allows_sdist("a"));
  EXPECT_FALSE(f.allows_wheel("a"));
  EXPECT_FALSE(f.allows_sdist("b"));
}

TEST(FormatControl, AllTakesItselfOutOfTheOtherAndNoneEmpties) {
  FormatControl f;
  ASSERT_TRUE(add_format_option(f, true, ":all:"));
  ASSERT_TRUE(add_format_option(f, false, ":all:"));
  EXPECT_TRUE(f.allows_wheel("a"));
  EXPECT_FALSE(f.allows_sdist("a"));
  ASSERT_TRUE(add_format_option(f, false, ":none:"));
  EXPECT_TRUE(f.allows_sdist("a"));
  EXPECT_TRUE(f.allows_wheel("a"));
}

TEST(FormatControl, ANameMovesBetweenTheSets) {
  FormatControl f;
  ASSERT_TRUE(add_format_option(f, true, "a"));
  ASSERT_TRUE(add_format_option(f, false, "a"));
  EXPECT_TRUE(f.allows_wheel("a"));
  EXPECT_FALSE(f.allows_sdist("a"));
}

TEST(FormatControl, BadValuesNameTheOption) {
  FormatControl f;
  auto r = add_format_option(f, true, "a,,b");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("--no-binary `a,,b`"), std::string::npos) << r.error().message;
  r = add_format_option(f, false, "no good");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("--only-binary"), std::string::npos);
}

TEST(SdistMetadata, StaticFrom22WithoutDynamicDependencies) {
  EXPECT_TRUE(sdist_metadata_is_static("Metadata-Version: 2.2\nName: a\nVersion: 1\nRequires-Dist: b\n"));
  EXPECT_TRUE(sdist_metadata_is_static("Metadata-Version: 2.4\r\nName: a\r\nDynamic: Description\r\n\r\nbody\n"));
  EXPECT_TRUE(sdist_metadata_is_static("metadata-version: 2.3\nName: a\nDynamic: license\n"));
}

TEST(SdistMetadata, OlderOrDynamicDependenciesAreNot) {
  EXPECT_FALSE(sdist_metadata_is_static("Metadata-Version: 2.1\nName: a\nVersion: 1\n"));
  EXPECT_FALSE(sdist_metadata_is_static("Name: a\nVersion: 1\n"));
  EXPECT_FALSE(sdist_metadata_is_static("Metadata-Version: 2.2\nName: a\nDynamic: Requires-Dist\n"));
  EXPECT_FALSE(sdist_metadata_is_static("Metadata-Version: 2.2\nName: a\nDynamic: requires-python\n"));
  EXPECT_FALSE(sdist_metadata_is_static("Metadata-Version: 2.4\nName: a\nDynamic: Provides-Extra\n"));
  EXPECT_FALSE(sdist_metadata_is_static("Metadata-Version: nonsense\nName: a\n"));
}

TEST(SdistMetadata, TheDescriptionIsNotHeaders) {
  EXPECT_TRUE(sdist_metadata_is_static("Metadata-Version: 2.2\nName: a\n\nDynamic: Requires-Dist\n"));
}
