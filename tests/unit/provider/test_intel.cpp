// The intel provider: device IP decoding, the decision function, and the whole provider through a
// fake Level Zero loader (tests/fixtures/fake_nvml/fake_ze_loader.c) answering recorded machines
// (tests/data/gpu/intel/<machine>/: ze.txt, sys/, expected.json).

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "provider_test_util.hpp"
#include "shared_data.hpp"
#include "vwheel/provider/gpu.hpp"

namespace {

namespace fs = std::filesystem;
namespace intel = vwheel::provider::intel;
using nlohmann::json;
using vwheel::testing::configs_json;
using vwheel::testing::field;
using vwheel::testing::ScopedEnv;

#if defined(VWHEEL_FAKE_ZE_LOADER) && defined(VWHEEL_FAKE_ZE_LOADER_PRE_1_10)
constexpr const char* kFakeZe = VWHEEL_FAKE_ZE_LOADER;
constexpr const char* kFakeZePre110 = VWHEEL_FAKE_ZE_LOADER_PRE_1_10;
#else
constexpr const char* kFakeZe = "";
constexpr const char* kFakeZePre110 = "";
#endif

std::uint32_t ip(unsigned arch, unsigned release, unsigned revision) {
  return (arch << 22) | (release << 14) | revision;
}

intel::ZeDevice device(std::uint32_t vendor, std::uint32_t ip_version) {
  intel::ZeDevice d;
  d.vendor_id = vendor;
  d.ip_version = ip_version;
  return d;
}

intel::ZeQuery devices(std::vector<intel::ZeDevice> list) {
  return [list]() -> vwheel::Result<std::vector<intel::ZeDevice>> { return list; };
}

TEST(IntelDeviceIp, DecodesGmdIds) {
  EXPECT_EQ(intel::device_ip_string(0x030f0007), "12.60.7");
  EXPECT_EQ(intel::device_ip_string(0x030dc008), "12.55.8");
  EXPECT_EQ(intel::device_ip_string(0x05004000), "20.1.0");
  EXPECT_EQ(intel::device_ip_string(0x12341234), "72.208.52");
  EXPECT_EQ(intel::device_ip_string(ip(30, 0, 4)), "30.0.4");
}

TEST(IntelAlgorithm, IpsThenBasePlatformsInEnumerationOrder) {
  auto a = intel::supported_configs_from(intel::Overrides{}, devices({device(0x8086, ip(20, 4, 4))}));
  EXPECT_EQ(configs_json(a.supported),
            json::parse(R"([{"name": "device_ip", "values": ["20.4.4", "20.1.0"], "multi_value": true}])"));
  a = intel::supported_configs_from(
      intel::Overrides{},
      devices({device(0x8086, ip(12, 71, 4)), device(0x8086, ip(20, 1, 0)), device(0x8086, ip(20, 2, 0))}));
  EXPECT_EQ(a.supported.at(0).values, (std::vector<std::string>{"12.71.4", "12.70.4", "20.1.0", "20.2.0"}));
  EXPECT_TRUE(a.warnings.empty());
}

TEST(IntelAlgorithm, UnknownIpsAndOtherVendorsAreDropped) {
  const auto a = intel::supported_configs_from(
      intel::Overrides{},
      devices({device(0x8086, ip(12, 99, 0)), device(0x10de, ip(20, 1, 0)), device(0x8086, ip(12, 60, 7))}));
  EXPECT_EQ(a.supported.at(0).values, (std::vector<std::string>{"12.60.7"}));
  ASSERT_EQ(a.warnings.size(), 1U);
  EXPECT_EQ(a.warnings[0], "Intel device with 12.99.0 device IP is filtered out as not known to plugin)");
  const auto none = intel::supported_configs_from(intel::Overrides{}, devices({}));
  EXPECT_TRUE(none.supported.empty());
  EXPECT_EQ(none.warnings, (std::vector<std::string>{"No Intel GPU detected"}));
}

TEST(IntelAlgorithm, FailedQueryWarns) {
  const intel::ZeQuery broken = []() -> vwheel::Result<std::vector<intel::ZeDevice>> {
    return vwheel::fail("L0 library call failed with 0x78000001");
  };
  const auto a = intel::supported_configs_from(intel::Overrides{}, broken);
  EXPECT_TRUE(a.supported.empty());
  EXPECT_EQ(a.warnings,
            (std::vector<std::string>{
                "Intel driver stack not installed or malfunctions: L0 library call failed with 0x78000001"}));
}

TEST(IntelAlgorithm, ForcedIp) {
  int calls = 0;
  const intel::ZeQuery counted = [&calls]() -> vwheel::Result<std::vector<intel::ZeDevice>> {
    ++calls;
    return std::vector<intel::ZeDevice>{};
  };
  intel::Overrides o;
  o.device_ip = "20.4.4";
  auto a = intel::supported_configs_from(o, counted);
  EXPECT_EQ(a.supported.at(0).values, (std::vector<std::string>{"20.4.4"}));  // no base platform added
  o.device_ip = "1.2.3";
  a = intel::supported_configs_from(o, counted);
  EXPECT_TRUE(a.supported.empty());
  EXPECT_EQ(a.warnings.size(), 1U);
  EXPECT_EQ(calls, 0);
}

TEST(IntelAlgorithm, AllConfigs) {
  const auto all = intel::all_configs();
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].name, "device_ip");
  EXPECT_TRUE(all[0].multi_value);
  ASSERT_EQ(all[0].values.size(), 23U);
  EXPECT_EQ(all[0].values.front(), "35.11.0");
  EXPECT_EQ(all[0].values.back(), "12.0.0");
  for (const auto& k : intel::known_device_ips()) {
    if (!k.compat.empty()) {
      EXPECT_NE(std::find(all[0].values.begin(), all[0].values.end(), k.compat), all[0].values.end()) << k.ip;
    }
  }
  const auto p = vwheel::provider::make_intel_provider();
  EXPECT_EQ(p->ns(), "intel");
  EXPECT_EQ(p->version(), "0.0.3");
  EXPECT_TRUE(p->install_time());
}

