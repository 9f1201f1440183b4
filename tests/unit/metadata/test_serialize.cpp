// Unit tests of writing variant metadata.

#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "metadata/internal.hpp"
#include "test_support.hpp"
#include "vwheel/metadata/document.hpp"
#include "vwheel/metadata/serialize.hpp"

namespace vwheel::metadata {
namespace {

using test::joined;

variant::VariantMetadata sample() {
  variant::VariantMetadata md;
  md.namespace_priorities = {"x86_64", "blas_lapack"};
  md.variants["null"] = {};
  md.variants["x86_64_v3_openblas"] = {{"blas_lapack", "library", "openblas"}, {"x86_64", "level", "v3"}};
  md.variants["multi"] = {{"x86_64", "level", "v10"}, {"x86_64", "level", "v2"}};
  md.feature_priorities["x86_64"] = {"level"};
  md.providers["x86_64"].requires_ = {"provider-variant-x86-64"};
  return md;
}

TEST(MetadataSerialize, PythonJsonEscaping) {
  // Expected bytes from CPython: json.dumps({"a": s}, indent=4, sort_keys=True).
  nlohmann::json doc = {{"a", "\xc3\xa9\x7f\xf0\x9f\x98\x80\n\x01\"\\/\t\b\f\r\xe2\x80\xa8"}};
  EXPECT_EQ(detail::python_json_dump(doc),
            "{\n    \"a\": \"\\u00e9\\u007f\\ud83d\\ude00\\n\\u0001\\\"\\\\/\\t\\b\\f\\r\\u2028\"\n}");
  nlohmann::json shapes = nlohmann::json::parse(R"({"b": {}, "a": [], "c": [{}], "d": {"x": [1, true, null]}})");
  EXPECT_EQ(detail::python_json_dump(shapes),
            "{\n    \"a\": [],\n    \"b\": {},\n    \"c\": [\n        {}\n    ],\n    \"d\": {\n        \"x\": [\n"
            "            1,\n            true,\n            null\n        ]\n    }\n}");
  // Invalid UTF-8 (possible only for models built in code) is written as U+FFFD.
  EXPECT_EQ(detail::python_json_string("a\xff"), "\"a\\ufffd\"");
}

TEST(MetadataText, SingleLineEscapesControlsAndBadBytesOnly) {
  using vwheel::metadata::detail::single_line;
  EXPECT_EQ(single_line("plain: ASCII ~ text"), "plain: ASCII ~ text");
  EXPECT_EQ(single_line("a\nb\tc"), "a\\x0ab\\x09c");
  EXPECT_EQ(single_line("del\x7f"), "del\\x7f");
  EXPECT_EQ(single_line("caf\xc3\xa9"), "caf\xc3\xa9");  // UTF-8 kept
  EXPECT_EQ(single_line("bad\xff"), "bad\\xff");
  EXPECT_EQ(single_line(""), "");
}

TEST(MetadataSerialize, Draft003Layout) {
  auto md = sample();
  md.providers["x86_64"].enable_if = "platform_machine == 'x86_64'";
  md.providers["blas_lapack"] = {};
  md.providers["blas_lapack"].install_time = false;
  md.providers["blas_lapack"].optional = true;
  md.static_properties["blas_lapack"]["library"] = {"openblas", "mkl"};
  const auto text = to_json_draft003(md);
  EXPECT_TRUE(text.starts_with("{\n    \"$schema\": \"https://variants-schema.wheelnext.dev/v0.0.3.json\",\n"));
  EXPECT_FALSE(text.ends_with("\n"));
  const auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["providers"]["blas_lapack"], nlohmann::json::parse(R"({"install-time": false, "optional": true})"));
  EXPECT_EQ(doc["variants"]["multi"]["x86_64"]["level"], nlohmann::json::parse(R"(["v10", "v2"])"));
  EXPECT_FALSE(doc["default-priorities"].contains("property"));
  // And it reads back to the same model (schema fields aside).
  auto back = parse_json_document(text, DocumentKind::VariantsJson);
  ASSERT_TRUE(back) << back.error().message;
  auto expected = md;
  expected.schema_url = std::string(kSchemaUrlDraft003);
  expected.schema = variant::kSchemaDraft003;
  EXPECT_EQ(back->metadata, expected);
}

TEST(MetadataSerialize, Pep825Layout) {
  const auto md = sample();
  const auto text = to_json_pep825(md);
  EXPECT_TRUE(text.ends_with("}\n"));
  const auto doc = nlohmann::json::parse(text);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.size(), 3U);
  EXPECT_EQ(doc.at("$schema"), kSchemaUrlPep825);
  EXPECT_EQ(doc.at("default-priorities"), nlohmann::json::parse(R"({"namespace": ["x86_64", "blas_lapack"]})"));
  EXPECT_EQ(doc.at("variants"), nlohmann::json::parse(R"({
      "multi": {"x86_64": {"level": ["v10", "v2"]}},
      "null": {},
      "x86_64_v3_openblas": {"blas_lapack": {"library": ["openblas"]}, "x86_64": {"level": ["v3"]}}})"));
  // The structure of the v0.1.1 schema: value lists non-empty, unique, patterns hold.
  for (const auto& [label, namespaces] : doc.at("variants").items()) {
    EXPECT_TRUE(variant::is_valid_label(label));
    for (const auto& [ns, features] : namespaces.items()) {
      for (const auto& [feature, values] : features.items()) {
        ASSERT_TRUE(values.is_array());
        EXPECT_FALSE(values.empty());
        EXPECT_TRUE(std::is_sorted(values.begin(), values.end()));
        EXPECT_EQ(std::adjacent_find(values.begin(), values.end()), values.end());
      }
    }
  }
  auto back = parse_json_document(text, DocumentKind::VariantsJson);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(back->conformance_problems.empty()) << joined(back->conformance_problems);
  EXPECT_EQ(back->metadata.schema, variant::kSchemaPep825);
  EXPECT_EQ(back->metadata.variants, md.variants);
  EXPECT_TRUE(conformance_problems(md, DocumentKind::VariantsJson).empty());
}

