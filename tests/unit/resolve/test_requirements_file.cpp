// The requirements-file parser.

#include <gtest/gtest.h>

#include <string>

#include "vwheel/resolve/requirements_file.hpp"

namespace {

using vwheel::resolve::FileReference;
using vwheel::resolve::parse_requirements_file;

const std::string kSha256A(64, 'a');
const std::string kSha256B = "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef";

TEST(RequirementsFile, EmptyCommentsAndBlankLines) {
  auto f = parse_requirements_file("\n# a comment\n   \n\t# indented comment\n", "req.txt");
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_TRUE(f->requirements.empty());
  EXPECT_EQ(f->source, "req.txt");
  EXPECT_FALSE(f->pre);
}

TEST(RequirementsFile, Requirements) {
  auto f = parse_requirements_file(
      "requests>=2.0  # trailing comment\n"
      "Foo_Bar[extra1, extra2] >= 1.0, < 2 ; python_version >= \"3.8\"\n"
      "\n"
      "numpy#not-a-comment\n",
      "req.txt");
  ASSERT_FALSE(f);  // `numpy#not-a-comment` is not a requirement: `#` only starts a comment after whitespace
  EXPECT_EQ(f.error().message.rfind("req.txt:4: ", 0), 0U) << f.error().message;

  auto g = parse_requirements_file(
      "requests>=2.0  # trailing comment\n"
      "Foo_Bar[extra1, extra2] >= 1.0, < 2 ; python_version >= \"3.8\"\n"
      "\n"
      "numpy\r\n",
      "req.txt");
  ASSERT_TRUE(g) << g.error().message;
  ASSERT_EQ(g->requirements.size(), 3U);
  EXPECT_EQ(g->requirements[0].requirement.to_string(), "requests>=2.0");
  EXPECT_EQ(g->requirements[0].line, 1U);
  EXPECT_EQ(g->requirements[1].requirement.name, "Foo_Bar");
  EXPECT_EQ(g->requirements[1].requirement.extras, (std::vector<std::string>{"extra1", "extra2"}));
  EXPECT_TRUE(g->requirements[1].requirement.marker.has_value());
  EXPECT_EQ(g->requirements[1].line, 2U);
  EXPECT_EQ(g->requirements[2].requirement.name, "numpy");
  EXPECT_EQ(g->requirements[2].line, 4U);
}

TEST(RequirementsFile, EveryOption) {
  auto f = parse_requirements_file(
      "--index-url https://pypi.example/simple\n"
      "-i=https://second.example/simple\n"
      "--extra-index-url=https://extra.example/simple\n"
      "--extra-index-url https://extra2.example/simple\n"
      "--find-links ./wheels\n"
      "-f/opt/wheels\n"
      "--no-index\n"
      "--pre\n"
      "--require-hashes\n"
      "-r base.txt\n"
      "--requirement=../other/reqs.txt\n"
      "-c constraints.txt\n"
      "--constraint more-constraints.txt\n"
      "-rdev.txt\n",
      "req.txt");
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->index_urls, (std::vector<std::string>{"https://pypi.example/simple", "https://second.example/simple"}));
  EXPECT_EQ(f->extra_index_urls,
            (std::vector<std::string>{"https://extra.example/simple", "https://extra2.example/simple"}));
  EXPECT_EQ(f->find_links, (std::vector<std::string>{"./wheels", "/opt/wheels"}));
  EXPECT_TRUE(f->no_index);
  EXPECT_TRUE(f->pre);
  EXPECT_TRUE(f->require_hashes);
  ASSERT_EQ(f->references.size(), 5U);
  EXPECT_EQ(f->references[0].kind, FileReference::Kind::requirement);
  EXPECT_EQ(f->references[0].path, "base.txt");
  EXPECT_EQ(f->references[0].line, 10U);
  EXPECT_EQ(f->references[1].path, "../other/reqs.txt");
  EXPECT_EQ(f->references[2].kind, FileReference::Kind::constraint);
  EXPECT_EQ(f->references[2].path, "constraints.txt");
  EXPECT_EQ(f->references[3].kind, FileReference::Kind::constraint);
  EXPECT_EQ(f->references[3].path, "more-constraints.txt");
  EXPECT_EQ(f->references[4].kind, FileReference::Kind::requirement);
  EXPECT_EQ(f->references[4].path, "dev.txt");
}

