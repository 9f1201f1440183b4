// A file's validators: which of a server's answers revalidate it, whether a HEAD answer says the
// file is unchanged, and their JSON fields.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "vwheel/http/validators.hpp"

namespace vwheel::http {
namespace {

const std::string kDate = "Tue, 01 Dec 2026 10:00:00 GMT";

Response head(long status, std::string etag, std::string last_modified, std::optional<std::uint64_t> length) {
  Response r;
  r.status = status;
  r.etag = std::move(etag);
  r.last_modified = std::move(last_modified);
  r.content_length = length;
  return r;
}

TEST(Validators, OnlyAStrongETagOrALastModifiedRevalidates) {
  EXPECT_FALSE(validators_of("", "", 1234));
  // A weak ETag promises an equivalent file, not the same bytes.
  EXPECT_FALSE(validators_of("W/\"abc\"", "", 1234));
  const auto weak_and_date = validators_of("W/\"abc\"", kDate, 1234);
  ASSERT_TRUE(weak_and_date);
  EXPECT_EQ(weak_and_date->etag, "");
  EXPECT_EQ(weak_and_date->last_modified, kDate);
  const auto strong = validators_of("\"abc\"", "", 1234);
  ASSERT_TRUE(strong);
  EXPECT_EQ(strong->etag, "\"abc\"");
  EXPECT_EQ(strong->size, 1234U);
}

TEST(Validators, UnchangedOnlyWhenEveryValidatorComesBackTheSame) {
  const auto both = *validators_of("\"abc\"", kDate, 1234);
  EXPECT_TRUE(unchanged(both, head(200, "\"abc\"", kDate, 1234)));
  EXPECT_TRUE(unchanged(both, head(200, "\"abc\"", kDate, std::nullopt)));
  EXPECT_FALSE(unchanged(both, head(200, "\"abd\"", kDate, 1234)));
  EXPECT_FALSE(unchanged(both, head(200, "\"abc\"", "Tue, 01 Dec 2026 10:00:01 GMT", 1234)));
  EXPECT_FALSE(unchanged(both, head(200, "\"abc\"", "", 1234)));  // a validator no longer given
  EXPECT_FALSE(unchanged(both, head(200, "\"abc\"", kDate, 1235)));
  EXPECT_FALSE(unchanged(both, head(404, "\"abc\"", kDate, 1234)));
  // Only the validators recorded are compared: a server that starts sending an ETag changes nothing.
  const auto date_only = *validators_of("", kDate, 1234);
  EXPECT_TRUE(unchanged(date_only, head(200, "\"new\"", kDate, 1234)));
}

TEST(Validators, JsonFieldsRoundTripAndAnythingElseIsRefused) {
  nlohmann::json j = nlohmann::json::object();
  put_validators(j, *validators_of("\"abc\"", kDate, 1234));
  const auto back = get_validators(j);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->etag, "\"abc\"");
  EXPECT_EQ(back->last_modified, kDate);
  EXPECT_EQ(back->size, 1234U);
  EXPECT_FALSE(get_validators(nlohmann::json::array()));
  for (const char* field : {"etag", "last_modified", "size"}) {
    auto missing = j;
    missing.erase(field);
    EXPECT_FALSE(get_validators(missing)) << field;
    auto wrong = j;
    wrong[field] = nullptr;
    EXPECT_FALSE(get_validators(wrong)) << field;
  }
  auto negative = j;
  negative["size"] = -1;
  EXPECT_FALSE(get_validators(negative));
  auto none = j;
  none["etag"] = "";
  none["last_modified"] = "";
  EXPECT_FALSE(get_validators(none));  // nothing to ask the server with
}

}  // namespace
}  // namespace vwheel::http
