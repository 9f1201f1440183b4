// HTML project pages (PEP 503 and the attributes of PEP 592, 629, 658 and 714).

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "vwheel/simple/project_page.hpp"

namespace {

using namespace vwheel::simple;
using Hashes = std::map<std::string, std::string>;

constexpr std::string_view kPage = "https://pypi.org/simple/torch/";

ProjectPage parsed(std::string_view body, std::string_view url = kPage) {
  auto r = parse_html_page(body, url);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message);
  return r ? *r : ProjectPage{};
}

void expect_error(std::string_view body, std::string_view needle, std::string_view url = kPage) {
  auto r = parse_html_page(body, url);
  ASSERT_FALSE(r.has_value()) << "parsed with " << r->files.size() << " files";
  const auto& msg = r.error().message;
  EXPECT_TRUE(msg.starts_with(std::string(url) + ": ")) << msg;
  EXPECT_NE(msg.find(needle), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

TEST(HtmlPage, PypiStylePage) {
  const std::string_view body = R"(<!DOCTYPE html>
<html>
  <head>
    <meta name="pypi:repository-version" content="1.1">
    <title>Links for torch</title>
  </head>
  <body>
    <h1>Links for torch</h1>
    <a href="https://files.pythonhosted.org/packages/6a/81/torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64.whl#sha256=ABCDEF0123456789" data-requires-python="&gt;=3.10" data-dist-info-metadata="sha256=1111aa" data-core-metadata="sha256=2222BB">torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64.whl</a><br />
    <a href="../../packages/torch-2.8.0.tar.gz#sha256=abcd&amp;egg=torch" data-requires-python="&gt;=3.9,&lt;4" data-yanked="broken &quot;build&quot;, see &#35;123">torch-2.8.0.tar.gz</a><br />
    <a href="/variants/torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-cu128.whl" data-core-metadata="true" data-yanked="">torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-cu128.whl</a><br />
    <a href="torch-2.9.0-variants.json#sha256=ff00">torch-2.9.0-variants.json</a><br />
    <a href="torch-2.9.0-py3-none-any.whl" data-dist-info-metadata="true" data-requires-python="">x</a>
  </body>
</html>
<!--SERIAL 31415-->
)";
  const ProjectPage page = parsed(body);
  EXPECT_EQ(page.url, kPage);
  EXPECT_EQ(page.api_version, "1.1");
  ASSERT_EQ(page.files.size(), 5U);

  const FileLink& a = page.files[0];
  EXPECT_EQ(a.filename, "torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64.whl");
  EXPECT_EQ(a.url, "https://files.pythonhosted.org/packages/6a/81/torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64.whl");
  EXPECT_EQ(a.hashes, (Hashes{{"sha256", "abcdef0123456789"}}));
  EXPECT_EQ(a.requires_python, ">=3.10");
  EXPECT_FALSE(a.yanked.has_value());
  EXPECT_EQ(a.core_metadata, (Hashes{{"sha256", "2222bb"}}));  // PEP 714's name wins
  EXPECT_EQ(a.metadata_url(), a.url + ".metadata");
  EXPECT_FALSE(a.size.has_value());

  const FileLink& b = page.files[1];
  EXPECT_EQ(b.filename, "torch-2.8.0.tar.gz");
  EXPECT_EQ(b.url, "https://pypi.org/packages/torch-2.8.0.tar.gz");
  EXPECT_EQ(b.hashes, (Hashes{{"sha256", "abcd"}}));
  EXPECT_EQ(b.requires_python, ">=3.9,<4");
  EXPECT_EQ(b.yanked, "broken \"build\", see #123");
  EXPECT_FALSE(b.core_metadata.has_value());
  EXPECT_FALSE(b.metadata_url().has_value());

  const FileLink& c = page.files[2];
  EXPECT_EQ(c.filename, "torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-cu128.whl");
  EXPECT_EQ(c.url, "https://pypi.org/variants/torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-cu128.whl");
  EXPECT_TRUE(c.hashes.empty());
  EXPECT_EQ(c.yanked, "");  // yanked without a reason
  EXPECT_EQ(c.core_metadata, Hashes{});

  const FileLink& d = page.files[3];
  EXPECT_EQ(d.filename, "torch-2.9.0-variants.json");
  EXPECT_EQ(d.url, "https://pypi.org/simple/torch/torch-2.9.0-variants.json");
  EXPECT_EQ(d.hashes, (Hashes{{"sha256", "ff00"}}));

  const FileLink& e = page.files[4];
  EXPECT_FALSE(e.requires_python.has_value());  // empty means no constraint
  EXPECT_EQ(e.core_metadata, Hashes{});         // from the PEP 658 name
}

TEST(HtmlPage, WeirdQuotingCaseAndEntities) {
  const std::string_view body =
      "<HTML><BODY>\n"
      "<A HREF=pkg-1.0-py3-none-any.whl DATA-REQUIRES-PYTHON='>=3.8' Data-Yanked>one</A>\n"
      "<a\n\thref\n=\n'pkg-1.1.tar.gz?a=1&amp;b=2#SHA512=ABC&md5=0f'>two</a>\n"
      "<a href = \"pkg%2B1.2-py3-none-any.whl\" data-requires-python=\"&#x3E;=3.9\" href=\"ignored.whl\">three</a>\n"
      "<a class=x href=\"  pkg-1.3.tar.gz  \"/>\n"
      "<a name=top>no href</a>\n"
      "<a href=\"pkg-1.4.tar.gz\" data-core-metadata=false data-dist-info-metadata=true>x</a>\n"
      "<a href='pkg-1.5.tar.gz' data-core-metadata=\"sha256=not-hex\">x</a>\n"
      "</BODY></HTML>";
  const ProjectPage page = parsed(body, "https://example.org/simple/pkg/");
  ASSERT_EQ(page.files.size(), 6U);
  EXPECT_EQ(page.files[0].filename, "pkg-1.0-py3-none-any.whl");
  EXPECT_EQ(page.files[0].requires_python, ">=3.8");
  EXPECT_EQ(page.files[0].yanked, "");
  EXPECT_EQ(page.files[1].filename, "pkg-1.1.tar.gz");
  EXPECT_EQ(page.files[1].url, "https://example.org/simple/pkg/pkg-1.1.tar.gz?a=1&b=2");
  EXPECT_EQ(page.files[1].hashes, (Hashes{{"md5", "0f"}, {"sha512", "abc"}}));
  EXPECT_EQ(page.files[2].filename, "pkg+1.2-py3-none-any.whl");
  EXPECT_EQ(page.files[2].url, "https://example.org/simple/pkg/pkg%2B1.2-py3-none-any.whl");
  EXPECT_EQ(page.files[2].requires_python, ">=3.9");
  EXPECT_EQ(page.files[3].filename, "pkg-1.3.tar.gz");
  EXPECT_FALSE(page.files[4].core_metadata.has_value());  // data-core-metadata=false wins
  EXPECT_FALSE(page.files[5].core_metadata.has_value());  // malformed: not served (as pip reads it)
  EXPECT_FALSE(page.api_version.has_value());
}

TEST(HtmlPage, BaseHrefAppliesToAllLinks) {
  const std::string_view body =
      "<html><head><title>x</title></head><body>\n"
      "<a href=\"a-1.0.tar.gz\">a</a>\n"
      "<base href=\"../../mirror/files/\">\n"
      "<base href=\"https://ignored.example/\">\n"
      "<a href=\"../b-1.0.tar.gz\">b</a>\n"
      "<a href=\"/c-1.0.tar.gz\">c</a>\n"
      "<a href=\"https://other.example/d-1.0.tar.gz\">d</a>\n"
      "</body></html>";
  const ProjectPage page = parsed(body, "https://idx.example/simple/a/");
  ASSERT_EQ(page.files.size(), 4U);
  EXPECT_EQ(page.files[0].url, "https://idx.example/mirror/files/a-1.0.tar.gz");
  EXPECT_EQ(page.files[1].url, "https://idx.example/mirror/b-1.0.tar.gz");
  EXPECT_EQ(page.files[2].url, "https://idx.example/c-1.0.tar.gz");
  EXPECT_EQ(page.files[3].url, "https://other.example/d-1.0.tar.gz");
}

TEST(HtmlPage, SkipsCommentsScriptsAndOtherMarkup) {
  const std::string_view body =
      "<!DOCTYPE html><?xml version=\"1.0\"?>\n"
      "<!-- <a href=\"commented.whl\">x</a> -->\n"
      "<script type=\"text/javascript\">if (a<b) document.write('<a href=\"script.whl\">');</script >\n"
      "<STYLE>a > b { } <a href=style.whl></sTyLe>\n"
      "<p>1 < 2 and 3 <> 4, <3 </p>\n"
      "<a href=\"real-1.0.tar.gz\">real</a>\n"
      "<a href=\"./\">a directory</a><a href=\"../\">up</a>\n"
      "</html>";
  const ProjectPage page = parsed(body);
  ASSERT_EQ(page.files.size(), 1U);
  EXPECT_EQ(page.files[0].filename, "real-1.0.tar.gz");
}

TEST(HtmlPage, EmptyPagesHaveNoFiles) {
  EXPECT_TRUE(parsed("").files.empty());
  EXPECT_TRUE(parsed("<html><body><h1>Links for x</h1></body></html>").files.empty());
  EXPECT_TRUE(parsed("just text < and a lone <").files.empty());
}

TEST(HtmlPage, MalformedPagesAreErrorsNamingTheUrl) {
  expect_error("<a href=\"x.whl\">x</a><a href=\"y.whl", "unterminated attribute value at byte 29");
  expect_error("<html><a href=x.whl", "unterminated tag `<a` at byte 6");
  expect_error("<a href=x.whl>x</a", "unterminated tag at byte 15");
  expect_error("<!-- never closed <a href=x.whl>", "unterminated comment at byte 0");
  expect_error("<a href=\"javascript:alert(1)\">x</a>",
               "link `javascript:alert(1)`: URL `javascript:alert(1)`: unsupported URL scheme");
  expect_error("<a href=\"..%2F..%2Fetc%2Fpasswd\">x</a>", "invalid file name `../../etc/passwd`");
  expect_error("<a href=\"x%00.whl\">x</a>", "invalid file name");
  expect_error("<a href=\"%2e%2E\">x</a>", "invalid file name `..`");  // not a dot segment, but `..` is no file name
  expect_error("<meta name=\"pypi:repository-version\" content=\"2.0\">", "unsupported repository version `2.0`");
  expect_error("<base href=\"mailto:x@y\"><a href=x.whl>x</a>", "`<base href>`");
  expect_error("<a href=x.whl>x</a>", "not absolute", "/relative/page/");
  expect_error(std::string("<a href=\"") + std::string(20000, 'a') + "\">", "is longer than 16384 bytes");
}

TEST(HtmlPage, HostileLargePagesParseInBoundedTime) {
  // 5 MB of broken markup: unclosed quotes inside other tags, stray `<`, attribute floods.
  std::string body;
  const std::string chunk =
      "<a href=\"v-1.0.whl\" data-yanked data-yanked=x <b <<< <a href=y>< ><!x><p a=1 b c d e f/>"
      "</ > </x ><a href='z-1.0.tar.gz' = == === ''>&#x;&#99999999;&amp;&\n";
  while (body.size() < 5'000'000) body += chunk;
  const auto start = std::chrono::steady_clock::now();
  const ProjectPage page = parsed(body);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(page.files.size(), 2 * (body.size() / chunk.size()));
  EXPECT_LT(std::chrono::duration_cast<std::chrono::seconds>(elapsed).count(), 60);  // quadratic work would take hours

  // A single tag with a million attributes, then an unterminated one.
  std::string flood = "<a href=x.whl";
  while (flood.size() < 5'000'000) flood += " data-x=1 href=y";
  const auto start2 = std::chrono::steady_clock::now();
  EXPECT_FALSE(parse_html_page(flood, kPage).has_value());
  flood += ">";
  const ProjectPage one = parsed(flood);
  ASSERT_EQ(one.files.size(), 1U);
  EXPECT_EQ(one.files[0].filename, "x.whl");
  // Nothing but `<`, and nothing but `&#`.
  EXPECT_TRUE(parsed(std::string(5'000'000, '<')).files.empty());
  const std::string ref_unit = "<a href=\"&#x31;&#;&amp;\" data-yanked=\"&#&#&#&#\">";
  std::string refs;
  while (refs.size() < 5'000'000) refs += ref_unit;
  const ProjectPage with_refs = parsed(refs);
  ASSERT_EQ(with_refs.files.size(), refs.size() / ref_unit.size());
  EXPECT_EQ(with_refs.files[0].filename, "1&");  // `#` starts the fragment
  EXPECT_EQ(with_refs.files[0].yanked, "&#&#&#&#");
  const auto elapsed2 = std::chrono::steady_clock::now() - start2;
  EXPECT_LT(std::chrono::duration_cast<std::chrono::seconds>(elapsed2).count(), 60);

  // A long base URL with many short links would resolve to far more bytes than the page: refused.
  std::string expand = "<base href=\"https://h/" + std::string(16000, 'p') + "/\">";
  while (expand.size() < 5'000'000) expand += "<a href=a>";
  auto r = parse_html_page(expand, kPage);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("bytes of URLs"), std::string::npos) << r.error().message;
}

