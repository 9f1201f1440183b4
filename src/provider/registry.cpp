#include "vwheel/core/cache_layout.hpp"
#include "vwheel/provider/registry.hpp"

#include <sys/utsname.h>

#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/provider/cpu.hpp"
#include "vwheel/provider/gpu.hpp"
#include "vwheel/provider/python.hpp"

namespace vwheel::provider {
namespace {

using nlohmann::json;

constexpr int kCacheFormat = 1;

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

std::string read_or_empty(const std::filesystem::path& path) {
  auto text = read_file(path);
  return text ? std::move(*text) : std::string();
}

json to_json(const std::vector<variant::FeatureConfig>& features) {
  json list = json::array();
  for (const auto& fc : features) {
    list.push_back(json{{"name", fc.name}, {"values", fc.values}, {"multi_value", fc.multi_value}});
  }
  return list;
}

std::optional<MachineReport> read_cache(const std::filesystem::path& file) {
  auto text = read_file(file);
  if (!text) return std::nullopt;
  json root = json::parse(*text, nullptr, false);
  if (root.is_discarded() || !root.is_object() || root.value("format", 0) != kCacheFormat) return std::nullopt;
  MachineReport report;
  try {
    for (const auto& a : root.at("answers")) {
      ProviderAnswer answer;
      answer.ns = a.at("namespace").get<std::string>();
      answer.version = a.at("version").get<std::string>();
      answer.detection.source = a.at("source").get<std::string>();
      answer.detection.notes = a.at("notes").get<std::vector<std::string>>();
      for (const auto& fc : a.at("supported")) {
        answer.detection.supported.push_back(variant::FeatureConfig{
            fc.at("name").get<std::string>(), fc.at("values").get<std::vector<std::string>>(),
            fc.at("multi_value").get<bool>()});
      }
      report.answers.push_back(std::move(answer));
    }
  } catch (const json::exception&) {
    return std::nullopt;  // a damaged cache entry is ignored and rewritten
  }
  report.from_cache = true;
  report.cache_file = file;
  return report;
}

void write_cache(const std::filesystem::path& file, const MachineReport& report) {
  json root{{"format", kCacheFormat}, {"answers", json::array()}};
  for (const auto& a : report.answers) {
    root["answers"].push_back(json{{"namespace", a.ns},
                                   {"version", a.version},
                                   {"source", a.detection.source},
                                   {"notes", a.detection.notes},
                                   {"supported", to_json(a.detection.supported)}});
  }
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  // The cache is an optimisation: failing to write it must not fail the command.
  (void)write_file_atomic(file, root.dump() + "\n", Durability::none);
}

}  // namespace

std::vector<std::unique_ptr<Provider>> native_providers() {
  std::vector<std::unique_ptr<Provider>> out;
  out.push_back(make_x86_64_provider());
  out.push_back(make_aarch64_provider());
  out.push_back(make_nvidia_provider());
  out.push_back(make_amd_provider());
  out.push_back(make_intel_provider());
  return out;
}

std::optional<variant::ProviderInfo> reference_declaration(std::string_view ns) {
  struct Reference {
    std::string_view ns, package, plugin_api;
  };
  static constexpr Reference kReferences[] = {
      {"x86_64", "provider-variant-x86-64", "provider_variant_x86_64.plugin:X8664Plugin"},
      {"aarch64", "provider-variant-aarch64", "provider_variant_aarch64.plugin:AArch64Plugin"},
      {"nvidia", "nvidia-variant-provider", "nvidia_variant_provider.plugin:NvidiaVariantPlugin"},
      {"amd", "amd-variant-provider", "amd_variant_provider.plugin:AMDVariantPlugin"},
      {"intel", "intel-variant-provider", "intel_variant_provider.plugin:IntelVariantPlugin"},
  };
  for (const auto& p : native_providers()) {
    if (p->ns() != ns) continue;
    for (const auto& r : kReferences) {
      if (r.ns != ns) continue;
      variant::ProviderInfo info;
      info.requires_.push_back(fmt::format("{}>={}", r.package, p->version()));
      info.plugin_api = std::string(r.plugin_api);
      return info;
    }
  }
  return std::nullopt;
}

variant::SupportedProperties MachineReport::supported() const {
  variant::SupportedProperties out;
  for (const auto& a : answers) {
    if (!a.detection.supported.empty()) out[a.ns] = a.detection.supported;
  }
  return out;
}

std::string detection_fingerprint() {
  std::string input = fmt::format("vwheel {}\n", VWHEEL_VERSION);
  const auto cpuinfo = env_or_empty(std::string(kCpuinfoPathEnv).c_str());
  input += "cpuinfo:" + read_or_empty(cpuinfo.empty() ? std::string(kProcCpuinfo) : cpuinfo) + "\n";
  input += "nvidia:" + read_or_empty("/proc/driver/nvidia/version") + read_or_empty("/sys/module/nvidia/version");
  input += "amdgpu:" + read_or_empty("/sys/module/amdgpu/version");
  input += "boot:" + read_or_empty("/proc/sys/kernel/random/boot_id");
  for (const char* var : {"VWHEEL_PROC_CPUINFO", "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION",
                          "NV_VARIANT_PROVIDER_FORCE_SM_ARCH", "VWHEEL_NVML_LIBRARY", "VWHEEL_SYSFS_ROOT",
                          "VWHEEL_ZE_LOADER_LIBRARY", "ROCM_PATH"}) {
    input += fmt::format("{}={}\n", var, env_or_empty(var));
  }
  return sha256_hex(input);
}

MachineReport detect_machine(const DetectOptions& options) {
  std::filesystem::path file;
  if (options.use_cache) {
    file = options.cache_dir.value_or(CacheLayout(default_cache_dir()).area(CacheArea::detect)) / (detection_fingerprint() + ".json");
    if (auto cached = read_cache(file)) return std::move(*cached);
  }
  MachineReport report;
  for (const auto& p : native_providers()) {
    report.answers.push_back(ProviderAnswer{std::string(p->ns()), std::string(p->version()), p->detect()});
  }
  if (options.use_cache) {
    write_cache(file, report);
    report.cache_file = file;
  }
  return report;
}

std::map<std::string, std::string, std::less<>> host_marker_environment() {
  std::map<std::string, std::string, std::less<>> env;
  struct utsname u {};
  if (::uname(&u) != 0) return env;
  std::string sysname = u.sysname;
  const std::string lower = ascii_lower(sysname);
  env["os_name"] = "posix";
  env["sys_platform"] = lower == "linux" ? "linux" : lower;
  env["platform_system"] = sysname;
  env["platform_release"] = u.release;
  env["platform_version"] = u.version;
  env["platform_machine"] = u.machine;
  return env;
}

DetectionOracle::DetectionOracle(const MachineReport& report, PythonProviderPolicy policy)
    : policy_(std::move(policy)) {
  for (const auto& a : report.answers) native_.emplace(a.ns, &a);
}

Result<std::optional<std::vector<variant::FeatureConfig>>> DetectionOracle::supported(
    const std::string& ns, const variant::ProviderInfo* declared, std::string& note) const {
  using Answer = std::optional<std::vector<variant::FeatureConfig>>;
  if (auto it = native_.find(ns); it != native_.end()) {
    const auto& d = it->second->detection;
    if (d.supported.empty()) {
      note = d.notes.empty() ? fmt::format("{}: nothing supported", d.source) : d.notes.front();
    }
    return Answer{d.supported};
  }
  if (policy_.allowed.count(ns) == 0) {
    note = fmt::format("no native provider for namespace `{}`; its Python provider runs only with "
                       "--allow-python-provider {} (or allow_python_providers in the configuration)",
                       ns, ns);
    return Answer{};
  }
  if (declared == nullptr || (declared->requires_.empty() && !declared->plugin_api)) {
    note = fmt::format("namespace `{}` is allowed to use a Python provider, but the package declares none", ns);
    return Answer{};
  }
  PythonProviderSpec spec{ns, declared->requires_, declared->plugin_api};
  PythonProviderOptions options;
  options.cache_dir = CacheLayout(default_cache_dir()).area(CacheArea::python_providers);
  options.pip_args = policy_.pip_args;
  options.allowed = policy_.allowed;
  auto configs = run_python_provider(spec, options, ProviderMethod::supported_configs);
  if (!configs) return fail(configs.error());
  return Answer{std::move(*configs)};
}

}  // namespace vwheel::provider
