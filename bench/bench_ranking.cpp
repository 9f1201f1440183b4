// Ranking throughput: 10,000 variants over 50 features (5 namespaces x 10 features, 8 values
// each), against a target that supports about half of the values. Issue target: < 50 ms.

#include <benchmark/benchmark.h>

#include <random>

#include <fmt/format.h>

#include "vwheel/variant/ordering.hpp"

using namespace vwheel::variant;

namespace {

struct Fixture {
  VariantMetadata md;
  SupportedProperties supported;
};

Fixture make_fixture(std::size_t n_variants, std::size_t n_namespaces, std::size_t n_features, std::size_t n_values) {
  Fixture f;
  std::mt19937 rng(825);
  for (std::size_t n = 0; n < n_namespaces; ++n) {
    const auto ns = fmt::format("ns{}", n);
    f.md.namespace_priorities.push_back(ns);
    for (std::size_t k = 0; k < n_features; ++k) {
      FeatureConfig fc{fmt::format("feat{}", k), {}, k % 3 == 0};
      for (std::size_t v = 0; v < n_values; v += 2) fc.values.push_back(fmt::format("{}.{}", v, k));
      f.supported[ns].push_back(std::move(fc));
    }
  }
  std::uniform_int_distribution<std::size_t> pick_ns(0, n_namespaces - 1), pick_f(0, n_features - 1),
      pick_v(0, n_values - 1), count(1, 6);
  for (std::size_t i = 0; i < n_variants; ++i) {
    std::vector<Property> props;
    const auto m = count(rng);
    for (std::size_t j = 0; j < m; ++j) {
      const auto k = pick_f(rng);
      props.push_back(Property{fmt::format("ns{}", pick_ns(rng)), fmt::format("feat{}", k),
                               fmt::format("{}.{}", pick_v(rng), k)});
    }
    std::sort(props.begin(), props.end());
    props.erase(std::unique(props.begin(), props.end()), props.end());
    f.md.variants.emplace(fmt::format("v{:05}", i), std::move(props));
  }
  f.md.variants.emplace("null", PropertySet{});
  return f;
}

void BM_rank_10k_variants_50_features(benchmark::State& state) {
  static const Fixture f = make_fixture(10000, 5, 10, 8);
  const TableOracle oracle(f.supported);
  std::size_t compatible = 0;
  for (auto _ : state) {
    auto r = rank_variants(f.md, oracle, {}, {});
    compatible = r->order.size();
    benchmark::DoNotOptimize(r);
  }
  state.counters["compatible"] = static_cast<double>(compatible);
  state.counters["variants"] = static_cast<double>(f.md.variants.size());
}
BENCHMARK(BM_rank_10k_variants_50_features)->Unit(benchmark::kMillisecond);

}  // namespace
