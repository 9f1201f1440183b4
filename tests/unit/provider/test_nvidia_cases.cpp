// Replays NVML cases through the real provider: make_nvidia_provider()->detect() dlopens a fake
// libnvidia-ml (tests/fixtures/fake_nvml) that answers each case's NVML queries.
//
// * ../shared/data/nvidia/cases.json — the 88 reference cases (skipped when ../shared is absent);
// * tests/data/gpu/nvidia/extra-cases.json — vwheel's own cases in the same schema.
//
// For each case: the output must equal `expected` (or, where the reference raises, be empty with
// a note quoting the exception), every reference warning must appear among the notes, and the
// NVML entry points called must be exactly `nvml_calls`, in order.

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "provider_test_util.hpp"
#include "shared_data.hpp"
#include "vwheel/provider/gpu.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using vwheel::testing::configs_json;
using vwheel::testing::field;
using vwheel::testing::ScopedEnv;

#if defined(VWHEEL_FAKE_NVML) && defined(VWHEEL_FAKE_NVML_WITHOUT)
constexpr const char* kFakeNvml = VWHEEL_FAKE_NVML;
constexpr const char* kFakeNvmlWithout = VWHEEL_FAKE_NVML_WITHOUT;
#else
constexpr const char* kFakeNvml = "";
constexpr const char* kFakeNvmlWithout = "";
#endif

/// Sets environment variables for one scope and restores them afterwards.

fs::path scratch_dir() {
  const fs::path dir = fs::temp_directory_path() / fmt::format("vwheel-test-nvidia-{}", getpid());
  fs::create_directories(dir);
  return dir;
}

/// The fake library lacking exactly `missing` (sorted, comma-joined), or "" when none was built.
std::string fake_library_for(const std::set<std::string>& missing) {
  if (missing.empty()) return kFakeNvml;
  std::string key;
  for (const auto& m : missing) key += (key.empty() ? "" : ",") + m;
  std::string_view rest = kFakeNvmlWithout;
  while (!rest.empty()) {
    const auto bar = rest.find('|');
    const std::string_view entry = rest.substr(0, bar);
    rest = bar == std::string_view::npos ? std::string_view() : rest.substr(bar + 1);
    const auto eq = entry.find('=');
    if (entry.substr(0, eq) == key) return std::string(entry.substr(eq + 1));
  }
  return "";
}

/// The case's NVML answers in the fake's text form.
std::string fake_case_text(const json& nvml) {
  std::string out;
  const auto answer = [&](const char* field, const char* key) {
    if (!nvml.contains(field)) return;
    const auto& a = nvml.at(field);
    out += fmt::format("{} {}", key, a.at("return").get<int>());
    if (a.contains("value")) {
      out += " ";
      out += a.at("value").is_string() ? a.at("value").get<std::string>() : a.at("value").dump();
    }
    out += "\n";
  };
  if (nvml.contains("init_return")) out += fmt::format("init {}\n", nvml.at("init_return").get<int>());
  answer("driver_version", "driver_version");
  answer("cuda_driver_version_v2", "cuda_driver_version_v2");
  answer("cuda_driver_version", "cuda_driver_version");
  answer("device_count", "device_count");
  if (nvml.contains("devices")) {
    std::size_t i = 0;
    for (const auto& d : nvml.at("devices")) {
      if (d.contains("handle_return")) out += fmt::format("handle.{} {}\n", i, d.at("handle_return").get<int>());
      if (d.contains("compute_capability") && !d.at("compute_capability").is_null()) {
        const auto& cc = d.at("compute_capability");
        out += fmt::format("cc.{} {}", i, cc.at("return").get<int>());
        if (cc.contains("major")) out += fmt::format(" {} {}", cc.at("major").get<int>(), cc.at("minor").get<int>());
        out += "\n";
      }
      ++i;
    }
  }
  if (nvml.contains("shutdown_return")) out += fmt::format("shutdown {}\n", nvml.at("shutdown_return").get<int>());
  return out;
}

