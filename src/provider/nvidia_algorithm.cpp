// The decision logic of nvidia-variant-provider 0.0.2 (`NvidiaVariantPlugin.get_supported_configs`,
// `umd_version`, `get_sm_architectures`, `get_all_configs`), on an NVML snapshot.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "provider/gpu_util.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/pep440/version.hpp"
#include "vwheel/provider/gpu.hpp"

namespace vwheel::provider::nvidia {

namespace {

using gpu_detail::python_repr;

constexpr long long kMinMajor = 11;  // min(UMD_MAJOR_RANGE)
constexpr long long kMaxMajor = 15;  // max(UMD_MAJOR_RANGE)
constexpr long long kMaxMinor = 20;  // max(UMD_MINOR_RANGE)
// A forced version or capability sets list lengths; the reference has no bound, vwheel refuses
// numbers above this one rather than produce millions of values.
constexpr long long kListLimit = 1000;

struct Umd {
  long long major = 0;
  long long minor = 0;
};

std::string invalid_version(std::string_view text) {
  return fmt::format("InvalidVersion: Invalid version: {}", python_repr(text));
}

std::string too_large(std::string_view what, std::string_view text) {
  return fmt::format("vwheel: {} {} has a number above {}; the reference would list values by the million", what,
                     python_repr(text), kListLimit);
}

// Version(value).major / .minor for a forced value (packaging's regex is anchored by \s*, which
// is Unicode-aware: strip that first, the grammar itself has no whitespace).
Result<Umd> parse_forced_cuda(const std::string& text) {
  const std::string_view core = python_strip(text);
  auto v = pep440::Version::parse(core);
  if (!v || core.empty()) return fail(invalid_version(text));
  const auto& release = v->release();
  const auto major = release[0].to_u64();
  const auto minor = release.size() > 1 ? release[1].to_u64() : std::optional<std::uint64_t>(0);
  if (!major || !minor || *major > static_cast<std::uint64_t>(kListLimit) ||
      *minor > static_cast<std::uint64_t>(kListLimit)) {
    return fail(too_large(kForceCudaDriverVersionEnv, text));
  }
  return Umd{static_cast<long long>(*major), static_cast<long long>(*minor)};
}

std::vector<std::string> lower_bound_values(const Umd& u) {
  std::vector<std::string> out;
  for (long long major = u.major; major >= kMinMajor; --major) {
    const long long top = major < u.major ? kMaxMinor : u.minor;
    for (long long minor = top; minor >= 0; --minor) out.push_back(fmt::format("{}.{}", major, minor));
    out.push_back(fmt::format("{}", major));
  }
  return out;
}

std::vector<std::string> upper_bound_values(const Umd& u) {
  std::vector<std::string> out;
  for (long long major = kMaxMajor; major >= u.major; --major) {
    if (major > u.major) {
      for (long long minor = kMaxMinor; minor >= 0; --minor) out.push_back(fmt::format("{}.{}", major, minor));
      out.push_back(fmt::format("{}", major));
    } else {
      for (long long minor = kMaxMinor; minor > u.minor; --minor) out.push_back(fmt::format("{}.{}", major, minor));
    }
  }
  return out;
}

// `tuple(map(int, value.split(".", maxsplit=1)))` then `X, Y = ...`.
Result<std::pair<long long, long long>> parse_forced_sm(const std::string& value) {
  std::vector<std::string_view> parts;
  const std::string_view v = value;
  const auto dot = v.find('.');
  parts.push_back(v.substr(0, dot));
  if (dot != std::string_view::npos) parts.push_back(v.substr(dot + 1));
  std::vector<long long> numbers;
  for (const auto part : parts) {
    const auto n = gpu_detail::python_int(part);
    if (n.status == gpu_detail::PyInt::Status::invalid) {
      return fail(fmt::format("ValueError: invalid literal for int() with base 10: {}", python_repr(part)));
    }
    if (n.status == gpu_detail::PyInt::Status::too_large) return fail(too_large(kForceSmArchEnv, value));
    numbers.push_back(n.value);
  }
  if (numbers.size() < 2) return fail("ValueError: not enough values to unpack (expected 2, got 1)");
  return std::pair{numbers[0], numbers[1]};
}

}  // namespace

Overrides Overrides::from_environment() {
  Overrides o;
  o.cuda_driver_version = gpu_detail::env_nonempty(kForceCudaDriverVersionEnv);
  o.sm_arch = gpu_detail::env_nonempty(kForceSmArchEnv);
  return o;
}

Result<ReferenceAnswer> supported_configs_from(const Overrides& forced, const NvmlQuery& nvml) {
  ReferenceAnswer answer;

  // The reference's `_cuda_environment` is a cached property: NVML is asked at most once.
  bool queried = false;
  std::optional<NvmlSnapshot> snapshot;
  const auto environment = [&]() -> const std::optional<NvmlSnapshot>& {
    if (!queried) {
      queried = true;
      if (nvml) snapshot = nvml();
    }
    return snapshot;
  };

  // ---- umd_version ----
  Umd umd;
  if (forced.cuda_driver_version && !forced.cuda_driver_version->empty()) {
    auto u = parse_forced_cuda(*forced.cuda_driver_version);
    if (!u) return fail(u.error());
    umd = *u;
  } else {
    const auto& env = environment();
    if (!env) return answer;
    if (!env->cuda_driver_version) {
      answer.warnings.emplace_back(
          "No UMD version found. NVIDIA platform is not supported or properly installed on this machine.");
      return answer;
    }
    const long long v = *env->cuda_driver_version;
    const long long major = gpu_detail::py_floordiv(v, 1000);
    const long long minor = gpu_detail::py_floordiv(gpu_detail::py_mod(v, 1000), 10);
    const std::string text = fmt::format("{}.{}", major, minor);
    if (major < 0) return fail(invalid_version(text));
    if (std::pair{major, minor} < std::pair{kMinMajor, 0LL} ||
        std::pair{major, minor} > std::pair{kMaxMajor, kMaxMinor}) {
      answer.warnings.push_back(
          fmt::format("The UMD version `{}` is outside the supported range: `>={}.0,<={}.{}`.\n"
                      "NVIDIA platform detection has been deactivated.",
                      text, kMinMajor, kMaxMajor, kMaxMinor));
      return answer;
    }
    umd = Umd{major, minor};
  }

  // ---- priority 1 and 2: CUDA bounds ----
  if (auto values = lower_bound_values(umd); !values.empty()) {
    answer.supported.push_back({"cuda_version_lower_bound", std::move(values), false});
  }
  if (auto values = upper_bound_values(umd); !values.empty()) {
    answer.supported.push_back({"cuda_version_upper_bound", std::move(values), false});
  }

  // ---- priority 3: SM architecture ----
  std::optional<std::pair<long long, long long>> sm;
  if (forced.sm_arch && !forced.sm_arch->empty()) {
    auto parsed = parse_forced_sm(*forced.sm_arch);
    if (!parsed) return fail(parsed.error());
    sm = *parsed;
  } else if (const auto& env = environment()) {
    if (env->compute_capabilities.empty()) return fail("IndexError: list index out of range");
    const auto best = *std::max_element(env->compute_capabilities.begin(), env->compute_capabilities.end());
    sm = std::pair<long long, long long>{best.major, best.minor};
  }
  if (sm) {
    const auto [x, y] = *sm;
    const std::string text = fmt::format("{}.{}", x, y);
    if (x < 0 || y < 0) return fail(invalid_version(text));  // Version(f"{X}.{Y}")
    if (std::pair{x, y} < std::pair{5LL, 0LL}) {
      answer.warnings.push_back(fmt::format(
          "The SM version is lower than the lowest SM architecture supported by the NVIDIA Variant Plugin: {}. "
          "NVIDIA platform detection may not work as expected.",
          text));
    } else {
      if (y > kListLimit) return fail(too_large("compute capability", text));
      std::vector<std::string> values;
      for (long long minor = y; minor >= 0; --minor) values.push_back(fmt::format("{}{}_real", x, minor));
      values.push_back(fmt::format("{}0_virtual", x));
      answer.supported.push_back({"sm_arch", std::move(values), true});
    }
  }
  return answer;
}

Result<ReferenceAnswer> supported_configs_from(const std::optional<NvmlSnapshot>& nvml, const Overrides& forced) {
  return supported_configs_from(forced, [&nvml]() { return nvml; });
}

std::vector<variant::FeatureConfig> all_configs() {
  std::vector<std::string> umd;
  for (long long major = kMaxMajor; major >= kMinMajor; --major) {
    for (long long minor = kMaxMinor; minor >= 0; --minor) umd.push_back(fmt::format("{}.{}", major, minor));
    umd.push_back(fmt::format("{}", major));
  }
  std::vector<std::string> sm;
  for (const char* kind : {"real", "virtual"}) {
    for (int major = 12; major >= 5; --major) {
      for (int minor = 9; minor >= 0; --minor) sm.push_back(fmt::format("{}{}_{}", major, minor, kind));
    }
  }
  return {
      {"cuda_version_lower_bound", umd, false},
      {"cuda_version_upper_bound", umd, false},
      {"sm_arch", std::move(sm), true},
  };
}

std::string nvml_return_name(int code) {
  static constexpr std::pair<int, std::string_view> kNames[] = {
      {0, "NVML_SUCCESS"},
      {1, "NVML_ERROR_UNINITIALIZED"},
      {2, "NVML_ERROR_INVALID_ARGUMENT"},
      {3, "NVML_ERROR_NOT_SUPPORTED"},
      {4, "NVML_ERROR_NO_PERMISSION"},
      {5, "NVML_ERROR_ALREADY_INITIALIZED"},
      {6, "NVML_ERROR_NOT_FOUND"},
      {7, "NVML_ERROR_INSUFFICIENT_SIZE"},
      {8, "NVML_ERROR_INSUFFICIENT_POWER"},
      {9, "NVML_ERROR_DRIVER_NOT_LOADED"},
      {10, "NVML_ERROR_TIMEOUT"},
      {11, "NVML_ERROR_IRQ_ISSUE"},
      {12, "NVML_ERROR_LIBRARY_NOT_FOUND"},
      {13, "NVML_ERROR_FUNCTION_NOT_FOUND"},
      {14, "NVML_ERROR_CORRUPTED_INFOROM"},
      {15, "NVML_ERROR_GPU_IS_LOST"},
      {16, "NVML_ERROR_RESET_REQUIRED"},
      {17, "NVML_ERROR_OPERATING_SYSTEM"},
      {18, "NVML_ERROR_LIB_RM_VERSION_MISMATCH"},
      {19, "NVML_ERROR_IN_USE"},
      {20, "NVML_ERROR_MEMORY"},
      {21, "NVML_ERROR_NO_DATA"},
      {22, "NVML_ERROR_VGPU_ECC_NOT_ENABLED"},
      {23, "NVML_ERROR_INSUFFICIENT_RESOURCES"},
      {24, "NVML_ERROR_FREQ_NOT_SUPPORTED"},
      {25, "NVML_ERROR_ARGUMENT_VERSION_MISMATCH"},
      {26, "NVML_ERROR_DEPRECATED"},
      {27, "NVML_ERROR_NOT_READY"},
      {28, "NVML_ERROR_GPU_NOT_FOUND"},
      {29, "NVML_ERROR_INVALID_STATE"},
      {999, "NVML_ERROR_UNKNOWN"},
  };
  for (const auto& [c, name] : kNames) {
    if (c == code) return std::string(name);
  }
  return fmt::format("NVML error {}", code);
}

}  // namespace vwheel::provider::nvidia
