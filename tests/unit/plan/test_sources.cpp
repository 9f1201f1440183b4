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
  auto svn = parse_source("demo @ svn+https://host/repo");
  ASSERT_FALSE(svn);
  EXPECT_NE(svn.error().message.find("svn+https"), std::string::npos);
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

TEST(Sources, GitUrlsWithRevisionAndSubdirectory) {
  auto r = parse_source("demo @ git+https://host/org/repo.git@v1.0#subdirectory=pkgs/demo/");
  ASSERT_TRUE(r && *r) << (r ? "" : r.error().message);
  EXPECT_EQ((*r)->name, "demo");
  EXPECT_EQ((*r)->git_url, "https://host/org/repo.git");
  EXPECT_EQ((*r)->revision, "v1.0");
  EXPECT_EQ((*r)->subdirectory, "pkgs/demo");
  EXPECT_TRUE((*r)->url.empty());
  EXPECT_FALSE((*r)->path);
  // The userinfo's `@` is not a revision; no `@REV` is the remote's HEAD.
  auto ssh = parse_source("demo @ git+ssh://git@host/repo.git");
  ASSERT_TRUE(ssh && *ssh);
  EXPECT_EQ((*ssh)->git_url, "ssh://git@host/repo.git");
  EXPECT_FALSE((*ssh)->revision);
  auto both = parse_source("demo @ git+https://tok@host/repo@0123456789abcdef0123456789abcdef01234567");
  ASSERT_TRUE(both && *both);
  EXPECT_EQ((*both)->git_url, "https://tok@host/repo");
  EXPECT_EQ((*both)->revision, "0123456789abcdef0123456789abcdef01234567");
}

TEST(Sources, GitFileUrlsNamedOrBare) {
  auto named = parse_source("demo @ git+file:///srv/repo@main");
  ASSERT_TRUE(named && *named) << (named ? "" : named.error().message);
  EXPECT_EQ((*named)->git_url, "file:///srv/repo");
  EXPECT_EQ((*named)->revision, "main");
  // pip's bare form: the name from `#egg=`, or none (the built wheel names it).
  auto bare = parse_source("git+file:///srv/repo@main#egg=demo&subdirectory=sub");
  ASSERT_TRUE(bare && *bare) << (bare ? "" : bare.error().message);
  EXPECT_EQ((*bare)->name, "demo");
  EXPECT_EQ((*bare)->git_url, "file:///srv/repo");
  EXPECT_EQ((*bare)->subdirectory, "sub");
  auto unnamed = parse_source("git+https://host/repo");
  ASSERT_TRUE(unnamed && *unnamed);
  EXPECT_FALSE((*unnamed)->name);
  EXPECT_EQ((*unnamed)->git_url, "https://host/repo");
}

TEST(Sources, BadGitReferencesAreErrors) {
  EXPECT_FALSE(parse_source("demo @ git+https://host/repo@"));                   // empty revision
  EXPECT_FALSE(parse_source("demo @ git+https://host/repo#subdirectory=../x"));  // leaves the checkout
  EXPECT_FALSE(parse_source("demo @ git+https://host/repo#subdirectory=/abs"));
  EXPECT_FALSE(parse_source("demo @ git+https://host/repo#sha256=" + std::string(64, 'a')));  // not for git
  EXPECT_FALSE(parse_source("demo @ https://host/x.tar.gz#subdirectory=sub"));                // only for git
  auto scheme = parse_source("demo @ git+ftp://host/repo");
  ASSERT_FALSE(scheme);
  EXPECT_NE(scheme.error().message.find("git+ssh://"), std::string::npos);
  auto secret = parse_source("demo @ git+https://alice:s3cret@host/repo#subdirectory=..");
  ASSERT_FALSE(secret);
  EXPECT_EQ(secret.error().message.find("s3cret"), std::string::npos) << secret.error().message;
}

TEST(Sources, GitSourceIsWhatItsTextParsesTo) {
  const auto made = vwheel::plan::git_source("demo", "https://host/repo.git", std::string(40, 'a'), "sub");
  auto parsed = parse_source(made.text);
  ASSERT_TRUE(parsed && *parsed) << made.text;
  EXPECT_EQ(made.text, "demo @ git+https://host/repo.git@" + std::string(40, 'a') + "#subdirectory=sub");
  EXPECT_EQ((*parsed)->name, made.name);
  EXPECT_EQ((*parsed)->git_url, made.git_url);
  EXPECT_EQ((*parsed)->revision, made.revision);
  EXPECT_EQ((*parsed)->subdirectory, made.subdirectory);
}
