#pragma once
/// \file
/// The native GPU providers and their decision functions:
///
/// * `nvidia` — nvidia-variant-provider 0.0.2: `cuda_version_lower_bound`,
///   `cuda_version_upper_bound` (single-value) and `sm_arch` (multi-value), from NVML (loaded with
///   `dlopen("libnvidia-ml.so.1")`, no link-time dependency) or the reference's
///   `NV_VARIANT_PROVIDER_FORCE_*` variables.
/// * `amd` — amd-variant-provider 0.0.2: `gfx_arch` (multi-value, every GPU's ISA name, sorted) and
///   `rocm_version` (one value), from the KFD topology in sysfs and `$ROCM_PATH/.info/version`.
/// * `intel` — intel-variant-provider 0.0.3: `device_ip` (multi-value, the GPUs' GMD IDs and their
///   base platforms), from Level Zero (loaded with `dlopen("libze_loader.so.1")`).
///
/// Each decision function is pure: it takes what the machine reported (or `std::nullopt` when the
/// query failed) and the reference's override variables, and returns the reference's answer, or
/// an error carrying the exception the reference raises (`IndexError: list index out of range`).
/// The providers never throw and never run programs; where the reference raises they report no
/// properties and a note naming the failure.
///
/// Test and diagnostic overrides (besides the reference's own variables):
/// `VWHEEL_NVML_LIBRARY`, `VWHEEL_ZE_LOADER_LIBRARY` (library to dlopen instead of the default
/// name), `VWHEEL_SYSFS_ROOT` (directory read instead of `/sys`), `VWHEEL_GPU_PROBE_TIMEOUT`
/// (seconds to wait for NVML / Level Zero, default 30; a driver that hangs is given up on).

#include <compare>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/provider/provider.hpp"
#include "vwheel/variant/property.hpp"

namespace vwheel::provider {

/// The `nvidia` provider (reproduces nvidia-variant-provider 0.0.2).
[[nodiscard]] std::unique_ptr<Provider> make_nvidia_provider();
/// The `amd` provider (reproduces amd-variant-provider 0.0.2).
[[nodiscard]] std::unique_ptr<Provider> make_amd_provider();
/// The `intel` provider (reproduces intel-variant-provider 0.0.3).
[[nodiscard]] std::unique_ptr<Provider> make_intel_provider();

/// Environment variable naming a directory to read instead of `/sys` (tests, diagnostics).
inline constexpr std::string_view kSysfsRootEnv = "VWHEEL_SYSFS_ROOT";
/// Environment variable: seconds to wait for a GPU driver library to answer (default 30).
inline constexpr std::string_view kGpuProbeTimeoutEnv = "VWHEEL_GPU_PROBE_TIMEOUT";

/// What a reference provider returns from `get_supported_configs()`, plus the warnings it emits
/// on the way (Python `warnings.warn` messages, verbatim).
struct ReferenceAnswer {
  std::vector<variant::FeatureConfig> supported;
  std::vector<std::string> warnings;
};

namespace nvidia {

inline constexpr std::string_view kNamespace = "nvidia";
/// The nvidia-variant-provider release whose behaviour is reproduced.
inline constexpr std::string_view kReferenceVersion = "0.0.2";
/// Reference override: the CUDA (user-mode driver) version, parsed as a PEP 440 version.
inline constexpr std::string_view kForceCudaDriverVersionEnv = "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION";
/// Reference override: the compute capability `X.Y`, parsed with Python's `int()`.
inline constexpr std::string_view kForceSmArchEnv = "NV_VARIANT_PROVIDER_FORCE_SM_ARCH";
/// Library to load instead of `libnvidia-ml.so.1` (tests, diagnostics).
inline constexpr std::string_view kNvmlLibraryEnv = "VWHEEL_NVML_LIBRARY";
/// The NVML library the reference loads on Linux (default dlopen search path); the provider
/// loads `nvml.dll` on Windows.
inline constexpr std::string_view kNvmlLibraryName = "libnvidia-ml.so.1";

/// A GPU's CUDA compute capability, e.g. 9.0 for an H100.
struct ComputeCapability {
  int major = 0;
  int minor = 0;

  auto operator<=>(const ComputeCapability&) const = default;
  bool operator==(const ComputeCapability&) const = default;
};

/// What NVML reported: the reference's `CudaEnvironment`. Only produced when every mandatory
/// query succeeded (init, driver version, device count, every device handle).
struct NvmlSnapshot {
  /// `nvmlSystemGetDriverVersion`, e.g. "550.54.15" (kernel-mode driver; not used for properties).
  std::string driver_version;
  /// `nvmlSystemGetCudaDriverVersion_v2`, else `nvmlSystemGetCudaDriverVersion` (e.g. 12040);
  /// nullopt when both failed.
  std::optional<int> cuda_driver_version;
  /// `nvmlDeviceGetCount_v2`.
  unsigned device_count = 0;
  /// Capabilities of the GPUs whose `nvmlDeviceGetCudaComputeCapability` succeeded, in index order.
  std::vector<ComputeCapability> compute_capabilities;
};

/// The reference's override variables; each holds the value only when set and non-empty (the
/// reference treats an empty value as unset).
struct Overrides {
  std::optional<std::string> cuda_driver_version;  ///< NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION
  std::optional<std::string> sm_arch;              ///< NV_VARIANT_PROVIDER_FORCE_SM_ARCH

