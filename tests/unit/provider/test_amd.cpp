// The amd provider: decision function, ROCm version file parsing, KFD gfx names, and the whole
// provider on recorded sysfs trees (tests/data/gpu/amd/<machine>/: sys/, rocm/, expected.json).

#include <gtest/gtest.h>

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
namespace amd = vwheel::provider::amd;
using nlohmann::json;
using vwheel::testing::configs_json;
using vwheel::testing::field;
using vwheel::testing::ScopedEnv;

TEST(AmdGfxName, FromKfdTargetVersion) {
  EXPECT_EQ(amd::gfx_name(90402), "gfx942");
  EXPECT_EQ(amd::gfx_name(90010), "gfx90a");
  EXPECT_EQ(amd::gfx_name(90008), "gfx908");
  EXPECT_EQ(amd::gfx_name(90000), "gfx900");
  EXPECT_EQ(amd::gfx_name(100300), "gfx1030");
  EXPECT_EQ(amd::gfx_name(110000), "gfx1100");
  EXPECT_EQ(amd::gfx_name(110501), "gfx1151");
  EXPECT_EQ(amd::gfx_name(120001), "gfx1201");
  EXPECT_EQ(amd::gfx_name(90012), "gfx90c");
}

TEST(AmdRocmVersionFile, ParsedAsTheReference) {
  auto v = amd::parse_rocm_version_file("6.4.1-120\n");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->major, 6);
  EXPECT_EQ(v->minor, 4);
  EXPECT_EQ(v->patch, 1);
  v = amd::parse_rocm_version_file("6.4");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->minor, 4);
  EXPECT_FALSE(v->patch);
  v = amd::parse_rocm_version_file(" 7 .1_0. 2-x");  // int() strips and accepts underscores
  ASSERT_TRUE(v);
  EXPECT_EQ(v->major, 7);
  EXPECT_EQ(v->minor, 10);
  EXPECT_EQ(v->patch, 2);
  EXPECT_FALSE(amd::parse_rocm_version_file("7"));
  EXPECT_FALSE(amd::parse_rocm_version_file(""));
  EXPECT_FALSE(amd::parse_rocm_version_file("6.x.1"));
  EXPECT_FALSE(amd::parse_rocm_version_file("6.4.1\xff"));  // not UTF-8: read_text() fails
}

TEST(AmdAlgorithm, DetectedNamesAreSortedAndUnique) {
  amd::RocmSnapshot s;
  s.gfx_archs = {"gfx90a", "gfx90a", "gfx1100", "gfx942"};
  s.rocm_version = amd::RocmVersion{6, 3, 2};
  const auto r = amd::supported_configs_from(s, amd::Overrides{});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(configs_json(r->supported), json::parse(R"([
    {"name": "gfx_arch", "values": ["gfx1100", "gfx90a", "gfx942"], "multi_value": true},
    {"name": "rocm_version", "values": ["6.3"], "multi_value": false}])"));
}

TEST(AmdAlgorithm, Overrides) {
  amd::RocmSnapshot s;
  s.gfx_archs = {"gfx942"};
  amd::Overrides o;
  o.gfx_arch = "gfx1201;gfx1100 gfx1201";  // order kept, no de-duplication... which an installer rejects
  auto r = amd::supported_configs_from(s, o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("twice"), std::string::npos);
  o.gfx_arch = "gfx1201;gfx1100";
  o.rocm_version = " 7.1.0 ";
  r = amd::supported_configs_from(s, o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(configs_json(r->supported), json::parse(R"([
    {"name": "gfx_arch", "values": ["gfx1201", "gfx1100"], "multi_value": true},
    {"name": "rocm_version", "values": ["7.1"], "multi_value": false}])"));
  // An override of separators only yields no gfx feature (not a fallback to detection).
  o.gfx_arch = " ,; ";
  r = amd::supported_configs_from(s, o);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->supported.size(), 1U);
  EXPECT_EQ(r->supported[0].name, "rocm_version");
  // The reference asserts three parts.
  o.rocm_version = "7.1";
  r = amd::supported_configs_from(s, o);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message.rfind("AssertionError", 0), 0U);
  // Values an installer would reject.
  o.rocm_version = "7.X.0";
  r = amd::supported_configs_from(s, o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("not a valid variant value"), std::string::npos);
}

TEST(AmdAlgorithm, NothingDetected) {
  const auto r = amd::supported_configs_from(amd::RocmSnapshot{}, amd::Overrides{});
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->supported.empty());
}

TEST(AmdAlgorithm, AllConfigs) {
  EXPECT_EQ(configs_json(amd::all_configs()), json::parse(R"([
    {"name": "rocm_version", "values": ["7.10", "7.9", "7.8", "7.7", "7.6", "7.5", "7.4", "7.3", "7.2", "7.1", "7.0", "6.4", "6.3"], "multi_value": false},
    {"name": "gfx_arch", "values": ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1101", "gfx1102", "gfx1200", "gfx1201"], "multi_value": true}])"));
  const auto p = vwheel::provider::make_amd_provider();
  EXPECT_EQ(p->ns(), "amd");
  EXPECT_EQ(p->version(), "0.0.2");
  EXPECT_TRUE(p->install_time());
}

TEST(AmdKfd, ReadsNodesInNumericOrder) {
  const fs::path sys = vwheel::testing::source_dir() / "tests/data/gpu/amd/mi300x-8gpu/sys";
  const auto nodes = amd::read_kfd_nodes(sys);
  ASSERT_EQ(nodes.size(), 10U);
  EXPECT_EQ(nodes[0].node, "0");
  EXPECT_EQ(nodes[0].gfx_target_version, 0U);
  EXPECT_EQ(nodes[2].gfx_target_version, 90402U);
  EXPECT_EQ(nodes[2].vendor_id, 0x1002U);
  EXPECT_EQ(nodes[9].node, "9");
  EXPECT_TRUE(amd::read_kfd_nodes(sys / "nonexistent").empty());
}

// ---- the provider on recorded machines ----

fs::path machines_dir() { return vwheel::testing::source_dir() / "tests" / "data" / "gpu" / "amd"; }

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

class AmdMachine : public ::testing::TestWithParam<std::string> {};

TEST_P(AmdMachine, Detects) {
  ASSERT_NE(GetParam(), "<none>") << "no machines under " << machines_dir();
  const fs::path dir = machines_dir() / GetParam();
  std::ifstream in(dir / "expected.json");
  const json expected = json::parse(in);

  ScopedEnv env;
  env.unset(std::string(amd::kForceGfxArchEnv));
  env.unset(std::string(amd::kForceRocmVersionEnv));
  env.set(std::string(vwheel::provider::kSysfsRootEnv),
          (dir / expected.value("sysfs", "sys")).lexically_normal().string());
  env.set(std::string(amd::kRocmPathEnv), (dir / expected.value("rocm", "rocm")).lexically_normal().string());
  const json env_field = field(expected, "env", json::object());
  for (const auto& [name, value] : env_field.items()) env.set(name, value.get<std::string>());

  const auto d = vwheel::provider::make_amd_provider()->detect();
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
}

INSTANTIATE_TEST_SUITE_P(Recorded, AmdMachine, ::testing::ValuesIn(machine_names()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string name;
                           for (const char c : param_info.param)
                             name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return name;
                         });

}  // namespace
