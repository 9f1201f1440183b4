// Variant metadata read as untrusted JSON: repeated keys, nesting and size limits give one-line
// errors with place (dotted path, JSON pointer, line and column), and the inputs that made the
// old callback parser quadratic are refused or read at once.

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include <fmt/format.h>

#include "vwheel/metadata/document.hpp"

namespace vwheel::metadata {
namespace {

constexpr std::string_view kHead =
    R"({"$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json", "default-priorities": {"namespace": ["ns"]}, )";

std::string parse_error(std::string_view text) {
  auto parsed = parse_json_document(text, DocumentKind::VariantsJson, std::nullopt);
  EXPECT_FALSE(parsed.has_value()) << text.substr(0, 200);
  return parsed ? std::string() : parsed.error().message;
}

// 1-based column just after `needle`'s last occurrence (the closing quote of a key).
std::size_t column_after(std::string_view text, std::string_view needle) { return text.rfind(needle) + needle.size(); }

std::string labels(std::size_t count) {
  std::string text(kHead);
  text += R"("variants": {)";
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0) text += ", ";
    text += fmt::format(R"("l{}": {{"ns": {{"f": ["v"]}}}})", i);
  }
  return text + "}}";
}

TEST(MetadataUntrustedJson, RepeatedLabelNamesTheVariantsObjectAndItsPlace) {
  const std::string text = std::string(kHead) + R"("variants": {"l": {"ns": {"f": ["x"]}}, "l": {"ns": {"f": ["y"]}}}})";
  EXPECT_EQ(parse_error(text),
            fmt::format("variants: key \"l\" appears twice in the same object (line 1, column {})",
                        column_after(text, R"("l")")));
}

TEST(MetadataUntrustedJson, RepeatedKeyAtDepthIsAFindingWithPointer) {
  const std::string text = std::string(kHead) + "\n" + R"("variants": {"a b": {"ns": {"f": ["x"],
    "f": ["y"]}}}})";
  const auto report = check_json_document(text, DocumentKind::VariantsJson, std::nullopt);
  ASSERT_EQ(report.findings.size(), 1U);
  const auto& f = report.findings[0];
  EXPECT_EQ(f.rule, "invalid");
  EXPECT_EQ(f.severity, Severity::Error);
  EXPECT_EQ(f.location, R"(variants["a b"].ns)");
  EXPECT_EQ(f.pointer, "/variants/a b/ns");
  EXPECT_EQ(f.message, "key \"f\" appears twice in the same object (line 3, column 7)");
  ASSERT_EQ(report.errors.size(), 1U);
  EXPECT_EQ(report.errors[0], R"(variants["a b"].ns: key "f" appears twice in the same object (line 3, column 7))");
}

TEST(MetadataUntrustedJson, RepeatedTopLevelKeyIsPlacedAtTheDocument) {
  const std::string text = std::string(kHead) + R"("variants": {}, "variants": {}})";
  EXPECT_EQ(parse_error(text), fmt::format("(document): key \"variants\" appears twice in the same object (line 1, column {})",
                                           column_after(text, R"("variants")")));
}

// A document whose feature value is `depth - 4` arrays deep, so that the document nests `depth`
// levels (root, variants, label, namespace, then the arrays).
std::string nested_document(std::size_t depth) {
  return std::string(kHead) + R"("variants": {"l": {"ns": {"f": )" + std::string(depth - 4, '[') + R"("v")" +
         std::string(depth - 4, ']') + "}}}}";
}

TEST(MetadataUntrustedJson, SixtyFourLevelsReachTheReaderSixtyFiveAreRefused) {
  // At 64 levels the JSON is read, and the reader objects to the value, not the nesting.
  const auto at_64 = parse_error(nested_document(64));
  EXPECT_EQ(at_64.find("nested"), std::string::npos) << at_64;
  EXPECT_NE(at_64.find("variants.l.ns.f"), std::string::npos) << at_64;

  const std::string text = nested_document(65);
  std::string pointer = "/variants/l/ns/f";
  for (int i = 0; i < 60; ++i) pointer += "/0";
  EXPECT_EQ(parse_error(text), fmt::format("invalid JSON: nested more than 64 levels deep at {} (line 1, column {})",
                                           pointer, text.find("[[") + 61));
  const auto report = check_json_document(text, DocumentKind::VariantsJson, std::nullopt);
  ASSERT_EQ(report.findings.size(), 1U);
  EXPECT_EQ(report.findings[0].pointer, pointer);
}

TEST(MetadataUntrustedJson, HundredThousandLevelsAreRefusedWithTheDepthError) {
  // 600 KB: the old reader copied the key path at each level (10 GB, 111 s).
  std::string text = R"({"variants": )";
  for (int i = 0; i < 100'000; ++i) text += R"({"a": )";
  text += "1";
  text += std::string(100'000, '}');
  text += "}";
  const auto error = parse_error(text);
  EXPECT_TRUE(error.starts_with("invalid JSON: nested more than 64 levels deep at /variants/a/a/")) << error.substr(0, 300);
  EXPECT_TRUE(error.ends_with(fmt::format("(line 1, column {})", 13 + 63 * 6 + 1))) << error.substr(0, 300);
}

TEST(MetadataUntrustedJson, TenThousandLabelsAreReadOneMoreIsRefused) {
  auto read = parse_json_document(labels(10'000), DocumentKind::VariantsJson, std::nullopt);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->metadata.variants.size(), 10'000U);
  const std::string text = labels(10'001);
  EXPECT_EQ(parse_error(text), fmt::format("variants: more than 10000 members in one object (line 1, column {})",
                                           column_after(text, R"("l10000")")));
}

TEST(MetadataUntrustedJson, HundredThousandLabelsAreRefusedByTheLimit) {
  // The callback parser took 158 s for these; the limit stops the parse at the 10,001st.
  EXPECT_TRUE(parse_error(labels(100'000)).starts_with("variants: more than 10000 members in one object (line 1, column "));
}

TEST(MetadataUntrustedJson, ValuesPerFeatureAreLimited) {
  std::string values;
  for (int i = 0; i < 10'001; ++i) values += fmt::format("{}\"v{}\"", i > 0 ? ", " : "", i);
  const std::string text = std::string(kHead) + R"("variants": {"l": {"ns": {"f": [)" + values + "]}}}}";
  EXPECT_TRUE(parse_error(text).starts_with("variants.l.ns.f: more than 10000 elements in one array (line 1, column "))
      << parse_error(text).substr(0, 300);
}

TEST(MetadataUntrustedJson, SyntaxErrorsKeepTheirText) {
  EXPECT_EQ(parse_error("[1,"),
            "invalid JSON: parse error at line 1, column 4: syntax error while parsing value - unexpected end of input; "
            "expected '[', '{', or a literal");
}

}  // namespace
}  // namespace vwheel::metadata
