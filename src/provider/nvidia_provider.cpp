// The `nvidia` provider: NVML (through dlopen) + the reference algorithm.

#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "provider/gpu_util.hpp"
#include "provider/nvidia_nvml.hpp"
#include "vwheel/provider/gpu.hpp"

namespace vwheel::provider {

namespace {

constexpr std::uint32_t kNvidiaPciVendor = 0x10de;

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

// A hint for --explain when the reference raises: what the machine looked like.
std::string error_hint(const std::string& error) {
  if (error.rfind("IndexError", 0) == 0) {
    return " (NVML works but reports no GPU whose compute capability could be read)";
  }
  if (error.rfind("InvalidVersion", 0) == 0 || error.rfind("ValueError", 0) == 0) {
    return fmt::format(" (check {} / {})", nvidia::kForceCudaDriverVersionEnv, nvidia::kForceSmArchEnv);
  }
  return "";
}

Detection detect_nvidia() {
  Detection d;
  const auto forced = nvidia::Overrides::from_environment();
  const std::string library =
      gpu_detail::env_nonempty(nvidia::kNvmlLibraryEnv).value_or(std::string(vwheel::detail::runtime_library_name(vwheel::detail::RuntimeLibrary::nvml)));

  std::optional<nvidia::NvmlProbe> probe;
  const auto timeout = gpu_detail::probe_timeout();
  const nvidia::NvmlQuery query = [&]() -> std::optional<nvidia::NvmlSnapshot> {
    auto done =
        gpu_detail::run_with_timeout<nvidia::NvmlProbe>([library]() { return nvidia::probe_nvml(library); }, timeout);
    if (!done) {
      probe.emplace();
      probe->summary = fmt::format("NVML ({}): no answer within {} s", library, timeout.count() / 1000);
      probe->notes.push_back(
          fmt::format("NVML did not answer within {} s (hung driver?); NVIDIA detection skipped "
                      "(set {} to wait longer)",
                      timeout.count() / 1000, kGpuProbeTimeoutEnv));
      return std::nullopt;
    }
    probe = std::move(*done);
    return probe->snapshot;
  };

  auto result = nvidia::supported_configs_from(forced, query);

  std::vector<std::string> source;
  if (probe) {
    source.push_back(probe->summary);
    d.notes = probe->notes;
    if (!probe->library_loaded) {
      const auto gpus = gpu_detail::pci_displays(gpu_detail::sysfs_root(), kNvidiaPciVendor);
      if (!gpus.empty()) {
        d.notes.push_back(fmt::format("NVIDIA GPU present ({}) but {} could not be loaded: install the NVIDIA driver",
                                      gpu_detail::describe_pci(gpus), library));
      }
    }
  } else {
    source.emplace_back("NVML not queried");
  }
  if (forced.cuda_driver_version) {
    source.push_back(
        fmt::format("{}={}", nvidia::kForceCudaDriverVersionEnv, gpu_detail::python_repr(*forced.cuda_driver_version)));
  }
  if (forced.sm_arch) {
    source.push_back(fmt::format("{}={}", nvidia::kForceSmArchEnv, gpu_detail::python_repr(*forced.sm_arch)));
  }
  d.source = join(source, "; ");

  if (!result) {
    d.notes.push_back(fmt::format("nvidia-variant-provider {} raises {} here{}; no nvidia properties reported",
                                  nvidia::kReferenceVersion, gpu_detail::one_line(result.error().message),
                                  error_hint(result.error().message)));
    return d;
  }
  for (const auto& w : result->warnings) d.notes.push_back(gpu_detail::one_line(w));
  d.supported = std::move(result->supported);
  return d;
}

}  // namespace

std::unique_ptr<Provider> make_nvidia_provider() {
  return std::make_unique<gpu_detail::GpuProvider>(nvidia::kNamespace, nvidia::kReferenceVersion, "NVIDIA", "NVML",
                                                   &nvidia::all_configs, &detect_nvidia);
}

}  // namespace vwheel::provider
