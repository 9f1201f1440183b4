// The files that keep members of remote wheels: read back only as written, under which key.

#include <gtest/gtest.h>

#include "finder/kept_members.hpp"
#include "vwheel/core/hash.hpp"

namespace vwheel::finder::detail {
namespace {

const std::string kUrl = "https://example.org/links/pkg-1.0-py3-none-any.whl";

TEST(KeptMembers, RoundTripBytesAsTheyAre) {
  const std::string bytes = std::string("Name: pkg\nline two\n\0\xff", 22);
  const KeptMember m{kUrl, http::validators_of("\"e\"", "", 99), bytes};
  const auto back = parse_kept_member(kept_member_text(m));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->url, kUrl);
  ASSERT_TRUE(back->validators);
  EXPECT_EQ(back->validators->etag, "\"e\"");
  EXPECT_EQ(back->validators->size, 99U);
  EXPECT_EQ(back->content, bytes);

  const KeptMember absent{kUrl, std::nullopt, std::nullopt};
  const auto none = parse_kept_member(kept_member_text(absent));
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->validators);
  EXPECT_FALSE(none->content);
}

TEST(KeptMembers, AnythingElseIsRefused) {
  EXPECT_FALSE(parse_kept_member(""));
  EXPECT_FALSE(parse_kept_member("{\"url\":\"u\",\"present\":true}"));  // no end to the line
  EXPECT_FALSE(parse_kept_member("{not json\nx"));
  EXPECT_FALSE(parse_kept_member("{\"present\":true}\nx"));
  EXPECT_FALSE(parse_kept_member("{\"url\":\"u\",\"present\":\"yes\"}\nx"));
  EXPECT_FALSE(parse_kept_member("{\"url\":\"u\",\"present\":false}\nx"));  // absent, yet bytes follow
  // Validators only in part, or none to ask the server with.
  EXPECT_FALSE(parse_kept_member("{\"url\":\"u\",\"present\":true,\"etag\":\"\\\"e\\\"\"}\nx"));
  EXPECT_FALSE(parse_kept_member("{\"url\":\"u\",\"present\":true,\"etag\":\"\",\"last_modified\":\"\",\"size\":1}\nx"));
}

TEST(KeptMembers, KeyedByTheIndexsSha256ElseByTheUrl) {
  File w;
  w.filename = "pkg-1.0-py3-none-any.whl";
  w.url = kUrl;
  const std::filesystem::path cache = "/cache";
  EXPECT_TRUE(kept_by_url(w));
  EXPECT_EQ(kept_member_path(cache, w, "METADATA"), cache / "wheel-members" / ("url-" + sha256_hex(kUrl)) / "METADATA");
  w.hashes["sha256"] = std::string(64, 'a');
  EXPECT_FALSE(kept_by_url(w));
  EXPECT_EQ(kept_member_path(cache, w, "variant.json"), cache / "wheel-members" / std::string(64, 'a') / "variant.json");
  w.hashes["sha256"] = "not-hex";  // never a path component
  EXPECT_TRUE(kept_by_url(w));
  for (const char* bad : {"", ".hidden", "a/b", "..", "a\\b"}) EXPECT_FALSE(kept_member_path(cache, w, bad)) << bad;
  w.path = "/wheels/pkg-1.0-py3-none-any.whl";  // a wheel on disk is read where it is
  EXPECT_FALSE(kept_member_path(cache, w, "METADATA"));
}

}  // namespace
}  // namespace vwheel::finder::detail
