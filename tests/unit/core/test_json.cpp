// The JSON reader for untrusted documents: exact errors (kind, pointer, line and column) for
// depth, repeated keys and size limits, and the inputs that made the old callback parser quadratic.

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "core/json.hpp"

namespace {

using vwheel::JsonError;
using vwheel::JsonLimits;
using vwheel::parse_untrusted_json;

// The error `text` is refused with; fails the test when it is accepted.
JsonError error_of(std::string_view text, const JsonLimits& limits = {}) {
  auto parsed = parse_untrusted_json(text, limits);
  EXPECT_FALSE(parsed.has_value()) << text.substr(0, 200);
  return parsed ? JsonError{} : parsed.error();
}

std::string nested_arrays(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

std::string repeat(std::string_view s, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

TEST(UntrustedJson, BuildsTheSameTreeAsNlohmann) {
  const std::string text =
      R"({"$schema": "x", "variants": {"a": {"ns": {"f": ["1", "2"]}}, "b": {}}, "n": [1, -2, 3.5, 18446744073709551615, true, null, "\u00e9"]})";
  auto parsed = parse_untrusted_json(text);
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_EQ(*parsed, nlohmann::json::parse(text));
  EXPECT_TRUE((*parsed)["n"][3].is_number_unsigned());
}

TEST(UntrustedJson, ScalarsAndEmptyContainersAtTheRoot) {
  EXPECT_EQ(*parse_untrusted_json("7"), 7);
  EXPECT_EQ(*parse_untrusted_json(" \"s\" "), "s");
  EXPECT_EQ(*parse_untrusted_json("{}"), nlohmann::json::object());
  EXPECT_EQ(*parse_untrusted_json("[]"), nlohmann::json::array());
}

TEST(UntrustedJson, SixtyFourLevelsAreAccepted) {
  auto parsed = parse_untrusted_json(nested_arrays(64));
  ASSERT_TRUE(parsed) << parsed.error().message();
  const nlohmann::json* node = &*parsed;
  std::size_t depth = 0;
  while (node->is_array()) {
    ++depth;
    node = node->empty() ? nullptr : &(*node)[0];
    if (node == nullptr) break;
  }
  EXPECT_EQ(depth, 64U);
}

TEST(UntrustedJson, SixtyFiveLevelsAreRefusedAtTheBracketThatOpensThem) {
  const auto e = error_of(nested_arrays(65));
  EXPECT_EQ(e.kind, JsonError::Kind::depth);
  EXPECT_EQ(e.path.size(), 64U);
  EXPECT_EQ(e.pointer(), repeat("/0", 64));
  EXPECT_EQ(e.message(), "nested more than 64 levels deep at " + repeat("/0", 64) + " (line 1, column 65)");
}

TEST(UntrustedJson, DepthErrorNamesKeysAndIndices) {
  // 3 levels allowed; the fourth opens at /a/1/b.
  const auto e = error_of(R"({"a": [0, {"b": [1]}]})", {.max_depth = 3});
  EXPECT_EQ(e.kind, JsonError::Kind::depth);
  EXPECT_EQ(e.message(), "nested more than 3 levels deep at /a/1/b (line 1, column 17)");
}

TEST(UntrustedJson, HundredThousandLevelsAreRefusedWithTheDepthError) {
  // 600 KB nested 100,000 deep took the callback parser 111 s and 10 GB; bench/bench_json.cpp times it.
  const auto e = error_of(nested_arrays(100'000));
  EXPECT_EQ(e.kind, JsonError::Kind::depth);
  EXPECT_EQ(e.line, 1U);
  EXPECT_EQ(e.column, 65U);
  const std::string objects = repeat(R"({"k":)", 100'000) + "1" + std::string(100'000, '}');
  const auto o = error_of(objects);
  EXPECT_EQ(o.kind, JsonError::Kind::depth);
  EXPECT_EQ(o.pointer(), repeat("/k", 64));
  EXPECT_EQ(o.column, 64U * 5 + 1);
}

TEST(UntrustedJson, RepeatedKeyAtDepthIsNamedByItsPointer) {
  const std::string text = R"({"a": [1, {"b": {"x": 1, "x": 2}}]})";
  const auto e = error_of(text);
  EXPECT_EQ(e.kind, JsonError::Kind::duplicate_key);
  ASSERT_EQ(e.path.size(), 4U);
  EXPECT_EQ(std::get<std::size_t>(e.path[1]), 1U);
  EXPECT_EQ(std::get<std::string>(e.path[3]), "x");
  // The column of the second "x"'s closing quote.
  EXPECT_EQ(e.column, text.rfind("\"x\"") + 3);
  EXPECT_EQ(e.message(), "key \"x\" appears twice in the same object at /a/1/b/x (line 1, column 28)");
}

TEST(UntrustedJson, RepeatedKeyOnALaterLine) {
  const auto e = error_of("{\n  \"a\": 1,\n  \"a\": 2\n}");
  EXPECT_EQ(e.message(), "key \"a\" appears twice in the same object at /a (line 3, column 5)");
}

TEST(UntrustedJson, SameKeyInDifferentObjectsIsFine) {
  auto parsed = parse_untrusted_json(R"({"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 3}, {"x": 4}]})");
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_EQ((*parsed)["c"][1]["x"], 4);
}

TEST(UntrustedJson, RepeatedKeyWithEscapesIsTheSameKey) {
  // "\u0061" is "a": the repeat is found on the decoded key, as every parser would see it.
  const auto e = error_of(R"({"a": 1, "\u0061": 2})");
  EXPECT_EQ(e.kind, JsonError::Kind::duplicate_key);
  EXPECT_EQ(e.message(), "key \"a\" appears twice in the same object at /a (line 1, column 17)");
}

TEST(UntrustedJson, PointerEscapesAndShortensKeys) {
  const auto e = error_of(R"({"a/b~c": {"k": 1, "k": 1}})");
  EXPECT_EQ(e.pointer(), "/a~1b~0c/k");
  const std::string key(100, 'x');
  const auto l = error_of("{\"" + key + "\": [[1]]}", {.max_depth = 2});
  EXPECT_EQ(l.pointer(), "/" + std::string(40, 'x') + ".../0");
  // Control characters in keys stay on one line.
  const auto c = error_of(R"({"a\nb": 1, "a\nb": 2})");
  EXPECT_EQ(c.message(), "key \"a\\nb\" appears twice in the same object at /a\\nb (line 1, column 18)");
}

TEST(UntrustedJson, MembersPerObjectAreLimited) {
  const auto e = error_of(R"({"v": {"a": 1, "b": 2, "c": 3, "d": 4}})", {.max_members = 3});
  EXPECT_EQ(e.kind, JsonError::Kind::too_many_members);
  EXPECT_EQ(e.message(), "more than 3 members in one object at /v (line 1, column 34)");
  EXPECT_TRUE(parse_untrusted_json(R"({"v": {"a": 1, "b": 2, "c": 3}})", {.max_members = 3}));
}

TEST(UntrustedJson, ElementsPerArrayAreLimited) {
  const auto e = error_of(R"([["1", "2", "3", "4"]])", {.max_members = 3});
  EXPECT_EQ(e.kind, JsonError::Kind::too_many_members);
  EXPECT_EQ(e.message(), "more than 3 elements in one array at /0 (line 1, column 20)");
  const auto root = error_of(R"([1, 2, 3, {}])", {.max_members = 3});
  EXPECT_EQ(root.message(), "more than 3 elements in one array at the root (line 1, column 11)");
  EXPECT_TRUE(parse_untrusted_json(R"([["1", "2", "3"]])", {.max_members = 3}));
}

TEST(UntrustedJson, HundredThousandLabelsMeetTheDefaultLimitOrPassWithoutIt) {
  // 100,000 labels took the callback parser 158 s; bench/bench_json.cpp times it.
  std::string text = R"({"variants": {)";
  for (int i = 0; i < 100'000; ++i) {
    if (i > 0) text += ',';
    text += "\"l" + std::to_string(i) + R"(": {"ns": {"f": ["v"]}})";
  }
  text += "}}";
  const auto e = error_of(text);
  EXPECT_EQ(e.kind, JsonError::Kind::too_many_members);
  EXPECT_EQ(e.pointer(), "/variants");
  EXPECT_EQ(e.what, "more than 10000 members in one object");
  auto all = parse_untrusted_json(text, {.max_members = JsonLimits::unlimited});
  ASSERT_TRUE(all) << all.error().message();
  EXPECT_EQ((*all)["variants"].size(), 100'000U);
  EXPECT_EQ((*all)["variants"]["l99999"]["ns"]["f"][0], "v");
}

TEST(UntrustedJson, SyntaxErrorsKeepNlohmannsPlace) {
  const auto e = error_of(R"({"a": [)");
  EXPECT_EQ(e.kind, JsonError::Kind::syntax);
  EXPECT_TRUE(e.path.empty());
  EXPECT_EQ(e.message().rfind("parse error at line 1, column 8: ", 0), 0U) << e.message();
  EXPECT_EQ(e.message().find('\n'), std::string::npos);
  EXPECT_EQ(error_of("").kind, JsonError::Kind::syntax);
  EXPECT_EQ(error_of("{} x").kind, JsonError::Kind::syntax);
  EXPECT_EQ(error_of("\"\xff\"").kind, JsonError::Kind::syntax);
  EXPECT_EQ(error_of("[1,]").kind, JsonError::Kind::syntax);
  EXPECT_EQ(error_of("{\"a\" 1}").kind, JsonError::Kind::syntax);
}

TEST(UntrustedJson, NumberOverflowIsPlaced) {
  const auto e = error_of("[1,\n 1E400]");
  EXPECT_EQ(e.kind, JsonError::Kind::syntax);
  EXPECT_EQ(e.message(), "number overflow parsing '1E400' at line 2, column 6");
}

}  // namespace
