#pragma once
/// \file
/// The native CPU providers `x86_64` and `aarch64`: the behaviour of provider-variant-x86-64
/// 0.0.3 and provider-variant-aarch64 0.0.3, which identify the CPU with archspec (database
/// archspec-json 9b22d3d, embedded in libvwheel) and map the matched microarchitecture to
/// properties.
///
/// * `x86_64`: `level` (`vN` ... `v1`, from the matched entry's generic `x86_64_vN` ancestor),
///   then 56 flags (`avx512f :: on`, ...) in a fixed priority order. CPUs whose generic is plain
///   `x86_64` (below x86-64-v2) get no properties at all.
/// * `aarch64`: `version` (`9.0a` ... `8a`, from the matched entry's generic `armvX.Ya`
///   ancestor), then 40 flags in a fixed priority order.
///
/// A flag is reported when the *matched database entry* lists it, not when the host has it.
/// The detection functions are pure (they take the text of a `/proc/cpuinfo`) and work on any
/// host; the providers read `/proc/cpuinfo`, or the file named by `$VWHEEL_PROC_CPUINFO`.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/provider/provider.hpp"
#include "vwheel/variant/property.hpp"

namespace vwheel::provider {

/// Environment variable naming a file to read instead of `/proc/cpuinfo`. When set (non-empty),
/// the CPU providers detect from that file whatever the machine's architecture.
inline constexpr std::string_view kCpuinfoPathEnv = "VWHEEL_PROC_CPUINFO";
/// The file the CPU providers read by default.
inline constexpr std::string_view kProcCpuinfo = "/proc/cpuinfo";

/// What one cpuinfo text matched and what the provider reports for it.
struct CpuMatch {
  /// The matched database entry (`zen3`, `x86_64_v3`, `neoverse_v2`, `aarch64`, ...); empty when
  /// the text could not be used (not valid UTF-8 in the part read).
  std::string microarchitecture;
  /// Its generic ancestor or itself (`x86_64_v3`, `armv8.2a`, ...); empty with the above.
  std::string generic;
  /// The vendor the matching used: `vendor_id` (x86_64) or the `CPU implementer` translated to
  /// a name (aarch64; an unknown code stays as written); `generic` when the line is missing.
  std::string vendor;
  /// The provider's answer, in priority order (empty: no properties).
  std::vector<variant::FeatureConfig> supported;
};

/// Matches the first processor block of a Linux `/proc/cpuinfo` text (`vendor_id`, `flags`)
/// against the x86_64 database, as archspec's `host()` on an x86_64 Linux machine.
[[nodiscard]] CpuMatch match_x86_64_cpuinfo(std::string_view cpuinfo_text);
/// `match_x86_64_cpuinfo(cpuinfo_text).supported`.
[[nodiscard]] std::vector<variant::FeatureConfig> x86_64_supported_configs(std::string_view cpuinfo_text);
/// The x86_64 answer when the detection result is exactly the database entry `microarchitecture`
/// (e.g. `icelake`); fails for a name that is not an x86_64 entry.
[[nodiscard]] Result<std::vector<variant::FeatureConfig>> x86_64_configs_for_microarchitecture(
    std::string_view microarchitecture);
/// Every x86_64 feature and value: `level` (`v4 v3 v2 v1`) and the 56 flags with value `on`.
[[nodiscard]] std::vector<variant::FeatureConfig> x86_64_all_configs();

/// Matches the first processor block of a Linux `/proc/cpuinfo` text (`Features`,
/// `CPU implementer`, `CPU part`) against the aarch64 database, as archspec's `host()` on an
/// aarch64 Linux machine. A macOS `sysctl` output (`hw.optional.arm.FEAT_* : 1` lines and
/// `machdep.cpu.brand_string`, what the provider reads on macOS) is matched as archspec does
/// there: the model the brand names (M3 and later, newer than the database: m2), else the best
/// Apple entry whose features the sysctl reports.
[[nodiscard]] CpuMatch match_aarch64_cpuinfo(std::string_view cpuinfo_text);
/// `match_aarch64_cpuinfo(cpuinfo_text).supported`.
[[nodiscard]] std::vector<variant::FeatureConfig> aarch64_supported_configs(std::string_view cpuinfo_text);
/// The aarch64 answer when the detection result is exactly the database entry
/// `microarchitecture` (e.g. `neoverse_n1`); fails for a name that is not an aarch64 entry.
[[nodiscard]] Result<std::vector<variant::FeatureConfig>> aarch64_configs_for_microarchitecture(
    std::string_view microarchitecture);
/// Every aarch64 feature and value: `version` (`9.0a` ... `8a`) and the 40 flags with value
/// `on` (including the reference's fused names `btiecv` and `asimdrdmatomics`).
[[nodiscard]] std::vector<variant::FeatureConfig> aarch64_all_configs();

/// Where a CPU provider's `detect()` looks.
struct CpuProviderOptions {
  /// File to read, whatever the machine's architecture. Empty: `$VWHEEL_PROC_CPUINFO` when set
  /// and non-empty (same effect), else `/proc/cpuinfo`, and only on a machine of the provider's
  /// architecture (elsewhere the answer is empty, with a note).
  std::string cpuinfo_path;
  /// The machine architecture to assume (`uname -m` spelling; `arm64` and `amd64` are
  /// accepted). Empty: this machine's.
  std::string machine;
};

/// The `x86_64` provider (reproduces provider-variant-x86-64 0.0.3).
[[nodiscard]] std::unique_ptr<Provider> make_x86_64_provider(CpuProviderOptions options = {});
/// The `aarch64` provider (reproduces provider-variant-aarch64 0.0.3).
[[nodiscard]] std::unique_ptr<Provider> make_aarch64_provider(CpuProviderOptions options = {});

/// This machine's architecture as `uname -m` reports it, with `arm64` → `aarch64` and
/// `amd64`/`AMD64` → `x86_64`; the compile-time architecture when `uname` fails.
[[nodiscard]] std::string cpu_machine();

}  // namespace vwheel::provider
