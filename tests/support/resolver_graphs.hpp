#pragma once
// Resolver graphs shared by the unit tests, which bound the search work they take (the resolver's
// rounds, the provider's metadata fetches), and bench/bench_resolver.cpp, which times them.
// `add(name, version, deps)` records one release.

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace vwheel::testing {

/// `n` packages with 8 versions each; package i depends on a couple of later packages with
/// ranges that force some backtracking. Version 8 of every package wants a version that does not
/// exist, so the newest versions must be skipped.
template <class Add>
void add_large_synthetic_graph(Add&& add, int n) {
  for (int i = 0; i < n; ++i) {
    for (int v = 1; v <= 8; ++v) {
      std::vector<std::string> deps;
      for (int k : {i + 1, i + 7, i * 3 + 2}) {
        if (k >= n || k == i) continue;
        if (v == 8) {
          deps.push_back(fmt::format("pkg{}>=9", k));
        } else {
          deps.push_back(fmt::format("pkg{}>={},<={}", k, std::max(1, v - 2), v + 1));
        }
      }
      add(fmt::format("pkg{}", i), fmt::format("{}.0", v), deps);
    }
  }
}

/// `versions` versions of `a`; only the oldest is compatible with a root `c<2`, and every newer
/// one fails two levels down (a==v needs b==v, which needs c>=2).
template <class Add>
void add_deep_backtracking_graph(Add&& add, int versions) {
  for (int v = 1; v <= versions; ++v) {
    add("a", fmt::format("{}", v), std::vector<std::string>{fmt::format("b=={}", v)});
    add("b", fmt::format("{}", v), std::vector<std::string>{v == 1 ? "c<2" : "c>=2"});
  }
  add("c", "1", std::vector<std::string>{});
  add("c", "2", std::vector<std::string>{});
}

}  // namespace vwheel::testing
