#include <gtest/gtest.h>

#include "vwheel/variant/ordering.hpp"

using namespace vwheel::variant;

namespace {

PropertySet props(std::initializer_list<const char*> texts) {
  std::vector<Property> out;
  for (const char* t : texts) out.push_back(parse_property(t).value());
  return make_property_set(std::move(out)).value();
}

std::vector<std::string> order(const VariantMetadata& md, const SupportedProperties& table,
                               const UserPriorities& user = {}, const SelectionOptions& options = {}) {
  TableOracle oracle(table);
  auto r = rank_variants(md, oracle, user, options);
  EXPECT_TRUE(r) << (r ? "" : r.error().message);
  return r ? r->order : std::vector<std::string>{};
}

VariantMetadata pep825(std::vector<std::string> namespaces, std::map<std::string, PropertySet> variants) {
  VariantMetadata md;
  md.namespace_priorities = std::move(namespaces);
  md.variants = std::move(variants);
  return md;
}

}  // namespace

TEST(Ordering, Pep825TorchLikeExample) {
  auto md = pep825({"nvidia", "x86_64"},
                   {{"cu126", props({"nvidia :: cuda_version_lower_bound :: 12.6"})},
                    {"cu128", props({"nvidia :: cuda_version_lower_bound :: 12.8"})},
                    {"cu130", props({"nvidia :: cuda_version_lower_bound :: 13.0"})},
                    {"null", {}}});
  SupportedProperties cuda128{{"nvidia", {{"cuda_version_lower_bound", {"12.8", "12.7", "12.6"}, false}}}};
  EXPECT_EQ(order(md, cuda128), (std::vector<std::string>{"cu128", "cu126", "null"}));
  EXPECT_EQ(order(md, {}), (std::vector<std::string>{"null"}));
}

TEST(Ordering, HigherPriorityFeatureWinsThenMoreFeatures) {
  auto md = pep825({"a"}, {{"f1", props({"a :: f1 :: x"})},
                           {"f2", props({"a :: f2 :: y"})},
                           {"both", props({"a :: f1 :: x", "a :: f2 :: y"})}});
  SupportedProperties s{{"a", {{"f1", {"x"}, false}, {"f2", {"y"}, false}}}};
  EXPECT_EQ(order(md, s), (std::vector<std::string>{"both", "f1", "f2"}));
}

TEST(Ordering, MultiValueCountsBestSupportedValueAndTiesBreakByLabel) {
  auto md = pep825({"nvidia"}, {{"zz", props({"nvidia :: sm_arch :: 90_real", "nvidia :: sm_arch :: 80_real"})},
                                {"aa", props({"nvidia :: sm_arch :: 90_real", "nvidia :: sm_arch :: 70_real"})},
                                {"old", props({"nvidia :: sm_arch :: 70_real"})},
                                {"unsupported", props({"nvidia :: sm_arch :: 100_real"})}});
  SupportedProperties s{{"nvidia", {{"sm_arch", {"90_real", "80_real", "70_real"}, true}}}};
  EXPECT_EQ(order(md, s), (std::vector<std::string>{"aa", "zz", "old"}));
}

TEST(Ordering, EveryLabelListedEvenWithSharedPropertySets) {
  auto md = pep825({"a"}, {{"x1", props({"a :: f :: v"})}, {"x0", props({"a :: f :: v"})}});
  SupportedProperties s{{"a", {{"f", {"v"}, false}}}};
  EXPECT_EQ(order(md, s), (std::vector<std::string>{"x0", "x1"}));
}

TEST(Ordering, IncompatibleVariantsAreExplained) {
  auto md = pep825({"nvidia"}, {{"cu13", props({"nvidia :: cuda_version_lower_bound :: 13.0"})}, {"null", {}}});
  SupportedProperties s{{"nvidia", {{"cuda_version_lower_bound", {"12.8"}, false}}}};
  TableOracle oracle(s);
  auto r = rank_variants(md, oracle, {}, {});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->order, std::vector<std::string>{"null"});
  ASSERT_EQ(r->reports.size(), 2U);
  EXPECT_EQ(r->reports[1].label, "cu13");
  EXPECT_FALSE(r->reports[1].compatible);
  EXPECT_NE(r->reports[1].reason.find("nvidia :: cuda_version_lower_bound"), std::string::npos);
  EXPECT_NE(r->reports[1].reason.find("13.0"), std::string::npos);
  EXPECT_NE(r->reports[1].reason.find("12.8"), std::string::npos);
}

