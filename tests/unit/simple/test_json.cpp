// JSON project pages (PEP 691 v1.x, with PEP 700's fields and PEP 714's `core-metadata`).

#include <gtest/gtest.h>

#include <string>

#include "vwheel/simple/project_page.hpp"

namespace {

using namespace vwheel::simple;
using Hashes = std::map<std::string, std::string>;

constexpr std::string_view kPage = "https://pypi.org/simple/torch/";

ProjectPage parsed(std::string_view body, std::string_view url = kPage) {
  auto r = parse_json_page(body, url);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message);
  return r ? *r : ProjectPage{};
}

void expect_error(std::string_view body, std::string_view needle, std::string_view url = kPage) {
  auto r = parse_json_page(body, url);
  ASSERT_FALSE(r.has_value()) << "parsed with " << r->files.size() << " files";
  const auto& msg = r.error().message;
  EXPECT_TRUE(msg.starts_with(std::string(url) + ": ")) << msg;
  EXPECT_NE(msg.find(needle), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

std::string page_with_file(std::string_view file) {
  return std::string(R"({"meta": {"api-version": "1.1"}, "name": "torch", "files": [)") + std::string(file) + "]}";
}

TEST(JsonPage, PipStylePage) {
  const std::string_view body = R"({
  "meta": {"_last-serial": 31415, "api-version": "1.1"},
  "name": "torch",
  "versions": ["2.8.0", "2.9.0"],
  "files": [
    {
      "filename": "torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64.whl",
      "url": "https://files.pythonhosted.org/packages/6a/81/torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64.whl",
      "hashes": {"SHA256": "ABCDEF0123", "blake2b_256": "6a81"},
      "requires-python": ">=3.10",
      "core-metadata": {"sha256": "2222BB"},
      "data-dist-info-metadata": {"sha256": "2222bb"},
      "dist-info-metadata": {"sha256": "1111aa"},
      "size": 899812345,
      "upload-time": "2025-10-15T17:12:44.123456Z",
      "yanked": false
    },
    {
      "filename": "torch-2.8.0.tar.gz",
      "url": "../../packages/torch-2.8.0.tar.gz#sha256=ABCD",
      "hashes": {},
      "requires-python": null,
      "dist-info-metadata": true,
      "yanked": "broken build"
    },
    {
      "filename": "torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-cu128.whl",
      "url": "/variants/whatever-the-url-says.whl#sha256=ff",
      "hashes": {"sha256": "0011"},
      "core-metadata": false,
      "dist-info-metadata": true,
      "yanked": true
    },
    {"filename": "torch-2.9.0-variants.json", "url": "torch-2.9.0-variants.json", "hashes": {"sha256": "00"}, "size": 0}
  ]
})";
  const ProjectPage page = parsed(body);
  EXPECT_EQ(page.url, kPage);
  EXPECT_EQ(page.api_version, "1.1");
  EXPECT_EQ(page.name, "torch");
  EXPECT_EQ(page.versions, (std::vector<std::string>{"2.8.0", "2.9.0"}));
  ASSERT_EQ(page.files.size(), 4U);

  const FileLink& a = page.files[0];
  EXPECT_EQ(a.filename, "torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64.whl");
  EXPECT_EQ(a.url, "https://files.pythonhosted.org/packages/6a/81/torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64.whl");
  EXPECT_EQ(a.hashes, (Hashes{{"blake2b_256", "6a81"}, {"sha256", "abcdef0123"}}));
  EXPECT_EQ(a.requires_python, ">=3.10");
  EXPECT_EQ(a.core_metadata, (Hashes{{"sha256", "2222bb"}}));
  EXPECT_EQ(a.size, 899812345U);
  EXPECT_EQ(a.upload_time, "2025-10-15T17:12:44.123456Z");
  EXPECT_FALSE(a.yanked.has_value());

  const FileLink& b = page.files[1];
  EXPECT_EQ(b.url, "https://pypi.org/packages/torch-2.8.0.tar.gz");
  EXPECT_EQ(b.hashes, (Hashes{{"sha256", "abcd"}}));  // from the fragment, as `hashes` is empty
  EXPECT_FALSE(b.requires_python.has_value());
  EXPECT_EQ(b.core_metadata, Hashes{});
  EXPECT_EQ(b.yanked, "broken build");
  EXPECT_FALSE(b.size.has_value());

  const FileLink& c = page.files[2];
  EXPECT_EQ(c.filename, "torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-cu128.whl");  // JSON's filename wins
  EXPECT_EQ(c.url, "https://pypi.org/variants/whatever-the-url-says.whl");
  EXPECT_EQ(c.hashes, (Hashes{{"sha256", "0011"}}));
  EXPECT_FALSE(c.core_metadata.has_value());  // `core-metadata: false` wins over the old name
  EXPECT_EQ(c.yanked, "");

  const FileLink& d = page.files[3];
  EXPECT_EQ(d.filename, "torch-2.9.0-variants.json");
  EXPECT_EQ(d.url, "https://pypi.org/simple/torch/torch-2.9.0-variants.json");
  EXPECT_EQ(d.size, 0U);
}

