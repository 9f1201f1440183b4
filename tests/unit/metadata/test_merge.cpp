// Unit tests of merging variant metadata.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "vwheel/metadata/document.hpp"
#include "vwheel/metadata/merge.hpp"

namespace vwheel::metadata {
namespace {

using test::any_line_mentions;
using variant::VariantMetadata;

VariantMetadata wheel(std::vector<std::string> namespaces, std::string label, variant::PropertySet props) {
  VariantMetadata md;
  md.namespace_priorities = std::move(namespaces);
  md.variants[std::move(label)] = std::move(props);
  return md;
}

std::vector<std::string> all_lines(const Error& e) {
  std::vector<std::string> lines{e.message};
  lines.insert(lines.end(), e.details.begin(), e.details.end());
  return lines;
}

TEST(MetadataMerge, NamespaceListExtensionKeepsTheLongerInAnyOrder) {
  const auto a = wheel({"a"}, "x1", {{"a", "f", "1"}});
  const auto ab = wheel({"a", "b"}, "x2", {{"b", "g", "2"}});
  auto forward = a;
  ASSERT_TRUE(merge_into(forward, ab));
  auto backward = ab;
  ASSERT_TRUE(merge_into(backward, a));
  EXPECT_EQ(forward, backward);
  EXPECT_EQ(forward.namespace_priorities, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(forward.variants.size(), 2U);

  const auto ba = wheel({"b", "a"}, "x3", {{"a", "f", "3"}});
  auto acc = forward;
  auto r = merge_into(acc, ba);
  ASSERT_FALSE(r);
  EXPECT_EQ(acc, forward);
  EXPECT_TRUE(any_line_mentions(all_lines(r.error()), {"default-priorities.namespace", "[\"a\", \"b\"]",
                                                       "[\"b\", \"a\"]"}));
}

TEST(MetadataMerge, SameLabelMustMeanSameProperties) {
  auto acc = wheel({"a"}, "x1", {{"a", "f", "1"}});
  const auto before = acc;
  ASSERT_TRUE(merge_into(acc, wheel({"a"}, "x1", {{"a", "f", "1"}})));  // identical: fine
  EXPECT_EQ(acc, before);
  auto r = merge_into(acc, wheel({"a"}, "x1", {{"a", "f", "2"}}));
  ASSERT_FALSE(r);
  EXPECT_TRUE(any_line_mentions(all_lines(r.error()), {"variants.x1", "{a :: f :: 1}", "{a :: f :: 2}"}));
  EXPECT_EQ(acc, before);
  // Two labels with one property set are fine.
  ASSERT_TRUE(merge_into(acc, wheel({"a"}, "x2", {{"a", "f", "1"}})));
  EXPECT_EQ(acc.variants.size(), 2U);
}

TEST(MetadataMerge, FeaturePrioritiesFollowPep817) {
  auto with_override = wheel({"a", "b"}, "x1", {{"a", "f", "1"}});
  with_override.feature_priorities["a"] = {"f", "g"};
  // The other lists `a` without an override: inconsistent (either order).
  const auto without = wheel({"a", "b"}, "x2", {{"a", "f", "2"}});
  auto acc = with_override;
  auto r = merge_into(acc, without);
  ASSERT_FALSE(r);
  EXPECT_TRUE(any_line_mentions(all_lines(r.error()), {"default-priorities.feature.a", "\"f\", \"g\""}));
  acc = without;
  ASSERT_FALSE(merge_into(acc, with_override));
  // A document that does not list `a` (a shorter namespace list) may lack it.
  auto shorter = wheel({}, "x3", {});
  shorter.variants = {{"null", {}}};
  acc = with_override;
  ASSERT_TRUE(merge_into(acc, shorter));
  EXPECT_EQ(acc.feature_priorities.at("a"), (std::vector<std::string>{"f", "g"}));
  // Different overrides conflict.
  auto other_override = without;
  other_override.feature_priorities["a"] = {"g", "f"};
  acc = with_override;
  ASSERT_FALSE(merge_into(acc, other_override));
}

TEST(MetadataMerge, ProvidersAndStaticPropertiesUnionWithEqualCommonKeys) {
  auto one = wheel({"a", "b"}, "x1", {{"a", "f", "1"}});
  one.providers["a"].requires_ = {"a-prov"};
  one.static_properties["b"]["f"] = {"1", "2"};
  auto two = wheel({"a", "b"}, "x2", {{"b", "f", "2"}});
  two.providers["b"].install_time = false;
  auto acc = one;
  ASSERT_TRUE(merge_into(acc, two));
  EXPECT_EQ(acc.providers.size(), 2U);
  EXPECT_EQ(acc.static_properties.size(), 1U);

  auto conflicting = two;
  conflicting.providers["a"].requires_ = {"a-prov>=2"};
  conflicting.static_properties["b"]["f"] = {"2", "1"};
  const auto before = acc;
  auto r = merge_into(acc, conflicting);
  ASSERT_FALSE(r);
  const auto lines = all_lines(r.error());
  EXPECT_TRUE(any_line_mentions(lines, {"providers.a", "a-prov>=2"}));
  EXPECT_TRUE(any_line_mentions(lines, {"static-properties.b", "\"2\", \"1\""}));
  EXPECT_EQ(acc, before);
}

TEST(MetadataMerge, OrderIndependentAndSchemaIsTheNewest) {
  std::vector<VariantMetadata> inputs = {
      wheel({"a"}, "x1", {{"a", "f", "1"}}),
      wheel({"a", "b"}, "x2", {{"b", "g", "2"}}),
      wheel({"a", "b", "c"}, "x3", {{"c", "h", "3"}}),
      wheel({"a", "b"}, "null", {}),
  };
  inputs[0].schema = variant::kSchemaDraft003;
  inputs[0].schema_url = std::string(kSchemaUrlDraft003);
  inputs[2].schema = variant::kSchemaPep825;
  inputs[2].schema_url = std::string(kSchemaUrlPep825);
  inputs[1].schema = variant::kSchemaDraft003;
  inputs[1].schema_url = "";
  inputs[3].schema = variant::kSchemaDraft002;
  inputs[1].providers["b"].requires_ = {"b-prov"};
  inputs[3].providers["b"].requires_ = {"b-prov"};
  auto expected = merge_all(inputs);
  ASSERT_TRUE(expected) << expected.error().message;
  EXPECT_EQ(expected->namespace_priorities, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(expected->variants.size(), 4U);
  EXPECT_EQ(expected->schema_url, kSchemaUrlPep825);
  std::vector<std::size_t> order = {0, 1, 2, 3};
  std::size_t permutations = 0;
  while (std::next_permutation(order.begin(), order.end())) {
    std::vector<VariantMetadata> permuted;
    for (auto i : order) permuted.push_back(inputs[i]);
    auto merged = merge_all(permuted);
    ASSERT_TRUE(merged) << merged.error().message;
    EXPECT_EQ(*merged, *expected);
    ++permutations;
  }
  EXPECT_EQ(permutations, 23U);
}

TEST(MetadataMerge, MergeAllNamesTheInput) {
  EXPECT_EQ(*merge_all({}), VariantMetadata{});
  std::vector<VariantMetadata> inputs = {wheel({"a"}, "x1", {{"a", "f", "1"}}), wheel({"a"}, "x2", {}),
                                         wheel({"b"}, "x3", {{"b", "f", "1"}})};
  auto r = merge_all(inputs);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("input #3"), std::string::npos) << r.error().message;
}

TEST(MetadataMerge, ReportsEveryInconsistency) {
  auto acc = wheel({"a"}, "x1", {{"a", "f", "1"}});
  acc.providers["a"].requires_ = {"p"};
  auto other = wheel({"b"}, "x1", {{"a", "f", "2"}});
  other.providers["a"].requires_ = {"q"};
  auto r = merge_into(acc, other);
  ASSERT_FALSE(r);
  EXPECT_EQ(all_lines(r.error()).size(), 3U);
}

}  // namespace
}  // namespace vwheel::metadata
