// x86_64 CPU detection time on a real /proc/cpuinfo (Sapphire Rapids, from ../shared or
// $VWHEEL_SHARED_DIR): parsing the text alone, and the provider reading the file. Former test
// limit: a median under 1 ms each.

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "vwheel/provider/cpu.hpp"

namespace {

std::filesystem::path cpuinfo_path() {
  const char* env = std::getenv("VWHEEL_SHARED_DIR");
  const std::filesystem::path shared = env != nullptr && *env != '\0'
                                           ? std::filesystem::path(env)
                                           : std::filesystem::path(VWHEEL_SOURCE_DIR).parent_path() / "shared";
  return shared / "data/cpu/cpuinfo/linux-unknown-sapphirerapids";
}

void BM_X86DetectFromText(benchmark::State& state) {
  std::ifstream in(cpuinfo_path());
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().empty()) state.SkipWithError("no cpuinfo file (set VWHEEL_SHARED_DIR)");
  for (auto _ : state) benchmark::DoNotOptimize(vwheel::provider::x86_64_supported_configs(text.str()));
}
BENCHMARK(BM_X86DetectFromText)->Unit(benchmark::kMicrosecond);

void BM_X86DetectFromFile(benchmark::State& state) {
  vwheel::provider::CpuProviderOptions options;
  options.cpuinfo_path = cpuinfo_path().string();
  const auto provider = vwheel::provider::make_x86_64_provider(options);
  for (auto _ : state) benchmark::DoNotOptimize(provider->detect());
}
BENCHMARK(BM_X86DetectFromFile)->Unit(benchmark::kMicrosecond);

}  // namespace
