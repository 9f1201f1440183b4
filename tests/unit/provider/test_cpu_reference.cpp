// The CPU providers against the reference outputs in ../shared/data/cpu (every sample cpuinfo,
// every database entry) and the embedded database against its sources.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "provider/cpu_cpuinfo.hpp"
#include "provider/cpu_database.hpp"
#include "provider/cpu_tables.hpp"
#include "shared_data.hpp"
#include "vwheel/provider/cpu.hpp"

using vwheel::provider::CpuMatch;
using vwheel::variant::FeatureConfig;

namespace {

nlohmann::json to_json(const std::vector<FeatureConfig>& configs) {
  auto out = nlohmann::json::array();
  for (const auto& c : configs) {
    out.push_back({{"name", c.name}, {"values", c.values}, {"multi_value", c.multi_value}});
  }
  return out;
}

nlohmann::json load_json(const std::filesystem::path& path) {
  return nlohmann::json::parse(vwheel::testing::read_file(path));
}

// Runs every sample of expected-<arch>.json; returns how many matched exactly.
std::size_t check_samples(const std::filesystem::path& cpu_dir, const std::string& arch,
                          CpuMatch (*match)(std::string_view)) {
  const auto expected = load_json(cpu_dir / ("expected-" + arch + ".json"));
  const auto& matched = expected.at("meta").at("matched_microarchitecture");
  std::size_t good = 0;
  for (const auto& [sample, configs] : expected.items()) {
    if (sample == "meta") continue;
    SCOPED_TRACE(sample);
    const std::string text = vwheel::testing::read_file(cpu_dir / "cpuinfo" / sample);
    if (text.empty()) {
      ADD_FAILURE() << "empty sample";
      continue;
    }
    const CpuMatch m = match(text);
    EXPECT_EQ(m.microarchitecture, matched.at(sample).get<std::string>());
    EXPECT_EQ(to_json(m.supported), configs) << "got " << to_json(m.supported).dump();
    for (const auto& c : m.supported) EXPECT_FALSE(c.multi_value);
    if (m.microarchitecture == matched.at(sample).get<std::string>() && to_json(m.supported) == configs) {
      ++good;
    }
  }
  return good;
}

std::size_t check_targets(const std::filesystem::path& cpu_dir, const std::string& arch,
                          vwheel::Result<std::vector<FeatureConfig>> (*configs_for)(std::string_view),
                          const vwheel::provider::cpu::Family& family) {
  const auto expected = load_json(cpu_dir / ("expected-by-target-" + arch + ".json"));
  std::size_t good = 0;
  for (const auto& [target, configs] : expected.items()) {
    if (target == "meta") continue;
    SCOPED_TRACE(target);
    const auto got = configs_for(target);
    if (!got) {
      ADD_FAILURE() << got.error().message;
      continue;
    }
    EXPECT_EQ(to_json(*got), configs) << "got " << to_json(*got).dump();
    const auto index = family.find(target);
    if (!index) {
      ADD_FAILURE() << "not in the database";
      continue;
    }
    EXPECT_EQ(family.at(family.generic_of(*index)).name,
              expected.at("meta").at("generic").at(target).get<std::string>());
    if (to_json(*got) == configs) ++good;
  }
  return good;
}

}  // namespace

TEST(CpuReference, X86_64EverySampleMatchesTheReference) {
  VWHEEL_REQUIRE_SHARED("data/cpu/expected-x86_64.json");
  const auto good = check_samples(shared_path.parent_path(), "x86_64", &vwheel::provider::match_x86_64_cpuinfo);
  EXPECT_EQ(good, 19U);
}

TEST(CpuReference, Aarch64EverySampleMatchesTheReference) {
  VWHEEL_REQUIRE_SHARED("data/cpu/expected-aarch64.json");
  const auto good = check_samples(shared_path.parent_path(), "aarch64", &vwheel::provider::match_aarch64_cpuinfo);
  EXPECT_EQ(good, 16U);
}

TEST(CpuReference, X86_64EveryDatabaseEntryMapsLikeTheReference) {
  VWHEEL_REQUIRE_SHARED("data/cpu/expected-by-target-x86_64.json");
  const auto good = check_targets(shared_path.parent_path(), "x86_64",
                                  &vwheel::provider::x86_64_configs_for_microarchitecture,
                                  vwheel::provider::cpu::x86_64_family());
  EXPECT_EQ(good, 29U);
}