std::vector<std::string> read_lines(const fs::path& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string one_line(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += "\n  " + l;
  return out;
}

/// Replays one case; returns the failures (empty = pass).
std::vector<std::string> replay(const json& c, const fs::path& dir) {
  std::vector<std::string> failures;
  const std::string id = c.at("id").get<std::string>();
  const json& nvml = c.at("nvml");
  const bool present = nvml.value("library_present", false);

  std::set<std::string> missing;
  if (nvml.contains("missing_symbols")) {
    for (const auto& m : nvml.at("missing_symbols")) missing.insert(m.get<std::string>());
  }
  std::string library = (dir / "absent" / "libnvidia-ml.so.1").string();
  if (present) {
    library = fake_library_for(missing);
    if (library.empty()) {
      std::string list;
      for (const auto& m : missing) list += " " + m;
      return {fmt::format("no fake NVML built without{}: add one in tests/fixtures/fake_nvml/CMakeLists.txt", list)};
    }
  }

  const fs::path case_file = dir / "case.txt";
  const fs::path log_file = dir / "calls.log";
  {
    std::ofstream out(case_file, std::ios::trunc);
    out << fake_case_text(nvml);
  }
  fs::remove(log_file);

  ScopedEnv env;
  env.unset(std::string(vwheel::provider::nvidia::kForceCudaDriverVersionEnv));
  env.unset(std::string(vwheel::provider::nvidia::kForceSmArchEnv));
  const json env_field = c.at("env");
  for (const auto& [name, value] : env_field.items()) env.set(name, value.get<std::string>());
  env.set(std::string(vwheel::provider::nvidia::kNvmlLibraryEnv), library);
  env.set("FAKE_NVML_CASE", case_file.string());
  env.set("FAKE_NVML_LOG", log_file.string());
  env.set(std::string(vwheel::provider::kSysfsRootEnv), (dir / "no-sysfs").string());

  const auto provider = vwheel::provider::make_nvidia_provider();
  const auto detection = provider->detect();

  // Output.
  const json& expected = c.at("expected");
  const std::string notes = join_lines(detection.notes);
  if (expected.is_object()) {
    const std::string error = expected.at("error").get<std::string>();
    if (!detection.supported.empty()) {
      failures.push_back(
          fmt::format("reference raises {}, vwheel reported {}", error, configs_json(detection.supported).dump()));
    }
    bool named = false;
    for (const auto& n : detection.notes) named = named || n.find(error) != std::string::npos;
    if (!named) failures.push_back(fmt::format("no note quotes `{}`; notes:{}", error, notes));
  } else if (configs_json(detection.supported) != expected) {
    failures.push_back(fmt::format("output differs\n  expected {}\n  actual   {}", expected.dump(),
                                   configs_json(detection.supported).dump()));
  }

  // Warnings become notes.
  const json warnings_field = field(c, "warnings", json::array());
  for (const auto& w : warnings_field) {
    const std::string text = one_line(w.get<std::string>());
    bool found = false;
    for (const auto& n : detection.notes) found = found || n.find(text) != std::string::npos;
    if (!found) failures.push_back(fmt::format("warning not among the notes: {}; notes:{}", text, notes));
  }

  // NVML calls. A failed dlopen leaves no trace in the fake's log: check it through the source.
  std::vector<std::string> expected_calls;
  bool expects_dlopen = false;
  const json nvml_calls_field = field(c, "nvml_calls", json::array());
  for (const auto& call : nvml_calls_field) {
    const auto name = call.get<std::string>();
    if (name.rfind("dlopen", 0) == 0) expects_dlopen = true;
    if (present || name.rfind("dlopen", 0) != 0) expected_calls.push_back(name);
  }
  const auto calls = read_lines(log_file);
  if (calls != expected_calls) {
    failures.push_back(
        fmt::format("NVML calls differ\n  expected:{}\n  actual:{}", join_lines(expected_calls), join_lines(calls)));
  }
  if (!present) {
    const bool tried = detection.source.find("not loadable") != std::string::npos;
    if (tried != expects_dlopen) {
      failures.push_back(
          fmt::format("library load {} expected; source: {}", expects_dlopen ? "" : "not", detection.source));
    }
  }
  if (detection.source.empty() || detection.source.find('\n') != std::string::npos) {
    failures.push_back(fmt::format("source must be one non-empty line: '{}'", detection.source));
  }
  for (const auto& n : detection.notes) {
    if (n.find('\n') != std::string::npos) failures.push_back("multi-line note: " + n);
  }
  return failures;
}

struct CaseFile {
  fs::path path;
  bool shared = false;
};

/// Test parameter: one case of one file.
struct CaseRef {
  std::string file;  // "shared" or "extra"
  std::size_t index = 0;
  std::string id;
};

fs::path shared_cases_path() { return vwheel::testing::shared_dir() / "data" / "nvidia" / "cases.json"; }
fs::path extra_cases_path() {
  return vwheel::testing::source_dir() / "tests" / "data" / "gpu" / "nvidia" / "extra-cases.json";
}

std::vector<CaseRef> list_cases(const std::string& file, const fs::path& path) {
  std::vector<CaseRef> out;
  std::ifstream in(path);
  if (!in) return {{file, 0, "<missing>"}};
  const json doc = json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.contains("cases")) return {{file, 0, "<unreadable>"}};
  for (std::size_t i = 0; i < doc.at("cases").size(); ++i) {
    out.push_back({file, i, doc.at("cases")[i].at("id").get<std::string>()});
  }
  return out;
}

