// Conformance: vectors/invalid.json (variants_json, variant_dist_info, pyproject_toml lists).
// Accept exactly what variantlib accepts, except where PEP 825 (or PEP 817) wins; each such case is
// listed below with the reason. Every rejection must name the field and value.

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "metadata/internal.hpp"
#include "shared_data.hpp"
#include "test_support.hpp"
#include "vwheel/metadata/document.hpp"
#include "vwheel/metadata/serialize.hpp"

namespace vwheel::metadata {
namespace {

using nlohmann::json;
using test::any_line_mentions;
using test::joined;

// Where our answer differs from variantlib's; `mention` must appear in one conformance problem
// (accepted) or in the error (rejected).
struct Deviation {
  bool ok;
  const char* reason;
  std::vector<std::string> mention;
};

const std::map<std::string, Deviation>& deviations() {
  static const std::map<std::string, Deviation> table = {
      {"missing default-priorities (providers present)",
       {true, "draft rule namespace==providers keys is a conformance problem (brief; uv fixture must load)",
        {"default-priorities", "missing"}}},
      {"missing providers (namespace present)",
       {true, "PEP 825 files need no providers; draft rule reported as conformance problem",
        {"default-priorities.namespace", "\"ns\"", "providers"}}},
      {"$schema is a number",
       {false, "PEP 825: the format version comes from $schema; unknown versions are rejected", {"$schema", "5"}}},
      {"unknown key in default-priorities",
       {true, "PEP 817: unknown keys MUST be ignored", {"default-priorities.frob", "unknown"}}},
      {"unknown key in provider",
       {true, "PEP 817: unknown keys MUST be ignored (plugin-use is v0.0.2's key, understood in drafts)",
        {"providers.ns.plugin-use"}}},
      {"namespace list empty",
       {true, "PEP 825 violation (empty list) is a conformance problem", {"default-priorities.namespace", "empty"}}},
      {"variant label 17 chars",
       {true, "PEP 825: labels have no length limit", {"variants.abcdefghijklmnopq", "16"}}},
      {"non-null label without properties",
       {true, "real files use the hash-era null label 00000000; reported as a conformance problem",
        {"variants.abc", "null"}}},
      {"label with empty value list (== null variant)",
       {true, "as above, plus an empty value list (conformance problem)", {"variants.abc.ns.f", "empty"}}},
  };
  return table;
}

// What our error must mention for every case we reject (key path and value).
const std::map<std::string, std::vector<std::string>>& error_mentions() {
  static const std::map<std::string, std::vector<std::string>> table = {
      {"empty object", {"variants", "missing"}},
      {"missing variants", {"variants", "missing"}},
      {"variants is a list", {"variants", "an array []"}},
      {"$schema is a number", {"$schema", "5"}},
      {"namespace list not a list", {"default-priorities.namespace", "\"ns\""}},
      {"namespace list has unknown extra ns", {"default-priorities.namespace", "\"other\"", "providers"}},
      {"namespace list has uppercase", {"default-priorities.namespace[0]", "\"NS\"", "[a-z0-9_]+"}},
      {"feature priorities wrong type", {"default-priorities.feature", "[\"f\"]"}},
      {"feature priorities bad name", {"default-priorities.feature.ns[1]", "\"F\""}},
      {"property priorities bad value", {"default-priorities.property.ns.f[0]", "\"V\"", "[a-z0-9_.]+"}},
      {"property priorities flat list", {"default-priorities.property.ns", "[\"v\"]"}},
      {"provider without requires (install-time)", {"providers.ns", "requires"}},
      {"provider requires empty list", {"providers.ns", "requires"}},
      {"provider requires not a list", {"providers.ns.requires", "\"ns-provider\""}},
      {"provider requires with tab", {"providers.ns.requires[0]", "\"a\\tb\""}},
      {"provider plugin-api a:b:c", {"providers.ns.plugin-api", "\"a:b:c\""}},
      {"provider plugin-api with dash", {"providers.ns.plugin-api", "\"my-mod:Obj\""}},
      {"provider enable-if with newline", {"providers.ns.enable-if", "\"python_version\\n>= '3'\""}},
      {"provider enable-if empty string", {"providers.ns.enable-if", "value \"\""}},
      {"provider optional not bool", {"providers.ns.optional", "\"yes\""}},
      {"provider optional = 1", {"providers.ns.optional", "1"}},
      {"provider install-time false without static-properties", {"static-properties", "\"ns\""}},
      {"AoT provider, two static features w/o feature priorities",
       {"static-properties.ns", "\"f\", \"g\"", "default-priorities.feature"}},
      {"static-properties for install-time provider", {"static-properties.ns", "install-time"}},
      {"provider namespace uppercase", {"default-priorities.namespace[0]", "\"NS\""}},
      {"provider entry not a dict", {"providers.ns", "[\"ns-provider\"]"}},
      {"variant label uppercase", {"variants", "\"ABC\""}},
      {"variant label empty", {"variants", "label \"\""}},
      {"variant label with dash", {"variants", "\"a-b\""}},
      {"null label with properties", {"variants.null", "ns :: f :: v"}},
      {"duplicate value in feature", {"variants.abc.ns.f", "\"v\""}},
      {"value uppercase", {"variants.abc.ns.f[0]", "\"V\""}},
      {"value with dash", {"variants.abc.ns.f[0]", "\"1-2\""}},
      {"value is a string not list", {"variants.abc.ns.f", "\"v\""}},
      {"value is a number", {"variants.abc.ns.f[0]", "a number 1"}},
      {"feature with dot", {"variants.abc.ns", "\"f.g\""}},
      // variant_dist_info
      {"one variant, label mismatch", {"variants", "\"abc\"", "\"xyz\""}},
      {"two variants", {"variants", "found 2", "\"abc\", \"abd\""}},
      {"zero variants", {"variants", "found 0"}},
      {"not JSON", {"invalid JSON", "line 1"}},
      {"JSON array", {"(document)", "an array []"}},
      // pyproject_toml
      {"variant is a list", {"variant", "[1]"}},
      {"AoT provider without requires and without static-properties", {"variant.static-properties", "\"ns\""}},
      {"AoT provider WITH requires and static-properties (must not be given in pyproject)",
       {"variant.static-properties.ns", "requires"}},
  };
  return table;
}

json load_vectors(const std::filesystem::path& path) { return json::parse(testing::read_file(path)); }

// Checks one outcome against the vector case; returns a description of any mismatch.
void check_case(const json& c, const ValidationReport& report, const std::optional<variant::VariantMetadata>& md,
                const std::string& context) {
  const std::string name = c.at("case").get<std::string>();
  SCOPED_TRACE(context + " case: " + name);
  bool expected_ok = c.at("ok").get<bool>();
  const auto dev = deviations().find(name);
  if (dev != deviations().end()) expected_ok = dev->second.ok;
  const bool ok = report.errors.empty();
  ASSERT_EQ(ok, expected_ok) << "errors:" << joined(report.errors) << "\nconformance:"
                             << joined(report.conformance_problems);
  for (const auto& line : report.errors) EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  if (!ok) {
    const auto mention = error_mentions().find(name);
    ASSERT_NE(mention, error_mentions().end()) << "no expected message for a rejected case; got" << joined(report.errors);
    EXPECT_TRUE(any_line_mentions(report.errors, mention->second)) << joined(report.errors);
    return;
  }
  ASSERT_TRUE(md.has_value());
  if (dev != deviations().end()) {
    EXPECT_TRUE(any_line_mentions(report.conformance_problems, dev->second.mention))
        << "reason: " << dev->second.reason << "\nconformance:" << joined(report.conformance_problems);
    return;
  }
  ASSERT_TRUE(c.contains("normalized"));
  EXPECT_EQ(to_json_draft003(*md), detail::python_json_dump(c.at("normalized")));
  if (c.contains("label")) {
    ASSERT_EQ(md->variants.size(), 1U);
    EXPECT_EQ(md->variants.begin()->first, c.at("label").get<std::string>());
  }
}

std::string input_text(const json& input) { return input.is_string() ? input.get<std::string>() : input.dump(); }

TEST(MetadataVectors, VariantsJson) {
  VWHEEL_REQUIRE_SHARED("vectors/invalid.json");
  const json vectors = load_vectors(shared_path);
  const auto& cases = vectors.at("variants_json");
  ASSERT_GE(cases.size(), 60U);
  std::size_t accepted = 0;
  for (const auto& c : cases) {
    const auto text = input_text(c.at("input"));
    const auto report = check_json_document(text, DocumentKind::VariantsJson);
    auto parsed = parse_json_document(text, DocumentKind::VariantsJson);
    EXPECT_EQ(parsed.has_value(), report.errors.empty());
    std::optional<variant::VariantMetadata> md;
    if (parsed) {
      md = parsed->metadata;
      EXPECT_EQ(parsed->conformance_problems, report.conformance_problems);
      ++accepted;
    } else {
      EXPECT_EQ(parsed.error().message, report.errors.front());
      EXPECT_EQ(parsed.error().details.size() + 1, report.errors.size());
    }
    check_case(c, report, md, "variants_json");
    // validate_json_document lists the same lines.
    const auto lines = validate_json_document(text, DocumentKind::VariantsJson);
    EXPECT_EQ(lines.size(), report.errors.size() + report.conformance_problems.size());
  }
  EXPECT_GT(accepted, 20U);
}

TEST(MetadataVectors, VariantDistInfo) {
  VWHEEL_REQUIRE_SHARED("vectors/invalid.json");
  const json vectors = load_vectors(shared_path);
  const auto& cases = vectors.at("variant_dist_info");
  ASSERT_GE(cases.size(), 7U);
  for (const auto& c : cases) {
    const auto text = input_text(c.at("input"));
    std::optional<std::string> expected;
    if (c.contains("expected_label") && c.at("expected_label").is_string()) {
      expected = c.at("expected_label").get<std::string>();
    }
    const std::optional<std::string_view> label = expected ? std::optional<std::string_view>(*expected) : std::nullopt;
    const auto report = check_json_document(text, DocumentKind::VariantJson, label);
    auto parsed = parse_json_document(text, DocumentKind::VariantJson, label);
    EXPECT_EQ(parsed.has_value(), report.errors.empty());
    std::optional<variant::VariantMetadata> md;
    if (parsed) md = parsed->metadata;
    check_case(c, report, md, "variant_dist_info");
  }
}

TEST(MetadataVectors, PyprojectToml) {
  VWHEEL_REQUIRE_SHARED("vectors/invalid.json");
  const json vectors = load_vectors(shared_path);
  const auto& cases = vectors.at("pyproject_toml");
  ASSERT_GE(cases.size(), 9U);
  for (const auto& c : cases) {
    const json& input = c.at("input");
    // Through TOML text, as `vwheel` reads pyproject.toml.
    const auto toml = test::to_toml(input);
    const auto report = check_pyproject(toml);
    auto parsed = parse_pyproject(toml);
    EXPECT_EQ(parsed.has_value(), report.errors.empty()) << toml;
    std::optional<variant::VariantMetadata> md;
    if (parsed) {
      md = parsed->metadata;
      EXPECT_TRUE(md->variants.empty());
    }
    check_case(c, report, md, "pyproject_toml (TOML) " + toml);
    // And the same table given as JSON.
    if (input.contains("variant")) {
      const auto text = input.at("variant").dump();
      const auto json_report = check_json_document(text, DocumentKind::Pyproject);
      auto json_parsed = parse_json_document(text, DocumentKind::Pyproject);
      std::optional<variant::VariantMetadata> json_md;
      if (json_parsed) json_md = json_parsed->metadata;
      check_case(c, json_report, json_md, "pyproject_toml (JSON)");
      EXPECT_EQ(json_report.errors, report.errors);
      EXPECT_EQ(json_report.conformance_problems, report.conformance_problems);
    }
  }
}

}  // namespace
}  // namespace vwheel::metadata
