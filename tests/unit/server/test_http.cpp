#include <gtest/gtest.h>

#include "server/http.hpp"

namespace vwheel::server::http {
namespace {

TEST(Negotiate, NoAcceptMeansHtml) {
  EXPECT_EQ(negotiate(""), PageFormat::TextHtml);
  EXPECT_EQ(negotiate("  "), PageFormat::TextHtml);
  EXPECT_EQ(negotiate("*/*"), PageFormat::TextHtml);
}

TEST(Negotiate, PipsHeaderPrefersJson) {
  EXPECT_EQ(
      negotiate("application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html; q=0.1, text/html; q=0.01"),
      PageFormat::SimpleJson);
}

TEST(Negotiate, QValuesDecide) {
  EXPECT_EQ(negotiate("application/vnd.pypi.simple.v1+json;q=0.2, text/html;q=0.9"), PageFormat::TextHtml);
  EXPECT_EQ(negotiate("application/vnd.pypi.simple.v1+json;q=0.9, text/html;q=0.2"), PageFormat::SimpleJson);
  EXPECT_EQ(negotiate("application/vnd.pypi.simple.v1+html;q=0.5, application/vnd.pypi.simple.v1+json;q=0.5"),
            PageFormat::SimpleHtml);  // ties go to the server's order
  EXPECT_EQ(negotiate("text/html;q=0.001"), PageFormat::TextHtml);
  EXPECT_EQ(negotiate("TEXT/HTML;Q=1.000"), PageFormat::TextHtml);
}

TEST(Negotiate, LatestAliasesAndWildcards) {
  EXPECT_EQ(negotiate("application/vnd.pypi.simple.latest+json"), PageFormat::SimpleJson);
  EXPECT_EQ(negotiate("application/vnd.pypi.simple.latest+html"), PageFormat::SimpleHtml);
  EXPECT_EQ(negotiate("text/*"), PageFormat::TextHtml);
  EXPECT_EQ(negotiate("application/*"), PageFormat::SimpleHtml);
  // The most specific range decides, even with a lower q than a wildcard.
  EXPECT_EQ(negotiate("*/*;q=0.5, text/html;q=0"), PageFormat::SimpleHtml);
  EXPECT_EQ(negotiate("*/*;q=0.1, application/vnd.pypi.simple.v1+json"), PageFormat::SimpleJson);
}

TEST(Negotiate, UnacceptableIsNullopt) {
  EXPECT_EQ(negotiate("application/xml"), std::nullopt);
  EXPECT_EQ(negotiate("application/vnd.pypi.simple.v2+json"), std::nullopt);
  EXPECT_EQ(negotiate("text/html;q=0"), std::nullopt);
  EXPECT_EQ(negotiate("*/*;q=0"), std::nullopt);
  EXPECT_EQ(negotiate("garbage"), std::nullopt);
}

TEST(Negotiate, MalformedQIsSkipped) {
  EXPECT_EQ(negotiate("application/vnd.pypi.simple.v1+json;q=2, text/html;q=0.5"), PageFormat::TextHtml);
  EXPECT_EQ(negotiate("application/vnd.pypi.simple.v1+json;q=abc"), std::nullopt);
  EXPECT_EQ(negotiate("application/vnd.pypi.simple.v1+json;q=0.1234"), std::nullopt);
}

TEST(Negotiate, OnlyTheFilesThePageHasAreOffered) {
  const PageFiles html_only{true, false};
  const PageFiles json_only{false, true};
  const auto* pip =
      "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html; q=0.1, text/html; q=0.01";
  EXPECT_EQ(negotiate(pip, html_only), PageFormat::SimpleHtml);
  EXPECT_EQ(negotiate(pip, json_only), PageFormat::SimpleJson);
  EXPECT_EQ(negotiate("", json_only), PageFormat::SimpleJson) << "no Accept header: any type";
  EXPECT_EQ(negotiate("*/*", json_only), PageFormat::SimpleJson);
  EXPECT_EQ(negotiate("", html_only), PageFormat::TextHtml);
  EXPECT_EQ(negotiate("application/vnd.pypi.simple.v1+json", html_only), std::nullopt);
  EXPECT_EQ(negotiate("text/html", json_only), std::nullopt);
  EXPECT_EQ(negotiate("", PageFiles{false, false}), std::nullopt);
  EXPECT_EQ(negotiate("*/*", PageFiles{false, false}), std::nullopt);
  EXPECT_EQ(served_types(html_only), "text/html and application/vnd.pypi.simple.v1+html");
  EXPECT_EQ(served_types(json_only), "application/vnd.pypi.simple.v1+json");
  EXPECT_EQ(served_types({}), "text/html, application/vnd.pypi.simple.v1+html and application/vnd.pypi.simple.v1+json");
}

TEST(ParseAccept, ReadsTypesAndQ) {
  auto ranges = parse_accept("Text/HTML;level=1;q=0.5, application/json , */*;q=0");
  ASSERT_EQ(ranges.size(), 3U);
  EXPECT_EQ(ranges[0].type, "text");
  EXPECT_EQ(ranges[0].subtype, "html");
  EXPECT_EQ(ranges[0].q, 500);
  EXPECT_EQ(ranges[1].q, 1000);
  EXPECT_EQ(ranges[2].q, 0);
  EXPECT_TRUE(parse_accept("*/html, /x, x/").empty());
}

TEST(FormatQuery, OverridesAccept) {
  EXPECT_EQ(format_from_query("format=application/vnd.pypi.simple.v1%2Bjson"), PageFormat::SimpleJson);
  EXPECT_EQ(format_from_query("a=1&format=text/html"), PageFormat::TextHtml);
  EXPECT_EQ(format_from_query("format=application/vnd.pypi.simple.latest+html"), PageFormat::SimpleHtml);
  EXPECT_EQ(format_from_query("format=image/png"), std::nullopt);
  EXPECT_EQ(format_from_query(""), std::nullopt);
}

TEST(Target, SplitsDecodesAndKeepsQuery) {
  auto t = parse_target("/simple/my%20pkg/?x=%2f");
  ASSERT_TRUE(t);
  ASSERT_EQ(t->segments.size(), 2U);
  EXPECT_EQ(t->segments[1], "my pkg");
  EXPECT_TRUE(t->trailing_slash);
  EXPECT_EQ(t->query, "x=%2f");
  auto root = parse_target("/");
  ASSERT_TRUE(root);
  EXPECT_TRUE(root->segments.empty());
  EXPECT_TRUE(root->trailing_slash);
  auto doubled = parse_target("//simple//pkg");
  ASSERT_TRUE(doubled);
  EXPECT_EQ(doubled->segments, (std::vector<std::string>{"simple", "pkg"}));
  EXPECT_FALSE(doubled->trailing_slash);
}

TEST(Target, RefusesTraversalInEverySpelling) {
  for (const char* t :
       {"/simple/../../etc/passwd", "/..", "/simple/%2e%2e/x", "/simple/%2E%2E%2Fetc", "/a/..%2fb",
        "/a/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/./x", "/a/.", "/.vwheel/state", "/files/.hidden", "/simple/%2evwheel"}) {
    auto r = parse_target(t);
    ASSERT_FALSE(r) << t;
    EXPECT_EQ(r.error(), TargetError::NotFound) << t;
  }
  // Decoded only once: `%252e` is the literal name `%2e`, which is harmless.
  auto once = parse_target("/a/%252e%252e/b");
  ASSERT_TRUE(once);
  EXPECT_EQ(once->segments[1], "%2e%2e");
}

TEST(Target, RefusesMalformed) {
  for (const char* t : {"", "simple/", "http://x/simple/", "*", "/a%00b", "/a%0ab", "/a%5cb", "/a\\b", "/a%", "/a%2",
                        "/a%zz", "/a%1"}) {
    auto r = parse_target(t);
    ASSERT_FALSE(r) << t;
    EXPECT_EQ(r.error(), TargetError::BadRequest) << t;
  }
}

TEST(Target, EncodePathRoundTrips) {
  EXPECT_EQ(encode_path({"simple", "pkg"}, true), "/simple/pkg/");
  EXPECT_EQ(encode_path({}, false), "/");
  EXPECT_EQ(encode_path({"a b", "c/d", "e?f"}, false), "/a%20b/c%2Fd/e%3Ff");
  auto back = parse_target(encode_path({"a b", "x+y"}, false));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->segments, (std::vector<std::string>{"a b", "x+y"}));
}

TEST(Range, SingleRanges) {
  using K = RangeRequest::Kind;
  auto r = parse_range("bytes=2-4", 10);
  EXPECT_EQ(r.kind, K::Partial);
  EXPECT_EQ(r.first, 2U);
  EXPECT_EQ(r.last, 4U);
  r = parse_range("bytes=5-", 10);
  EXPECT_EQ(r.kind, K::Partial);
  EXPECT_EQ(r.first, 5U);
  EXPECT_EQ(r.last, 9U);
  r = parse_range("bytes=-3", 10);
  EXPECT_EQ(r.kind, K::Partial);
  EXPECT_EQ(r.first, 7U);
  EXPECT_EQ(r.last, 9U);
  r = parse_range("bytes=-30", 10);  // longer than the file: all of it
  EXPECT_EQ(r.kind, K::Partial);
  EXPECT_EQ(r.first, 0U);
  EXPECT_EQ(r.last, 9U);
  r = parse_range("bytes=8-100", 10);  // clamped
  EXPECT_EQ(r.kind, K::Partial);
  EXPECT_EQ(r.last, 9U);
  r = parse_range("Bytes=0-0", 10);
  EXPECT_EQ(r.kind, K::Partial);
  EXPECT_EQ(r.last, 0U);
}

TEST(Range, UnsatisfiableAndIgnored) {
  using K = RangeRequest::Kind;
  EXPECT_EQ(parse_range("bytes=10-", 10).kind, K::Unsatisfiable);
  EXPECT_EQ(parse_range("bytes=20-30", 10).kind, K::Unsatisfiable);
  EXPECT_EQ(parse_range("bytes=-0", 10).kind, K::Unsatisfiable);
  EXPECT_EQ(parse_range("bytes=0-", 0).kind, K::Unsatisfiable);
  EXPECT_EQ(parse_range("bytes=99999999999999999999999-", 10).kind, K::Unsatisfiable);
  // Ignored: served whole.
  EXPECT_EQ(parse_range("bytes=5-2", 10).kind, K::Full);
  EXPECT_EQ(parse_range("bytes=0-1,3-4", 10).kind, K::Full);
  EXPECT_EQ(parse_range("items=0-1", 10).kind, K::Full);
  EXPECT_EQ(parse_range("bytes=a-b", 10).kind, K::Full);
  EXPECT_EQ(parse_range("bytes=-", 10).kind, K::Full);
  EXPECT_EQ(parse_range("bytes=+1-2", 10).kind, K::Full);
  EXPECT_EQ(content_range(2, 4, 10), "bytes 2-4/10");
}

TEST(Validators, EtagMatching) {
  const auto etag = make_etag(0x1234, 10, 1700000000123456789);
  EXPECT_EQ(etag.front(), '"');
  EXPECT_EQ(etag.back(), '"');
  EXPECT_NE(make_etag(0x1234, 11, 1700000000123456789), etag);
  EXPECT_TRUE(if_none_match(etag, etag));
  EXPECT_TRUE(if_none_match("\"other\", " + etag, etag));
  EXPECT_TRUE(if_none_match("W/" + etag, etag));  // weak comparison
  EXPECT_TRUE(if_none_match("*", etag));
  EXPECT_FALSE(if_none_match("\"other\"", etag));
  EXPECT_FALSE(if_none_match("", etag));
  EXPECT_TRUE(if_range_matches(etag, etag, "x"));
  EXPECT_FALSE(if_range_matches("W/" + etag, etag, "x"));
  EXPECT_FALSE(if_range_matches("\"other\"", etag, "x"));
  EXPECT_TRUE(if_range_matches("Sun, 06 Nov 1994 08:49:37 GMT", etag, "Sun, 06 Nov 1994 08:49:37 GMT"));
  EXPECT_FALSE(if_range_matches("Mon, 07 Nov 1994 08:49:37 GMT", etag, "Sun, 06 Nov 1994 08:49:37 GMT"));
}

TEST(Validators, HttpDates) {
  EXPECT_EQ(format_http_date(784111777), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), std::optional<std::time_t>(784111777));
  EXPECT_EQ(parse_http_date(format_http_date(1700000000)), std::optional<std::time_t>(1700000000));
  EXPECT_EQ(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), std::nullopt);
  EXPECT_EQ(parse_http_date("Sun, 06 Xyz 1994 08:49:37 GMT"), std::nullopt);
  EXPECT_EQ(parse_http_date("garbage"), std::nullopt);
}