TEST(JsonPage, MinimalAndMinorVersions) {
  for (const auto* version : {"1.0", "1.1", "1.4", "1.99", "1"}) {
    const ProjectPage page =
        parsed(std::string(R"({"meta": {"api-version": ")") + version + R"("}, "name": "x", "files": []})");
    EXPECT_EQ(page.api_version, version);
    EXPECT_TRUE(page.files.empty());
  }
  // Unknown keys are ignored; `name` and `versions` are optional.
  const ProjectPage page = parsed(
      R"({"meta": {"api-version": "1.0", "extra": [1, 2]}, "files": [{"filename": "x-1.tar.gz", "url": "x-1.tar.gz", "new-key": {}}], "other": null})");
  ASSERT_EQ(page.files.size(), 1U);
  EXPECT_FALSE(page.name.has_value());
  EXPECT_TRUE(page.files[0].hashes.empty());
}

TEST(JsonPage, MalformedPagesAreErrorsNamingTheUrl) {
  expect_error(R"({"meta": {"api-version": "1.0"}, "files": [)", "invalid JSON: parse error at line 1, column 44");
  expect_error("", "invalid JSON");
  expect_error(R"({"meta": {"api-version": "1.0"}, "files": [], "x": 7E77777})", "invalid JSON: number overflow");
  expect_error("\xff", "invalid JSON");
  expect_error("[]", "expected a JSON object");
  expect_error(R"({"files": []})", "missing `meta` object");
  expect_error(R"({"meta": {"api-version": 1.0}, "files": []})", "`meta.api-version` must be a string");
  expect_error(R"({"meta": {"api-version": "2.0"}, "files": []})",
               "unsupported `meta.api-version` `2.0` (expected 1.x)");
  expect_error(R"({"meta": {"api-version": "0.9"}, "files": []})", "unsupported `meta.api-version`");
  expect_error(R"({"meta": {"api-version": "1.x"}, "files": []})", "unsupported `meta.api-version`");
  expect_error(R"({"meta": {"api-version": "10.0"}, "files": []})", "unsupported `meta.api-version`");
  expect_error(R"({"meta": {"api-version": "1.0"}})", "missing `files`");
  expect_error(R"({"meta": {"api-version": "1.0"}, "files": {"a": 1}})", "`files` is not a list");
  expect_error(R"({"meta": {"api-version": "1.0"}, "name": 3, "files": []})", "`name` must be a string");
  expect_error(R"({"meta": {"api-version": "1.0"}, "versions": [1], "files": []})", "`versions` must be a list");
  expect_error(page_with_file("3"), "files[0] is not an object");
  expect_error(page_with_file(R"({"url": "x"})"), "files[0]: `filename` must be a string");
  expect_error(page_with_file(R"({"filename": "x-1.tar.gz"})"), "files[0] (`x-1.tar.gz`): `url` must be a string");
  expect_error(page_with_file(R"({"filename": "../../etc/passwd", "url": "x"})"),
               "invalid file name `../../etc/passwd`");
  expect_error(page_with_file(R"({"filename": "a\u0000b", "url": "x"})"), "invalid file name");
  expect_error(page_with_file(R"j({"filename": "x", "url": "javascript:alert(1)"})j"), "unsupported URL scheme");
  expect_error(page_with_file(R"({"filename": "x", "url": "x", "hashes": []})"), "`hashes` must be an object");
  expect_error(page_with_file(R"({"filename": "x", "url": "x", "hashes": {"sha256": 5}})"), "`sha256` must be a hex");
  expect_error(page_with_file(R"({"filename": "x", "url": "x", "hashes": {"sha256": "xyz"}})"), "must be a hex");
  expect_error(page_with_file(R"({"filename": "x", "url": "x", "hashes": {"sha 256": "00"}})"), "invalid hash name");
  expect_error(page_with_file(R"({"filename": "x", "url": "x", "yanked": 1})"),
               "`yanked` must be a boolean or a string");
  expect_error(page_with_file(R"({"filename": "x", "url": "x", "size": -1})"), "`size` must be a non-negative integer");
  expect_error(page_with_file(R"({"filename": "x", "url": "x", "size": 1.5})"),
               "`size` must be a non-negative integer");
  expect_error(page_with_file(R"({"filename": "x", "url": "x", "requires-python": [">=3"]})"), "`requires-python`");
  expect_error(page_with_file(R"({"filename": "x", "url": "x", "core-metadata": "true"})"), "`core-metadata` must be");
  expect_error(page_with_file(R"({"filename": "x", "url": "x", "dist-info-metadata": {"sha256": 1}})"),
               "`dist-info-metadata` `sha256` must be");
  expect_error(page_with_file(R"({"filename": "x", "url": "x", "upload-time": 5})"), "`upload-time`");
  expect_error(std::string(100000, '[') + std::string(100000, ']'), "nested more than 64 levels");
  expect_error(R"({"meta": {"api-version": "1.0"}, "files": []})", "not absolute", "relative/url");
}

TEST(JsonPage, UntrustedJsonErrorsArePlaced) {
  // Which of two digests an installer checks must not depend on its JSON parser.
  const auto body = page_with_file(R"({"filename": "x-1.tar.gz", "url": "x", "hashes": {"sha256": "00", "sha256": "11"}})");
  auto dup = parse_json_page(body, kPage);
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().message, std::string(kPage) +
                                     ": invalid JSON: key \"sha256\" appears twice in the same object at "
                                     "/files/0/hashes/sha256 (line 1, column " +
                                     std::to_string(body.rfind("\"sha256\"") + 8) + ")");
  auto deep = parse_json_page(std::string(65, '[') + std::string(65, ']'), kPage);
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().message, std::string(kPage) + ": invalid JSON: nested more than 64 levels deep at " +
                                      [] {
                                        std::string p;
                                        for (int i = 0; i < 64; ++i) p += "/0";
                                        return p;
                                      }() +
                                      " (line 1, column 65)");
}

