#include <gtest/gtest.h>

#include "vwheel/plan/sources.hpp"

using vwheel::plan::looks_like_path;
using vwheel::plan::parse_source;

TEST(Sources, RequirementsByNameAreNotSources) {
  for (const char* text : {"requests", "torch>=2.1", "a[x]; python_version > '3.8'", "name==1.0"}) {
    auto r = parse_source(text);
    ASSERT_TRUE(r) << text;
    EXPECT_FALSE(*r) << text;
  }
}

TEST(Sources, PathsAreSources) {
  EXPECT_TRUE(looks_like_path("."));
  EXPECT_TRUE(looks_like_path("./proj"));
  EXPECT_TRUE(looks_like_path("/abs/proj"));
  EXPECT_TRUE(looks_like_path("dist/x-1.0.tar.gz"));
  EXPECT_TRUE(looks_like_path("x-1.0.zip"));
  EXPECT_TRUE(looks_like_path("x-1.0-py3-none-any.whl"));
  EXPECT_FALSE(looks_like_path("proj"));
  auto r = parse_source("  ./proj ");
  ASSERT_TRUE(r && *r);
  EXPECT_EQ((*r)->path, "./proj");
  EXPECT_FALSE((*r)->name);
  EXPECT_TRUE((*r)->url.empty());
}

TEST(Sources, FileUrlsAreDecodedPaths) {
  auto r = parse_source("demo @ file:///tmp/my%20proj");
  ASSERT_TRUE(r && *r);
  EXPECT_EQ((*r)->name, "demo");
  EXPECT_EQ((*r)->path, "/tmp/my proj");
  auto localhost = parse_source("demo @ file://localhost/tmp/x.tar.gz");
  ASSERT_TRUE(localhost && *localhost);
  EXPECT_EQ((*localhost)->path, "/tmp/x.tar.gz");
  EXPECT_FALSE(parse_source("demo @ file://otherhost/tmp/x"));
}

TEST(Sources, HttpsUrlWithSha256) {
  const std::string hex(64, 'A');
  auto r = parse_source("demo @ https://host/d/demo-1.0-py3-none-any.whl#sha256=" + hex);
  ASSERT_TRUE(r && *r);
  EXPECT_EQ((*r)->url, "https://host/d/demo-1.0-py3-none-any.whl");
  EXPECT_EQ((*r)->sha256, std::string(64, 'a'));
  EXPECT_FALSE((*r)->path);
}

TEST(Sources, UnsupportedFormsAreErrors) {
  auto git = parse_source("demo @ git+https://host/repo.git");
  ASSERT_FALSE(git);
  EXPECT_NE(git.error().message.find("git+https"), std::string::npos);
  EXPECT_FALSE(parse_source("demo @ https://host/x.whl#md5=abc"));
  EXPECT_FALSE(parse_source("demo @ https://host/x.whl#sha256=abc"));  // not 64 hex digits
  auto egg = parse_source("demo @ https://host/x.tar.gz#egg=demo");
  ASSERT_TRUE(egg && *egg);
  EXPECT_FALSE((*egg)->sha256);
}

TEST(Sources, EditableIsAPathEvenWithoutASlash) {
  auto r = vwheel::plan::parse_editable(" proj ");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->editable);
  EXPECT_EQ(r->path, "proj");
  EXPECT_EQ(r->text, "-e proj");
  EXPECT_FALSE(r->name);
}

TEST(Sources, EditableUrlsAndEmptyPathsAreErrors) {
  for (const char* text : {"", "https://host/x.tar.gz", "x @ file:///p", "git+https://host/r.git"}) {
    auto r = vwheel::plan::parse_editable(text);
    ASSERT_FALSE(r) << text;
    EXPECT_EQ(r.error().message.find('\n'), std::string::npos) << r.error().message;
  }
}
