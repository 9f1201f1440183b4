// Conformance: vectors/merge.json. The `merge` sequences must give the same result or the same
// rejection, except where PEP 825/817 differ from variantlib (listed below); the
// generate-index-json runs are replayed through parse_json_document + merge_into.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "metadata/internal.hpp"
#include "shared_data.hpp"
#include "test_support.hpp"
#include "vwheel/metadata/document.hpp"
#include "vwheel/metadata/merge.hpp"
#include "vwheel/metadata/serialize.hpp"
#include "vwheel/variant/property.hpp"

namespace vwheel::metadata {
namespace {

using nlohmann::json;
using test::joined;

variant::VariantMetadata parse_input(const json& input) {
  auto parsed = parse_json_document(input.is_string() ? input.get<std::string>() : input.dump(),
                                    DocumentKind::VariantsJson);
  EXPECT_TRUE(parsed) << parsed.error().message;
  return parsed ? parsed->metadata : variant::VariantMetadata{};
}

// Our expected outcome per step where it differs from variantlib's.
struct StepDeviation {
  bool ok;
  std::vector<std::string> error_mentions;  // when !ok
  const char* reason;
};

const std::map<std::string, StepDeviation>& step_deviations() {
  static const std::map<std::string, StepDeviation> table = {
      {"namespace list extended (PEP 825 allows prefix extension)",
       {true, {}, "PEP 825: the longer list wins when one starts with the other"}},
      {"same label, different properties (silently overwritten)",
       {false, {"variants.x1", "a :: f :: 1", "a :: f :: 2"}, "PEP 825: one label, one property set"}},
      {"static-properties differ (not compared!)",
       {false, {"static-properties.a", "\"1\", \"2\"", "\"2\""}, "PEP 817: common keys must have the same value"}},
  };
  return table;
}

// What our error must name for the rejections we share with variantlib.
const std::map<std::string, std::vector<std::string>>& shared_rejections() {
  static const std::map<std::string, std::vector<std::string>> table = {
      {"namespace order differs", {"default-priorities.namespace", "[\"a\", \"b\"]", "[\"b\", \"a\"]"}},
      {"feature priorities differ", {"default-priorities.feature.a", "[\"f\"]"}},
      {"property priorities differ", {"default-priorities.property.a", "\"1\"", "\"2\""}},
      {"provider requires differ", {"providers.a", "a-prov", "a-prov>=2"}},
  };
  return table;
}

TEST(MetadataVectors, MergeSequences) {
  VWHEEL_REQUIRE_SHARED("vectors/merge.json");
  const json vectors = json::parse(testing::read_file(shared_path));
  std::size_t sequences = 0;
  for (const auto& c : vectors.at("cases")) {
    if (!c.contains("inputs")) continue;
    ++sequences;
    const std::string name = c.at("case").get<std::string>();
    SCOPED_TRACE(name);
    std::vector<variant::VariantMetadata> inputs;
    for (const auto& input : c.at("inputs")) inputs.push_back(parse_input(input));
    ASSERT_EQ(c.at("steps").size() + 1, inputs.size());
    const auto dev = step_deviations().find(name);

    variant::VariantMetadata acc = inputs.front();
    bool all_ok = true;
    for (std::size_t i = 0; i < c.at("steps").size(); ++i) {
      const auto& step = c.at("steps").at(i);
      bool expected_ok = step.at("ok").get<bool>();
      if (dev != step_deviations().end()) expected_ok = dev->second.ok;
      const auto before = acc;
      auto r = merge_into(acc, inputs[i + 1]);
      ASSERT_EQ(r.has_value(), expected_ok) << (r ? std::string("merged") : r.error().message);
      if (!r) {
        all_ok = false;
        EXPECT_EQ(acc, before) << "acc must be unchanged on failure";
        std::vector<std::string> lines{r.error().message};
        lines.insert(lines.end(), r.error().details.begin(), r.error().details.end());
        const auto& mentions = dev != step_deviations().end() ? dev->second.error_mentions
                                                               : shared_rejections().at(name);
        EXPECT_TRUE(test::any_line_mentions(lines, mentions)) << joined(lines);
      }
    }
    if (!all_ok) continue;
    if (dev == step_deviations().end()) {
      EXPECT_EQ(to_json_draft003(acc), detail::python_json_dump(c.at("final")));
    } else {
      // Namespace list extension: the longer list and the union of providers.
      EXPECT_EQ(acc.namespace_priorities, (std::vector<std::string>{"a", "b"}));
      EXPECT_EQ(acc.providers.size(), 2U);
      EXPECT_EQ(acc.variants.size(), 2U);
    }
    // Order independence: every permutation of the inputs gives the same result.
    std::vector<std::size_t> order(inputs.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    while (std::next_permutation(order.begin(), order.end())) {
      std::vector<variant::VariantMetadata> permuted;
      for (auto i : order) permuted.push_back(inputs[i]);
      auto merged = merge_all(permuted);
      ASSERT_TRUE(merged) << merged.error().message;
      EXPECT_EQ(*merged, acc);
    }
  }
  EXPECT_GE(sequences, 9U);
}

// generate-index-json: wheels in sorted order, grouped by `name-version`; a wheel whose file name
// has no valid label, whose variant.json is missing or invalid (label checked against the file
// name), or whose metadata is inconsistent with the group's is skipped.
struct WheelName {
  std::string namever;
  std::string label;  // empty: not a variant wheel (or invalid)
};

WheelName split_name(const std::string& filename) {
  std::vector<std::string> parts;
  std::string stem = filename.substr(0, filename.size() - 4);  // ".whl"
  std::size_t start = 0;
  while (true) {
    const auto dash = stem.find('-', start);
    parts.push_back(stem.substr(start, dash - start));
    if (dash == std::string::npos) break;
    start = dash + 1;
  }
  WheelName out;
  out.namever = parts.at(0) + "-" + parts.at(1);
  const bool has_label = parts.size() == 7 || (parts.size() == 6 && !(parts[2][0] >= '0' && parts[2][0] <= '9'));
  if (has_label && variant::is_valid_label(parts.back())) out.label = parts.back();
  return out;
}

TEST(MetadataVectors, GenerateIndexJsonRuns) {
  VWHEEL_REQUIRE_SHARED("vectors/merge.json");
  const json vectors = json::parse(testing::read_file(shared_path));
  std::size_t runs = 0;
  for (const auto& c : vectors.at("cases")) {
    if (!c.contains("wheels_in_sorted_order")) continue;
    ++runs;
    const std::string name = c.at("case").get<std::string>();
    SCOPED_TRACE(name);
    std::map<std::string, variant::VariantMetadata> indexes;
    std::size_t merge_failures = 0;
    for (const auto& wheel : c.at("wheels_in_sorted_order")) {
      const auto wn = split_name(wheel.at("filename").get<std::string>());
      if (wn.label.empty() || wheel.at("variant_json").is_null()) continue;
      const auto& vj = wheel.at("variant_json");
      auto parsed = parse_json_document(vj.is_string() ? vj.get<std::string>() : vj.dump(), DocumentKind::VariantJson,
                                        wn.label);
      if (!parsed) continue;
      auto [it, inserted] = indexes.try_emplace(wn.namever, parsed->metadata);
      if (!inserted && !merge_into(it->second, parsed->metadata)) ++merge_failures;
    }
    json expected_outputs = c.at("outputs");
    if (name == "inconsistent namespace order: merge error logged, variant STILL added") {
      // variantlib adds the variant before detecting the inconsistency; we leave the index as it was.
      EXPECT_EQ(merge_failures, 1U);
      auto out = json::parse(expected_outputs.at("pkg-1.0-variants.json").get<std::string>());
      out.at("variants").erase("x2");
      expected_outputs["pkg-1.0-variants.json"] = detail::python_json_dump(out);
    } else {
      EXPECT_EQ(merge_failures, 0U);
    }
    ASSERT_EQ(indexes.size(), expected_outputs.size());
    for (const auto& [namever, md] : indexes) {
      const auto file = namever + "-variants.json";
      ASSERT_TRUE(expected_outputs.contains(file)) << file;
      EXPECT_EQ(to_json_draft003(md), expected_outputs.at(file).get<std::string>()) << file;
    }
  }
  EXPECT_GE(runs, 5U);
}

}  // namespace
}  // namespace vwheel::metadata