TEST(CpuReference, Aarch64EveryDatabaseEntryMapsLikeTheReference) {
  VWHEEL_REQUIRE_SHARED("data/cpu/expected-by-target-aarch64.json");
  const auto good = check_targets(shared_path.parent_path(), "aarch64",
                                  &vwheel::provider::aarch64_configs_for_microarchitecture,
                                  vwheel::provider::cpu::aarch64_family());
  EXPECT_EQ(good, 16U);
}

TEST(CpuReference, ProvidersDetectEverySampleThroughTheirCpuinfoOption) {
  VWHEEL_REQUIRE_SHARED("data/cpu/expected-x86_64.json");
  for (const std::string arch : {"x86_64", "aarch64"}) {
    const auto expected = load_json(shared_path.parent_path() / ("expected-" + arch + ".json"));
    for (const auto& [sample, configs] : expected.items()) {
      if (sample == "meta") continue;
      SCOPED_TRACE(sample);
      vwheel::provider::CpuProviderOptions options;
      options.cpuinfo_path = (shared_path.parent_path() / "cpuinfo" / sample).string();
      options.machine = "riscv64";  // an explicit file is read whatever the machine
      const auto provider = arch == "x86_64" ? vwheel::provider::make_x86_64_provider(options)
                                             : vwheel::provider::make_aarch64_provider(options);
      const auto detection = provider->detect();
      EXPECT_EQ(to_json(detection.supported), configs);
      const auto uarch = expected.at("meta").at("matched_microarchitecture").at(sample).get<std::string>();
      EXPECT_EQ(detection.source, options.cpuinfo_path + ": microarchitecture " + uarch);
    }
  }
}

// ---- the embedded database ----------------------------------------------------------------

namespace {

struct TextDatabase {
  std::vector<std::pair<std::string, std::string>> aliases;
  std::vector<std::pair<std::string, std::string>> arm_vendors;
  std::vector<std::vector<std::string>> uarchs;  // name, vendor, part, parents, features
};

std::string join(const std::vector<std::string_view>& words) {
  std::string out;
  for (const auto w : words) {
    if (!out.empty()) out += ' ';
    out += w;
  }
  return out;
}

// An independent reader of data/cpu/microarchitectures.txt.
TextDatabase read_text_database(const std::filesystem::path& path) {
  TextDatabase db;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string kind;
    words >> kind;
    if (kind == "alias") {
      std::string feature, rest, w;
      words >> feature;
      while (words >> w) rest += (rest.empty() ? "" : " ") + w;
      db.aliases.emplace_back(feature, rest);
    } else if (kind == "arm_vendor") {
      std::string code, name;
      words >> code;
      std::getline(words >> std::ws, name);
      db.arm_vendors.emplace_back(code, name);
    } else if (kind == "uarch") {
      const auto colon = line.find(':');
      std::istringstream head(line.substr(0, colon));
      std::string name, vendor, part, parents, w;
      head >> w >> name >> vendor;
      while (head >> w) {
        if (w.rfind("part=", 0) == 0) part = w.substr(5);
        if (w.rfind("from=", 0) == 0) {
          parents = w.substr(5);
          std::replace(parents.begin(), parents.end(), ',', ' ');
        }
      }
      db.uarchs.push_back({name, vendor, part, parents, join(vwheel::provider::cpu::split_words(line.substr(colon + 1)))});
    } else {
      ADD_FAILURE() << "unknown record: " << line;
    }
  }
  return db;
}

}  // namespace

TEST(CpuDatabase, EmbeddedTableIsTheProjectDataFile) {
  const auto path = vwheel::testing::source_dir() / "data" / "cpu" / "microarchitectures.txt";
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  const auto db = read_text_database(path);
  namespace cpu = vwheel::provider::cpu;

  const auto aliases = cpu::alias_records();
  ASSERT_EQ(aliases.size(), db.aliases.size());
  for (std::size_t i = 0; i < aliases.size(); ++i) {
    EXPECT_EQ(aliases[i].feature, db.aliases[i].first);
    EXPECT_EQ(aliases[i].implied_by, db.aliases[i].second);
  }
  const auto vendors = cpu::arm_vendor_records();
  ASSERT_EQ(vendors.size(), db.arm_vendors.size());
  for (std::size_t i = 0; i < vendors.size(); ++i) {
    EXPECT_EQ(vendors[i].code, db.arm_vendors[i].first);
    EXPECT_EQ(vendors[i].vendor, db.arm_vendors[i].second);
  }
  const auto uarchs = cpu::uarch_records();
  ASSERT_EQ(uarchs.size(), db.uarchs.size()) << "regenerate src/provider/cpu_tables.cpp (scripts/gen_cpu_tables.py cpp)";
  for (std::size_t i = 0; i < uarchs.size(); ++i) {
    SCOPED_TRACE(db.uarchs[i][0]);
    EXPECT_EQ(uarchs[i].name, db.uarchs[i][0]);
    EXPECT_EQ(uarchs[i].vendor, db.uarchs[i][1]);
    EXPECT_EQ(uarchs[i].cpu_part, db.uarchs[i][2]);
    EXPECT_EQ(uarchs[i].parents, db.uarchs[i][3]);
    EXPECT_EQ(uarchs[i].features, db.uarchs[i][4]);
  }
}