TEST(RequirementsFile, HashesAndContinuations) {
  const std::string text =
      "# header\n"
      "foo==1.0 \\\n"
      "    --hash=sha256:" +
      kSha256A +
      " \\\n"
      "    --hash sha256:" +
      kSha256B +
      "\n"
      "bar==2.0 --hash=SHA512:" +
      std::string(128, 'f') +
      "\n"
      "baz \\\n"
      "  >=1.0\n";
  auto f = parse_requirements_file(text, "req.txt");
  ASSERT_TRUE(f) << f.error().message;
  ASSERT_EQ(f->requirements.size(), 3U);
  EXPECT_EQ(f->requirements[0].requirement.to_string(), "foo==1.0");
  EXPECT_EQ(f->requirements[0].line, 2U);
  EXPECT_EQ(f->requirements[0].hashes,
            (std::vector<std::string>{"sha256:" + kSha256A,
                                      "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}));
  EXPECT_EQ(f->requirements[1].line, 5U);
  EXPECT_EQ(f->requirements[1].hashes, (std::vector<std::string>{"sha512:" + std::string(128, 'f')}));
  EXPECT_EQ(f->requirements[2].requirement.to_string(), "baz>=1.0");
  EXPECT_EQ(f->requirements[2].line, 6U);
  auto g = parse_requirements_file("x==1 --hash=sha384:" + std::string(96, '0') + "\n", "r");
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->requirements[0].hashes.size(), 1U);
}

TEST(RequirementsFile, ContinuationAtEndOfFile) {
  auto f = parse_requirements_file("foo \\", "r.txt");
  ASSERT_TRUE(f) << f.error().message;
  ASSERT_EQ(f->requirements.size(), 1U);
  EXPECT_EQ(f->requirements[0].requirement.name, "foo");
}

void expect_error(const std::string& text, const std::string& prefix, const std::string& part) {
  auto f = parse_requirements_file(text, "dir/req.txt");
  ASSERT_FALSE(f) << text;
  EXPECT_EQ(f.error().message.rfind(prefix, 0), 0U) << f.error().message;
  EXPECT_NE(f.error().message.find(part), std::string::npos) << f.error().message;
}

TEST(RequirementsFile, Errors) {
  expect_error("ok\n-e ./src\n", "dir/req.txt:2: ", "editable");
  expect_error("--editable=git+https://x/y\n", "dir/req.txt:1: ", "editable");
  expect_error("https://example.com/foo-1.0-py3-none-any.whl\n", "dir/req.txt:1: ", "URLs and paths are not supported");
  expect_error("./local/pkg\n", "dir/req.txt:1: ", "URLs and paths are not supported");
  expect_error("foo @ https://example.com/foo.whl\n", "dir/req.txt:1: ", "direct URL requirements are not supported");
  expect_error("\n\n--trusted-host example.com\n", "dir/req.txt:3: ", "unsupported option `--trusted-host`");
  expect_error("-x\n", "dir/req.txt:1: ", "unsupported option `-x`");
  expect_error("--index-url\n", "dir/req.txt:1: ", "option `--index-url` needs a value");
  expect_error("--pre=yes\n", "dir/req.txt:1: ", "takes no value");
  expect_error("foo --index-url https://x\n", "dir/req.txt:1: ", "not allowed after a requirement");
  expect_error("--hash=sha256:" + kSha256A + "\n", "dir/req.txt:1: ", "must follow a requirement");
  expect_error("foo --hash=md5:abcd\n", "dir/req.txt:1: ", "unsupported hash algorithm `md5`");
  expect_error("foo --hash=sha256:abcd\n", "dir/req.txt:1: ", "64 hex digits");
  expect_error("foo --hash=sha256:" + std::string(64, 'g') + "\n", "dir/req.txt:1: ", "hexadecimal");
  expect_error("foo --hash=sha256\n", "dir/req.txt:1: ", "algorithm:hexdigest");
  expect_error("foo \\\n  --hash=sha256:zz\n", "dir/req.txt:1: ", "sha256:zz");
  expect_error("foo >= \n", "dir/req.txt:1: ", "foo");
  expect_error("a\nb\nfoo[bar\n", "dir/req.txt:3: ", "foo[bar");
}

}  // namespace
