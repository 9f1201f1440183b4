#pragma once
// The Provider implementation shared by the x86_64 and aarch64 CPU providers.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/provider/cpu.hpp"

namespace vwheel::provider::cpu {

/// What differs between the two CPU providers.
struct CpuProviderSpec {
  std::string_view ns;       ///< namespace, also the `uname -m` it runs on
  std::string_view version;  ///< reference provider version
  CpuMatch (*match)(std::string_view cpuinfo_text);
  std::vector<variant::FeatureConfig> (*all_configs)();
  /// Extra explanation lines for a match (e.g. why the answer is empty).
  std::vector<std::string> (*explain)(const CpuMatch& match, std::string_view cpuinfo_text);
};

[[nodiscard]] std::unique_ptr<Provider> make_cpu_provider(const CpuProviderSpec& spec,
                                                          CpuProviderOptions options);

/// `uname -m` spellings normalised: `arm64` → `aarch64`, `amd64`/`AMD64` → `x86_64`.
[[nodiscard]] std::string normalize_machine(std::string_view machine);

/// A feature with the single value `on`.
[[nodiscard]] variant::FeatureConfig flag_on(std::string_view name);

}  // namespace vwheel::provider::cpu
