// Reading hostile variant metadata: the old reader (nlohmann's callback parser with a duplicate-key
// check that copied the key path at each object) against core's untrusted reader (nlohmann SAX
// with its own builder), plain `nlohmann::json::parse` (no duplicate check, no depth limit) and a
// simdjson DOM parse with the same checks converted to nlohmann::json (what vwheel consumes).
//
// Inputs: `{"variants": {"a": {"a": ... 1 ...}}}` nested N deep, and N labels
// `"lI": {"ns": {"f": ["v"]}}` in one `variants` object. The old reader only runs on small N:
// it is quadratic (the issue measured 100,000 deep: 111 s and 10 GB; 100,000 labels: 158 s).
// The untrusted reader refuses both at full size (depth > 64; more than 10,000 members), so it is
// also timed with its member limit off, to show that reading them would be linear too.
//
// One run (Release, g++ 12, `--benchmark_min_time=0.2`, on the shared 2-core machine under load,
// so CPU time per parse is given; wall time was 2-3x that):
//   deep/old           5,000: 7.7 ms   10,000: 27 ms    20,000: 227 ms  (quadratic, and worse)
//   deep/untrusted     5,000: 0.007 ms 10,000: 0.006 ms 100,000: 0.006 ms (refused at level 65)
//   deep/nlohmann     10,000: 1.0 ms  100,000: 12.6 ms (no limit: builds all 100,000 levels)
//   labels/old         5,000: 87 ms    10,000: 348 ms   20,000: 3,163 ms (quadratic)
//   labels/untrusted  10,000: 6.5 ms  100,000: 6.8 ms  (refused at the 10,001st label)
//   labels/unlimited  10,000: 6.5 ms  100,000: 114 ms  (member limit off: ~linear, map inserts)
//   labels/nlohmann   10,000: 6.6 ms  100,000: 114 ms  (no duplicate check)
//   labels/simdjson   10,000: 8.1 ms  100,000: 251 ms  (parse + duplicate check + nlohmann tree)
// The SAX reader costs what plain nlohmann::json::parse costs. simdjson with the same checks was
// slower once the nlohmann tree vwheel reads is built from it (its parse alone is not the cost
// here), and it would bring a second library and error texts without line or column. So vwheel
// uses the SAX reader; simdjson stays a benchmark-only dependency.

#include <benchmark/benchmark.h>

#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <simdjson.h>

#include "core/json.hpp"

