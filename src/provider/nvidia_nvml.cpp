// NVML through dlopen: a private function table, no nvml.h, no link-time dependency.

#include "provider/nvidia_nvml.hpp"

#include <cstring>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "provider/gpu_util.hpp"

namespace vwheel::provider::nvidia {

namespace {

// NVML entry points (nvmlReturn_t is an enum: int-sized, 0 = success).
using NvmlDevice = void*;
using InitWithFlagsFn = int (*)(unsigned int);
using ShutdownFn = int (*)();
using GetDriverVersionFn = int (*)(char*, unsigned int);
using GetCudaDriverVersionFn = int (*)(int*);
using GetCountFn = int (*)(unsigned int*);
using GetHandleByIndexFn = int (*)(unsigned int, NvmlDevice*);
using GetComputeCapabilityFn = int (*)(NvmlDevice, int*, int*);

constexpr int kSuccess = 0;
constexpr int kFunctionNotFound = 13;
constexpr unsigned kDriverVersionBufferSize = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE
// More GPUs than any machine has: a count above this is treated as a broken answer.
constexpr unsigned kMaxDevices = 4096;

std::string describe(int code) { return fmt::format("{} ({})", nvml_return_name(code), code); }

// Calls `fn(args...)`, or answers NVML_ERROR_FUNCTION_NOT_FOUND when the library lacks it (what
// pynvml raises for a missing symbol).
template <class Fn, class... Args>
int call(Fn fn, Args... args) {
  return fn == nullptr ? kFunctionNotFound : fn(args...);
}

std::string capabilities_text(const std::vector<std::optional<ComputeCapability>>& per_device) {
  std::string out;
  for (std::size_t i = 0; i < per_device.size(); ++i) {
    out += i == 0 ? "sm " : ", ";
    out += per_device[i] ? fmt::format("{}.{}", per_device[i]->major, per_device[i]->minor) : std::string("?");
  }
  return out;
}

NvmlProbe run(const std::string& library) {
  NvmlProbe probe;
  auto lib = gpu_detail::DlLibrary::open(library);
  if (!lib) {
    probe.summary = fmt::format("{} not loadable: no NVIDIA driver", library);
    probe.notes.push_back(
        fmt::format("{} could not be loaded: {}", library, gpu_detail::one_line(lib.error().message)));
    return probe;
  }
  probe.library_loaded = true;

  const auto init = lib->function<InitWithFlagsFn>("nvmlInitWithFlags");
  const auto shutdown = lib->function<ShutdownFn>("nvmlShutdown");
  const auto get_driver_version = lib->function<GetDriverVersionFn>("nvmlSystemGetDriverVersion");
  const auto get_cuda_v2 = lib->function<GetCudaDriverVersionFn>("nvmlSystemGetCudaDriverVersion_v2");
  const auto get_cuda_v1 = lib->function<GetCudaDriverVersionFn>("nvmlSystemGetCudaDriverVersion");
  const auto get_count = lib->function<GetCountFn>("nvmlDeviceGetCount_v2");
  const auto get_handle = lib->function<GetHandleByIndexFn>("nvmlDeviceGetHandleByIndex_v2");
  const auto get_capability = lib->function<GetComputeCapabilityFn>("nvmlDeviceGetCudaComputeCapability");

  const auto missing = [&](bool absent, const char* name) {
    if (absent) probe.notes.push_back(fmt::format("{} does not export {}", library, name));
  };

  // One pass; `break` = the reference's `except NVMLError: return None`.
  do {
    int rc = call(init, 0U);
    if (rc != kSuccess) {
      missing(init == nullptr, "nvmlInitWithFlags");
      probe.summary = fmt::format("NVML ({}): nvmlInitWithFlags failed: {}", library, describe(rc));
      probe.notes.push_back(fmt::format("nvmlInitWithFlags(0) failed: {}; NVIDIA detection skipped", describe(rc)));
      break;
    }
    NvmlSnapshot s;
    char buffer[kDriverVersionBufferSize + 1] = {};
    rc = call(get_driver_version, static_cast<char*>(buffer), kDriverVersionBufferSize);
    if (rc != kSuccess) {
      missing(get_driver_version == nullptr, "nvmlSystemGetDriverVersion");
      probe.summary = fmt::format("NVML ({}): nvmlSystemGetDriverVersion failed: {}", library, describe(rc));
      probe.notes.push_back(
          fmt::format("nvmlSystemGetDriverVersion failed: {}; NVIDIA detection skipped", describe(rc)));
      break;
    }
    s.driver_version.assign(buffer, strnlen(buffer, kDriverVersionBufferSize));

    int cuda = 0;
    rc = call(get_cuda_v2, &cuda);
    if (rc == kSuccess) {
      s.cuda_driver_version = cuda;
    } else {
      missing(get_cuda_v2 == nullptr, "nvmlSystemGetCudaDriverVersion_v2");
      const int rc1 = call(get_cuda_v1, &cuda);
      if (rc1 == kSuccess) {
        s.cuda_driver_version = cuda;
        probe.notes.push_back(
            fmt::format("nvmlSystemGetCudaDriverVersion_v2 failed ({}); used nvmlSystemGetCudaDriverVersion instead",
                        describe(rc)));
      } else {
        missing(get_cuda_v1 == nullptr, "nvmlSystemGetCudaDriverVersion");
        probe.notes.push_back(fmt::format(
            "no CUDA driver version: nvmlSystemGetCudaDriverVersion_v2 failed ({}), nvmlSystemGetCudaDriverVersion "
            "failed ({})",
            describe(rc), describe(rc1)));
      }
    }

    unsigned count = 0;
    rc = call(get_count, &count);
    if (rc != kSuccess) {
      missing(get_count == nullptr, "nvmlDeviceGetCount_v2");
      probe.summary = fmt::format("NVML (driver {}): nvmlDeviceGetCount_v2 failed: {}", s.driver_version, describe(rc));
      probe.notes.push_back(fmt::format("nvmlDeviceGetCount_v2 failed: {}; NVIDIA detection skipped", describe(rc)));
      break;
    }
    if (count > kMaxDevices) {
      probe.summary = fmt::format("NVML (driver {}): implausible GPU count {}", s.driver_version, count);
      probe.notes.push_back(fmt::format("nvmlDeviceGetCount_v2 reported {} GPUs; NVIDIA detection skipped", count));
      break;
    }
    s.device_count = count;

    std::vector<std::optional<ComputeCapability>> per_device;
    bool handles_ok = true;
    for (unsigned i = 0; i < count; ++i) {
      NvmlDevice device = nullptr;
      rc = call(get_handle, i, &device);
      if (rc != kSuccess) {
        missing(get_handle == nullptr, "nvmlDeviceGetHandleByIndex_v2");
        probe.summary = fmt::format("NVML (driver {}): nvmlDeviceGetHandleByIndex_v2({}) failed: {}", s.driver_version,
                                    i, describe(rc));
        probe.notes.push_back(
            fmt::format("nvmlDeviceGetHandleByIndex_v2({}) failed: {}; NVIDIA detection skipped", i, describe(rc)));
        handles_ok = false;
        break;
      }
      int major = 0;
      int minor = 0;
      rc = call(get_capability, device, &major, &minor);
      if (rc != kSuccess) {
        missing(get_capability == nullptr, "nvmlDeviceGetCudaComputeCapability");
        probe.notes.push_back(
            fmt::format("GPU {}: nvmlDeviceGetCudaComputeCapability failed: {}; GPU ignored", i, describe(rc)));
        per_device.emplace_back(std::nullopt);
        continue;
      }
      s.compute_capabilities.push_back({major, minor});
      per_device.emplace_back(ComputeCapability{major, minor});
    }
    if (!handles_ok) break;

    const std::string cuda_text =
        s.cuda_driver_version
            ? fmt::format("CUDA {}.{}", gpu_detail::py_floordiv(*s.cuda_driver_version, 1000),
                          gpu_detail::py_floordiv(gpu_detail::py_mod(*s.cuda_driver_version, 1000), 10))
            : std::string("CUDA version unknown");
    probe.summary = fmt::format("NVML (driver {}): {}, {} GPU{}{}{}", s.driver_version, cuda_text, count,
                                count == 1 ? "" : "s", count == 0 ? "" : ": ", capabilities_text(per_device));
    probe.snapshot = std::move(s);
  } while (false);

  // `finally: nvmlShutdown()` with errors suppressed.
  if (shutdown != nullptr) {
    const int rc = shutdown();
    if (rc != kSuccess) probe.notes.push_back(fmt::format("nvmlShutdown failed: {} (ignored)", describe(rc)));
  }
  lib->close();
  return probe;
}

}  // namespace

NvmlProbe probe_nvml(const std::string& library) {
  try {
    return run(library);
  } catch (const std::exception& e) {
    NvmlProbe probe;
    probe.summary = fmt::format("NVML ({}): {}", library, e.what());
    probe.notes.push_back(fmt::format("NVML query failed: {}", e.what()));
    return probe;
  }
}

}  // namespace vwheel::provider::nvidia
