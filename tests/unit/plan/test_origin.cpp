// The record of a wheel downloaded without a sha256: kept only with a validator, and read back
// only as written (a HEAD answer is compared with it in tests/unit/http/test_validators.cpp).

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

#include "plan/origin.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/plan/plan.hpp"

namespace vwheel::plan::detail {
namespace {

const std::string kUrl = "https://example.org/links/pkg-1.0-py3-none-any.whl";
const std::string kSha(64, 'c');

http::Downloaded downloaded(std::string etag, std::string last_modified) {
  http::Downloaded d;
  d.path = "/cache/archives/url-x/pkg-1.0-py3-none-any.whl";
  d.sha256 = kSha;
  d.size = 1234;
  d.etag = std::move(etag);
  d.last_modified = std::move(last_modified);
  return d;
}

TEST(Origin, KeptOnlyWithSomethingToRevalidateWith) {
  EXPECT_FALSE(origin_of(kUrl, downloaded("", "")));
  // A weak ETag promises an equivalent file, not the same bytes: not a validator for a download.
  EXPECT_FALSE(origin_of(kUrl, downloaded("W/\"abc\"", "")));
  const auto weak_and_date = origin_of(kUrl, downloaded("W/\"abc\"", "Tue, 01 Dec 2026 10:00:00 GMT"));
  ASSERT_TRUE(weak_and_date);
  EXPECT_EQ(weak_and_date->validators.etag, "");
  const auto strong = origin_of(kUrl, downloaded("\"abc\"", ""));
  ASSERT_TRUE(strong);
  EXPECT_EQ(strong->validators.etag, "\"abc\"");
  EXPECT_EQ(strong->sha256, kSha);
  EXPECT_EQ(strong->validators.size, 1234u);
}

TEST(Origin, RoundTripsAndRefusesAnythingElse) {
  const auto o = origin_of(kUrl, downloaded("\"abc\"", "Tue, 01 Dec 2026 10:00:00 GMT"));
  ASSERT_TRUE(o);
  const auto text = origin_json(*o);
  const auto back = parse_origin(text, kUrl);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->url, kUrl);
  EXPECT_EQ(back->sha256, kSha);
  EXPECT_EQ(back->validators.size, 1234u);
  EXPECT_EQ(back->validators.etag, "\"abc\"");
  EXPECT_EQ(back->validators.last_modified, "Tue, 01 Dec 2026 10:00:00 GMT");