  /// Reads both variables from the environment.
  [[nodiscard]] static Overrides from_environment();
};

/// Asks NVML for a snapshot (nullopt: NVML unusable). Called at most once, and only when the
/// answer depends on it (the reference queries NVML lazily).
using NvmlQuery = std::function<std::optional<NvmlSnapshot>()>;

/// The reference algorithm (`get_supported_configs()` of a fresh process):
/// 1. CUDA version U: the forced value (PEP 440, no range check), else the snapshot's (nullopt
///    snapshot or version → no properties; outside 11.0–15.20 → warning, no properties).
/// 2. `cuda_version_lower_bound`: U.major.U.minor … U.major.0, U.major, then each lower major
///    down to 11 as X.20 … X.0, X (omitted when empty).
/// 3. `cuda_version_upper_bound`: 15.20 … 15.0, 15, … down to U.major+1, then U.major.20 …
///    U.major.(U.minor+1) (omitted when empty).
/// 4. `sm_arch` (multi-value): from the forced `X.Y`, else the highest detected capability
///    (none detected → `IndexError`): `XY_real` … `X0_real`, `X0_virtual`; below 5.0 → warning.
///
/// Errors carry the reference's exception, e.g. `InvalidVersion: Invalid version: 'abc'`,
/// `ValueError: not enough values to unpack (expected 2, got 1)`,
/// `IndexError: list index out of range`. Values the reference would list by the million
/// (a forced number above 1000 where it sets a list length) are refused with an error.
[[nodiscard]] Result<ReferenceAnswer> supported_configs_from(const Overrides& forced, const NvmlQuery& nvml);
/// Same, with NVML already queried (`std::nullopt`: NVML unusable).
[[nodiscard]] Result<ReferenceAnswer> supported_configs_from(const std::optional<NvmlSnapshot>& nvml,
                                                             const Overrides& forced);

/// `get_all_configs()`: both CUDA bounds with 15.20 … 11 (110 values each), and `sm_arch` with
/// `129_real` … `50_real`, `129_virtual` … `50_virtual` (160 values).
[[nodiscard]] std::vector<variant::FeatureConfig> all_configs();

/// Name of an NVML return code, e.g. 9 → "NVML_ERROR_DRIVER_NOT_LOADED".
[[nodiscard]] std::string nvml_return_name(int code);

}  // namespace nvidia

namespace amd {

inline constexpr std::string_view kNamespace = "amd";
/// The amd-variant-provider release whose behaviour is reproduced.
inline constexpr std::string_view kReferenceVersion = "0.0.2";
/// Reference override: gfx names separated by `,`, `;` or whitespace.
inline constexpr std::string_view kForceGfxArchEnv = "AMD_VARIANT_PROVIDER_FORCE_GFX_ARCH";
/// Reference override: ROCm version `X.Y.Z` (reported as `X.Y`).
inline constexpr std::string_view kForceRocmVersionEnv = "AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION";
/// ROCm installation directory (default `/opt/rocm`).
inline constexpr std::string_view kRocmPathEnv = "ROCM_PATH";

/// One KFD topology node (`/sys/class/kfd/kfd/topology/nodes/<n>/properties`).
struct KfdNode {
  std::string node;                      ///< directory name, e.g. "2"
  std::uint64_t gfx_target_version = 0;  ///< e.g. 90402; 0 for CPU nodes
  std::uint32_t vendor_id = 0;           ///< PCI vendor (4098 = 0x1002 for AMD GPUs)
  std::uint32_t device_id = 0;           ///< PCI device id
};

/// A ROCm release read from `.info/version`.
struct RocmVersion {
  long long major = 0;
  long long minor = 0;
  std::optional<long long> patch;
};

/// What the machine shows: the reference's `get_system_info()` equivalent.
struct RocmSnapshot {
  /// ISA names of the GPU nodes (gfx_target_version ≠ 0), in node order, as
  /// `rocm_agent_enumerator` derives them (e.g. "gfx942", "gfx90a").
  std::vector<std::string> gfx_archs;
  /// From `$ROCM_PATH/.info/version` (else `/opt/rocm/.info/version`); nullopt when absent or
  /// unreadable.
  std::optional<RocmVersion> rocm_version;
};

/// The reference's override variables (each only when set and non-empty).
struct Overrides {
  std::optional<std::string> gfx_arch;      ///< AMD_VARIANT_PROVIDER_FORCE_GFX_ARCH
  std::optional<std::string> rocm_version;  ///< AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION

