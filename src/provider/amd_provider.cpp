// The `amd` provider: amd-variant-provider 0.0.2's answer from the KFD topology in sysfs and the
// ROCm version file, without running rocminfo / rocm_agent_enumerator.
//
// The reference takes the gfx names from `rocminfo` (kept only when every name is in its
// allow-list) and otherwise from `rocm_agent_enumerator -name`, which reads
// /sys/class/kfd/kfd/topology/nodes/*/properties (`gfx_target_version`); rocminfo reports the
// same ISAs (through the ROCm runtime, from the same topology). Either way the result is the set
// of the GPUs' ISA names, sorted: that is what this provider reads directly.

#include <algorithm>
#include <cctype>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "provider/gpu_util.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/provider/gpu.hpp"

namespace vwheel::provider {

namespace amd {

namespace {

constexpr std::uint32_t kAmdPciVendor = 0x1002;
constexpr std::string_view kDefaultRocmPath = "/opt/rocm";

std::filesystem::path topology_dir(const std::filesystem::path& sysfs_root) {
  return sysfs_root / "class" / "kfd" / "kfd" / "topology" / "nodes";
}

// "key value" lines of a KFD properties file.
std::map<std::string, std::string, std::less<>> parse_properties(std::string_view text) {
  std::map<std::string, std::string, std::less<>> out;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    const auto sp = line.find(' ');
    if (sp == std::string_view::npos) continue;
    out.emplace(std::string(line.substr(0, sp)), std::string(line.substr(sp + 1)));
  }
  return out;
}

bool numeric(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), is_ascii_digit); }

Result<void> check_values(const std::vector<variant::FeatureConfig>& configs) {
  for (const auto& c : configs) {
    std::set<std::string_view> seen;
    for (const auto& v : c.values) {
      if (!variant::is_valid_feature_value(v)) {
        return fail(
            fmt::format("vwheel: `{}` value {} is not a valid variant value ([a-z0-9_.]+); an installer "
                        "rejects this answer",
                        c.name, gpu_detail::python_repr(v)));
      }
      if (!seen.insert(v).second) {
        return fail(fmt::format("vwheel: `{}` lists {} twice; an installer rejects this answer", c.name,
                                gpu_detail::python_repr(v)));
      }
    }
  }
  return {};
}

}  // namespace

Overrides Overrides::from_environment() {
  Overrides o;
  o.gfx_arch = gpu_detail::env_nonempty(kForceGfxArchEnv);
  o.rocm_version = gpu_detail::env_nonempty(kForceRocmVersionEnv);
  return o;
}

std::string gfx_name(std::uint64_t v) {
  const auto major = (v / 10000) % 100;
  const auto minor = (v / 100) % 100;
  const auto stepping = v % 100;
  return fmt::format("gfx{}{:x}{:x}", major, minor, stepping);
}

std::optional<RocmVersion> parse_rocm_version_file(std::string_view text) {
  if (!is_valid_utf8(text)) return std::nullopt;  // read_text(encoding="utf-8") fails
  const std::string_view content = python_strip(text);
  std::vector<std::string_view> parts;  // re.split(r"[.-]", content)
  std::size_t start = 0;
  for (std::size_t i = 0; i <= content.size(); ++i) {
    if (i == content.size() || content[i] == '.' || content[i] == '-') {
      parts.push_back(content.substr(start, i - start));
      start = i + 1;
    }
  }
  if (parts.size() < 2) return std::nullopt;
  const std::size_t used = parts.size() >= 3 ? 3 : 2;
  long long numbers[3] = {0, 0, 0};
  for (std::size_t k = 0; k < used; ++k) {
    const auto n = gpu_detail::python_int(parts[k]);
    if (n.status != gpu_detail::PyInt::Status::ok) return std::nullopt;
    numbers[k] = n.value;
  }
  RocmVersion v;
  v.major = numbers[0];
  v.minor = numbers[1];
  if (used == 3) v.patch = numbers[2];
  return v;
}

