// The HTTP cache and header parsing on their own (no server): freshness from Cache-Control and
// Age, the entry file format, the cache key, header lines as curl hands them.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

#include "http/cache.hpp"
#include "http/headers.hpp"
#include "vwheel/core/fs.hpp"

namespace vwheel::http::detail {
namespace {

namespace fs = std::filesystem;

Headers with(std::string cache_control, std::string age = "") {
  Headers h;
  h.cache_control = std::move(cache_control);
  h.age = std::move(age);
  return h;
}

TEST(HttpCacheFreshness, MaxAgeLessAge) {
  constexpr std::int64_t now = 1'000'000;
  EXPECT_EQ(fresh_until(with("max-age=600"), now), now + 600);
  EXPECT_EQ(fresh_until(with("public, MAX-AGE=600"), now), now + 600);
  EXPECT_EQ(fresh_until(with("max-age=600", "100"), now), now + 500);
  EXPECT_EQ(fresh_until(with("s-maxage=60, max-age=600"), now), now + 60);
  EXPECT_EQ(fresh_until(with("max-age=600", "600"), now), 0);
  EXPECT_EQ(fresh_until(with("max-age=600", "junk"), now), now + 600);
  EXPECT_EQ(fresh_until(with("max-age=0"), now), 0);
  EXPECT_EQ(fresh_until(with("no-cache, max-age=600"), now), 0);
  EXPECT_EQ(fresh_until(with("max-age=600, no-store"), now), 0);
  EXPECT_EQ(fresh_until(with("xmax-age=600"), now), 0);  // not the max-age directive
  EXPECT_EQ(fresh_until(with(""), now), 0);
  // Absurd lifetimes are capped at ten years.
  EXPECT_EQ(fresh_until(with("max-age=99999999999999"), now), now + 10LL * 365 * 24 * 3600);
}

TEST(HttpCacheFreshness, MayStore) {
  EXPECT_TRUE(may_store(with("max-age=60")));
  EXPECT_FALSE(may_store(with("No-Store")));
}

TEST(HttpCacheFile, KeyedByUrlAndAccept) {
  const fs::path dir = "/tmp/cache";
  EXPECT_FALSE(cache_file(std::nullopt, Request("https://x/simple/")));
  EXPECT_FALSE(cache_file(dir, Request("https://x/simple/", {}, false)));
  EXPECT_FALSE(cache_file(dir, Request("FILE:///srv/index.html")));
  const auto plain = cache_file(dir, Request("https://x/simple/"));
  const auto json = cache_file(dir, Request("https://x/simple/", {"Accept: application/vnd.pypi.simple.v1+json"}));
  ASSERT_TRUE(plain && json);
  EXPECT_EQ(plain->parent_path(), dir / "http");
  EXPECT_EQ(plain->filename().string().size(), 64U);
  EXPECT_NE(*plain, *json);
  EXPECT_EQ(*json, *cache_file(dir, Request("https://x/simple/", {"accept:application/vnd.pypi.simple.v1+json "})));
}

TEST(HttpCacheEntry, WriteThenRead) {
  const fs::path dir = fs::temp_directory_path() / ("vwheel-cache-test-" + std::to_string(::getpid()));
  const fs::path file = dir / "http" / "entry";
  CacheEntry e;
  e.etag = "\"abc\"";
  e.last_modified = "Tue, 01 Dec 2026 10:00:00 GMT";
  e.content_type = "text/html";
  e.effective_url = "https://x/simple/a/";
  e.status = 200;
  e.expires = 1234;
  e.body = "line 1\nline 2\n";
  write_cache(file, "https://x/simple/a", e);
  auto back = read_cache(file);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->etag, e.etag);
  EXPECT_EQ(back->last_modified, e.last_modified);
  EXPECT_EQ(back->content_type, e.content_type);
  EXPECT_EQ(back->effective_url, e.effective_url);
  EXPECT_EQ(back->status, 200);
  EXPECT_EQ(back->expires, 1234);
  EXPECT_EQ(back->body, e.body);

  const Response r = cached_response(std::move(*back), "https://x/simple/a");
  EXPECT_TRUE(r.from_cache);
  EXPECT_EQ(r.url, "https://x/simple/a/");
  EXPECT_EQ(r.body, "line 1\nline 2\n");

  // Damaged entries are misses.
  ASSERT_TRUE(write_file_atomic(file, "no newline", Durability::none));
  EXPECT_FALSE(read_cache(file));
  ASSERT_TRUE(write_file_atomic(file, "[1]\nbody", Durability::none));
  EXPECT_FALSE(read_cache(file));
  ASSERT_TRUE(write_file_atomic(file, "{\"status\": \"x\"}\nbody", Durability::none));
  EXPECT_FALSE(read_cache(file));
  EXPECT_FALSE(read_cache(dir / "absent"));
  std::error_code ec;
  fs::remove_all(dir, ec);
}

TEST(HttpHeaders, LinesAsCurlHandsThem) {
  Headers h;
  h.add_line("HTTP/1.1 301 Moved\r\n");
  h.add_line("ETag: \"old\"\r\n");
  h.add_line("HTTP/2 200 \r\n");  // a redirect's headers are dropped
  h.add_line("etag:  \"v1\" \r\n");
  h.add_line("Cache-Control:\tmax-age=60\r\n");
  h.add_line("AGE: 5\r\n");
  h.add_line("X-Other: ignored\r\n");
  h.add_line("\r\n");
  EXPECT_EQ(h.status, 200);
  EXPECT_EQ(h.status_text(), "HTTP 200");
  EXPECT_EQ(h.etag, "\"v1\"");
  EXPECT_EQ(h.cache_control, "max-age=60");
  EXPECT_EQ(h.age, "5");
}

TEST(HttpHeaders, ContentRangeAndNumbers) {
  auto r = parse_content_range(" bytes 10-19/100 ");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->start, 10U);
  EXPECT_EQ(r->end, 19U);
  EXPECT_EQ(r->total, 100U);
  r = parse_content_range("BYTES 0-0/*");
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->total);
  EXPECT_FALSE(parse_content_range("bytes 5-4/10"));
  EXPECT_FALSE(parse_content_range("items 0-1/2"));
  EXPECT_FALSE(parse_content_range("bytes 0-1"));
  std::uint64_t v = 0;
  EXPECT_TRUE(parse_u64(" 42\t", v));
  EXPECT_EQ(v, 42U);
  EXPECT_FALSE(parse_u64("4 2", v));
  EXPECT_FALSE(parse_u64("-1", v));
  EXPECT_FALSE(parse_u64("", v));
  EXPECT_EQ(accept_of({"X: y", "Accept: text/html "}), "text/html");
  EXPECT_EQ(accept_of({"X: y"}), "");
}

}  // namespace
}  // namespace vwheel::http::detail
