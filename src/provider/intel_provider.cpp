// The `intel` provider: intel-variant-provider 0.0.3's answer from Level Zero (dlopen'ed
// libze_loader.so.1: zeInitDrivers, or zeInit + zeDriverGet before Level Zero 1.10; zeDeviceGet;
// zeDeviceGetProperties with the device IP version extension).

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "provider/gpu_util.hpp"
#include "vwheel/provider/gpu.hpp"

namespace vwheel::provider {

namespace intel {

namespace {

constexpr std::uint32_t kIntelPciVendor = 0x8086;

// ---- Level Zero ABI (ze_api.h), only what is used ----
using ZeResult = std::uint32_t;
using ZeHandle = void*;
constexpr ZeResult kZeSuccess = 0;
constexpr std::uint32_t kStypeDeviceProperties = 0x3;           // ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES
constexpr std::uint32_t kStypeInitDriverTypeDesc = 0x00020021;  // ZE_STRUCTURE_TYPE_INIT_DRIVER_TYPE_DESC
constexpr std::uint32_t kStypeDeviceIpVersionExt = 0x1000f;     // ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT
constexpr std::uint32_t kInitDriverTypeGpu = 1;  // ZE_INIT_DRIVER_TYPE_FLAG_GPU (= ZE_INIT_FLAG_GPU_ONLY)

struct ZeInitDriverTypeDesc {
  std::uint32_t stype;
  const void* next;
  std::uint32_t flags;
};

struct ZeDeviceIpVersionExt {
  std::uint32_t stype;
  const void* next;
  std::uint32_t ip_version;
};

struct ZeDeviceProperties {
  std::uint32_t stype;
  void* next;
  std::uint32_t type;
  std::uint32_t vendor_id;
  std::uint32_t device_id;
  std::uint32_t flags;
  std::uint32_t subdevice_id;
  std::uint32_t core_clock_rate;
  std::uint64_t max_mem_alloc_size;
  std::uint32_t max_hardware_contexts;
  std::uint32_t max_command_queue_priority;
  std::uint32_t num_threads_per_eu;
  std::uint32_t physical_eu_simd_width;
  std::uint32_t num_eus_per_subslice;
  std::uint32_t num_subslices_per_slice;
  std::uint32_t num_slices;
  std::uint64_t timer_resolution;
  std::uint32_t timestamp_valid_bits;
  std::uint32_t kernel_timestamp_valid_bits;
  std::uint8_t uuid[16];
  char name[256];
};

using ZeInitDriversFn = ZeResult (*)(std::uint32_t*, ZeHandle*, ZeInitDriverTypeDesc*);
using ZeInitFn = ZeResult (*)(std::uint32_t);
using ZeDriverGetFn = ZeResult (*)(std::uint32_t*, ZeHandle*);
using ZeDeviceGetFn = ZeResult (*)(ZeHandle, std::uint32_t*, ZeHandle*);
using ZeDeviceGetPropertiesFn = ZeResult (*)(ZeHandle, ZeDeviceProperties*);

// More handles than any machine has: a count above this is a broken answer.
constexpr std::uint32_t kMaxHandles = 4096;

// `_zeCheck`: ValueError(f"L0 library call failed with {hex(ret)}").
std::string call_failed(ZeResult r) { return fmt::format("L0 library call failed with {:#x}", r); }

struct ZeSession {
  Result<std::vector<ZeDevice>> devices = fail("not run");
  std::string summary;
  std::vector<std::string> notes;
};

// Lists handles with the two-call pattern (count, then fill).
template <class Call>
Result<std::vector<ZeHandle>> two_calls(Call call) {
  std::uint32_t count = 0;
  if (const ZeResult r = call(&count, nullptr); r != kZeSuccess) return fail(call_failed(r));
  if (count > kMaxHandles) return fail(fmt::format("L0 library reported {} handles", count));
  std::vector<ZeHandle> handles(std::max<std::uint32_t>(count, 1), nullptr);
  if (const ZeResult r = call(&count, handles.data()); r != kZeSuccess) return fail(call_failed(r));
  handles.resize(std::min<std::size_t>(count, handles.size()));
  if (count == 0) handles.clear();
  return handles;
}

ZeSession run_level_zero(const std::string& library) {
  ZeSession s;
  auto lib = gpu_detail::DlLibrary::open(library);
  if (!lib) {
    s.devices = fail("Failed to open L0 library");
    s.summary = fmt::format("{} not loadable: no Level Zero loader", library);
    s.notes.push_back(fmt::format("{} could not be loaded: {}", library, gpu_detail::one_line(lib.error().message)));
    return s;
  }
  // The reference keeps the loader loaded for the life of the process; so does vwheel (drivers
  // loaded by it are not meant to be unloaded).
  const auto keep_loaded = [&lib]() { lib->leak(); };

  const auto device_get = lib->function<ZeDeviceGetFn>("zeDeviceGet");
  const auto get_properties = lib->function<ZeDeviceGetPropertiesFn>("zeDeviceGetProperties");

  Result<std::vector<ZeHandle>> drivers = fail("");
  std::string api;
  if (const auto init_drivers = lib->function<ZeInitDriversFn>("zeInitDrivers")) {
    api = "zeInitDrivers";
    ZeInitDriverTypeDesc desc{kStypeInitDriverTypeDesc, nullptr, kInitDriverTypeGpu};
    drivers = two_calls([&](std::uint32_t* count, ZeHandle* handles) { return init_drivers(count, handles, &desc); });
  } else {
    api = "zeInit";
    const auto init = lib->function<ZeInitFn>("zeInit");
    const auto driver_get = lib->function<ZeDriverGetFn>("zeDriverGet");
    if (init == nullptr || driver_get == nullptr) {
      drivers = fail(fmt::format("{}: undefined symbol: {}", library, init == nullptr ? "zeInit" : "zeDriverGet"));
    } else if (const ZeResult r = init(kInitDriverTypeGpu); r != kZeSuccess) {
      drivers = fail(call_failed(r));
    } else {
      drivers = two_calls([&](std::uint32_t* count, ZeHandle* handles) { return driver_get(count, handles); });
    }
  }
  if (!drivers) {
    keep_loaded();
    s.devices = fail(drivers.error());
    s.summary = fmt::format("Level Zero ({}): {} failed: {}", library, api, drivers.error().message);
    return s;
  }

  std::vector<ZeDevice> devices;
  std::string failure;
  for (ZeHandle driver : *drivers) {
    if (device_get == nullptr) {
      failure = fmt::format("{}: undefined symbol: zeDeviceGet", library);
      break;
    }
    auto handles = two_calls([&](std::uint32_t* count, ZeHandle* out) { return device_get(driver, count, out); });
    if (!handles) {
      failure = handles.error().message;
      break;
    }
    for (ZeHandle device : *handles) {
      if (get_properties == nullptr) {
        failure = fmt::format("{}: undefined symbol: zeDeviceGetProperties", library);
        break;
      }
      ZeDeviceIpVersionExt ip{kStypeDeviceIpVersionExt, nullptr, 0};
      ZeDeviceProperties props{};
      props.stype = kStypeDeviceProperties;
      props.next = &ip;
      if (const ZeResult r = get_properties(device, &props); r != kZeSuccess) {
        failure = call_failed(r);
        break;
      }
      ZeDevice d;
      d.vendor_id = props.vendor_id;
      d.device_id = props.device_id;
      d.ip_version = ip.ip_version;
      d.name.assign(props.name, strnlen(props.name, sizeof props.name));
      devices.push_back(std::move(d));
    }
    if (!failure.empty()) break;
  }
  keep_loaded();
  if (!failure.empty()) {
    s.devices = fail(failure);
    s.summary = fmt::format("Level Zero ({}): {}", library, failure);
    return s;
  }
  std::string list;
  for (const auto& d : devices) {
    list += list.empty() ? ": " : ", ";
    list += fmt::format("{} [{}, {:04x}:{:04x}]", d.name.empty() ? "unnamed device" : d.name,
                        device_ip_string(d.ip_version), d.vendor_id, d.device_id);
  }
  s.summary = fmt::format("Level Zero ({}): {} driver{}, {} device{}{}", api, drivers->size(),
                          drivers->size() == 1 ? "" : "s", devices.size(), devices.size() == 1 ? "" : "s", list);
  s.devices = std::move(devices);
  return s;
}

}  // namespace

Overrides Overrides::from_environment() {
  Overrides o;
  o.device_ip = gpu_detail::env_nonempty(kForceDeviceIpEnv);
  return o;
}

std::string device_ip_string(std::uint32_t v) { return fmt::format("{}.{}.{}", v >> 22, (v >> 14) & 0xFFu, v & 0x3Fu); }

const std::vector<KnownDeviceIp>& known_device_ips() {
  static const std::vector<KnownDeviceIp> kTable = {
      {"35.11.0", "", "cri"},
      {"35.10.4", "", "nvl-p"},
      {"30.5.4", "30.0.4", "nvl-u nvl-h"},
      {"30.4.4", "30.0.4", "nvl-s nvl-hx nvl-ul"},
      {"30.3.1", "30.0.4", "wcl"},
      {"30.1.0", "30.0.4", "ptl-u"},
      {"30.0.4", "", "ptl-h"},
      {"20.4.4", "20.1.0", "lnl-m"},
      {"20.2.0", "20.1.0", "bmg-g31"},
      {"20.1.0", "", "bmg-g21"},
      {"12.74.4", "", "arl-h"},
      {"12.71.4", "12.70.4", "mtl-h"},
      {"12.70.4", "", "mtl-u arl-u arl-s"},
      {"12.60.7", "", "pvc"},
      {"12.57.0", "12.55.8", "acm-g12 dg2-g12"},
      {"12.56.5", "12.55.8", "acm-g11 dg2-g11 ats-m75"},
      {"12.55.8", "", "acm-g10 dg2-g10 ats-m150"},
      {"12.10.0", "", "dg1"},
      {"12.4.0", "", "adl-n"},
      {"12.3.0", "", "adl-p rpl-p"},
      {"12.2.0", "", "adl-s rpl-s"},
      {"12.1.0", "", "rkl"},
      {"12.0.0", "", "tgllp tgl"},
  };
  return kTable;
}

namespace {

const KnownDeviceIp* find_known(std::string_view ip) {
  for (const auto& k : known_device_ips()) {
    if (k.ip == ip) return &k;
  }
  return nullptr;
}

std::string filtered_out(std::string_view ip) {
  return fmt::format("Intel device with {} device IP is filtered out as not known to plugin)", ip);
}

}  // namespace

ReferenceAnswer supported_configs_from(const Overrides& forced, const ZeQuery& query) {
  ReferenceAnswer answer;
  std::vector<std::string> ips;
  if (forced.device_ip && !forced.device_ip->empty()) {
    if (find_known(*forced.device_ip) != nullptr) {
      ips.push_back(*forced.device_ip);
    } else {
      answer.warnings.push_back(filtered_out(*forced.device_ip));
    }
  } else {
    auto devices = query ? query() : Result<std::vector<ZeDevice>>(fail("Failed to open L0 library"));
    if (!devices) {
      answer.warnings.push_back(
          fmt::format("Intel driver stack not installed or malfunctions: {}", devices.error().message));
      return answer;
    }
    for (const auto& d : *devices) {
      if (d.vendor_id != kIntelPciVendor) continue;
      const std::string ip = device_ip_string(d.ip_version);
      std::vector<std::string> compatible{ip};
      if (const auto* known = find_known(ip); known != nullptr && !known->compat.empty()) {
        compatible.emplace_back(known->compat);
      }
      for (const auto& c : compatible) {
        if (find_known(c) == nullptr) {
          answer.warnings.push_back(filtered_out(c));
          continue;
        }
        if (std::find(ips.begin(), ips.end(), c) == ips.end()) ips.push_back(c);
      }
    }
    if (ips.empty()) answer.warnings.emplace_back("No Intel GPU detected");
  }
  if (!ips.empty()) answer.supported.push_back({"device_ip", std::move(ips), true});
  return answer;
}

std::vector<variant::FeatureConfig> all_configs() {
  std::vector<std::string> values;
  for (const auto& k : known_device_ips()) values.emplace_back(k.ip);
  return {{"device_ip", std::move(values), true}};
}

namespace {

Detection detect() {
  Detection d;
  const auto forced = Overrides::from_environment();
  const std::string library = gpu_detail::env_nonempty(kZeLoaderLibraryEnv).value_or(std::string(vwheel::detail::runtime_library_name(vwheel::detail::RuntimeLibrary::level_zero)));
  std::optional<ZeSession> session;
  const auto timeout = gpu_detail::probe_timeout();
  const ZeQuery query = [&]() -> Result<std::vector<ZeDevice>> {
    auto done = gpu_detail::run_with_timeout<ZeSession>([library]() { return run_level_zero(library); }, timeout);
    if (!done) {
      session.emplace();
      session->summary = fmt::format("Level Zero ({}): no answer within {} s", library, timeout.count() / 1000);
      session->notes.push_back(
          fmt::format("Level Zero did not answer within {} s (hung driver?); Intel detection "
                      "skipped (set {} to wait longer)",
                      timeout.count() / 1000, kGpuProbeTimeoutEnv));
      session->devices = fail(fmt::format("no answer within {} s", timeout.count() / 1000));
      return session->devices;
    }
    session = std::move(*done);
    return session->devices;
  };

  auto answer = supported_configs_from(forced, query);
  if (session) {
    d.source = session->summary;
    d.notes = session->notes;
    if (!session->devices) {
      const auto gpus = gpu_detail::pci_displays(gpu_detail::sysfs_root(), kIntelPciVendor);
      if (!gpus.empty()) {
        d.notes.push_back(
            fmt::format("Intel GPU present ({}) but Level Zero is not usable: install the Level Zero "
                        "loader and the Intel compute runtime (libze1, libze-intel-gpu1)",
                        gpu_detail::describe_pci(gpus)));
      }
    }
  } else {
    d.source = fmt::format("{}={}", kForceDeviceIpEnv, gpu_detail::python_repr(forced.device_ip.value_or("")));
  }
  for (const auto& w : answer.warnings) d.notes.push_back(gpu_detail::one_line(w));
  d.supported = std::move(answer.supported);
  return d;
}

}  // namespace

}  // namespace intel

std::unique_ptr<Provider> make_intel_provider() {
  return std::make_unique<gpu_detail::GpuProvider>(intel::kNamespace, intel::kReferenceVersion, "Intel", "Level Zero",
                                                   &intel::all_configs, &intel::detect);
}

}  // namespace vwheel::provider
