#pragma once
// Querying NVML through dlopen, the way nvidia-variant-provider 0.0.2's `CudaEnvironment.from_system`
// does with its ctypes binding. Private to src/provider/.

#include <optional>
#include <string>
#include <vector>

#include "vwheel/provider/gpu.hpp"

namespace vwheel::provider::nvidia {

/// The outcome of one NVML session: load, init, queries, shutdown, unload.
struct NvmlProbe {
  /// The reference's CudaEnvironment; nullopt when the library could not be loaded or a mandatory
  /// query failed (init, driver version, device count, a device handle).
  std::optional<NvmlSnapshot> snapshot;
  /// One line on what was read (or what failed), e.g.
  /// "NVML (driver 550.54.15): CUDA 12.4, 2 GPUs: sm 9.0, 9.0".
  std::string summary;
  /// What went wrong along the way, one line each (failed queries, skipped GPUs, ...).
  std::vector<std::string> notes;
  /// Whether the library could be loaded at all.
  bool library_loaded = false;
};

/// Loads `library` (dlopen name or path), calls nvmlInitWithFlags(0), nvmlSystemGetDriverVersion,
/// nvmlSystemGetCudaDriverVersion_v2 (falling back to nvmlSystemGetCudaDriverVersion on any
/// error, a missing symbol included), nvmlDeviceGetCount_v2, and per GPU
/// nvmlDeviceGetHandleByIndex_v2 and nvmlDeviceGetCudaComputeCapability (a failure skips that
/// GPU), then nvmlShutdown (always attempted once loaded; its result is ignored) and unloads the
/// library. A missing entry point counts as NVML_ERROR_FUNCTION_NOT_FOUND. Never throws.
[[nodiscard]] NvmlProbe probe_nvml(const std::string& library);

}  // namespace vwheel::provider::nvidia
