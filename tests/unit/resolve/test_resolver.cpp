// The resolver against an in-memory provider: what it picks and why it fails, with extras,
// markers, constraints and pre-releases.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "fake_provider.hpp"
#include "resolver_graphs.hpp"

namespace {

using namespace vwheel::resolve::test;  // NOLINT(google-build-using-namespace)

TEST(Resolve, EmptyRequirements) {
  FakeProvider p;
  auto r = run(p, {});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->pins.empty());
}

TEST(Resolve, SimpleChainPicksNewest) {
  FakeProvider p;
  p.add("a", "1.0", {"b>=1"}).add("a", "2.0", {"b>=2"});
  p.add("b", "1.0").add("b", "2.0", {"c"}).add("b", "2.5", {"c<2"});
  p.add("c", "1.0").add("c", "3.0");
  auto r = run(p, {"a"});
  ASSERT_TRUE(r) << all_text(r.error());
  EXPECT_EQ(pins(*r), (Pins{{"a", "2.0"}, {"b", "2.5"}, {"c", "1.0"}}));
  const Pin* a = find(*r, "a");
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(a->requested);
  EXPECT_EQ(a->required_by, std::vector<std::string>{"root"});
  const Pin* c = find(*r, "c");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->requested);
  EXPECT_EQ(c->required_by, std::vector<std::string>{"b==2.5"});
  // Sorted by name.
  EXPECT_TRUE(
      std::is_sorted(r->pins.begin(), r->pins.end(), [](const Pin& x, const Pin& y) { return x.name < y.name; }));
}

TEST(Resolve, NamesAreCanonicalized) {
  FakeProvider p;
  p.add("foo-bar", "1.0", {"Zope.Interface"});
  p.add("zope-interface", "5.0");
  auto r = run(p, {"Foo_Bar"});
  ASSERT_TRUE(r) << all_text(r.error());
  EXPECT_EQ(pins(*r), (Pins{{"foo-bar", "1.0"}, {"zope-interface", "5.0"}}));
}

TEST(Resolve, BacktracksToOlderVersion) {
  // Newest a needs b>=2, which conflicts with the root's b<2: the older a is chosen.
  FakeProvider p;
  p.add("a", "2.0", {"b>=2"}).add("a", "1.0", {"b"});
  p.add("b", "2.0").add("b", "1.0");
  auto r = run(p, {"a", "b<2"});
  ASSERT_TRUE(r) << all_text(r.error());
  EXPECT_EQ(pins(*r), (Pins{{"a", "1.0"}, {"b", "1.0"}}));
}

TEST(Resolve, BacktracksThroughTransitiveConflict) {
  // a 3.0 -> c>=2 conflicts with b's c<2 deep down; a 2.0 works.
  FakeProvider p;
  p.add("a", "3.0", {"x"}).add("a", "2.0", {"y"});
  p.add("x", "1.0", {"c>=2"});
  p.add("y", "1.0", {"c<2"});
  p.add("b", "1.0", {"z"});
  p.add("z", "1.0", {"c<2"});
  p.add("c", "2.0").add("c", "1.0");
  auto r = run(p, {"a", "b"});
  ASSERT_TRUE(r) << all_text(r.error());
  EXPECT_EQ(pins(*r), (Pins{{"a", "2.0"}, {"b", "1.0"}, {"c", "1.0"}, {"y", "1.0"}, {"z", "1.0"}}));
}

