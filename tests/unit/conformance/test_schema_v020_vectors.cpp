// Conformance: tests/data/schema-v0.2.0/vectors.json, hand-written from the Providers draft
// (PEP 850, schema v0.2.0): reading with findings and severities, merging, ranking, and writing
// (round trip and conversion from the draft formats). The vectors are read preserving key order,
// because a provider's static features are listed in priority order.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "shared_data.hpp"
#include "vwheel/metadata/document.hpp"
#include "vwheel/metadata/merge.hpp"
#include "vwheel/metadata/serialize.hpp"
#include "vwheel/variant/ordering.hpp"

using Ordered = nlohmann::ordered_json;
using namespace vwheel;

namespace {

Ordered load_vectors() {
  const auto path = vwheel::testing::source_dir() / "tests/data/schema-v0.2.0/vectors.json";
  const auto text = vwheel::testing::read_file(path);
  EXPECT_FALSE(text.empty()) << path.string();
  return Ordered::parse(text);
}

// The document's text, in the order the vector writes it.
std::string text_of(const Ordered& document) { return document.dump(4) + "\n"; }

std::string version_text(const variant::SchemaVersion& v) {
  return std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.patch);
}

// Per namespace, `[feature, values]` of its static properties in priority order.
Ordered static_of(const variant::VariantMetadata& md) {
  Ordered out = Ordered::object();
  for (const auto& [ns, table] : md.static_properties) {
    Ordered list = Ordered::array();
    std::vector<std::string> order;
    if (const auto it = md.feature_priorities.find(ns); it != md.feature_priorities.end()) order = it->second;
    for (const auto& [feature, values] : table) {
      if (std::find(order.begin(), order.end(), feature) == order.end()) order.push_back(feature);
    }
    for (const auto& feature : order) {
      if (const auto v = table.find(feature); v != table.end()) list.push_back(Ordered::array({feature, v->second}));
    }
    out[ns] = std::move(list);
  }
  return out;
}

}  // namespace

TEST(SchemaV020Vectors, Read) {
  const auto vectors = load_vectors();
  std::size_t n = 0;
  for (const auto& c : vectors.at("read")) {
    const auto name = c.at("case").get<std::string>();
    SCOPED_TRACE(name);
    const auto text = text_of(c.at("document"));
    const auto report = metadata::check_json_document(text, metadata::DocumentKind::VariantsJson);
    EXPECT_EQ(report.usable(), c.at("ok").get<bool>()) << (report.errors.empty() ? "" : report.errors.front());

    std::multiset<std::tuple<std::string, std::string, std::string>> got;
    std::string lines;
    for (const auto& f : report.findings) {
      got.emplace(std::string(metadata::severity_name(f.severity)), f.rule, f.pointer);
      lines += "\n  " + std::string(metadata::severity_name(f.severity)) + " " + f.rule + " " + f.pointer + ": " +
               f.message;
    }
    std::multiset<std::tuple<std::string, std::string, std::string>> want;
    for (const auto& f : c.at("findings")) {
      want.emplace(f.at(0).get<std::string>(), f.at(1).get<std::string>(), f.at(2).get<std::string>());
    }
    EXPECT_EQ(got, want) << "findings:" << lines;

    auto parsed = metadata::parse_json_document(text, metadata::DocumentKind::VariantsJson);
    EXPECT_EQ(static_cast<bool>(parsed), c.at("ok").get<bool>());
    if (parsed && c.contains("expect")) {
      const auto& md = parsed->metadata;
      const auto& e = c.at("expect");
      if (e.contains("schema")) {
        EXPECT_EQ(version_text(md.schema), e.at("schema").get<std::string>());
      }
      if (e.contains("namespaces")) {
        EXPECT_EQ(md.namespace_priorities, e.at("namespaces").get<std::vector<std::string>>());
      }
      if (e.contains("providers")) {
        for (const auto& [ns, want_p] : e.at("providers").items()) {
          ASSERT_TRUE(md.providers.contains(ns)) << ns;
          const auto& p = md.providers.at(ns);
          EXPECT_EQ(p.install_time, want_p.at("install_time").get<bool>()) << ns;
          EXPECT_EQ(p.requires_, want_p.at("requires").get<std::vector<std::string>>()) << ns;
          EXPECT_EQ(p.optional, want_p.at("optional").get<bool>()) << ns;
          EXPECT_EQ(p.plugin_api.value_or("<none>"),
                    want_p.at("plugin_api").is_null() ? "<none>" : want_p.at("plugin_api").get<std::string>())
              << ns;
          EXPECT_FALSE(p.enable_if) << ns;
        }
      }
      if (e.contains("provider_names")) {
        std::vector<std::string> names;
        for (const auto& [ns, p] : md.providers) names.push_back(ns);
        EXPECT_EQ(names, e.at("provider_names").get<std::vector<std::string>>());
      }
      if (e.contains("static")) {
        EXPECT_EQ(static_of(md), e.at("static"));
      }
    }
    if (parsed && c.value("canonical", false)) {
      EXPECT_EQ(metadata::to_json_v020(parsed->metadata), text) << "round trip";
    }
    ++n;
  }
  EXPECT_GE(n, 30u);
}