  EXPECT_FALSE(parse_origin(text, kUrl + "x"));  // another URL's record
  EXPECT_FALSE(parse_origin("", kUrl));
  EXPECT_FALSE(parse_origin("{not json", kUrl));
  EXPECT_FALSE(parse_origin("[]", kUrl));
  // A record as origin_json writes it, one field at a time (JSON values as written).
  const auto record = [&](const std::string& sha, const std::string& size, const std::string& etag,
                          const std::string& modified) {
    return R"({"url":")" + kUrl + R"(","sha256":)" + sha + R"(,"size":)" + size + R"(,"etag":)" + etag +
           R"(,"last_modified":)" + modified + "}";
  };
  const std::string sha = "\"" + kSha + "\"";
  EXPECT_TRUE(parse_origin(record(sha, "1234", R"("\"abc\"")", R"("")"), kUrl));
  EXPECT_FALSE(parse_origin(record("\"" + std::string(63, 'c') + "\"", "1234", R"("\"abc\"")", R"("")"), kUrl));
  EXPECT_FALSE(parse_origin(record("\"" + std::string(64, 'C') + "\"", "1234", R"("\"abc\"")", R"("")"), kUrl));
  EXPECT_FALSE(parse_origin(record(sha, "-1", R"("\"abc\"")", R"("")"), kUrl));
  EXPECT_FALSE(parse_origin(record(sha, R"("1234")", R"("\"abc\"")", R"("")"), kUrl));
  EXPECT_FALSE(parse_origin(record(sha, "1234", "null", R"("")"), kUrl));
  // Without any validator there is nothing to ask the server.
  EXPECT_FALSE(parse_origin(record(sha, "1234", R"("")", R"("")"), kUrl));
  EXPECT_FALSE(parse_origin(R"({"url":")" + kUrl + R"(","sha256":)" + sha + R"(,"size":1,"etag":"\"a\""})", kUrl));
}

// Which records still describe the server's file: without asking when offline or when the
// resolution asked already, and never one that disagrees with the index's size.
TEST(Origin, KnownOriginsAskOnlyWhatNobodyAnswered) {
  const auto cache = std::filesystem::temp_directory_path() / ("vwheel-origin-" + std::to_string(::getpid()));
  std::filesystem::remove_all(cache);
  const std::string name = "pkg-1.0-py3-none-any.whl";
  const std::vector<Hashless> wheels = {{kUrl, name, std::nullopt},
                                        {kUrl + "?2", name, 99},  // the index says another size
                                        {kUrl + "?3", name, std::nullopt}};  // never downloaded
  for (std::size_t i = 0; i < 2; ++i) {
    const auto o = origin_of(wheels[i].url, downloaded("\"abc\"", ""));
    const auto dir = url_dir(cache, wheels[i].url);
    std::filesystem::create_directories(dir);
    ASSERT_TRUE(write_file_atomic(origin_path(dir / name), origin_json(*o), Durability::none));
  }
  int clients = 0;
  const std::function<Result<http::Client*>()> no_client = [&]() -> Result<http::Client*> {
    ++clients;
    return fail("no network in this test");
  };
  auto offline = known_origins(wheels, cache, true, {}, no_client);
  ASSERT_TRUE(offline);
  ASSERT_TRUE((*offline)[0]);
  EXPECT_EQ((*offline)[0]->sha256, kSha);
  EXPECT_FALSE((*offline)[1]);
  EXPECT_FALSE((*offline)[2]);

  http::Response same;
  same.status = 200;
  same.etag = "\"abc\"";
  same.content_length = 1234;
  auto changed = same;
  changed.etag = "\"def\"";
  for (const auto& [answer, kept] : {std::pair{same, true}, std::pair{changed, false}}) {
    const std::map<std::string, http::Response, std::less<>> answered{{kUrl, answer}};
    auto online = known_origins(wheels, cache, false, answered, no_client);
    ASSERT_TRUE(online);
    EXPECT_EQ((*online)[0].has_value(), kept);
  }
  EXPECT_EQ(clients, 0);
  // Online, a record nobody asked about needs the client: its error is the answer.
  EXPECT_FALSE(known_origins(wheels, cache, false, {}, no_client));
  EXPECT_EQ(clients, 1);
  std::filesystem::remove_all(cache);
}

// What `vwheel cache prune` reads of a record (plan::origin_record_sha256): the sha256 of a record
// as written, for whatever URL; nothing of a damaged one.
TEST(Origin, ARecordsSha256IsReadFromTheFile) {
  const auto dir = std::filesystem::temp_directory_path() / ("vwheel-origin-sha-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto o = origin_of(kUrl, downloaded("\"abc\"", ""));
  ASSERT_TRUE(o);
  ASSERT_TRUE(write_file_atomic(dir / "good.origin.json", origin_json(*o)));
  ASSERT_TRUE(write_file_atomic(dir / "no-validator.origin.json",
                                R"({"url":")" + kUrl + R"(","sha256":")" + kSha + R"(","size":1})"));
  ASSERT_TRUE(write_file_atomic(dir / "bad.origin.json", "{not json"));
  EXPECT_EQ(plan::origin_record_sha256(dir / "good.origin.json"), kSha);
  EXPECT_FALSE(plan::origin_record_sha256(dir / "no-validator.origin.json"));
  EXPECT_FALSE(plan::origin_record_sha256(dir / "bad.origin.json"));
  EXPECT_FALSE(plan::origin_record_sha256(dir / "missing.origin.json"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace vwheel::plan::detail