TEST(Resolve, DiamondConflictExplained) {
  FakeProvider p;
  p.add("a", "1.0", {"b>=2"});
  p.add("b", "1.0").add("b", "2.0");
  auto r = run(p, {"a", "b<2"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "cannot resolve: no version of `b` satisfies `b>=2` (from a==1.0) and `b<2` (from root)");
  const std::string text = all_text(r.error());
  EXPECT_NE(text.find("a==1.0 requires `b>=2`"), std::string::npos) << text;
  EXPECT_NE(text.find("root requires `b<2`"), std::string::npos) << text;
  EXPECT_NE(text.find("root requires `a`"), std::string::npos) << text;
  EXPECT_NE(text.find("`b`: available 2.0, 1.0"), std::string::npos) << text;
  EXPECT_NE(text.find("`a`: available 1.0; tried 1.0"), std::string::npos) << text;
  EXPECT_FALSE(r.error().details.empty());
}

TEST(Resolve, DiamondBetweenTwoDependencies) {
  FakeProvider p;
  p.add("app", "1.0", {"left", "right"});
  p.add("left", "1.0", {"shared>=2"});
  p.add("right", "1.0", {"shared<2"});
  p.add("shared", "1.0").add("shared", "2.0");
  auto r = run(p, {"app"});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("no version of `shared` satisfies"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("`shared>=2` (from left==1.0)"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("`shared<2` (from right==1.0)"), std::string::npos) << r.error().message;
}

TEST(Resolve, NoVersionsAtAll) {
  FakeProvider p;
  p.add("a", "1.0", {"ghost>=1"});
  auto r = run(p, {"a"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "cannot resolve: no versions of `ghost` found (required by a==1.0)");
  auto r2 = run(p, {"ghost"});
  ASSERT_FALSE(r2);
  EXPECT_EQ(r2.error().message, "cannot resolve: no versions of `ghost` found (required by root)");
}

TEST(Resolve, LeftOutVersionsSayWhyFirst) {
  // Files, but none usable: the summary names the newest version's reason; the details list each
  // reason once, with the versions that share it.
  FakeProvider p;
  p.add("a", "1.0", {"src>=1"});
  p.left_out("src", "2.0", "only a source distribution").left_out("src", "1.5", "only a source distribution");
  p.left_out("src", "1.0", "yanked");
  auto r = run(p, {"a"});
  ASSERT_FALSE(r);
  EXPECT_EQ(
      r.error().message,
      "cannot resolve: no usable version of `src` (required by a==1.0): `src` 2.0, 1.5: only a source distribution");
  EXPECT_EQ(
      all_text(r.error()),
      "cannot resolve: no usable version of `src` (required by a==1.0): `src` 2.0, 1.5: only a source distribution\n"
      "(1) the requirements cannot be satisfied, because a==1.0 requires `src>=1` but no version of `src` can be used "
      "and root requires `a`\n"
      "`a`: available 1.0; tried 1.0\n"
      "`src` 2.0, 1.5: only a source distribution\n"
      "`src` 1.0: yanked\n"
      "`src`: available none; tried none");
}

TEST(Resolve, LeftOutVersionsNamedWhenNewerOrAskedFor) {
  // 1.0 is usable: 3.0 (newer) is named in the details, 0.9 (older, not asked for) is not; a
  // requirement that only a left-out version meets gets its reason in the summary.
  FakeProvider p;
  p.add("x", "1.0");
  p.left_out("x", "3.0", "Requires-Python >=4 excludes Python 3.12.0 (the target's)");
  p.left_out("x", "2.0", "yanked");
  p.left_out("x", "0.9", "only a source distribution");
  auto r = run(p, {"x==2.0"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "cannot resolve: no version of `x` satisfies `x==2.0` (from root); `x` 2.0: yanked");
  const auto text = all_text(r.error());
  EXPECT_NE(text.find("\n`x` 3.0: Requires-Python >=4 excludes Python 3.12.0 (the target's)\n`x` 2.0: yanked\n"
                      "`x`: available 1.0; tried none"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("0.9"), std::string::npos) << text;
  // The left-out versions do not keep the usable one from being chosen.
  auto ok = run(p, {"x"});
  ASSERT_TRUE(ok) << ok.error().message;
}

TEST(Resolve, NoMatchingVersion) {
  FakeProvider p;
  p.add("x", "1.0").add("x", "2.0");
  auto r = run(p, {"x>=5"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "cannot resolve: no version of `x` satisfies `x>=5` (from root)");
}

TEST(Resolve, ExtrasDeclared) {
  FakeProvider p;
  p.add("foo", "2.0", {"base-dep", "gpu-lib>=1; extra == \"gpu\"", "docs-lib; extra == 'docs'"}, {"gpu", "docs"});
  p.add("foo", "1.0", {"base-dep"}, {});
  p.add("base-dep", "1.0");
  p.add("gpu-lib", "1.5");
  p.add("docs-lib", "1.0");
  auto r = run(p, {"foo[GPU]"});
  ASSERT_TRUE(r) << all_text(r.error());
  EXPECT_EQ(pins(*r), (Pins{{"base-dep", "1.0"}, {"foo", "2.0"}, {"gpu-lib", "1.5"}}));
  EXPECT_EQ(find(*r, "foo")->extras, std::vector<std::string>{"gpu"});
  EXPECT_EQ(find(*r, "gpu-lib")->required_by, std::vector<std::string>{"foo==2.0"});
  EXPECT_TRUE(r->warnings.empty());
}

TEST(Resolve, ExtraSameVersionAsBase) {
  // foo[gpu] and foo must share a version: root asks foo<2 and foo[gpu]; only 1.0 fits.
  FakeProvider p;
  p.add("foo", "2.0", {"gpu-lib; extra == 'gpu'"}, {"gpu"});
  p.add("foo", "1.0", {"gpu-lib<2; extra == 'gpu'"}, {"gpu"});
  p.add("gpu-lib", "1.0").add("gpu-lib", "2.0");
  auto r = run(p, {"foo[gpu]", "foo<2"});
  ASSERT_TRUE(r) << all_text(r.error());
  EXPECT_EQ(pins(*r), (Pins{{"foo", "1.0"}, {"gpu-lib", "1.0"}}));
}

TEST(Resolve, ExtraOnDependencyAndSelfReferencingExtras) {
  FakeProvider p;
  p.add("app", "1.0", {"lib[all]"});
  p.add("lib", "1.0", {"lib[a,b]; extra == 'all'", "alpha; extra == 'a'", "beta; extra == 'b'"}, {"all", "a", "b"});
  p.add("alpha", "1.0");
  p.add("beta", "1.0");
  auto r = run(p, {"app"});
  ASSERT_TRUE(r) << all_text(r.error());
  EXPECT_EQ(pins(*r), (Pins{{"alpha", "1.0"}, {"app", "1.0"}, {"beta", "1.0"}, {"lib", "1.0"}}));
  EXPECT_EQ(find(*r, "lib")->extras, (std::vector<std::string>{"a", "all", "b"}));
}

TEST(Resolve, ExtraConflictExplained) {
  FakeProvider p;
  p.add("foo", "2.0", {"gpu-lib<2; extra == 'gpu'"}, {"gpu"});
  p.add("gpu-lib", "1.0").add("gpu-lib", "2.0");
  auto r = run(p, {"foo[gpu]", "gpu-lib>=2"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "cannot resolve: no version of `gpu-lib` satisfies `gpu-lib<2` (from foo[gpu]==2.0) and `gpu-lib>=2` (from "
            "root)");
  // Without the extra there is no conflict.
  auto ok = run(p, {"foo", "gpu-lib>=2"});
  ASSERT_TRUE(ok) << all_text(ok.error());
  EXPECT_TRUE(find(*ok, "foo")->extras.empty());
}

TEST(Resolve, UndeclaredExtraWarns) {
  FakeProvider p;
  p.add("foo", "1.0", {"dep"});
  p.add("dep", "1.0");
  auto r = run(p, {"foo[nope]"});
  ASSERT_TRUE(r) << all_text(r.error());
  EXPECT_EQ(pins(*r), (Pins{{"dep", "1.0"}, {"foo", "1.0"}}));
  ASSERT_EQ(r->warnings.size(), 1U);
  EXPECT_NE(r->warnings[0].find("foo==1.0 does not provide the extra `nope`"), std::string::npos) << r->warnings[0];
}

TEST(Resolve, RootMarkers) {
  FakeProvider p;
  p.add("old", "1.0").add("new", "1.0");
  auto r = run(p, {"old; python_version < '3.8'", "new; python_version >= '3.8'"});
  ASSERT_TRUE(r) << all_text(r.error());
  EXPECT_EQ(pins(*r), (Pins{{"new", "1.0"}}));
  auto r2 = run(p, {"old; python_version < '3.8'", "new; python_version >= '3.8'"}, {}, {}, default_env("3.7"));
  ASSERT_TRUE(r2) << all_text(r2.error());
  EXPECT_EQ(pins(*r2), (Pins{{"old", "1.0"}}));
}

TEST(Resolve, DependencyMarkersUseProviderEnvironment) {
  FakeProvider p;
  p.add("lib", "1.0", {"tomli; python_version < '3.11'", "typing-extensions; python_version >= '3.11'"}, {},
        default_env("3.10"));
  p.add("tomli", "2.0").add("typing-extensions", "4.0");
  auto r = run(p, {"lib"});
  ASSERT_TRUE(r) << all_text(r.error());
  EXPECT_EQ(pins(*r), (Pins{{"lib", "1.0"}, {"tomli", "2.0"}}));
}

TEST(Resolve, VariantMarkers) {
  Environment sm120 = default_env();
  sm120.variant_label = "cu12_sm120";
  sm120.variant_properties = {"nvidia :: sm_arch :: 120_real", "nvidia :: cuda_version_lower_bound :: 12.8"};
  sm120.variant_features = {"nvidia :: sm_arch", "nvidia :: cuda_version_lower_bound"};
  sm120.variant_namespaces = {"nvidia"};
  const std::vector<std::string> deps = {"fast-gemm; \"nvidia :: sm_arch :: 120_real\" in variant_properties",
                                         "slow-gemm; \"nvidia :: sm_arch :: 120_real\" not in variant_properties"};
  {
    FakeProvider p;
    p.add("torch", "2.0", deps, {}, sm120);
    p.add("fast-gemm", "1.0").add("slow-gemm", "1.0");
    auto r = run(p, {"torch"});
    ASSERT_TRUE(r) << all_text(r.error());
    EXPECT_EQ(pins(*r), (Pins{{"fast-gemm", "1.0"}, {"torch", "2.0"}}));
  }
  {
    FakeProvider p;
    p.add("torch", "2.0", deps);  // a non-variant wheel
    p.add("fast-gemm", "1.0").add("slow-gemm", "1.0");
    auto r = run(p, {"torch"});
    ASSERT_TRUE(r) << all_text(r.error());
    EXPECT_EQ(pins(*r), (Pins{{"slow-gemm", "1.0"}, {"torch", "2.0"}}));
  }
}

TEST(Resolve, MarkerEvaluationErrorNamesPackageAndRequirement) {
  Environment bare;  // no python_version
  FakeProvider p;
  p.add("lib", "1.0", {"dep; python_version < '3.11'"}, {}, bare);
  p.add("dep", "1.0");
  auto r = run(p, {"lib"});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("lib==1.0"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("dep; python_version < \"3.11\""), std::string::npos) << r.error().message;
}

TEST(Resolve, DirectUrlsAreErrors) {
  FakeProvider p;
  p.add("lib", "1.0", {"dep @ https://example.com/dep-1.0-py3-none-any.whl"});
  auto r = run(p, {"lib"});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("direct URL requirements are not supported"), std::string::npos);
  EXPECT_NE(r.error().message.find("lib==1.0"), std::string::npos);
  auto r2 = run(p, {"dep @ https://example.com/dep.whl"});
  ASSERT_FALSE(r2);
  EXPECT_NE(r2.error().message.find("direct URL requirements are not supported"), std::string::npos);
}

TEST(Resolve, ConstraintsRestrictButDoNotPull) {
  FakeProvider p;
  p.add("a", "1.0", {"b"});
  p.add("b", "1.0").add("b", "2.0");
  p.add("unrelated", "1.0");
  auto r = run(p, {"a"}, {"b<2", "unrelated==1.0"});
  ASSERT_TRUE(r) << all_text(r.error());
  EXPECT_EQ(pins(*r), (Pins{{"a", "1.0"}, {"b", "1.0"}}));
  EXPECT_EQ(p.version_calls.count("unrelated"), 0U);  // never looked up
}

TEST(Resolve, ConstraintConflictExplained) {
  FakeProvider p;
  p.add("b", "1.0").add("b", "2.0");
  auto r = run(p, {"b>=2"}, {"b<2"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "cannot resolve: no version of `b` satisfies `b>=2` (from root) and `b<2` (from constraints)");
}

TEST(Resolve, ConstraintsMustNotHaveExtrasOrUrls) {
  FakeProvider p;
  p.add("b", "1.0");
  EXPECT_FALSE(run(p, {"b"}, {"b[x]<2"}));
  EXPECT_FALSE(run(p, {"b"}, {"b @ https://example.com/b.whl"}));
}

TEST(Resolve, PreReleasesExcludedByDefault) {
  FakeProvider p;
  p.add("x", "1.0").add("x", "2.0b1");
  auto r = run(p, {"x"});
  ASSERT_TRUE(r) << all_text(r.error());
  EXPECT_EQ(pins(*r), (Pins{{"x", "1.0"}}));
}

TEST(Resolve, PreReleasesWithOption) {
  FakeProvider p;
  p.add("x", "1.0").add("x", "2.0b1");
  Options o;
  o.pre = true;
  auto r = run(p, {"x"}, {}, o);
  ASSERT_TRUE(r) << all_text(r.error());
  EXPECT_EQ(pins(*r), (Pins{{"x", "2.0b1"}}));
}

TEST(Resolve, PreReleasesWhenSpecifierAdmitsThem) {
  FakeProvider p;
  p.add("x", "1.0").add("x", "2.0b1").add("x", "2.0rc1");
  p.add("a", "1.0", {"x"});
  auto r = run(p, {"x>=2.0b1", "a"});
  ASSERT_TRUE(r) << all_text(r.error());
  EXPECT_EQ(pins(*r), (Pins{{"a", "1.0"}, {"x", "2.0rc1"}}));
}

TEST(Resolve, PreReleaseSpecifierSeenInDependency) {
  // The dependency's specifier admits pre-releases, found only while resolving.
  FakeProvider p;
  p.add("a", "1.0", {"x>=2.0rc1"});
  p.add("x", "1.0").add("x", "2.0rc1");
  auto r = run(p, {"x", "a"});
  ASSERT_TRUE(r) << all_text(r.error());
  EXPECT_EQ(pins(*r), (Pins{{"a", "1.0"}, {"x", "2.0rc1"}}));
}

TEST(Resolve, PreReleaseEnabledLateRestartsSearch) {
  // `a 2.0` is first rejected because `x>=2` only matches a pre-release; `c` then shows a
  // specifier admitting pre-releases of x, so the search restarts and `a 2.0` is chosen.
  FakeProvider p;
  p.add("a", "2.0", {"x>=2"}).add("a", "1.0");
  p.add("c", "3.0", {"x>=2.0b1"}).add("c", "2.0", {"x>=2.0b1"}).add("c", "1.0", {"x>=2.0b1"});
  p.add("x", "1.0").add("x", "2.1b1");
  auto r = run(p, {"a", "c"});
  ASSERT_TRUE(r) << all_text(r.error());
  EXPECT_EQ(pins(*r), (Pins{{"a", "2.0"}, {"c", "3.0"}, {"x", "2.1b1"}}));
  for (const auto& [name, n] : p.version_calls) EXPECT_EQ(n, 1) << name;
  for (const auto& [key, n] : p.dependency_calls) EXPECT_EQ(n, 1) << key;
}

TEST(Resolve, OnlyPreReleasesExist) {
  FakeProvider p;
  p.add("x", "0.1a1").add("x", "0.1a2");
  auto r = run(p, {"x"});
  ASSERT_TRUE(r) << all_text(r.error());
  EXPECT_EQ(pins(*r), (Pins{{"x", "0.1a2"}}));
}

TEST(Resolve, PreReleaseOnlyMatchIsAnError) {
  FakeProvider p;
  p.add("x", "1.0").add("x", "2.1b1");
  p.add("a", "1.0", {"x>2"});
  auto r = run(p, {"a"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "cannot resolve: only pre-releases of `x` satisfy `x>2` (from a==1.0), and pre-releases are not allowed");
  EXPECT_NE(all_text(r.error()).find("`x` 2.1b1 is a pre-release, which is not allowed"), std::string::npos)
      << all_text(r.error());
  Options o;
  o.pre = true;
  auto ok = run(p, {"a"}, {}, o);
  ASSERT_TRUE(ok) << all_text(ok.error());
  EXPECT_EQ(pins(*ok), (Pins{{"a", "1.0"}, {"x", "2.1b1"}}));
}

}  // namespace