TEST(SchemaV020Vectors, Merge) {
  const auto vectors = load_vectors();
  std::size_t n = 0;
  for (const auto& c : vectors.at("merge")) {
    const auto name = c.at("case").get<std::string>();
    SCOPED_TRACE(name);
    std::vector<variant::VariantMetadata> inputs;
    for (const auto& input : c.at("inputs")) {
      auto parsed = metadata::parse_json_document(text_of(input), metadata::DocumentKind::VariantsJson);
      ASSERT_TRUE(parsed) << parsed.error().message;
      inputs.push_back(parsed->metadata);
    }
    auto merged = metadata::merge_all(inputs);
    ASSERT_EQ(static_cast<bool>(merged), c.at("ok").get<bool>()) << (merged ? "" : merged.error().message);
    if (merged) {
      if (c.contains("labels")) {
        std::vector<std::string> labels;
        for (const auto& [label, props] : merged->variants) labels.push_back(label);
        EXPECT_EQ(labels, c.at("labels").get<std::vector<std::string>>());
      }
      // The merged 0.2.0 metadata is writable and reads back to itself.
      EXPECT_TRUE(metadata::conformance_problems_v020(*merged, metadata::DocumentKind::VariantsJson).empty());
      auto again = metadata::parse_json_document(metadata::to_json_v020(*merged), metadata::DocumentKind::VariantsJson);
      ASSERT_TRUE(again);
      EXPECT_EQ(again->metadata.providers, merged->providers);
      EXPECT_EQ(again->metadata.variants, merged->variants);
    } else {
      std::string all = merged.error().message;
      for (const auto& d : merged.error().details) all += "\n" + d;
      for (const auto& m : c.at("mentions")) {
        EXPECT_NE(merged.error().message.find(m.get<std::string>()), std::string::npos)
            << "error does not mention " << m << ": " << all;
      }
    }
    ++n;
  }
  EXPECT_GE(n, 9u);
}

TEST(SchemaV020Vectors, Rank) {
  const auto vectors = load_vectors();
  std::size_t n = 0;
  for (const auto& c : vectors.at("rank")) {
    const auto name = c.at("case").get<std::string>();
    SCOPED_TRACE(name);
    auto parsed = metadata::parse_json_document(text_of(c.at("document")), metadata::DocumentKind::VariantsJson);
    ASSERT_TRUE(parsed) << parsed.error().message;
    variant::SupportedProperties table;
    for (const auto& [ns, features] : c.at("supported").items()) {
      for (const auto& f : features) {
        table[ns].push_back(variant::FeatureConfig{f.at(0).get<std::string>(),
                                                   f.at(1).get<std::vector<std::string>>(), false});
      }
    }
    variant::SelectionOptions options;
    for (const auto& ns : c.at("enable_optional")) options.enabled_optional.insert(ns.get<std::string>());
    const variant::TableOracle oracle(std::move(table));
    auto ranking = variant::rank_variants(parsed->metadata, oracle, {}, options);
    ASSERT_TRUE(ranking) << ranking.error().message;
    EXPECT_EQ(ranking->order, c.at("expected_order").get<std::vector<std::string>>());
    ++n;
  }
  EXPECT_GE(n, 5u);
}

TEST(SchemaV020Vectors, Write) {
  const auto vectors = load_vectors();
  std::size_t n = 0;
  for (const auto& c : vectors.at("write")) {
    const auto name = c.at("case").get<std::string>();
    SCOPED_TRACE(name);
    auto parsed = metadata::parse_json_document(text_of(c.at("document")), metadata::DocumentKind::VariantsJson);
    ASSERT_TRUE(parsed) << parsed.error().message;
    const auto problems = metadata::conformance_problems_v020(parsed->metadata, metadata::DocumentKind::VariantsJson);
    const auto want = c.at("problems").get<std::vector<std::string>>();
    if (want.empty()) {
      EXPECT_TRUE(problems.empty()) << (problems.empty() ? "" : problems.front());
      const auto written = metadata::to_json_v020(parsed->metadata);
      EXPECT_EQ(written, text_of(c.at("expected")));
      const auto report = metadata::check_json_document(written, metadata::DocumentKind::VariantsJson);
      EXPECT_TRUE(report.findings.empty()) << (report.findings.empty() ? "" : report.findings.front().message);
    } else {
      const bool found = std::any_of(problems.begin(), problems.end(), [&](const std::string& line) {
        return std::all_of(want.begin(), want.end(), [&](const std::string& w) { return line.find(w) != std::string::npos; });
      });
      EXPECT_TRUE(found) << "no problem line mentions every one of the expected words; got " << problems.size();
    }
    ++n;
  }
  EXPECT_GE(n, 4u);
}
