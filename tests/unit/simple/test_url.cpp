// URL resolution (RFC 3986 section 5.4 examples), percent decoding and HTML unescaping.

#include <gtest/gtest.h>

#include <string>

#include "vwheel/core/text.hpp"
#include "vwheel/simple/project_page.hpp"

namespace {

using namespace vwheel::simple;

std::string resolved(std::string_view base, std::string_view ref) {
  auto r = resolve_url(base, ref);
  EXPECT_TRUE(r.has_value()) << base << " + " << ref << ": " << (r ? "" : r.error().message);
  return r ? *r : std::string("<error>");
}

TEST(ResolveUrl, Rfc3986NormalExamples) {
  const std::string_view base = "http://a/b/c/d;p?q";
  const std::pair<const char*, const char*> cases[] = {
      {"g", "http://a/b/c/g"},
      {"./g", "http://a/b/c/g"},
      {"g/", "http://a/b/c/g/"},
      {"/g", "http://a/g"},
      {"//g", "http://g"},
      {"?y", "http://a/b/c/d;p?y"},
      {"g?y", "http://a/b/c/g?y"},
      {"#s", "http://a/b/c/d;p?q"},
      {"g#s", "http://a/b/c/g"},
      {"g?y#s", "http://a/b/c/g?y"},
      {";x", "http://a/b/c/;x"},
      {"g;x", "http://a/b/c/g;x"},
      {"g;x?y#s", "http://a/b/c/g;x?y"},
      {"", "http://a/b/c/d;p?q"},
      {".", "http://a/b/c/"},
      {"./", "http://a/b/c/"},
      {"..", "http://a/b/"},
      {"../", "http://a/b/"},
      {"../g", "http://a/b/g"},
      {"../..", "http://a/"},
      {"../../", "http://a/"},
      {"../../g", "http://a/g"},
  };
  for (const auto& [ref, want] : cases) EXPECT_EQ(resolved(base, ref), want) << ref;
}

TEST(ResolveUrl, Rfc3986AbnormalExamples) {
  const std::string_view base = "http://a/b/c/d;p?q";
  const std::pair<const char*, const char*> cases[] = {
      {"../../../g", "http://a/g"},
      {"../../../../g", "http://a/g"},
      {"/./g", "http://a/g"},
      {"/../g", "http://a/g"},
      {"g.", "http://a/b/c/g."},
      {".g", "http://a/b/c/.g"},
      {"g..", "http://a/b/c/g.."},
      {"..g", "http://a/b/c/..g"},
      {"./../g", "http://a/b/g"},
      {"./g/.", "http://a/b/c/g/"},
      {"g/./h", "http://a/b/c/g/h"},
      {"g/../h", "http://a/b/c/h"},
      {"g;x=1/./y", "http://a/b/c/g;x=1/y"},
      {"g;x=1/../y", "http://a/b/c/y"},
      {"g?y/./x", "http://a/b/c/g?y/./x"},
      {"g?y/../x", "http://a/b/c/g?y/../x"},
      {"g#s/./x", "http://a/b/c/g"},
      {"g#s/../x", "http://a/b/c/g"},
  };
  for (const auto& [ref, want] : cases) EXPECT_EQ(resolved(base, ref), want) << ref;
}

TEST(ResolveUrl, IndexStyleLinks) {
  const std::string_view page = "https://pypi.org/simple/torch/";
  EXPECT_EQ(resolved(page, "../../files/x.whl"), "https://pypi.org/files/x.whl");
  EXPECT_EQ(resolved(page, "/abs/path/x.whl"), "https://pypi.org/abs/path/x.whl");
  EXPECT_EQ(resolved(page, "https://other.example/f/x.whl#sha256=00"), "https://other.example/f/x.whl");
  EXPECT_EQ(resolved(page, "HTTPS://Other.example/x.whl"), "https://Other.example/x.whl");
  EXPECT_EQ(resolved(page, "x.whl"), "https://pypi.org/simple/torch/x.whl");
  EXPECT_EQ(resolved(page, "//cdn.example/x.whl"), "https://cdn.example/x.whl");
  EXPECT_EQ(resolved("https://host:8443/simple/torch", "x.whl"), "https://host:8443/simple/x.whl");
  EXPECT_EQ(resolved("https://host", "x.whl"), "https://host/x.whl");
  // file: indexes (a local directory).
  EXPECT_EQ(resolved("file:///srv/index/torch/", "../files/x.whl"), "file:///srv/index/files/x.whl");
  EXPECT_EQ(resolved("file:/srv/index/torch/index.html", "x.whl"), "file:/srv/index/torch/x.whl");
  // A file URL without authority whose path starts with `//` keeps an empty authority, so that the
  // result reads back as the same URL.
  EXPECT_EQ(resolved("file:/a/", "..//x"), "file:////x");
  EXPECT_EQ(resolved("file:/a/", resolved("file:/a/", "..//x")), "file:////x");
  // The base's dot segments go too, so that what comes back resolves to itself again: the base
  // itself (an empty reference, or a query only) and paths relative to it.
  EXPECT_EQ(resolved("file:/si/r/./d/", ""), "file:/si/r/d/");
  EXPECT_EQ(resolved("https://h/a/b/../c?x", "?q"), "https://h/a/c?q");
  EXPECT_EQ(resolved("https://h/a/./b/", "x.whl"), "https://h/a/b/x.whl");
  EXPECT_EQ(resolved("https://h/a/b/..", "x.whl"), "https://h/a/x.whl");
  // Spaces and non-ASCII bytes are percent-encoded.
  EXPECT_EQ(resolved(page, "my file.whl"), "https://pypi.org/simple/torch/my%20file.whl");
  EXPECT_EQ(resolved(page, "caf\xC3\xA9.whl"), "https://pypi.org/simple/torch/caf%C3%A9.whl");
}

TEST(ResolveUrl, Errors) {
  auto bad = [](std::string_view base, std::string_view ref, std::string_view needle) {
    auto r = resolve_url(base, ref);
    ASSERT_FALSE(r.has_value()) << base << " + " << ref << " gave " << *r;
    EXPECT_NE(r.error().message.find(needle), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
  };
  bad("https://pypi.org/simple/x/", "javascript:alert(1)", "unsupported URL scheme `javascript`");
  bad("https://pypi.org/simple/x/", "ftp://host/x.whl", "unsupported URL scheme `ftp`");
  bad("https://pypi.org/simple/x/", "g:h", "unsupported URL scheme `g`");
  bad("https://pypi.org/simple/x/", "http:g", "no host");
  bad("https://pypi.org/simple/x/", "x\n.whl", "control character");
  bad("/simple/x/", "x.whl", "not absolute");
  bad("ssh://host/x/", "x.whl", "unsupported URL scheme `ssh`");
  bad("https:///x/", "x.whl", "no host");
  bad("file:relative/x", "y", "absolute path");
}

TEST(ResolveUrl, ErrorsQuoteAValidUtf8Excerpt) {
  // 120 bytes are quoted at most; here byte 120 is inside an "é": the cut must not split it.
  std::string ref = "\n";
  for (int i = 0; i < 70; ++i) ref += "\xC3\xA9";
  auto r = resolve_url("https://pypi.org/simple/x/", ref);
  ASSERT_FALSE(r.has_value());
  EXPECT_TRUE(vwheel::is_valid_utf8(r.error().message)) << r.error().message;
  EXPECT_NE(r.error().message.find("\xC3\xA9..."), std::string::npos) << r.error().message;
}

TEST(PercentDecode, Basics) {
  EXPECT_EQ(percent_decode("torch%2B2.0%20x"), "torch+2.0 x");
  EXPECT_EQ(percent_decode("%e2%82%ac"), "\xE2\x82\xAC");
  EXPECT_EQ(percent_decode("100%"), "100%");
  EXPECT_EQ(percent_decode("%zz%4"), "%zz%4");
  EXPECT_EQ(percent_decode("%41%"), "A%");
}

TEST(HtmlUnescape, References) {
  EXPECT_EQ(html_unescape("&gt;=3.8, &lt;4 &amp; &quot;x&quot; &#39;y&#39; &apos;"), ">=3.8, <4 & \"x\" 'y' '");
  EXPECT_EQ(html_unescape("&#62;&#x3E;&#X3e;"), ">>>");
  EXPECT_EQ(html_unescape("&#x20AC;&#8364;"), "\xE2\x82\xAC\xE2\x82\xAC");
  EXPECT_EQ(html_unescape("&#x1F600;"), "\xF0\x9F\x98\x80");
  EXPECT_EQ(html_unescape("&nbsp;"), "\xC2\xA0");
  // Invalid code points become U+FFFD; unknown and malformed references stay as written.
  EXPECT_EQ(html_unescape("&#0;&#xD800;&#x110000;"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(html_unescape("&bogus; &gt &#; &#x; &#12a; & ;"), "&bogus; &gt &#; &#x; &#12a; & ;");
  EXPECT_EQ(html_unescape("&#99999999999999;"), "&#99999999999999;");
  EXPECT_EQ(html_unescape("&amp;gt;"), "&gt;");
  EXPECT_EQ(html_unescape("&"), "&");
}

}  // namespace
