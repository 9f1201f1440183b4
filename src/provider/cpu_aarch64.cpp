// The aarch64 provider: provider-variant-aarch64 0.0.3 (tag v0.0.3, database archspec-json
// 9b22d3d).

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "provider/cpu_cpuinfo.hpp"
#include "provider/cpu_darwin.hpp"
#include "provider/cpu_database.hpp"
#include "provider/cpu_provider.hpp"
#include "vwheel/provider/cpu.hpp"

namespace vwheel::provider {
namespace {

constexpr std::string_view kNamespace = "aarch64";
constexpr std::string_view kProviderVersion = "0.0.3";
// The highest version the reference reports: a generic above it is replaced by it.
constexpr std::string_view kMaxVersionEntry = "armv9.0a";

// The reference's flag list, in priority (= output) order. `btiecv` and `asimdrdmatomics` are
// fused names (missing commas in the reference) kept verbatim: no entry lists them, so they are
// never reported.
constexpr std::array<std::string_view, 40> kFlags = {
    "sve2",    "flagm2",  "frint",   "sb",      "btiecv",   "paca",   "pacg",    "ssbs",
    "asimdfhm", "bf16",   "dcpodp",  "dgh",     "dit",      "flagm",  "i8mm",    "ilrcpc",
    "jscvt",   "rng",     "sha3",    "sha512",  "svebf16",  "svei8mm", "uscat",  "asimddp",
    "lrcpc",   "asimdhp", "dcpop",   "fcma",    "fphp",     "sve",    "asimdrdmatomics", "aes",
    "asimd",   "cpuid",   "crc32",   "evtstrm", "fp",       "pmull",  "sha1",    "sha2",
};

// Database name to property value: `aarch64` → `8a`, `armvX.Ya` → `X.Ya`.
std::string version_value(std::string_view name) {
  if (name == "aarch64") return "8a";
  if (name.starts_with("armv")) return std::string(name.substr(4));
  return std::string(name);
}

std::vector<std::string> version_values(std::size_t generic) {
  const auto& family = cpu::aarch64_family();
  std::vector<std::string> values{version_value(family.at(generic).name)};
  for (const auto ancestor : family.at(generic).ancestors) {
    values.push_back(version_value(family.at(ancestor).name));
  }
  return values;
}

std::vector<variant::FeatureConfig> configs_for(std::size_t uarch) {
  const auto& family = cpu::aarch64_family();
  std::vector<variant::FeatureConfig> out;
  const auto root = family.find(family.root());
  std::size_t generic = family.generic_of(uarch);
  if (!root || (generic != *root && !family.at(uarch).ancestor_set.test(*root))) return out;
  if (const auto cap = family.find(kMaxVersionEntry); cap && family.at(generic).ancestor_set.test(*cap)) {
    generic = *cap;
  }
  out.push_back(variant::FeatureConfig{"version", version_values(generic), false});
  for (const auto flag : kFlags) {
    if (family.has_feature(uarch, flag)) out.push_back(cpu::flag_on(flag));
  }
  return out;
}

// An x86_64 processor block (`vendor_id` or `flags`, none of the lines an aarch64 kernel writes):
// a cpuinfo file from another machine ($VWHEEL_PROC_CPUINFO), on which the generic `version 8a`
// would claim an aarch64 CPU that is not there. archspec never sees one: it reads /proc/cpuinfo
// only on the machine whose architecture it detects.
bool is_x86_64_block(const cpu::CpuinfoBlock& block) {
  for (const auto key : {"Features", "CPU implementer", "CPU part", "CPU architecture"}) {
    if (block.get(key)) return false;
  }
  return block.get("vendor_id") || block.get("flags");
}

/// macOS: the brand's model when it names one (as archspec there), else the best Apple entry
/// whose features the sysctl reports (as archspec on Linux for the same chip).
CpuMatch match_darwin(const cpu::DarwinCpu& darwin) {
  CpuMatch match;
  const auto& family = cpu::aarch64_family();
  std::size_t uarch = 0;
  if (const auto model = darwin.model.empty() ? std::nullopt : family.find(darwin.model)) {
    uarch = *model;
  } else {
    cpu::HostCpu host;
    host.vendor = "Apple";
    std::vector<std::string_view> words(darwin.features.begin(), darwin.features.end());
    host.features = family.feature_set(words);
    uarch = cpu::match_host(family, host, cpu::MatchRules::aarch64);
  }
  match.microarchitecture = family.at(uarch).name;
  match.generic = family.at(family.generic_of(uarch)).name;
  match.vendor = "Apple";
  match.supported = configs_for(uarch);
  return match;
}

std::vector<std::string> explain_darwin(const CpuMatch& match, const cpu::DarwinCpu& darwin) {
  std::vector<std::string> notes;
  notes.push_back(darwin.model_note.empty()
                      ? fmt::format("macOS sysctl: no known Apple model named, chosen by its {} features",
                                    darwin.features.size())
                      : "macOS sysctl: " + darwin.model_note);
  std::vector<std::string> absent;
  for (const auto& config : match.supported) {
    if (config.name == "version") continue;
    if (std::find(darwin.features.begin(), darwin.features.end(), config.name) == darwin.features.end()) {
      absent.push_back(config.name);
    }
  }
  if (!absent.empty()) {
    notes.push_back(fmt::format("{} lists {} that sysctl does not report (kept: the model's answer, as the reference)",
                                match.microarchitecture, fmt::join(absent, " ")));
  }
  notes.push_back(fmt::format("microarchitecture {} ({}), generic {}", match.microarchitecture, match.vendor,
                              match.generic));
  return notes;
}

std::vector<std::string> explain(const CpuMatch& match, std::string_view cpuinfo_text) {
  if (const auto darwin = cpu::parse_darwin_sysctl(cpuinfo_text)) return explain_darwin(match, *darwin);
  std::vector<std::string> notes;
  const auto block = cpu::parse_cpuinfo_first_block(cpuinfo_text);
  if (block && is_x86_64_block(*block)) {
    notes.emplace_back(
        "the first processor block is an x86_64 one (`vendor_id`/`flags`, no `Features` or `CPU implementer`): "
        "no aarch64 properties");
    return notes;
  }
  if (block && !block->get("Features")) {
    notes.emplace_back("no `Features` line in the first processor block: no CPU features known");
  }
  if (match.microarchitecture == "aarch64") {
    const auto implementer = block ? block->get("CPU implementer") : std::nullopt;
    const auto part = block ? block->get("CPU part") : std::nullopt;
    notes.push_back(fmt::format(
        "CPU implementer {} ({}), part {} matches no known model: version 8a only, no flags",
        implementer.value_or("(none)"), match.vendor, part.value_or("(none)")));
  } else {
    notes.push_back(fmt::format("microarchitecture {} ({}), generic {}", match.microarchitecture,
                                match.vendor, match.generic));
  }
  return notes;
}

}  // namespace

CpuMatch match_aarch64_cpuinfo(std::string_view cpuinfo_text) {
  if (const auto darwin = cpu::parse_darwin_sysctl(cpuinfo_text)) return match_darwin(*darwin);
  CpuMatch match;
  const auto block = cpu::parse_cpuinfo_first_block(cpuinfo_text);
  if (!block) return match;
  const auto& family = cpu::aarch64_family();
  cpu::HostCpu host;
  const auto implementer = block->get("CPU implementer");
  host.vendor = implementer ? cpu::arm_vendor_name(*implementer) : std::string_view("generic");
  host.cpu_part = block->get("CPU part").value_or("");
  const auto words = cpu::split_words(block->get("Features").value_or(""));
  host.features = family.feature_set(words);
  const std::size_t uarch = cpu::match_host(family, host, cpu::MatchRules::aarch64);
  match.microarchitecture = family.at(uarch).name;
  match.generic = family.at(family.generic_of(uarch)).name;
  match.vendor = host.vendor;
  if (!is_x86_64_block(*block)) match.supported = configs_for(uarch);
  return match;
}

std::vector<variant::FeatureConfig> aarch64_supported_configs(std::string_view cpuinfo_text) {
  return match_aarch64_cpuinfo(cpuinfo_text).supported;
}

Result<std::vector<variant::FeatureConfig>> aarch64_configs_for_microarchitecture(
    std::string_view microarchitecture) {
  const auto index = cpu::aarch64_family().find(microarchitecture);
  if (!index) {
    return fail(fmt::format("`{}` is not an aarch64 microarchitecture of the database", microarchitecture));
  }
  return configs_for(*index);
}

std::vector<variant::FeatureConfig> aarch64_all_configs() {
  const auto& family = cpu::aarch64_family();
  std::vector<variant::FeatureConfig> out;
  if (const auto cap = family.find(kMaxVersionEntry)) {
    out.push_back(variant::FeatureConfig{"version", version_values(*cap), false});
  }
  for (const auto flag : kFlags) out.push_back(cpu::flag_on(flag));
  return out;
}

std::unique_ptr<Provider> make_aarch64_provider(CpuProviderOptions options) {
  static constexpr cpu::CpuProviderSpec kSpec{kNamespace, kProviderVersion, &match_aarch64_cpuinfo,
                                              &aarch64_all_configs, &explain};
  return cpu::make_cpu_provider(kSpec, std::move(options));
}

}  // namespace vwheel::provider