TEST(Ordering, UserAndPackagePrioritiesOverrideProviderOrder) {
  VariantMetadata md = pep825({"a", "b"}, {{"a_only", props({"a :: f :: x"})}, {"b_only", props({"b :: g :: y"})}});
  md.schema = kSchemaDraft003;
  md.providers["a"] = ProviderInfo{{"prov-a"}, {}, false, {}, true, {}};
  md.providers["b"] = ProviderInfo{{"prov-b"}, {}, false, {}, true, {}};
  SupportedProperties s{{"a", {{"f", {"x"}, false}}}, {"b", {{"g", {"y"}, false}}}};
  EXPECT_EQ(order(md, s), (std::vector<std::string>{"a_only", "b_only"}));
  UserPriorities user;
  user.namespace_priorities = {"b"};
  EXPECT_EQ(order(md, s, user), (std::vector<std::string>{"b_only", "a_only"}));
}

TEST(Ordering, PropertyPrioritiesReorderValues) {
  VariantMetadata md = pep825({"x86_64"}, {{"v3", props({"x86_64 :: level :: v3"})},
                                          {"v2", props({"x86_64 :: level :: v2"})}});
  SupportedProperties s{{"x86_64", {{"level", {"v3", "v2", "v1"}, false}}}};
  EXPECT_EQ(order(md, s), (std::vector<std::string>{"v3", "v2"}));
  md.property_priorities["x86_64"]["level"] = {"v2"};
  EXPECT_EQ(order(md, s), (std::vector<std::string>{"v2", "v3"}));
}

TEST(Ordering, OptionalProvidersNeedOptIn) {
  VariantMetadata md = pep825({"opt"}, {{"o", props({"opt :: f :: v"})}, {"null", {}}});
  md.schema = kSchemaDraft003;
  md.providers["opt"] = ProviderInfo{{"prov"}, {}, true, {}, true, {}};
  SupportedProperties s{{"opt", {{"f", {"v"}, false}}}};
  EXPECT_EQ(order(md, s), (std::vector<std::string>{"null"}));
  SelectionOptions enabled;
  enabled.enabled_optional.insert("opt");
  EXPECT_EQ(order(md, s, {}, enabled), (std::vector<std::string>{"o", "null"}));
  SelectionOptions all;
  all.enable_all_optional = true;
  EXPECT_EQ(order(md, s, {}, all), (std::vector<std::string>{"o", "null"}));
}

TEST(Ordering, AheadOfTimeProvidersUseStaticProperties) {
  VariantMetadata md = pep825({"blas"}, {{"mkl", props({"blas :: library :: mkl"})},
                                        {"openblas", props({"blas :: library :: openblas"})},
                                        {"accel", props({"blas :: library :: accelerate"})}});
  md.schema = kSchemaDraft003;
  md.providers["blas"] = ProviderInfo{{}, {}, false, {}, false, {}};
  md.static_properties["blas"]["library"] = {"openblas", "mkl"};
  EXPECT_EQ(order(md, {}), (std::vector<std::string>{"openblas", "mkl"}));
}

TEST(Ordering, EnableIfNeedsAnEnvironment) {
  VariantMetadata md = pep825({"n"}, {{"a", props({"n :: f :: a"})}});
  md.schema = kSchemaDraft003;
  md.providers["n"] = ProviderInfo{{"prov"}, std::string("sys_platform == 'linux'"), false, {}, true, {}};
  SupportedProperties s{{"n", {{"f", {"a"}, false}}}};
  TableOracle oracle(s);
  auto no_env = rank_variants(md, oracle, {}, {});
  ASSERT_FALSE(no_env);
  EXPECT_NE(no_env.error().message.find("providers.n.enable-if"), std::string::npos);

  vwheel::markers::Environment linux_env;
  linux_env.variables["sys_platform"] = "linux";
  SelectionOptions opts;
  opts.environment = &linux_env;
  EXPECT_EQ(order(md, s, {}, opts), std::vector<std::string>{"a"});
  vwheel::markers::Environment win;
  win.variables["sys_platform"] = "win32";
  opts.environment = &win;
  EXPECT_EQ(order(md, s, {}, opts), std::vector<std::string>{});
}