TEST(JsonPage, LargePageParses) {
  std::string body = R"({"meta": {"api-version": "1.1"}, "name": "big", "files": [)";
  constexpr int kFiles = 20000;
  for (int i = 0; i < kFiles; ++i) {
    if (i > 0) body += ',';
    body += R"({"filename": "big-)" + std::to_string(i) + R"(.tar.gz", "url": "../../f/big-)" + std::to_string(i) +
            R"(.tar.gz", "hashes": {"sha256": "abc"}, "yanked": false})";
  }
  body += "]}";
  const ProjectPage page = parsed(body);
  ASSERT_EQ(page.files.size(), static_cast<std::size_t>(kFiles));
  EXPECT_EQ(page.files.back().url, "https://pypi.org/f/big-19999.tar.gz");
}

}  // namespace

namespace {

// PEP 825: clients MUST ignore these attributes on a `*-variants.json` entry, even malformed ones.
TEST(JsonPage, VariantsJsonEntryAttributesAreIgnored) {
  const auto page = parsed(page_with_file(R"(
    {"filename": "torch-2.9.0-variants.json", "url": "torch-2.9.0-variants.json", "hashes": {"sha256": "aa"},
     "yanked": true, "requires-python": ">=3.99", "core-metadata": {"sha256": "bb"}, "size": 7},
    {"filename": "torch-2.9.0.dev1-variants.json", "url": "x-variants.json", "hashes": {},
     "yanked": 3, "requires-python": 4, "dist-info-metadata": "bad"},
    {"filename": "torch-2.9.0.tar.gz", "url": "torch-2.9.0.tar.gz", "hashes": {}, "yanked": true,
     "requires-python": ">=3.10"})"));
  ASSERT_EQ(page.files.size(), 3U);
  EXPECT_FALSE(page.files[0].yanked);
  EXPECT_FALSE(page.files[0].requires_python);
  EXPECT_FALSE(page.files[0].core_metadata);
  EXPECT_EQ(page.files[0].size, 7U);
  EXPECT_EQ(page.files[0].hashes, (Hashes{{"sha256", "aa"}}));
  EXPECT_FALSE(page.files[1].yanked);
  EXPECT_FALSE(page.files[1].requires_python);
  EXPECT_FALSE(page.files[1].core_metadata);
  // Other files keep them.
  EXPECT_EQ(page.files[2].yanked, "");
  EXPECT_EQ(page.files[2].requires_python, ">=3.10");
}

}  // namespace
