// Conformance: vectors/serialize.json (byte-identical draft v0.0.3 output) and loading every
// real-world *-variants.json under data/real-variants.

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "shared_data.hpp"
#include "test_support.hpp"
#include "vwheel/metadata/document.hpp"
#include "vwheel/metadata/serialize.hpp"

namespace vwheel::metadata {
namespace {

using nlohmann::json;
using test::any_line_mentions;
using test::joined;

TEST(MetadataVectors, SerializeByteIdentical) {
  VWHEEL_REQUIRE_SHARED("vectors/serialize.json");
  const json vectors = json::parse(testing::read_file(shared_path));
  const auto& cases = vectors.at("cases");
  ASSERT_GE(cases.size(), 15U);
  std::size_t to_str_cases = 0;
  std::size_t dist_info_cases = 0;
  for (const auto& c : cases) {
    const std::string name = c.at("case").get<std::string>();
    SCOPED_TRACE(name);
    if (c.contains("input")) {
      ++to_str_cases;
      auto parsed = parse_json_document(c.at("input").dump(), DocumentKind::VariantsJson);
      ASSERT_TRUE(parsed) << parsed.error().message;
      EXPECT_EQ(to_json_draft003(parsed->metadata), c.at("output").get<std::string>());
      continue;
    }
    ++dist_info_cases;
    variant::PropertySet properties;
    for (const auto& p : c.at("properties")) {
      properties.push_back({p.at(0).get<std::string>(), p.at(1).get<std::string>(), p.at(2).get<std::string>()});
    }
    std::optional<variant::VariantMetadata> pyproject;
    if (!c.at("pyproject").is_null()) {
      const auto toml = test::to_toml(c.at("pyproject"));
      auto parsed = parse_pyproject(toml);
      ASSERT_TRUE(parsed) << parsed.error().message << "\n" << toml;
      pyproject = parsed->metadata;
    }
    std::optional<std::string> label;
    if (c.at("label").is_string()) label = c.at("label").get<std::string>();
    auto text = make_variant_dist_info(properties, pyproject, label);
    ASSERT_EQ(text.has_value(), c.at("ok").get<bool>()) << (text ? *text : text.error().message);
    if (text) {
      EXPECT_EQ(*text, c.at("output").get<std::string>());
    } else {
      EXPECT_NE(text.error().message.find("null"), std::string::npos) << text.error().message;
    }
  }
  EXPECT_GE(to_str_cases, 6U);
  EXPECT_GE(dist_info_cases, 9U);
}

// Equality of what both documents carry, ignoring where the schema came from.
void expect_same_content(const variant::VariantMetadata& a, const variant::VariantMetadata& b) {
  EXPECT_EQ(a.namespace_priorities, b.namespace_priorities);
  EXPECT_EQ(a.feature_priorities, b.feature_priorities);
  EXPECT_EQ(a.property_priorities, b.property_priorities);
  EXPECT_EQ(a.providers, b.providers);
  EXPECT_EQ(a.static_properties, b.static_properties);
  EXPECT_EQ(a.variants, b.variants);
}

TEST(MetadataRealVariants, EveryFileLoadsAndRoundTrips) {
  VWHEEL_REQUIRE_SHARED("data/real-variants");
  std::size_t files = 0;
  std::size_t with_problems = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(shared_path)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
    ++files;
    SCOPED_TRACE(entry.path().string());
    const auto text = testing::read_file(entry.path());
    auto parsed = parse_json_document(text, DocumentKind::VariantsJson);
    ASSERT_TRUE(parsed) << parsed.error().message << joined(parsed.error().details);
    const auto& md = parsed->metadata;
    EXPECT_FALSE(md.variants.empty());
    EXPECT_FALSE(md.namespace_priorities.empty());
    if (!parsed->conformance_problems.empty()) ++with_problems;

    // Draft v0.0.3 output reads back to the same content, with no new problems about structure.
    auto again = parse_json_document(to_json_draft003(md), DocumentKind::VariantsJson);
    ASSERT_TRUE(again) << again.error().message;
    expect_same_content(md, again->metadata);

    // PEP 825 output keeps the namespace list and variants.
    auto pep825 = parse_json_document(to_json_pep825(md), DocumentKind::VariantsJson);
    ASSERT_TRUE(pep825) << pep825.error().message;
    EXPECT_EQ(pep825->metadata.schema, variant::kSchemaPep825);
    EXPECT_EQ(pep825->metadata.namespace_priorities, md.namespace_priorities);
    EXPECT_EQ(pep825->metadata.variants, md.variants);
    EXPECT_TRUE(pep825->metadata.providers.empty());

    // Each variant, as a wheel's variant.json.
    for (const auto& [label, properties] : md.variants) {
      auto one = md;
      one.variants = {{label, properties}};
      auto wheel = parse_json_document(to_json_draft003(one), DocumentKind::VariantJson, label);
      ASSERT_TRUE(wheel) << wheel.error().message;
      EXPECT_EQ(wheel->metadata.variants, one.variants);
    }
  }
  EXPECT_GE(files, 236U);
  EXPECT_GT(with_problems, 0U);
}

TEST(MetadataRealVariants, UvFixtureReportsSchemaAndNamespaceList) {
  VWHEEL_REQUIRE_SHARED("data/real-variants/astral-sh_uv__charlie_wheel-variant__built_by_uv-0.1.0-variants.json");
  const auto text = testing::read_file(shared_path);
  auto parsed = parse_json_document(text, DocumentKind::VariantsJson);
  ASSERT_TRUE(parsed) << parsed.error().message;
  const auto& problems = parsed->conformance_problems;
  EXPECT_TRUE(any_line_mentions(problems, {"$schema", "missing"})) << joined(problems);
  EXPECT_TRUE(any_line_mentions(problems, {"default-priorities.namespace", "\"mathlib\""})) << joined(problems);
  EXPECT_EQ(parsed->metadata.variants.size(), 4U);
  EXPECT_TRUE(parsed->metadata.schema_url.empty());
  EXPECT_FALSE(parsed->metadata.providers.at("mathlib").install_time);
  EXPECT_EQ(parsed->metadata.static_properties.at("mathlib").at("kind"), std::vector<std::string>{"very_fast_lib"});
  // validate lists them too.
  const auto lines = validate_json_document(text, DocumentKind::VariantsJson);
  EXPECT_EQ(lines, problems);
}

TEST(MetadataRealVariants, DraftV002PluginUseIsUpgraded) {
  VWHEEL_REQUIRE_SHARED("data/real-variants/variants-index-gh-pages/v0.0.2/numpy/numpy-2.3.3-variants.json");
  const auto text = testing::read_file(shared_path);
  auto parsed = parse_json_document(text, DocumentKind::VariantsJson);
  ASSERT_TRUE(parsed) << parsed.error().message;
  const auto& md = parsed->metadata;
  EXPECT_EQ(md.schema, variant::kSchemaDraft002);
  EXPECT_FALSE(md.providers.at("blas_lapack").install_time);  // plugin-use = "build"
  EXPECT_TRUE(md.providers.at("x86_64").install_time);
  EXPECT_EQ(md.static_properties.at("blas_lapack").at("provider"),
            (std::vector<std::string>{"accelerate", "openblas", "mkl"}));
  EXPECT_TRUE(parsed->conformance_problems.empty()) << joined(parsed->conformance_problems);

  // The same package as the aggregator converted it to v0.0.3 has the same content.
  const auto v003 = testing::shared_dir() / "data/real-variants/variants-index-gh-pages/v0.0.3/numpy/numpy-2.3.3-variants.json";
  if (std::filesystem::exists(v003)) {
    auto converted = parse_json_document(testing::read_file(v003), DocumentKind::VariantsJson);
    ASSERT_TRUE(converted) << converted.error().message;
    expect_same_content(md, converted->metadata);
  }
}

}  // namespace
}  // namespace vwheel::metadata