TEST(CpuDatabase, EmbeddedTableIsArchspecJson9b22d3d) {
  VWHEEL_REQUIRE_SHARED("data/cpu/archspec-json-9b22d3d-subset.json");
  // File order matters (it is the tie-break order): read it as an ordered_json.
  const auto json = nlohmann::ordered_json::parse(vwheel::testing::read_file(shared_path));
  namespace cpu = vwheel::provider::cpu;
  const auto& targets = json.at("microarchitectures");
  const auto records = cpu::uarch_records();
  ASSERT_EQ(records.size(), targets.size());
  std::size_t i = 0;
  for (const auto& [name, spec] : targets.items()) {
    SCOPED_TRACE(name);
    const auto& r = records[i++];
    EXPECT_EQ(r.name, name);
    EXPECT_EQ(r.vendor, spec.at("vendor").get<std::string>());
    EXPECT_EQ(r.cpu_part, spec.value("cpupart", std::string()));
    std::vector<std::string_view> parents;
    for (const auto& p : spec.at("from")) parents.push_back(p.get_ref<const std::string&>());
    EXPECT_EQ(r.parents, join(parents));
    std::vector<std::string_view> features;
    for (const auto& f : spec.at("features")) features.push_back(f.get_ref<const std::string&>());
    EXPECT_EQ(r.features, join(features));
  }
  const auto vendors = cpu::arm_vendor_records();
  ASSERT_EQ(vendors.size(), json.at("arm_vendors").size());
  for (const auto& v : vendors) {
    EXPECT_EQ(json.at("arm_vendors").at(std::string(v.code)).get<std::string>(), v.vendor);
  }
  ASSERT_EQ(cpu::alias_records().size(), 1U);
  EXPECT_EQ(cpu::alias_records()[0].feature, "sse3");
  EXPECT_EQ(cpu::alias_records()[0].implied_by, "ssse3");
}

TEST(CpuDatabase, FamiliesAreComplete) {
  namespace cpu = vwheel::provider::cpu;
  const auto& x86 = cpu::x86_64_family();
  const auto& arm = cpu::aarch64_family();
  EXPECT_EQ(x86.uarchs().size(), 29U);
  EXPECT_EQ(arm.uarchs().size(), 16U);
  EXPECT_EQ(x86.uarchs().size() + arm.uarchs().size(), cpu::uarch_records().size());
  // Every listed feature made it into the bitsets (no truncation of the feature universe).
  for (const auto* family : {&x86, &arm}) {
    for (const auto& record : cpu::uarch_records()) {
      const auto index = family->find(record.name);
      if (!index) continue;
      for (const auto word : cpu::split_words(record.features)) {
        EXPECT_TRUE(family->has_feature(*index, word)) << record.name << " " << word;
      }
    }
  }
  // archspec's ancestors order and generic.
  const auto icelake = x86.find("icelake").value();
  std::vector<std::string_view> names;
  for (const auto a : x86.at(icelake).ancestors) names.push_back(x86.at(a).name);
  EXPECT_EQ(names, (std::vector<std::string_view>{"cascadelake", "cannonlake", "skylake_avx512", "skylake",
                                                  "x86_64_v4", "broadwell", "haswell", "ivybridge", "x86_64_v3",
                                                  "sandybridge", "westmere", "nehalem", "core2", "x86_64_v2",
                                                  "nocona", "x86_64"}));
  EXPECT_EQ(x86.at(x86.generic_of(x86.find("cannonlake").value())).name, "x86_64_v3");
  EXPECT_EQ(x86.at(x86.generic_of(icelake)).name, "x86_64_v4");
  // sse3 is implied by ssse3 on every entry.
  EXPECT_TRUE(x86.has_feature(x86.find("core2").value(), "sse3"));
  EXPECT_FALSE(x86.has_feature(x86.find("k10").value(), "sse3"));
}