TEST(MediaTypes, ByExtension) {
  EXPECT_EQ(file_content_type("pkg-1.0-py3-none-any.whl"), "application/octet-stream");
  EXPECT_EQ(file_content_type("pkg-1.0-py3-none-any.whl.metadata"), "text/plain; charset=utf-8");
  EXPECT_EQ(file_content_type("pkg-1.0-variants.json"), "application/json");
  EXPECT_EQ(file_content_type("index.html"), "text/html; charset=utf-8");
  EXPECT_EQ(file_content_type("pkg-1.0.tar.gz"), "application/gzip");
  EXPECT_EQ(file_content_type("README"), "application/octet-stream");
}

TEST(Auth, BasicAndBearer) {
  // base64("__token__:s3cret")
  EXPECT_EQ(authorization_secret("Basic X190b2tlbl9fOnMzY3JldA=="), std::optional<std::string>("s3cret"));
  EXPECT_EQ(authorization_secret("basic X190b2tlbl9fOnMzY3JldA"), std::optional<std::string>("s3cret"));
  EXPECT_EQ(authorization_secret("Bearer abc.def"), std::optional<std::string>("abc.def"));
  // base64("user:pa:ss") -> the password keeps its colon
  EXPECT_EQ(authorization_secret("Basic dXNlcjpwYTpzcw=="), std::optional<std::string>("pa:ss"));
  EXPECT_EQ(authorization_secret("Basic dXNlcg=="), std::nullopt);  // no colon
  EXPECT_EQ(authorization_secret("Basic !!!"), std::nullopt);
  EXPECT_EQ(authorization_secret("Digest x"), std::nullopt);
  EXPECT_EQ(authorization_secret("Bearer"), std::nullopt);
  EXPECT_EQ(authorization_secret(""), std::nullopt);
  EXPECT_EQ(base64_decode("Zm9vYmFy"), std::optional<std::string>("foobar"));
  EXPECT_EQ(base64_decode("Zm9vYg=="), std::optional<std::string>("foob"));
  EXPECT_EQ(base64_decode("Z"), std::nullopt);
  EXPECT_TRUE(constant_time_equal("abc", "abc"));
  EXPECT_FALSE(constant_time_equal("abc", "abd"));
  EXPECT_FALSE(constant_time_equal("abc", "abcd"));
  EXPECT_FALSE(constant_time_equal("", "a"));
}

}  // namespace
}  // namespace vwheel::server::http