namespace {

using Json = nlohmann::json;

std::string deep(std::size_t n) {
  std::string text = R"({"variants": )";
  for (std::size_t i = 0; i < n; ++i) text += R"({"a": )";
  text += "1";
  text += std::string(n, '}');
  return text + "}";
}

std::string labels(std::size_t n) {
  std::string text = R"({"$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json", "variants": {)";
  for (std::size_t i = 0; i < n; ++i) text += fmt::format(R"({}"l{}": {{"ns": {{"f": ["v"]}}}})", i > 0 ? ", " : "", i);
  return text + "}}";
}

// The reader vwheel had before (metadata/document.cpp), kept here as the reference.
std::optional<Json> old_parse(const std::string& text) {
  std::vector<std::pair<std::string, std::set<std::string>>> objects;
  std::string pending_key;
  bool duplicate = false;
  const auto callback = [&](int /*depth*/, Json::parse_event_t event, Json& parsed) {
    using Event = Json::parse_event_t;
    if (event == Event::object_start) {
      std::string at = objects.empty() ? std::string() : objects.back().first;
      if (!objects.empty() && !pending_key.empty()) at += (at.empty() ? "" : ".") + pending_key;
      objects.emplace_back(std::move(at), std::set<std::string>{});
    } else if (event == Event::object_end) {
      if (!objects.empty()) objects.pop_back();
    } else if (event == Event::key && !objects.empty()) {
      pending_key = parsed.get<std::string>();
      if (!objects.back().second.insert(pending_key).second) duplicate = true;
    } else if (event == Event::array_start) {
      pending_key += "[]";
    }
    return true;
  };
  auto json = Json::parse(text.begin(), text.end(), callback);
  if (duplicate) return std::nullopt;
  return json;
}

// simdjson with the same checks, producing the nlohmann tree the rest of vwheel reads. Depth is
// limited by the parser (so the recursion here is bounded).
bool to_nlohmann(simdjson::dom::element e, Json& out) {
  using T = simdjson::dom::element_type;
  switch (e.type()) {
    case T::OBJECT: {
      out = Json::object();
      auto& members = out.get_ref<Json::object_t&>();
      std::unordered_set<std::string_view> seen;
      for (auto [key, value] : simdjson::dom::object(e)) {
        if (!seen.insert(key).second) return false;
        if (!to_nlohmann(value, members[std::string(key)])) return false;
      }
      return true;
    }
    case T::ARRAY: {
      out = Json::array();
      for (auto value : simdjson::dom::array(e)) {
        out.push_back(nullptr);
        if (!to_nlohmann(value, out.back())) return false;
      }
      return true;
    }
    case T::STRING: out = std::string(std::string_view(e)); return true;
    case T::INT64: out = int64_t(e); return true;
    case T::UINT64: out = uint64_t(e); return true;
    case T::DOUBLE: out = double(e); return true;
    case T::BOOL: out = bool(e); return true;
    case T::NULL_VALUE: out = nullptr; return true;
  }
  return false;
}

std::optional<Json> simdjson_parse(simdjson::dom::parser& parser, const simdjson::padded_string& text) {
  simdjson::dom::element root;
  if (parser.parse(text).get(root) != simdjson::SUCCESS) return std::nullopt;
  Json out;
  if (!to_nlohmann(root, out)) return std::nullopt;
  return out;
}

void BM_DeepOld(benchmark::State& state) {
  const auto text = deep(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(old_parse(text));
}
void BM_DeepUntrusted(benchmark::State& state) {
  const auto text = deep(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    auto r = vwheel::parse_untrusted_json(text);
    if (r || r.error().kind != vwheel::JsonError::Kind::depth) state.SkipWithError("not refused for depth");
    benchmark::DoNotOptimize(r);
  }
}
void BM_DeepNlohmann(benchmark::State& state) {
  const auto text = deep(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(Json::parse(text));
}
void BM_LabelsOld(benchmark::State& state) {
  const auto text = labels(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(old_parse(text));
}
void BM_LabelsUntrusted(benchmark::State& state) {
  const auto text = labels(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(vwheel::parse_untrusted_json(text));
}
void BM_LabelsUnlimited(benchmark::State& state) {
  const auto text = labels(static_cast<std::size_t>(state.range(0)));
  const vwheel::JsonLimits unlimited{.max_depth = 64, .max_members = vwheel::JsonLimits::unlimited};
  for (auto _ : state) {
    auto r = vwheel::parse_untrusted_json(text, unlimited);
    if (!r) state.SkipWithError("refused");
    benchmark::DoNotOptimize(r);
  }
}
void BM_LabelsNlohmann(benchmark::State& state) {
  const auto text = labels(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(Json::parse(text));
}
void BM_LabelsSimdjson(benchmark::State& state) {
  const simdjson::padded_string text(labels(static_cast<std::size_t>(state.range(0))));
  simdjson::dom::parser parser;
  if (parser.allocate(text.size(), 64) != simdjson::SUCCESS) state.SkipWithError("allocate");
  for (auto _ : state) {
    auto r = simdjson_parse(parser, text);
    if (!r) state.SkipWithError("refused");
    benchmark::DoNotOptimize(r);
  }
}

constexpr auto kMs = benchmark::kMillisecond;
BENCHMARK(BM_DeepOld)->Arg(5'000)->Arg(10'000)->Arg(20'000)->Unit(kMs);
BENCHMARK(BM_DeepUntrusted)->Arg(5'000)->Arg(10'000)->Arg(100'000)->Unit(kMs);
BENCHMARK(BM_DeepNlohmann)->Arg(10'000)->Arg(100'000)->Unit(kMs);
BENCHMARK(BM_LabelsOld)->Arg(5'000)->Arg(10'000)->Arg(20'000)->Unit(kMs);
BENCHMARK(BM_LabelsUntrusted)->Arg(10'000)->Arg(100'000)->Unit(kMs);
BENCHMARK(BM_LabelsUnlimited)->Arg(10'000)->Arg(100'000)->Unit(kMs);
BENCHMARK(BM_LabelsNlohmann)->Arg(10'000)->Arg(100'000)->Unit(kMs);
BENCHMARK(BM_LabelsSimdjson)->Arg(10'000)->Arg(100'000)->Unit(kMs);

}  // namespace