  [[nodiscard]] static Overrides from_environment();
};

/// ISA name for a KFD `gfx_target_version` (major·10000 + minor·100 + stepping, minor and
/// stepping printed in hex): 90402 → "gfx942", 90010 → "gfx90a", 110000 → "gfx1100".
[[nodiscard]] std::string gfx_name(std::uint64_t gfx_target_version);

/// Parses the text of `.info/version` as the reference: strip, split on `.`/`-`, the first three
/// (or two) parts as Python integers ("6.4.1-120" → 6.4.1). nullopt when it has fewer than two
/// parts or a part is not an integer.
[[nodiscard]] std::optional<RocmVersion> parse_rocm_version_file(std::string_view text);

/// The reference algorithm: `gfx_arch` (multi-value: the forced list as given, else the detected
/// names sorted and de-duplicated; omitted when empty), then `rocm_version` (single value
/// `major.minor`: the forced `X.Y.Z`, else the detected version; omitted when unknown). Errors:
/// a forced ROCm version without exactly three parts (`AssertionError`), or values that are not
/// valid variant values (the installer would reject the provider's output).
[[nodiscard]] Result<ReferenceAnswer> supported_configs_from(const RocmSnapshot& system, const Overrides& forced);

/// `get_all_configs()`: `rocm_version` 7.10 … 7.0, 6.4, 6.3 and `gfx_arch` (multi-value) gfx900,
/// gfx906, gfx908, gfx90a, gfx942, gfx1030, gfx1100, gfx1101, gfx1102, gfx1200, gfx1201.
[[nodiscard]] std::vector<variant::FeatureConfig> all_configs();

/// Reads the KFD topology under `sysfs_root` (normally `/sys`); nodes in numeric order. Missing
/// topology → empty list.
[[nodiscard]] std::vector<KfdNode> read_kfd_nodes(const std::filesystem::path& sysfs_root);

}  // namespace amd

namespace intel {

inline constexpr std::string_view kNamespace = "intel";
/// The intel-variant-provider release whose behaviour is reproduced.
inline constexpr std::string_view kReferenceVersion = "0.0.3";
/// Reference override: one device IP `A.R.V` (reported alone, if it is in the known table).
inline constexpr std::string_view kForceDeviceIpEnv = "INTEL_VARIANT_PROVIDER_FORCE_DEVICE_IP";
/// Library to load instead of `libze_loader.so.1` (tests, diagnostics).
inline constexpr std::string_view kZeLoaderLibraryEnv = "VWHEEL_ZE_LOADER_LIBRARY";
/// The Level Zero loader the reference loads on Linux; the provider loads `ze_loader.dll` on
/// Windows.
inline constexpr std::string_view kZeLoaderLibraryName = "libze_loader.so.1";

/// One Level Zero device (`zeDeviceGetProperties` + `ze_device_ip_version_ext_t`).
struct ZeDevice {
  std::uint32_t vendor_id = 0;   ///< PCI vendor; the reference keeps 0x8086 only
  std::uint32_t device_id = 0;   ///< PCI device id
  std::uint32_t ip_version = 0;  ///< raw device IP version (GMD ID)
  std::string name;              ///< marketing name, e.g. "Intel(R) Arc(TM) B580 Graphics"
};

/// The reference's override variable (only when set and non-empty).
struct Overrides {
  std::optional<std::string> device_ip;  ///< INTEL_VARIANT_PROVIDER_FORCE_DEVICE_IP

  [[nodiscard]] static Overrides from_environment();
};

/// Lists the Level Zero devices; an error carries the reference's failure text (e.g. "Failed to
/// open L0 library", "L0 library call failed with 0x78000001"). Called at most once, and only
/// without a forced device IP.
using ZeQuery = std::function<Result<std::vector<ZeDevice>>()>;

/// `architecture.release.revision` of a raw IP version (bits 22–31, 14–21, 0–5):
/// 0x05004000 → "20.1.0".
[[nodiscard]] std::string device_ip_string(std::uint32_t ip_version);

/// One entry of the reference's table of known device IPs.
struct KnownDeviceIp {
  std::string_view ip;       ///< e.g. "20.2.0"
  std::string_view compat;   ///< base platform's IP, e.g. "20.1.0"; empty when none
  std::string_view devices;  ///< platform acronyms, e.g. "bmg-g31"
};
/// The known table, in the reference's order (35.11.0 … 12.0.0).
[[nodiscard]] const std::vector<KnownDeviceIp>& known_device_ips();

/// The reference algorithm: forced IP → `[IP]` when known (else a warning and nothing);
/// otherwise, for every device with vendor 0x8086 in enumeration order, its IP then its base
/// platform's IP, unknown IPs dropped with a warning, duplicates dropped. A failed query →
/// warning, no properties. `device_ip` is multi-value.
[[nodiscard]] ReferenceAnswer supported_configs_from(const Overrides& forced, const ZeQuery& devices);

/// `get_all_configs()`: `device_ip` (multi-value) with the known table's IPs.
[[nodiscard]] std::vector<variant::FeatureConfig> all_configs();

}  // namespace intel

}  // namespace vwheel::provider
