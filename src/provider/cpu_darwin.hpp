#pragma once
// macOS on Apple silicon has no /proc/cpuinfo: the kernel reports the CPU through sysctl, the
// model in `machdep.cpu.brand_string` ("Apple M2 Pro") and the Arm features as
// `hw.optional.arm.FEAT_*` (macOS 12 and later) or the older `hw.optional.armv8_*`/`neon*` names.
// Pure reading of that text (the `name: value` lines `sysctl` prints), so recorded outputs are
// tested on any host; only read_darwin_sysctl() talks to the kernel, and only on macOS.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vwheel::provider::cpu {

/// What a macOS sysctl text says about the CPU.
struct DarwinCpu {
  /// `machdep.cpu.brand_string` (empty when absent).
  std::string brand;
  /// The features reported as 1, in the names Linux's /proc/cpuinfo uses for them (the names of
  /// archspec's database), with `fp asimd evtstrm cpuid` always: every Apple arm64 core has
  /// the first two, and the other two are Linux kernel facilities the database lists for m1/m2.
  std::vector<std::string> features;
  /// The model the brand names, as a database entry (`m1`, `m2`); empty when the brand names
  /// none (the features then choose). M3 and later are newer than the embedded database: m2,
  /// their parent in archspec's later databases, so its answer is a true subset.
  std::string model;
  /// Why `model` (one line), or empty.
  std::string model_note;
};

/// Reads `sysctl` output (`name: value` lines). nullopt when the text has no `hw.optional.` line
/// (it is not a macOS sysctl output).
[[nodiscard]] std::optional<DarwinCpu> parse_darwin_sysctl(std::string_view text);

#ifdef __APPLE__
/// The sysctl values parse_darwin_sysctl reads, asked from the kernel with sysctlbyname, as
/// `name: value` lines.
[[nodiscard]] std::string read_darwin_sysctl();
#endif

}  // namespace vwheel::provider::cpu
