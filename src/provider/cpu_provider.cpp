#include "provider/cpu_provider.hpp"

#include <cstdlib>
#include <exception>
#include <utility>

#include <fmt/format.h>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/utsname.h>
#define VWHEEL_HAVE_UNAME 1
#endif

#include "provider/cpu_cpuinfo.hpp"
#ifdef __APPLE__
#include "provider/cpu_darwin.hpp"
#endif

namespace vwheel::provider {
namespace cpu {
namespace {

class CpuProvider final : public Provider {
 public:
  CpuProvider(const CpuProviderSpec& spec, CpuProviderOptions options)
      : spec_(spec), options_(std::move(options)) {}

  [[nodiscard]] std::string_view ns() const override { return spec_.ns; }
  [[nodiscard]] std::string_view version() const override { return spec_.version; }
  [[nodiscard]] std::vector<variant::FeatureConfig> all_configs() const override {
    return spec_.all_configs();
  }

  [[nodiscard]] Detection detect() const override {
    Detection detection;
    try {
      detect_into(detection);
    } catch (const std::exception& e) {
      detection.supported.clear();
      detection.notes.push_back(fmt::format("{} detection failed: {}", spec_.ns, e.what()));
    } catch (...) {
      detection.supported.clear();
      detection.notes.push_back(fmt::format("{} detection failed", spec_.ns));
    }
    return detection;
  }

 private:
  void detect_into(Detection& detection) const {
    std::string path = options_.cpuinfo_path;
    bool explicit_path = !path.empty();
    if (!explicit_path) {
      if (const char* env = std::getenv(kCpuinfoPathEnv.data()); env != nullptr && *env != '\0') {
        path = env;
        explicit_path = true;
        detection.notes.push_back(
            fmt::format("reading {} (${}) instead of {}", path, kCpuinfoPathEnv, kProcCpuinfo));
      } else {
        path = kProcCpuinfo;
      }
    }
    if (!explicit_path) {
      const std::string machine =
          options_.machine.empty() ? cpu_machine() : normalize_machine(options_.machine);
      if (machine != spec_.ns) {
        detection.source = fmt::format("machine {}: not {}", machine, spec_.ns);
        detection.notes.push_back(fmt::format(
            "this is a {} machine, not {}: no {} properties (set ${} to detect from a cpuinfo "
            "file anyway)",
            machine, spec_.ns, spec_.ns, kCpuinfoPathEnv));
        return;
      }
    }

#ifdef __APPLE__
    // No /proc/cpuinfo: the kernel's sysctl values, in the text form a recorded output has.
    if (!explicit_path && spec_.ns == "aarch64") {
      const std::string sysctl = read_darwin_sysctl();
      CpuMatch match = spec_.match(sysctl);
      detection.source = fmt::format("sysctl: microarchitecture {}", match.microarchitecture);
      for (auto& line : spec_.explain(match, sysctl)) detection.notes.push_back(std::move(line));
      detection.supported = std::move(match.supported);
      return;
    }
#endif
    auto text = read_cpuinfo_file(path);
    if (!text) {
      detection.source = fmt::format("{}: not read", path);
      detection.notes.push_back(fmt::format("{}: no {} properties", text.error().message, spec_.ns));
      return;
    }
    CpuMatch match = spec_.match(*text);
    if (match.microarchitecture.empty()) {
      detection.source = fmt::format("{}: not read", path);
      detection.notes.push_back(fmt::format(
          "{}: the first processor block is not valid UTF-8: no {} properties", path, spec_.ns));
      return;
    }
    detection.source = fmt::format("{}: microarchitecture {}", path, match.microarchitecture);
    for (auto& line : spec_.explain(match, *text)) detection.notes.push_back(std::move(line));
    detection.supported = std::move(match.supported);
  }

  CpuProviderSpec spec_;
  CpuProviderOptions options_;
};

}  // namespace

std::unique_ptr<Provider> make_cpu_provider(const CpuProviderSpec& spec, CpuProviderOptions options) {
  return std::make_unique<CpuProvider>(spec, std::move(options));
}

std::string normalize_machine(std::string_view machine) {
  if (machine == "arm64" || machine == "ARM64") return "aarch64";
  if (machine == "amd64" || machine == "AMD64") return "x86_64";
  return std::string(machine);
}

variant::FeatureConfig flag_on(std::string_view name) {
  return variant::FeatureConfig{std::string(name), {"on"}, false};
}

}  // namespace cpu

std::string cpu_machine() {
#ifdef VWHEEL_HAVE_UNAME
  struct utsname info {};
  if (::uname(&info) == 0 && info.machine[0] != '\0') return cpu::normalize_machine(info.machine);
#endif
#if defined(__x86_64__) || defined(_M_X64)
  return "x86_64";
#elif defined(__aarch64__) || defined(_M_ARM64)
  return "aarch64";
#else
  return "unknown";
#endif
}

}  // namespace vwheel::provider
