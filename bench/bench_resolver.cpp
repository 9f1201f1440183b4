// Resolver time on the graphs whose search work tests/unit/resolve bounds (rounds and metadata
// fetches): 200 packages x 8 versions with backtracking, and 300 versions of `a` that each fail
// two levels down. Former test limit: < 1 s each.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "resolver_graphs.hpp"
#include "vwheel/resolve/resolver.hpp"

namespace {

using vwheel::pep440::Version;

// Releases in memory: newest first, dependencies parsed on request.
class MemoryProvider : public vwheel::resolve::Provider {
 public:
  void add(const std::string& name, const std::string& version, std::vector<std::string> deps) {
    releases_[name].emplace_back(*Version::parse(version), std::move(deps));
  }
  vwheel::Result<std::vector<Version>> versions(std::string_view name) override {
    std::vector<Version> out;
    for (const auto& [v, deps] : releases_[std::string(name)]) out.push_back(v);
    std::sort(out.begin(), out.end(), [](const Version& a, const Version& b) { return b < a; });
    return out;
  }
  vwheel::Result<vwheel::resolve::Dependencies> dependencies(std::string_view name, const Version& version) override {
    vwheel::resolve::Dependencies d;
    for (const auto& [v, deps] : releases_[std::string(name)]) {
      if (v != version) continue;
      for (const auto& text : deps) d.requires_dist.push_back(*vwheel::markers::Requirement::parse(text));
    }
    return d;
  }

 private:
  std::map<std::string, std::vector<std::pair<Version, std::vector<std::string>>>> releases_;
};

template <class Graph>
void resolve_graph(benchmark::State& state, Graph graph, std::vector<std::string> roots) {
  MemoryProvider p;
  graph([&](const std::string& name, const std::string& version, std::vector<std::string> deps) {
    p.add(name, version, std::move(deps));
  });
  std::vector<vwheel::markers::Requirement> reqs;
  for (const auto& r : roots) reqs.push_back(*vwheel::markers::Requirement::parse(r));
  for (auto _ : state) {
    auto r = vwheel::resolve::resolve(p, reqs, {}, vwheel::markers::Environment{}, {});
    if (!r) state.SkipWithError(r.error().message.c_str());
    benchmark::DoNotOptimize(r);
  }
}

void BM_LargeSyntheticGraph(benchmark::State& state) {
  resolve_graph(
      state, [](auto add) { vwheel::testing::add_large_synthetic_graph(add, 200); }, {"pkg0", "pkg1<=4"});
}
BENCHMARK(BM_LargeSyntheticGraph)->Unit(benchmark::kMillisecond);

void BM_DeepBacktracking(benchmark::State& state) {
  resolve_graph(
      state, [](auto add) { vwheel::testing::add_deep_backtracking_graph(add, 300); }, {"a", "c<2"});
}
BENCHMARK(BM_DeepBacktracking)->Unit(benchmark::kMillisecond);

}  // namespace
