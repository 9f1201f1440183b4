// The pure parts of the index component: escaping, page rendering, the yanked file, file names
// and core metadata.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "index/dist.hpp"
#include "index/pages.hpp"
#include "index/state.hpp"
#include "index/text.hpp"
#include "index/yanked.hpp"

namespace vwheel::index::detail {
namespace {

using nlohmann::json;

TEST(IndexText, HtmlEscapesEverySpecialCharacterAndInvalidUtf8) {
  EXPECT_EQ(html_escape(R"(<a href="x">&'</a>)"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(html_escape(">=3.8"), "&gt;=3.8");
  EXPECT_EQ(html_escape("caf\xC3\xA9"), "caf\xC3\xA9");
  EXPECT_EQ(html_escape("a\xFF"
                        "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(html_escape("\xE0\x80\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong
}

TEST(IndexText, JsonStringsAreValidJson) {
  const std::string nasty = std::string("q\"b\\s/\n\t\x01 ") + "\xC3\xA9" + "\xFE";
  const std::string text = json_string(nasty);
  const auto back = json::parse(text);
  EXPECT_EQ(back.get<std::string>(), std::string("q\"b\\s/\n\t\x01 ") + "\xC3\xA9" + "\xEF\xBF\xBD");
  EXPECT_EQ(json_string("\x1f"), "\"\\u001f\"");
}

TEST(IndexText, UploadTimeIsPep700Format) {
  EXPECT_EQ(format_upload_time(0), "1970-01-01T00:00:00.000000Z");
  EXPECT_EQ(format_upload_time(1'714'979'290'123'456'789), "2024-05-06T07:08:10.123456Z");
}

PageFile sample_file() {
  PageFile f;
  f.filename = "pkg-1.0-py3-none-any.whl";
  f.url = "../../files/pkg/pkg-1.0-py3-none-any.whl";
  f.sha256 = std::string(64, 'a');
  f.size = 1234;
  f.requires_python = ">=3.8, <4";
  f.core_metadata_sha256 = std::string(64, 'b');
  f.upload_time = "2024-05-06T07:08:10.000000Z";
  return f;
}

TEST(IndexPages, ProjectHtmlHasPep503And658Attributes) {
  ProjectPage page;
  page.name = "pkg";
  page.versions = {"1.0"};
  page.files.push_back(sample_file());
  PageFile yanked = sample_file();
  yanked.filename = "pkg-1.0.tar.gz";
  yanked.url = "../../files/pkg/pkg-1.0.tar.gz";
  yanked.requires_python.reset();
  yanked.core_metadata_sha256.reset();
  yanked.yanked = "broken <build> & \"more\"";
  page.files.push_back(yanked);
  const std::string html = render_project_html(page);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0U);
  EXPECT_NE(html.find(R"(<meta name="pypi:repository-version" content="1.1">)"), std::string::npos);
  EXPECT_NE(html.find("<title>Links for pkg</title>"), std::string::npos);
  const std::string a = R"(<a href="../../files/pkg/pkg-1.0-py3-none-any.whl#sha256=)" + std::string(64, 'a') +
                        R"(" data-requires-python="&gt;=3.8, &lt;4" data-core-metadata="sha256=)" +
                        std::string(64, 'b') + R"(" data-dist-info-metadata="sha256=)" + std::string(64, 'b') +
                        R"(">pkg-1.0-py3-none-any.whl</a><br>)";
  EXPECT_NE(html.find(a), std::string::npos) << html;
  EXPECT_NE(html.find(R"(data-yanked="broken &lt;build&gt; &amp; &quot;more&quot;">pkg-1.0.tar.gz</a>)"),
            std::string::npos)
      << html;
  EXPECT_EQ(html.find("data-core-metadata", html.find("pkg-1.0.tar.gz")), std::string::npos);
}

TEST(IndexPages, ProjectJsonHasPep691And700Fields) {
  ProjectPage page;
  page.name = "pkg";
  page.versions = {"1.0", "2.0"};
  page.files.push_back(sample_file());
  PageFile yanked = sample_file();
  yanked.filename = "pkg-2.0-py3-none-any.whl";
  yanked.yanked = "";
  yanked.upload_time.reset();
  page.files.push_back(yanked);
  PageFile reason = yanked;
  reason.filename = "pkg-2.0-py2-none-any.whl";
  reason.yanked = "bad";
  page.files.push_back(reason);
  const auto doc = json::parse(render_project_json(page));
  EXPECT_EQ(doc["meta"]["api-version"], "1.1");
  EXPECT_EQ(doc["name"], "pkg");
  EXPECT_EQ(doc["versions"], json::array({"1.0", "2.0"}));
  ASSERT_EQ(doc["files"].size(), 3U);
  const auto& f = doc["files"][0];
  EXPECT_EQ(f["filename"], "pkg-1.0-py3-none-any.whl");
  EXPECT_EQ(f["url"], "../../files/pkg/pkg-1.0-py3-none-any.whl");
  EXPECT_EQ(f["hashes"], json({{"sha256", std::string(64, 'a')}}));
  EXPECT_EQ(f["requires-python"], ">=3.8, <4");
  EXPECT_EQ(f["yanked"], false);
  EXPECT_EQ(f["core-metadata"], json({{"sha256", std::string(64, 'b')}}));
  EXPECT_FALSE(f.contains("dist-info-metadata"));  // PEP 714: HTML only (pip 22.3-23.1 crash on it in JSON)
  EXPECT_EQ(f["size"], 1234);
  EXPECT_EQ(f["upload-time"], "2024-05-06T07:08:10.000000Z");
  EXPECT_EQ(doc["files"][1]["yanked"], true);
  EXPECT_FALSE(doc["files"][1].contains("upload-time"));
  EXPECT_EQ(doc["files"][2]["yanked"], "bad");
}

// PEP 825: indexes MUST skip `yanked`, `requires-python`, `core-metadata`, `dist-info-metadata` and
// `data-*` attributes on the `*-variants.json` entry, even when the builder has values for them.
TEST(IndexPages, VariantsJsonEntriesCarryNoAttributes) {
  ProjectPage page;
  page.name = "pkg";
  page.versions = {"1.0"};
  PageFile v = sample_file();
  v.filename = "pkg-1.0-variants.json";
  v.url = "../../files/pkg/pkg-1.0-variants.json";
  v.yanked = "";
  page.files.push_back(v);
  page.files.push_back(sample_file());
  const auto doc = json::parse(render_project_json(page));
  ASSERT_EQ(doc["files"].size(), 2U);
  EXPECT_EQ(doc["files"][0], json({{"filename", "pkg-1.0-variants.json"},
                                   {"url", "../../files/pkg/pkg-1.0-variants.json"},
                                   {"hashes", {{"sha256", std::string(64, 'a')}}},
                                   {"size", 1234},
                                   {"upload-time", "2024-05-06T07:08:10.000000Z"}}));
  EXPECT_EQ(doc["files"][1]["yanked"], false);
  EXPECT_EQ(doc["files"][1]["requires-python"], ">=3.8, <4");
  const std::string html = render_project_html(page);
  EXPECT_NE(html.find(R"(<a href="../../files/pkg/pkg-1.0-variants.json#sha256=)" + std::string(64, 'a') +
                      R"(">pkg-1.0-variants.json</a><br>)"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("data-requires-python"), std::string::npos);  // the wheel keeps its attributes
}

TEST(IndexPages, EmptyProjectAndRootPagesAreValid) {
  ProjectPage page;
  page.name = "empty";
  const auto doc = json::parse(render_project_json(page));
  EXPECT_TRUE(doc["files"].empty());
  const std::vector<std::string> projects = {"a-b", "pkg"};
  const auto root = json::parse(render_root_json(projects));
  EXPECT_EQ(root["meta"]["api-version"], "1.1");
  EXPECT_EQ(root["projects"], json::parse(R"([{"name": "a-b"}, {"name": "pkg"}])"));
  EXPECT_TRUE(json::parse(render_root_json({}))["projects"].empty());
  const std::string html = render_root_html(projects, "");
  EXPECT_NE(html.find(R"(<a href="a-b/">a-b</a>)"), std::string::npos) << html;
  const std::string absolute = render_root_html(projects, "https://example.org/pypi/simple/");
  EXPECT_NE(absolute.find(R"(<a href="https://example.org/pypi/simple/pkg/">pkg</a>)"), std::string::npos);
}

TEST(IndexYanked, ParsesFilesVersionsReasonsAndComments) {
  const std::string text =
      "# yanked releases\n"
      "\n"
      "pkg-1.0-py3-none-any.whl\n"
      "  Foo.Bar == 2.0 : broken: really\r\n"
      "pkg==1.1:\n"
      "nothing==9.9\n";
  auto list = YankList::parse(text, "yanked.txt");
  ASSERT_TRUE(list) << list.error().message;
  ASSERT_EQ(list->entries().size(), 4U);
  EXPECT_EQ(list->entries()[0].filename, "pkg-1.0-py3-none-any.whl");
  EXPECT_EQ(list->entries()[0].reason, "");
  EXPECT_EQ(list->entries()[1].project, "foo-bar");
  EXPECT_EQ(list->entries()[1].reason, "broken: really");
  EXPECT_EQ(list->entries()[1].line, 4U);

  const auto v = [](const char* s) { return *pep440::Version::parse(s); };
  const auto* a = list->find("pkg-1.0-py3-none-any.whl", "pkg", v("1.0"));
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->reason, "");
  EXPECT_EQ(list->find("pkg-1.0.tar.gz", "pkg", v("1.0")), nullptr);
  const auto* b = list->find("foo_bar-2.0.0-py3-none-any.whl", "foo-bar", v("2.0.0"));  // 2.0 == 2.0.0
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->reason, "broken: really");
  ASSERT_NE(list->find("pkg-1.1.tar.gz", "pkg", v("1.1")), nullptr);
  const auto warnings = list->unused_warnings();
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_EQ(warnings[0], "yanked.txt:6: `nothing==9.9` matches no file in the index, ignored");
}

TEST(IndexYanked, RejectsMalformedLinesNamingTheLine) {
  auto bad_version = YankList::parse("ok.whl\npkg==not a version\n", "y.txt");
  ASSERT_FALSE(bad_version);
  EXPECT_NE(bad_version.error().message.find("y.txt:2"), std::string::npos) << bad_version.error().message;
  EXPECT_NE(bad_version.error().message.find("not a valid PEP 440 version"), std::string::npos);
  auto bad_project = YankList::parse("-pkg==1.0\n", "y.txt");
  ASSERT_FALSE(bad_project);
  EXPECT_NE(bad_project.error().message.find("not a valid project name"), std::string::npos);
  auto path = YankList::parse("../etc/passwd\n", "y.txt");
  ASSERT_FALSE(path);
  auto empty = YankList::parse(": reason\n", "y.txt");
  ASSERT_FALSE(empty);
}

TEST(IndexDist, IdentifiesWheelsVariantWheelsAndSdists) {
  auto w = identify("Foo.Bar-1.0-py3-none-any.whl");
  ASSERT_TRUE(w && *w);
  EXPECT_EQ((*w)->project, "foo-bar");
  EXPECT_EQ((*w)->kind, DistKind::Wheel);
  EXPECT_FALSE((*w)->variant_namever);
  auto v = identify("foo_bar-1.0-py3-none-any-x86_64_v3.whl");
  ASSERT_TRUE(v && *v);
  EXPECT_EQ((*v)->variant_namever, "foo_bar-1.0");
  auto s = identify("my-pkg-2.0rc1.tar.gz");
  ASSERT_TRUE(s && *s);
  EXPECT_EQ((*s)->kind, DistKind::Sdist);
  EXPECT_EQ((*s)->project, "my-pkg");
  EXPECT_EQ((*s)->version.to_string(), "2.0rc1");
  for (const char* ignored : {"README.md", ".hidden.whl", "pkg-1.0.zip", "pkg-1.0-variants.json"}) {
    auto r = identify(ignored);
    ASSERT_TRUE(r) << ignored;
    EXPECT_FALSE(*r) << ignored;
  }
  for (const char* bad : {"pkg.whl", "pkg-1.0-py3-none.whl", "pkg-notaversion-py3-none-any.whl", "pkg.tar.gz",
                          "-1.0.tar.gz", "_pkg-1.0-py3-none-any.whl"}) {
    auto r = identify(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message.find(bad), std::string::npos) << r.error().message;
  }
}

TEST(IndexState, RoundTripsAndRejectsUnsafeNames) {
  State s;
  s.base_url = "https://x";
  s.root = "r";
  FileState f;
  f.project = "pkg";
  f.stat = {10, -5, 7, 8};
  f.sha256 = std::string(64, 'c');
  f.site_inode = 7;
  f.metadata_sha256 = std::string(64, 'd');
  f.metadata_size = 3;
  f.requires_python = ">=3";
  s.files.emplace("pkg-1.0-py3-none-any.whl", f);
  s.variants.emplace("pkg-1.0-variants.json", VariantsState{"pkg", "i", "h", 4});
  s.pages.emplace("pkg", "p");
  const std::string text = serialize_state(s);
  auto back = parse_state(text);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(serialize_state(*back), text);
  EXPECT_EQ(back->files.at("pkg-1.0-py3-none-any.whl").stat, f.stat);

  // It is JSON; keys in any order and unknown keys are fine.
  auto doc = json::parse(text);
  EXPECT_EQ(doc["files"][0][0], "pkg-1.0-py3-none-any.whl");
  EXPECT_EQ(doc["files"][0][10], ">=3");
  doc["future"] = json::parse(R"({"a": [1, 2.5e3, true, null, "x\u00e9"]})");
  auto reordered = parse_state(doc.dump());
  ASSERT_TRUE(reordered) << reordered.error().message;
  EXPECT_EQ(serialize_state(*reordered), text);
  // Escapes read back as written.
  s.files.begin()->second.requires_python = std::string("\"quoted\"\n\x01 caf\xC3\xA9");
  auto escaped = parse_state(serialize_state(s));
  ASSERT_TRUE(escaped);
  EXPECT_EQ(escaped->files.begin()->second.requires_python, s.files.begin()->second.requires_python);

  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  EXPECT_FALSE(parse_state(replaced("\"pkg-1.0-py3-none-any.whl\"", "\"../../etc/passwd\"")));
  EXPECT_FALSE(parse_state(replaced("[\"pkg\", \"p\"]", "[\"../x\", \"p\"]")));
  EXPECT_FALSE(parse_state(replaced(std::string(64, 'c'), "abc")));
  EXPECT_FALSE(parse_state(text.substr(0, text.size() / 2)));
  EXPECT_FALSE(parse_state("{"));
  EXPECT_FALSE(parse_state(""));
  EXPECT_FALSE(parse_state(R"({"format": 99})"));
  EXPECT_FALSE(parse_state(R"({"files": []})"));

  EXPECT_TRUE(is_safe_project("a-b1"));
  for (const char* bad : {"", "-a", "a-", "a--b", "A", "a_b", "a/b", ".."}) EXPECT_FALSE(is_safe_project(bad)) << bad;
  EXPECT_TRUE(is_safe_filename("pkg-1.0.tar.gz"));
  for (const char* bad : {"", ".", "..", ".x", "a/b", "a\\b"}) EXPECT_FALSE(is_safe_filename(bad)) << bad;
}

}  // namespace
}  // namespace vwheel::index::detail
