// SHA-256/384/512: built-in code against OpenSSL's libcrypto (loaded with dlopen), at the sizes
// that decide the thresholds in src/core/hash.cpp (1 KiB: a small .py; 64 KiB: a typical
// member; 64 MiB: a large shared library or a download), and the one-off cost of loading it.
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>

#include "vwheel/core/hash.hpp"

namespace {

std::string input(std::size_t size) {
  std::string data(size, '\0');
  for (std::size_t i = 0; i < size; ++i) data[i] = static_cast<char>((i * 2654435761U) >> 13);
  return data;
}

// First in the file, so it measures the first load in the process (one iteration).
void BM_LoadLibcrypto(benchmark::State& state) {
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const bool ok = vwheel::libcrypto_available();
    const auto took = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    state.counters["load_ms"] = took;
    if (!ok) state.SkipWithError("libcrypto.so.3 not loadable");
  }
}
BENCHMARK(BM_LoadLibcrypto)->Iterations(1);

template <vwheel::HashEngine Engine>
void BM_Sha256(benchmark::State& state) {
  const auto data = input(static_cast<std::size_t>(state.range(0)));
  vwheel::Sha256 h(Engine);
  for (auto _ : state) {
    h.update(data);
    benchmark::DoNotOptimize(h.finish());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_Sha256<vwheel::HashEngine::builtin>)->Arg(64)->Arg(1 << 10)->Arg(64 << 10)->Arg(64 << 20);
BENCHMARK(BM_Sha256<vwheel::HashEngine::libcrypto>)->Arg(64)->Arg(1 << 10)->Arg(64 << 10)->Arg(64 << 20);
BENCHMARK(BM_Sha256<vwheel::HashEngine::automatic>)->Arg(64)->Arg(1 << 10)->Arg(64 << 10)->Arg(64 << 20);

template <vwheel::HashEngine Engine>
void BM_Sha512(benchmark::State& state) {
  const auto data = input(static_cast<std::size_t>(state.range(0)));
  vwheel::Sha512 h(false, Engine);
  for (auto _ : state) {
    h.update(data);
    benchmark::DoNotOptimize(h.finish());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_Sha512<vwheel::HashEngine::builtin>)->Arg(1 << 10)->Arg(64 << 10)->Arg(64 << 20);
BENCHMARK(BM_Sha512<vwheel::HashEngine::libcrypto>)->Arg(1 << 10)->Arg(64 << 10)->Arg(64 << 20);

}  // namespace