TEST(MetadataSerialize, DistInfo) {
  const variant::PropertySet props = {{"ns2", "f1", "p1"}, {"ns1", "f1", "p1"}};
  auto md = make_dist_info_metadata(props, sample(), std::nullopt);
  ASSERT_TRUE(md) << md.error().message;
  ASSERT_EQ(md->variants.size(), 1U);
  EXPECT_EQ(md->variants.begin()->second.front().ns, "ns1");  // sorted
  EXPECT_EQ(md->namespace_priorities, sample().namespace_priorities);
  EXPECT_EQ(md->schema_url, kSchemaUrlDraft003);

  auto null_variant = make_dist_info_metadata({}, std::nullopt, std::nullopt);
  ASSERT_TRUE(null_variant);
  EXPECT_TRUE(null_variant->variants.contains("null"));
  EXPECT_FALSE(make_dist_info_metadata({}, std::nullopt, std::string("foo")));
  EXPECT_FALSE(make_dist_info_metadata(props, std::nullopt, std::string("null")));
  EXPECT_FALSE(make_dist_info_metadata(props, std::nullopt, std::string("Bad")));
  EXPECT_FALSE(make_dist_info_metadata({{"ns", "f", "v"}, {"ns", "f", "v"}}, std::nullopt, std::nullopt));

  auto text = make_variant_dist_info(props, std::nullopt, std::string("custom.1"));
  ASSERT_TRUE(text);
  auto back = parse_json_document(*text, DocumentKind::VariantJson, "custom.1");
  ASSERT_TRUE(back) << back.error().message;
}

}  // namespace
}  // namespace vwheel::metadata