Result<ReferenceAnswer> supported_configs_from(const RocmSnapshot& system, const Overrides& forced) {
  ReferenceAnswer answer;
  // Priority 1: gfx_arch.
  std::vector<std::string> gfx;
  if (forced.gfx_arch && !forced.gfx_arch->empty()) {
    gfx = gpu_detail::split_on_separators(*forced.gfx_arch, ",;");
  } else {
    gfx = system.gfx_archs;
    std::sort(gfx.begin(), gfx.end());
    gfx.erase(std::unique(gfx.begin(), gfx.end()), gfx.end());
  }
  if (!gfx.empty()) answer.supported.push_back({"gfx_arch", std::move(gfx), true});

  // Priority 2: rocm_version, one value.
  std::optional<std::string> rocm;
  if (forced.rocm_version && !forced.rocm_version->empty()) {
    // `rocm_version_env.strip().split('.')`, `assert(len(...) == 3)`, parts kept as strings.
    const std::string_view stripped = python_strip(*forced.rocm_version);
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= stripped.size(); ++i) {
      if (i == stripped.size() || stripped[i] == '.') {
        parts.push_back(stripped.substr(start, i - start));
        start = i + 1;
      }
    }
    if (parts.size() != 3) {
      return fail(fmt::format("AssertionError ({}={} is not X.Y.Z)", kForceRocmVersionEnv,
                              gpu_detail::python_repr(*forced.rocm_version)));
    }
    rocm = fmt::format("{}.{}", parts[0], parts[1]);
  } else if (system.rocm_version) {
    rocm = fmt::format("{}.{}", system.rocm_version->major, system.rocm_version->minor);
  }
  if (rocm) answer.supported.push_back({"rocm_version", {*rocm}, false});

  if (auto ok = check_values(answer.supported); !ok) return fail(ok.error());
  if (answer.supported.empty()) answer.warnings.emplace_back("[amd-variant-provider] No AMD features detected.");
  return answer;
}

std::vector<variant::FeatureConfig> all_configs() {
  return {
      {"rocm_version",
       {"7.10", "7.9", "7.8", "7.7", "7.6", "7.5", "7.4", "7.3", "7.2", "7.1", "7.0", "6.4", "6.3"},
       false},
      {"gfx_arch",
       {"gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1101", "gfx1102", "gfx1200",
        "gfx1201"},
       true},
  };
}

std::vector<KfdNode> read_kfd_nodes(const std::filesystem::path& sysfs_root) {
  std::vector<std::pair<std::string, std::filesystem::path>> dirs;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(topology_dir(sysfs_root), ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code tec;
    if (it->is_directory(tec)) dirs.emplace_back(it->path().filename().string(), it->path());
  }
  std::sort(dirs.begin(), dirs.end(), [](const auto& a, const auto& b) {
    if (numeric(a.first) && numeric(b.first) && a.first.size() != b.first.size()) {
      return a.first.size() < b.first.size();
    }
    return a.first < b.first;
  });
  std::vector<KfdNode> out;
  for (const auto& [name, path] : dirs) {
    const auto text = gpu_detail::read_small_file(path / "properties");
    if (!text) continue;  // unreadable: skipped, as rocm_agent_enumerator does
    const auto props = parse_properties(*text);
    KfdNode node;
    node.node = name;
    if (auto it = props.find("gfx_target_version"); it != props.end()) {
      const auto n = gpu_detail::python_int(it->second);
      if (n.status != gpu_detail::PyInt::Status::ok || n.value < 0) continue;
      node.gfx_target_version = static_cast<std::uint64_t>(n.value);
    } else {
      continue;
    }
    if (auto it = props.find("vendor_id"); it != props.end()) {
      const auto n = gpu_detail::python_int(it->second);
      if (n.status == gpu_detail::PyInt::Status::ok) node.vendor_id = static_cast<std::uint32_t>(n.value);
    }
    if (auto it = props.find("device_id"); it != props.end()) {
      const auto n = gpu_detail::python_int(it->second);
      if (n.status == gpu_detail::PyInt::Status::ok) node.device_id = static_cast<std::uint32_t>(n.value);
    }
    out.push_back(std::move(node));
  }
  return out;
}

}  // namespace amd