// gtest prints parameters of failed tests: show the case id rather than bytes.
void PrintTo(const CaseRef& ref, std::ostream* os) { *os << ref.file << ":" << ref.id; }

class NvidiaCase : public ::testing::TestWithParam<CaseRef> {};

void run_case(const CaseRef& ref, const fs::path& path) {
  if (std::string_view(kFakeNvml).empty()) GTEST_SKIP() << "the fake NVML library was not built";
  ASSERT_NE(ref.id, "<unreadable>") << path;
  std::ifstream in(path);
  const json doc = json::parse(in);
  const json& c = doc.at("cases").at(ref.index);
  const auto failures = replay(c, scratch_dir());
  for (const auto& f : failures) ADD_FAILURE() << ref.id << ": " << f;
}

TEST_P(NvidiaCase, Replays) {
  const CaseRef& ref = GetParam();
  if (ref.file == "shared") {
    VWHEEL_REQUIRE_SHARED("data/nvidia/cases.json");
    run_case(ref, shared_path);
  } else {
    ASSERT_NE(ref.id, "<missing>") << extra_cases_path();
    run_case(ref, extra_cases_path());
  }
}

std::string case_name(const ::testing::TestParamInfo<CaseRef>& info) {
  std::string name = fmt::format("{:03d}_", info.index);
  for (const char ch : info.param.id) name += std::isalnum(static_cast<unsigned char>(ch)) != 0 ? ch : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Reference, NvidiaCase, ::testing::ValuesIn(list_cases("shared", shared_cases_path())),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Vwheel, NvidiaCase, ::testing::ValuesIn(list_cases("extra", extra_cases_path())), case_name);

TEST(NvidiaReference, CaseFileHas88Cases) {
  VWHEEL_REQUIRE_SHARED("data/nvidia/cases.json");
  std::ifstream in(shared_path);
  const json doc = json::parse(in);
  EXPECT_EQ(doc.at("cases").size(), 88U);
}

TEST(NvidiaReference, AllConfigsMatch) {
  VWHEEL_REQUIRE_SHARED("data/nvidia/expected-all-configs.json");
  std::ifstream in(shared_path);
  const json expected = json::parse(in);
  EXPECT_EQ(configs_json(vwheel::provider::make_nvidia_provider()->all_configs()), expected);
}

