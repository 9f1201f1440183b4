// The selection component alone (pure: no detection, no files): tag ranking, the Python version
// and `Requires-Python`, `--variant` choices, and the variant marker environment. How a run's
// selection is built from profiles, detection and options is api's (tests/unit/api/test_selection.cpp).

#include "vwheel/selection/selection.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vwheel::selection {
namespace {

wheel_name::WheelName wheel(std::string_view file) {
  auto parsed = wheel_name::parse_wheel_name(file);
  EXPECT_TRUE(parsed.has_value()) << file;
  return *parsed;
}

Selection with_tags(std::vector<std::string> tags) {
  Selection s;
  s.set_tags(std::move(tags));
  return s;
}

TEST(SelectionTags, TheBestPositionOfAnyOfTheWheelsTagsIsItsRank) {
  const auto s = with_tags({"cp312-cp312-manylinux_2_28_x86_64", "cp312-abi3-manylinux_2_28_x86_64", "py3-none-any"});
  EXPECT_EQ(s.tag_rank(wheel("a-1.0-cp312-cp312-manylinux_2_28_x86_64.whl")), 0U);
  EXPECT_EQ(s.tag_rank(wheel("a-1.0-py3-none-any.whl")), 2U);
  // A compressed tag set: the best of its expansions counts, whatever the order written.
  EXPECT_EQ(s.tag_rank(wheel("a-1.0-py2.py3-none-any.whl")), 2U);
  EXPECT_EQ(s.tag_rank(wheel("a-1.0-cp312-abi3.cp312-manylinux_2_28_x86_64.whl")), 0U);
  // A variant wheel ranks by its tags alone.
  EXPECT_EQ(s.tag_rank(wheel("a-1.0-cp312-abi3-manylinux_2_28_x86_64-cu128.whl")), 1U);
  EXPECT_EQ(s.tag_rank(wheel("a-1.0-cp311-cp311-win_amd64.whl")), std::nullopt);
}

TEST(SelectionTags, ARepeatedTagKeepsItsFirstPositionAndSetTagsReplacesTheIndex) {
  auto s = with_tags({"py3-none-any", "cp312-cp312-linux_x86_64", "py3-none-any"});
  EXPECT_EQ(s.tag_rank(wheel("a-1.0-py3-none-any.whl")), 0U);
  s.set_tags({"cp312-cp312-linux_x86_64"});
  EXPECT_EQ(s.tags(), std::vector<std::string>{"cp312-cp312-linux_x86_64"});
  EXPECT_EQ(s.tag_rank(wheel("a-1.0-py3-none-any.whl")), std::nullopt);
  EXPECT_EQ(s.tag_rank(wheel("a-1.0-cp312-cp312-linux_x86_64.whl")), 0U);
}

TEST(SelectionPython, TheFullVersionIsPreferredAndNoVersionAdmitsEverything) {
  Selection s;
  EXPECT_EQ(s.python_version(), std::nullopt);
  EXPECT_TRUE(s.check_requires_python(">=3.99", "a.whl").has_value());
  s.environment["python_version"] = "3.12";
  EXPECT_EQ(s.python_version(), "3.12");
  s.environment["python_full_version"] = "3.12.4";
  EXPECT_EQ(s.python_version(), "3.12.4");
  // An empty full version does not hide the short one.
  s.environment["python_full_version"] = "";
  EXPECT_EQ(s.python_version(), "3.12");
}

TEST(SelectionPython, RequiresPythonIsCheckedAndTheErrorNamesFileValueVersionAndSource) {
  Selection s;
  s.environment["python_full_version"] = "3.11.9";
  s.environment_source = "interpreter /usr/bin/python3";
  EXPECT_TRUE(s.check_requires_python("", "a.whl").has_value());
  EXPECT_TRUE(s.check_requires_python(">=3.9,<4", "a.whl").has_value());
  const auto excluded = s.check_requires_python(">=3.12", "a-1.0.tar.gz");
  ASSERT_FALSE(excluded.has_value());
  EXPECT_EQ(excluded.error().message,
            "a-1.0.tar.gz: Requires-Python `>=3.12` excludes Python 3.11.9 (of the interpreter /usr/bin/python3)");
  const auto unparsable = s.check_requires_python(">=three", "b.whl");
  ASSERT_FALSE(unparsable.has_value());
  EXPECT_EQ(unparsable.error().message.rfind("b.whl: Requires-Python `>=three`: ", 0), 0U) << unparsable.error().message;
  // Without a named source the message says "target".
  s.environment_source.clear();
  const auto target = s.check_requires_python("<3", "c.whl");
  ASSERT_FALSE(target.has_value());
  EXPECT_EQ(target.error().message, "c.whl: Requires-Python `<3` excludes Python 3.11.9 (of the target)");
}

TEST(SelectionPython, APreReleaseOfPythonItselfIsAdmittedAsPipDoes) {
  Selection s;
  s.environment["python_full_version"] = "3.13.0rc1";
  // (Without pre-releases admitted, `>=3.12` would exclude 3.13.0rc1.)
  EXPECT_TRUE(s.check_requires_python(">=3.12", "a.whl").has_value());
  EXPECT_FALSE(s.check_requires_python(">=3.13", "a.whl").has_value());
}

TEST(SelectionChoices, ForcedLabelsAreLookedUpByCanonicalName) {
  Selection s;
  s.variant_choices.emplace("torch", "cu128");
  ASSERT_NE(s.forced_label("torch"), nullptr);
  EXPECT_EQ(*s.forced_label("torch"), "cu128");
  EXPECT_EQ(s.forced_label("numpy"), nullptr);
}

TEST(SelectionRank, WithoutAnOracleRankingIsAnErrorNamingTheSelection) {
  Selection s;
  s.description = "target profile gpu.json";
  const auto ranked = s.rank(variant::VariantMetadata{}, nullptr);
  ASSERT_FALSE(ranked.has_value());
  EXPECT_EQ(ranked.error().message, "target profile gpu.json: no variant support known");
}

TEST(SelectionRank, RankingOptionsCarryTheOptionalProvidersAndAbiDependencies) {
  Selection s;
  s.enable_all_optional = true;
  s.enabled_optional.insert("blas");
  s.abi_dependencies.emplace_back("torch", "2.9.0");
  const markers::Environment env;
  const auto options = s.ranking_options(&env);
  EXPECT_TRUE(options.enable_all_optional);
  EXPECT_EQ(options.enabled_optional.count("blas"), 1U);
  ASSERT_EQ(options.abi_dependencies.size(), 1U);
  EXPECT_EQ(options.abi_dependencies[0], (std::pair<std::string, std::string>{"torch", "2.9.0"}));
  EXPECT_EQ(options.environment, &env);
}

TEST(SelectionMarkers, TheMarkerEnvironmentHoldsTheVariablesAndNoVariant) {
  Selection s;
  s.environment["sys_platform"] = "linux";
  s.environment["python_version"] = "3.12";
  const auto env = s.marker_environment();
  EXPECT_EQ(env.variables.size(), 2U);
  EXPECT_EQ(env.variables.at("sys_platform"), "linux");
  EXPECT_TRUE(env.variant_label.empty());
  EXPECT_TRUE(env.variant_properties.empty());
}

TEST(SelectionMarkers, AVariantEnvironmentListsOnlyThePropertiesTheTargetSupports) {
  markers::Environment base;
  base.variables["sys_platform"] = "linux";
  const variant::PropertySet properties{{"nvidia", "cuda_version_lower_bound", "12.8"},
                                        {"nvidia", "sm_arch", "100_real"},
                                        {"nvidia", "sm_arch", "90_real"}};
  variant::SupportedProperties supported;
  supported["nvidia"].push_back({"cuda_version_lower_bound", {"12.8", "12.6"}, false});
  supported["nvidia"].push_back({"sm_arch", {"90_real", "90_virtual"}, true});
  const auto env = variant_environment(base, "cu128", properties, supported);
  EXPECT_EQ(env.variables.at("sys_platform"), "linux");
  EXPECT_EQ(env.variant_label, "cu128");
  EXPECT_EQ(env.variant_properties.count("nvidia :: cuda_version_lower_bound :: 12.8"), 1U);
  EXPECT_EQ(env.variant_properties.count("nvidia :: sm_arch :: 90_real"), 1U);
  EXPECT_EQ(env.variant_properties.count("nvidia :: sm_arch :: 100_real"), 0U);
  EXPECT_EQ(env.variant_namespaces.count("nvidia"), 1U);
  // And a variant marker evaluates against it.
  auto marker = markers::Marker::parse("'nvidia :: sm_arch :: 100_real' in variant_properties");
  ASSERT_TRUE(marker.has_value());
  EXPECT_EQ(marker->evaluate(env), false);
}

TEST(SelectionSupported, ARankingsSupportedPropertiesBecomeATableInOrder) {
  variant::Ranking ranking;
  ranking.sorted_supported = {{"nvidia", "sm_arch", "90_real"},
                              {"nvidia", "sm_arch", "90_virtual"},
                              {"nvidia", "cuda_version_lower_bound", "12.8"},
                              {"x86_64", "level", "v3"}};
  const auto table = supported_of(ranking);
  ASSERT_EQ(table.size(), 2U);
  ASSERT_EQ(table.at("nvidia").size(), 2U);
  EXPECT_EQ(table.at("nvidia")[0].name, "sm_arch");
  EXPECT_EQ(table.at("nvidia")[0].values, (std::vector<std::string>{"90_real", "90_virtual"}));
  EXPECT_EQ(table.at("nvidia")[1].name, "cuda_version_lower_bound");
  EXPECT_EQ(table.at("x86_64")[0].values, std::vector<std::string>{"v3"});
}

}  // namespace
}  // namespace vwheel::selection