TEST(Ordering, AbiDependencyValuesFromInstalledDistributions) {
  VariantMetadata md = pep825({"n"}, {{"t2", props({"abi_dependency :: torch :: 2"})},
                                     {"t28", props({"abi_dependency :: torch :: 2.8"})},
                                     {"t29", props({"abi_dependency :: torch :: 2.9"})}});
  SelectionOptions opts;
  opts.abi_dependencies = {{"Torch", "2.8.1"}};
  EXPECT_EQ(order(md, {}, {}, opts), (std::vector<std::string>{"t2", "t28"}));
}

TEST(Ordering, AbiDependencyHelpers) {
  EXPECT_EQ(abi_dependency_values("4").value(), (std::vector<std::string>{"4", "4.0", "4.0.0"}));
  EXPECT_EQ(abi_dependency_values("4.3b1").value(), (std::vector<std::string>{"4", "4.3", "4.3.0"}));
  EXPECT_EQ(abi_dependency_values("7.2.3.post4").value(), (std::vector<std::string>{"7", "7.2", "7.2.3"}));
  EXPECT_EQ(abi_dependency_values("1.2.3.4").value(), (std::vector<std::string>{"1", "1.2", "1.2.3"}));
  EXPECT_FALSE(abi_dependency_values("not a version"));
  EXPECT_EQ(abi_dependency_feature("c.ns"), "c_ns");
  EXPECT_EQ(abi_dependency_feature("d-foo"), "d_foo");
  EXPECT_EQ(abi_dependency_feature("Jax-Lib"), "jax_lib");
  EXPECT_EQ(abi_dependency_feature("a--_.b"), "a_b");
  auto env = parse_abi_dependency_env("torch==2.8.1, numpy==2.0,bad,numpy>=2");
  ASSERT_EQ(env.items.size(), 2U);
  EXPECT_EQ(env.items[1], (std::pair<std::string, std::string>{"numpy", "2.0"}));
  ASSERT_EQ(env.ignored.size(), 2U);
  EXPECT_NE(env.ignored[0].find("`bad`"), std::string::npos);
}

TEST(Ordering, VariantMarkersAreNarrowedToSupportedProperties) {
  auto p = props({"nvidia :: sm_arch :: 120_real", "nvidia :: sm_arch :: 110_real", "x86_64 :: level :: v3"});
  SupportedProperties s{{"nvidia", {{"sm_arch", {"120_real"}, true}}}, {"x86_64", {{"level", {"v3", "v2"}, false}}}};
  vwheel::markers::Environment env;
  set_variant_markers(env, "lbl", p, s);
  EXPECT_EQ(env.variant_label, "lbl");
  EXPECT_EQ(env.variant_properties.count("nvidia :: sm_arch :: 120_real"), 1U);
  EXPECT_EQ(env.variant_properties.count("nvidia :: sm_arch :: 110_real"), 0U);
  EXPECT_EQ(env.variant_features.count("x86_64 :: level"), 1U);
  EXPECT_EQ(env.variant_namespaces.size(), 2U);
}

TEST(Ordering, IsSupportedNeedsOneValuePerFeature) {
  SupportedProperties s{{"nvidia", {{"sm_arch", {"90_real"}, true}}}};
  std::string reason;
  EXPECT_TRUE(is_supported(props({"nvidia :: sm_arch :: 90_real", "nvidia :: sm_arch :: 80_real"}), s));
  EXPECT_FALSE(is_supported(props({"nvidia :: sm_arch :: 80_real"}), s, &reason));
  EXPECT_NE(reason.find("90_real"), std::string::npos);
  EXPECT_TRUE(is_supported({}, s));
}