TEST(NvidiaProvider, Identity) {
  const auto p = vwheel::provider::make_nvidia_provider();
  EXPECT_EQ(p->ns(), "nvidia");
  EXPECT_EQ(p->version(), "0.0.2");
  EXPECT_TRUE(p->install_time());
}

TEST(NvidiaProvider, FakeLibrariesReallyLackTheirSymbols) {
  if (std::string_view(kFakeNvml).empty()) GTEST_SKIP() << "the fake NVML library was not built";
  const auto without = fake_library_for({"nvmlSystemGetCudaDriverVersion_v2"});
  ASSERT_FALSE(without.empty());
  void* h = dlopen(without.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << dlerror();
  EXPECT_EQ(dlsym(h, "nvmlSystemGetCudaDriverVersion_v2"), nullptr);
  EXPECT_NE(dlsym(h, "nvmlSystemGetCudaDriverVersion"), nullptr);
  dlclose(h);
}

TEST(NvidiaProvider, NoLibraryMeansNoPropertiesAndANote) {
  ScopedEnv env;
  env.unset(std::string(vwheel::provider::nvidia::kForceCudaDriverVersionEnv));
  env.unset(std::string(vwheel::provider::nvidia::kForceSmArchEnv));
  env.set(std::string(vwheel::provider::nvidia::kNvmlLibraryEnv), "/nonexistent/libnvidia-ml.so.1");
  env.set(std::string(vwheel::provider::kSysfsRootEnv),
          (vwheel::testing::source_dir() / "tests/data/gpu/amd/no-amd-gpu/sys").string());
  const auto d = vwheel::provider::make_nvidia_provider()->detect();
  EXPECT_TRUE(d.supported.empty());
  EXPECT_NE(d.source.find("not loadable"), std::string::npos) << d.source;
  std::string notes = join_lines(d.notes);
  EXPECT_NE(notes.find("/nonexistent/libnvidia-ml.so.1 could not be loaded"), std::string::npos) << notes;
  // That sysfs tree has an RTX 4090 bound to the nvidia driver: worth a hint.
  EXPECT_NE(notes.find("NVIDIA GPU present (1 PCI display device 10de:2684 (nvidia))"), std::string::npos) << notes;
}

TEST(NvidiaProvider, SourceDescribesWhatWasRead) {
  if (std::string_view(kFakeNvml).empty()) GTEST_SKIP() << "the fake NVML library was not built";
  const fs::path dir = scratch_dir();
  {
    std::ofstream out(dir / "source-case.txt", std::ios::trunc);
    out << "init 0\ndriver_version 0 550.54.15\ncuda_driver_version_v2 0 12040\ndevice_count 0 2\n"
           "handle.0 0\ncc.0 0 9 0\nhandle.1 0\ncc.1 3\nshutdown 0\n";
  }
  ScopedEnv env;
  env.unset(std::string(vwheel::provider::nvidia::kForceCudaDriverVersionEnv));
  env.unset(std::string(vwheel::provider::nvidia::kForceSmArchEnv));
  env.set(std::string(vwheel::provider::nvidia::kNvmlLibraryEnv), kFakeNvml);
  env.set("FAKE_NVML_CASE", (dir / "source-case.txt").string());
  env.unset("FAKE_NVML_LOG");
  const auto d = vwheel::provider::make_nvidia_provider()->detect();
  EXPECT_EQ(d.source, "NVML (driver 550.54.15): CUDA 12.4, 2 GPUs: sm 9.0, ?");
  EXPECT_NE(join_lines(d.notes).find("GPU 1: nvmlDeviceGetCudaComputeCapability failed: NVML_ERROR_NOT_SUPPORTED (3)"),
            std::string::npos)
      << join_lines(d.notes);
  ASSERT_EQ(d.supported.size(), 3U);
}

}  // namespace