// ---- the provider through the fake Level Zero loader ----

fs::path machines_dir() { return vwheel::testing::source_dir() / "tests" / "data" / "gpu" / "intel"; }

std::vector<std::string> machine_names() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(machines_dir(), ec)) {
    if (fs::exists(e.path() / "expected.json")) out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  if (out.empty()) out.emplace_back("<none>");
  return out;
}

class IntelMachine : public ::testing::TestWithParam<std::string> {};

TEST_P(IntelMachine, Detects) {
  ASSERT_NE(GetParam(), "<none>") << "no machines under " << machines_dir();
  if (std::string_view(kFakeZe).empty()) GTEST_SKIP() << "the fake Level Zero loader was not built";
  const fs::path dir = machines_dir() / GetParam();
  std::ifstream in(dir / "expected.json");
  const json expected = json::parse(in);

  const fs::path scratch = fs::temp_directory_path() / fmt::format("vwheel-test-intel-{}", getpid());
  fs::create_directories(scratch);
  const fs::path log = scratch / "calls.log";
  fs::remove(log);

  const std::string loader = expected.value("loader", "current");
  std::string library = kFakeZe;
  if (loader == "pre-1.10") library = kFakeZePre110;
  if (loader == "absent") library = (scratch / "absent" / "libze_loader.so.1").string();

  ScopedEnv env;
  env.unset(std::string(intel::kForceDeviceIpEnv));
  env.set(std::string(intel::kZeLoaderLibraryEnv), library);
  env.set("FAKE_ZE_CASE", (dir / expected.value("ze", "ze.txt")).lexically_normal().string());
  env.set("FAKE_ZE_LOG", log.string());
  env.set(std::string(vwheel::provider::kSysfsRootEnv),
          (dir / expected.value("sysfs", "sys")).lexically_normal().string());
  const json env_field = field(expected, "env", json::object());
  for (const auto& [name, value] : env_field.items()) env.set(name, value.get<std::string>());

  const auto d = vwheel::provider::make_intel_provider()->detect();
  EXPECT_EQ(configs_json(d.supported), expected.at("supported")) << expected.value("description", "");
  std::string notes;
  for (const auto& n : d.notes) {
    EXPECT_EQ(n.find('\n'), std::string::npos) << n;
    notes += "\n  " + n;
  }
  const json source_contains_field = field(expected, "source_contains", json::array());
  for (const auto& s : source_contains_field) {
    EXPECT_NE(d.source.find(s.get<std::string>()), std::string::npos) << "source: " << d.source;
  }
  const json notes_contain_field = field(expected, "notes_contain", json::array());
  for (const auto& s : notes_contain_field) {
    EXPECT_NE(notes.find(s.get<std::string>()), std::string::npos) << "notes:" << notes;
  }
  EXPECT_FALSE(d.source.empty());
  EXPECT_EQ(d.source.find('\n'), std::string::npos);
  if (expected.contains("calls")) {
    std::vector<std::string> calls;
    std::ifstream log_in(log);
    for (std::string line; std::getline(log_in, line);) calls.push_back(line);
    EXPECT_EQ(json(calls), expected.at("calls"));
  }
}

INSTANTIATE_TEST_SUITE_P(Recorded, IntelMachine, ::testing::ValuesIn(machine_names()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string name;
                           for (const char c : param_info.param)
                             name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return name;
                         });

}  // namespace
