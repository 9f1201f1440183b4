// The x86_64 provider: provider-variant-x86-64 0.0.3 (algorithm and feature list of the published
// 0.0.1.post2 source, database archspec-json 9b22d3d).

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "provider/cpu_cpuinfo.hpp"
#include "provider/cpu_database.hpp"
#include "provider/cpu_provider.hpp"
#include "vwheel/provider/cpu.hpp"

namespace vwheel::provider {
namespace {

constexpr std::string_view kNamespace = "x86_64";
constexpr std::string_view kProviderVersion = "0.0.3";
constexpr int kMaxLevel = 4;
constexpr std::string_view kGenericLevelPrefix = "x86_64_v";

// The reference's flag list, in priority (= output) order. Linux /proc/cpuinfo spellings.
constexpr std::array<std::string_view, 56> kFlags = {
    "avx_vnni",      "cppc",           "ibrs_enhanced",       "tsc_adjust",       "flush_l1d",
    "movdir64b",     "movdiri",        "avx512_bf16",         "avx512_bitalg",    "avx512_vbmi2",
    "avx512_vnni",   "avx512_vp2intersect", "avx512_vpopcntdq", "avx512ifma",     "avx512vbmi",
    "rdpid",         "sha_ni",         "vaes",                "vpclmulqdq",       "clwb",
    "clzero",        "avx512bw",       "avx512cd",            "avx512dq",         "avx512f",
    "avx512vl",      "clflushopt",     "gfni",                "rdseed",           "xsavec",
    "xsaveopt",      "adx",            "avx2",                "avx",              "bmi2",
    "bmi1",          "abm",            "f16c",                "fma",              "movbe",
    "xsave",         "rdrand",         "aes",                 "pclmulqdq",        "sse4a",
    "fsgsbase",      "sse4_2",         "sse4_1",              "ssse3",            "sse3",
    "cx16",          "lahf_lm",        "popcnt",              "sse2",             "sse",
    "mmx",
};

// The level N of a generic entry named `x86_64_vN` (capped at 4), or 0 for anything else
// (plain `x86_64`: the reference returns nothing).
int level_of(std::string_view generic) {
  if (!generic.starts_with(kGenericLevelPrefix)) return 0;
  const std::string_view digits = generic.substr(kGenericLevelPrefix.size());
  if (digits.empty() || digits.size() > 3 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return 0;
  }
  int n = 0;
  for (const char c : digits) n = n * 10 + (c - '0');
  return std::min(n, kMaxLevel);
}

std::vector<variant::FeatureConfig> configs_for(std::size_t uarch) {
  const auto& family = cpu::x86_64_family();
  const int level = level_of(family.at(family.generic_of(uarch)).name);
  std::vector<variant::FeatureConfig> out;
  if (level == 0) return out;
  variant::FeatureConfig level_config{"level", {}, false};
  for (int k = level; k >= 1; --k) level_config.values.push_back(fmt::format("v{}", k));
  out.push_back(std::move(level_config));
  for (const auto flag : kFlags) {
    if (family.has_feature(uarch, flag)) out.push_back(cpu::flag_on(flag));
  }
  return out;
}

std::vector<std::string> explain(const CpuMatch& match, std::string_view cpuinfo_text) {
  std::vector<std::string> notes;
  const auto block = cpu::parse_cpuinfo_first_block(cpuinfo_text);
  if (block && !block->get("vendor_id")) {
    notes.emplace_back("no `vendor_id` line in the first processor block: vendor taken as generic");
  }
  if (block && !block->get("flags")) {
    notes.emplace_back("no `flags` line in the first processor block: no CPU features known");
  }
  if (match.supported.empty()) {
    notes.push_back(fmt::format(
        "microarchitecture {} (generic {}) is below x86-64-v2: the x86_64 provider reports no "
        "properties",
        match.microarchitecture, match.generic));
  } else if (match.microarchitecture != match.generic) {
    notes.push_back(fmt::format("microarchitecture {} ({}), generic {}", match.microarchitecture,
                                match.vendor, match.generic));
  }
  return notes;
}

}  // namespace

CpuMatch match_x86_64_cpuinfo(std::string_view cpuinfo_text) {
  CpuMatch match;
  const auto block = cpu::parse_cpuinfo_first_block(cpuinfo_text);
  if (!block) return match;
  const auto& family = cpu::x86_64_family();
  cpu::HostCpu host;
  host.vendor = block->get("vendor_id").value_or("generic");
  const auto words = cpu::split_words(block->get("flags").value_or(""));
  host.features = family.feature_set(words);
  const std::size_t uarch = cpu::match_host(family, host, cpu::MatchRules::x86_64);
  match.microarchitecture = family.at(uarch).name;
  match.generic = family.at(family.generic_of(uarch)).name;
  match.vendor = host.vendor;
  match.supported = configs_for(uarch);
  return match;
}

std::vector<variant::FeatureConfig> x86_64_supported_configs(std::string_view cpuinfo_text) {
  return match_x86_64_cpuinfo(cpuinfo_text).supported;
}

Result<std::vector<variant::FeatureConfig>> x86_64_configs_for_microarchitecture(
    std::string_view microarchitecture) {
  const auto index = cpu::x86_64_family().find(microarchitecture);
  if (!index) {
    return fail(fmt::format("`{}` is not an x86_64 microarchitecture of the database", microarchitecture));
  }
  return configs_for(*index);
}

std::vector<variant::FeatureConfig> x86_64_all_configs() {
  std::vector<variant::FeatureConfig> out;
  variant::FeatureConfig level_config{"level", {}, false};
  for (int k = kMaxLevel; k >= 1; --k) level_config.values.push_back(fmt::format("v{}", k));
  out.push_back(std::move(level_config));
  for (const auto flag : kFlags) out.push_back(cpu::flag_on(flag));
  return out;
}

std::unique_ptr<Provider> make_x86_64_provider(CpuProviderOptions options) {
  static constexpr cpu::CpuProviderSpec kSpec{kNamespace, kProviderVersion, &match_x86_64_cpuinfo,
                                              &x86_64_all_configs, &explain};
  return cpu::make_cpu_provider(kSpec, std::move(options));
}

}  // namespace vwheel::provider
