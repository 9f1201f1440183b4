// Unit tests of lock::root_packages: the entries a lock without `[tool.vwheel] requirements` is
// synced from (issue 51: a dependency cycle left no root, and sync uninstalled everything).

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "vwheel/lock/pylock.hpp"

namespace vwheel::lock {
namespace {

/// An entry `name` 1.0 whose `dependencies` name `deps` (each `name` or `name==version`).
LockedPackage entry(std::string name, const std::vector<std::string>& deps, std::string version = "1.0") {
  LockedPackage p;
  p.name = std::move(name);
  p.version = std::move(version);
  for (const auto& d : deps) {
    auto at = d.find("==");
    if (at == std::string::npos) {
      p.dependencies.push_back({{"name", d}});
    } else {
      p.dependencies.push_back({{"name", d.substr(0, at)}, {"version", d.substr(at + 2)}});
    }
  }
  return p;
}

/// The names (and versions) of root_packages.
std::vector<std::string> roots(const std::vector<LockedPackage>& packages) {
  std::vector<const LockedPackage*> pointers;
  for (const auto& p : packages) pointers.push_back(&p);
  std::vector<std::string> out;
  for (auto i : root_packages(pointers)) out.push_back(packages[i].name + " " + packages[i].version);
  return out;
}

using Names = std::vector<std::string>;

TEST(LockRoots, WithoutEdgesEveryEntryIsARoot) {
  EXPECT_EQ(roots({entry("a", {}), entry("b", {})}), (Names{"a 1.0", "b 1.0"}));
  EXPECT_EQ(roots({}), Names{});
}

TEST(LockRoots, AnEntryNoEdgeNamesIsARoot) {
  EXPECT_EQ(roots({entry("a", {"b"}), entry("b", {"c"}), entry("c", {}), entry("d", {"c"})}),
            (Names{"a 1.0", "d 1.0"}));
}

TEST(LockRoots, CyclesBelowARootAreNotRoots) {
  // root -> a <-> b (a 2-cycle), root -> x -> y -> z -> x (a 3-cycle).
  EXPECT_EQ(roots({entry("root", {"a", "x"}), entry("a", {"b"}), entry("b", {"a"}), entry("x", {"y"}),
                   entry("y", {"z"}), entry("z", {"x"})}),
            Names{"root 1.0"});
}

TEST(LockRoots, ACycleNothingElseNamesIsRootsAllOfIt) {
  EXPECT_EQ(roots({entry("sphinx", {"sphinxcontrib-applehelp"}), entry("sphinxcontrib-applehelp", {"sphinx"})}),
            (Names{"sphinx 1.0", "sphinxcontrib-applehelp 1.0"}));
  EXPECT_EQ(roots({entry("x", {"y"}), entry("y", {"z"}), entry("z", {"x"})}), (Names{"x 1.0", "y 1.0", "z 1.0"}));
  EXPECT_EQ(roots({entry("self", {"self"})}), Names{"self 1.0"});
}

TEST(LockRoots, CyclesAloneAndBelowARootInOneLock) {
  // root -> a <-> b; x -> y -> z -> x alone; c -> the 3-cycle (so it is below c, not a source).
  // p <-> q alone, with r below it.
  auto packages = std::vector<LockedPackage>{
      entry("root", {"a"}), entry("a", {"b"}), entry("b", {"a"}),
      entry("x", {"y"}),    entry("y", {"z"}), entry("z", {"x", "w"}), entry("w", {}),
      entry("p", {"q"}),    entry("q", {"p", "r"}), entry("r", {})};
  EXPECT_EQ(roots(packages), (Names{"root 1.0", "x 1.0", "y 1.0", "z 1.0", "p 1.0", "q 1.0"}));
  packages.push_back(entry("c", {"y"}));
  EXPECT_EQ(roots(packages), (Names{"root 1.0", "p 1.0", "q 1.0", "c 1.0"}));
}

TEST(LockRoots, EdgesNameEntriesByNormalizedNameAndVersion) {
  // `Foo_Bar` names foo-bar; version 2.0.0 names the entry 2.0, not 1.0 (which stays a root).
  EXPECT_EQ(roots({entry("app", {"Foo_Bar==2.0.0"}), entry("foo-bar", {}, "1.0"), entry("foo-bar", {}, "2.0")}),
            (Names{"app 1.0", "foo-bar 1.0"}));
  // Without `version`, an edge names every entry of the project.
  EXPECT_EQ(roots({entry("app", {"foo-bar"}), entry("foo-bar", {}, "1.0"), entry("foo-bar", {}, "2.0")}),
            Names{"app 1.0"});
  // An edge to an entry that is not there (another target's) changes nothing; one without `name` neither.
  auto odd = entry("app", {"gone"});
  odd.dependencies.push_back({{"version", "1.0"}});
  EXPECT_EQ(roots({odd, entry("lib", {"app"})}), Names{"lib 1.0"});
}

TEST(LockRoots, ALongChainAndALongCycleNeedNoDeepRecursion) {
  constexpr int n = 100000;
  std::vector<LockedPackage> chain;
  for (int i = 0; i < n; ++i) chain.push_back(entry("p" + std::to_string(i), {"p" + std::to_string((i + 1) % n)}));
  EXPECT_EQ(roots(chain).size(), static_cast<std::size_t>(n));  // one cycle of all of them
  chain.back().dependencies.clear();
  EXPECT_EQ(roots(chain), Names{"p0 1.0"});
}

}  // namespace
}  // namespace vwheel::lock