TEST(ProjectPage, DispatchesOnContentType) {
  const std::string_view html = "<a href=\"x-1.0.tar.gz\">x</a>";
  const std::string_view json = R"({"meta": {"api-version": "1.0"}, "name": "x", "files": []})";
  for (const auto* type : {"", "text/html", "TEXT/HTML; charset=UTF-8", "application/vnd.pypi.simple.v1+html"}) {
    auto r = parse_project_page(html, type, kPage);
    ASSERT_TRUE(r.has_value()) << type << ": " << r.error().message;
    EXPECT_EQ(r->files.size(), 1U);
  }
  for (const auto* type :
       {"application/vnd.pypi.simple.v1+json", " application/vnd.pypi.simple.v1+json ; charset=utf-8",
        "application/vnd.pypi.simple.latest+json"}) {
    auto r = parse_project_page(json, type, kPage);
    ASSERT_TRUE(r.has_value()) << type << ": " << r.error().message;
    EXPECT_EQ(r->name, "x");
  }
  auto r = parse_project_page(json, "application/octet-stream", kPage);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message,
            "https://pypi.org/simple/torch/: unsupported content type `application/octet-stream` (expected "
            "application/vnd.pypi.simple.v1+json or text/html)");
  EXPECT_FALSE(parse_project_page(json, "application/vnd.pypi.simple.v2+json", kPage).has_value());
  EXPECT_NE(accept_header.find("application/vnd.pypi.simple.v1+json"), std::string_view::npos);
}

}  // namespace

namespace {

// PEP 825: clients MUST ignore these attributes on a `*-variants.json` entry.
TEST(HtmlPage, VariantsJsonEntryAttributesAreIgnored) {
  const auto page = parsed(R"(<a href="torch-2.9.0-variants.json#sha256=aa" data-yanked="" data-requires-python="&gt;=3.99"
    data-core-metadata="sha256=bb" data-dist-info-metadata="true">torch-2.9.0-variants.json</a>
    <a href="torch-2.9.0.tar.gz" data-yanked="old" data-requires-python="&gt;=3.10">torch-2.9.0.tar.gz</a>)");
  ASSERT_EQ(page.files.size(), 2U);
  EXPECT_EQ(page.files[0].filename, "torch-2.9.0-variants.json");
  EXPECT_FALSE(page.files[0].yanked);
  EXPECT_FALSE(page.files[0].requires_python);
  EXPECT_FALSE(page.files[0].core_metadata);
  EXPECT_EQ(page.files[0].hashes.at("sha256"), "aa");
  EXPECT_EQ(page.files[1].yanked, "old");
  EXPECT_EQ(page.files[1].requires_python, ">=3.10");
}

}  // namespace