namespace {

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

Detection detect_amd() {
  Detection d;
  const auto forced = amd::Overrides::from_environment();
  const auto sysfs = gpu_detail::sysfs_root();
  amd::RocmSnapshot system;
  std::vector<std::string> source;

  if (!forced.gfx_arch) {
    const auto topology = amd::topology_dir(sysfs);
    std::error_code ec;
    if (!std::filesystem::is_directory(topology, ec)) {
      source.push_back(fmt::format("no KFD topology ({})", topology.string()));
      const auto gpus = gpu_detail::pci_displays(sysfs, amd::kAmdPciVendor);
      if (gpus.empty()) {
        d.notes.push_back(
            fmt::format("no AMD GPU: {} does not exist (amdgpu compute driver not loaded)", topology.string()));
      } else {
        d.notes.push_back(
            fmt::format("AMD GPU present ({}) but no KFD topology at {}: the amdgpu driver does not "
                        "offer compute (KFD) on this machine",
                        gpu_detail::describe_pci(gpus), topology.string()));
      }
    } else {
      const auto nodes = amd::read_kfd_nodes(sysfs);
      std::vector<std::string> names;
      for (const auto& n : nodes) {
        if (n.gfx_target_version == 0) continue;  // CPU node ("gfx000")
        names.push_back(amd::gfx_name(n.gfx_target_version));
      }
      system.gfx_archs = names;
      if (names.empty()) {
        source.push_back("KFD topology: no GPU node");
        d.notes.push_back(fmt::format("the KFD topology ({}) lists no GPU", topology.string()));
      } else {
        source.push_back(
            fmt::format("KFD topology: {} GPU{}: {}", names.size(), names.size() == 1 ? "" : "s", join(names, ", ")));
      }
    }
    if (const auto kmd = gpu_detail::read_small_file(sysfs / "module" / "amdgpu" / "version", 256)) {
      const auto v = python_strip(*kmd);
      if (!v.empty()) source.push_back(fmt::format("amdgpu {}", v));
    }
  } else {
    source.push_back(fmt::format("{}={}", amd::kForceGfxArchEnv, gpu_detail::python_repr(*forced.gfx_arch)));
  }

  if (!forced.rocm_version) {
    const std::filesystem::path rocm_path =
        gpu_detail::env_nonempty(amd::kRocmPathEnv).value_or(std::string(amd::kDefaultRocmPath));
    const auto file = rocm_path / ".info" / "version";
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) {
      source.push_back("no ROCm version");
      d.notes.push_back(fmt::format("no ROCm version: {} not found (set {} to the ROCm installation)", file.string(),
                                    amd::kRocmPathEnv));
    } else if (const auto text = gpu_detail::read_small_file(file, 4096)) {
      system.rocm_version = amd::parse_rocm_version_file(*text);
      if (system.rocm_version) {
        source.push_back(fmt::format("ROCm {}.{}{} ({})", system.rocm_version->major, system.rocm_version->minor,
                                     system.rocm_version->patch ? fmt::format(".{}", *system.rocm_version->patch) : "",
                                     file.string()));
      } else {
        source.push_back(fmt::format("ROCm version not understood ({})", file.string()));
        d.notes.push_back(fmt::format("{} does not hold an X.Y[.Z] version: {}", file.string(),
                                      gpu_detail::python_repr(python_strip(*text))));
      }
    } else {
      source.push_back(fmt::format("ROCm version unreadable ({})", file.string()));
      d.notes.push_back(fmt::format("{} could not be read", file.string()));
    }
  } else {
    source.push_back(fmt::format("{}={}", amd::kForceRocmVersionEnv, gpu_detail::python_repr(*forced.rocm_version)));
  }
  d.source = join(source, "; ");

  auto result = amd::supported_configs_from(system, forced);
  if (!result) {
    d.notes.push_back(fmt::format("amd-variant-provider {} fails here ({}); no amd properties reported",
                                  amd::kReferenceVersion, gpu_detail::one_line(result.error().message)));
    return d;
  }
  for (const auto& w : result->warnings) d.notes.push_back(gpu_detail::one_line(w));
  d.supported = std::move(result->supported);
  return d;
}

}  // namespace

std::unique_ptr<Provider> make_amd_provider() {
  return std::make_unique<gpu_detail::GpuProvider>(amd::kNamespace, amd::kReferenceVersion, "AMD", "KFD topology",
                                                   &amd::all_configs, &detect_amd);
}

}  // namespace vwheel::provider
