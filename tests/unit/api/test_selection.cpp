// api::make_selection: the one place a run's selection is built (profile or detection,
// configuration, interpreter, abi_dependency values, --variant choices).

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "fake_interpreter.hpp"
#include "vwheel/api/selection.hpp"

namespace fs = std::filesystem;
using namespace vwheel;

namespace {

class SelectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("vwheel-selection-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    // No user configuration from the machine running the tests.
    ::setenv("VWHEEL_CONFIG", (root_ / "none.toml").c_str(), 1);
    std::ofstream(root_ / "none.toml") << "";
    ::unsetenv("VARIANT_ABI_DEPENDENCY");
  }
  void TearDown() override {
    ::unsetenv("VWHEEL_CONFIG");
    fs::remove_all(root_);
  }
  fs::path profile(const std::string& json) {
    const auto p = root_ / "target.json";
    std::ofstream(p) << json;
    return p;
  }
  fs::path root_;
};

python::Interpreter interpreter(const std::string& full_version) { return test_support::fake_interpreter(full_version); }

}  // namespace

TEST_F(SelectionTest, TargetProfileEnvironmentAndTagsReplaceTheInterpreters) {
  api::SelectionRequest req;
  req.profiles = {profile(
      R"({"properties": {}, "environment": {"python_version": "3.8", "sys_platform": "linux"},
          "tags": ["cp38-cp38-manylinux_2_17_x86_64", "py3-none-any"]})")};
  const auto interp = interpreter("3.11.2");
  for (const python::Interpreter* i : {&interp, static_cast<const python::Interpreter*>(nullptr)}) {
    auto s = api::make_selection(req, i);
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_EQ(s->tags(), (std::vector<std::string>{"cp38-cp38-manylinux_2_17_x86_64", "py3-none-any"}));
    EXPECT_EQ(s->python_version(), "3.8");
    EXPECT_EQ(s->environment_source, "target profile " + req.profiles.front().string());
    EXPECT_EQ(s->description, "target profile " + req.profiles.front().string());
    EXPECT_TRUE(s->from_profile);
    auto r = s->check_requires_python(">=3.10", "modern-1.0-py3-none-any.whl");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message, "modern-1.0-py3-none-any.whl: Requires-Python `>=3.10` excludes Python 3.8 (of the target profile " +
                                     req.profiles.front().string() + ")");
  }
  // A profile without a Python version in its environment leaves the interpreter's.
  req.profiles = {profile(R"({"properties": {}, "environment": {"sys_platform": "linux"}})")};
  auto s = api::make_selection(req, &interp);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->python_version(), "3.11.2");
  EXPECT_EQ(s->environment_source, "interpreter /opt/python/bin/python3");
  EXPECT_EQ(s->tags(), interp.tags);
}

TEST_F(SelectionTest, AbiDependencyValuesInstalledThenProfileThenEnvironmentThenOption) {
  api::SelectionRequest req;
  req.profiles = {profile(R"({"properties": {"abi_dependency": [
      {"name": "torch", "values": ["2", "2.9", "2.9.0"], "multi_value": true},
      {"name": "jax_lib", "values": ["0.4"], "multi_value": true}]}})")};
  ::setenv("VARIANT_ABI_DEPENDENCY", "numpy==2.1.0", 1);
  req.abi_dependencies = {"torch==2.10.1"};
  auto s = api::make_selection(req, nullptr, {{"numpy", "1.26.4"}});
  ::unsetenv("VARIANT_ABI_DEPENDENCY");
  ASSERT_TRUE(s) << s.error().message;
  const std::vector<std::pair<std::string, std::string>> expected{
      {"numpy", "1.26.4"}, {"torch", "2.9.0"}, {"jax_lib", "0.4"}, {"numpy", "2.1.0"}, {"torch", "2.10.1"}};
  EXPECT_EQ(s->abi_dependencies, expected);
  // The namespace is not answered by the profile's table: the values above give it.
  EXPECT_FALSE(s->supported.contains("abi_dependency"));

  req.abi_dependencies = {"torch"};
  auto bad = api::make_selection(req, nullptr);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "--abi-dependency `torch`: expected NAME==VERSION");
  EXPECT_EQ(bad.error().kind, ErrorKind::input);
}

TEST_F(SelectionTest, VariantChoicesAreCanonicalAndMalformedOnesAreUsageErrors) {
  api::SelectionRequest req;
  req.profiles = {profile(R"({"properties": {}})")};
  req.variants = {"Torch_Vision=cu128", "numpy=null"};
  req.no_variants = true;
  auto s = api::make_selection(req, nullptr);
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_NE(s->forced_label("torch-vision"), nullptr);
  EXPECT_EQ(*s->forced_label("torch-vision"), "cu128");
  EXPECT_EQ(*s->forced_label("numpy"), "null");
  EXPECT_EQ(s->forced_label("torch"), nullptr);
  EXPECT_TRUE(s->no_variants);
  req.variants = {"torch"};
  auto bad = api::make_selection(req, nullptr);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "--variant `torch`: expected NAME=LABEL (e.g. torch=cu128)");
  EXPECT_EQ(bad.error().kind, ErrorKind::usage);
}

TEST_F(SelectionTest, UniversalSelectionDetectsNothingAndKeepsTheInterpreter) {
  api::SelectionRequest req;
  req.universal = true;
  req.profiles = {root_ / "never-read.json"};  // a universal selection reads no profile
  const auto interp = interpreter("3.12.1");
  auto s = api::make_selection(req, &interp);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->description, "every variant");
  EXPECT_EQ(s->oracle, nullptr);
  EXPECT_EQ(s->python_version(), "3.12.1");
  EXPECT_EQ(s->tags(), interp.tags);
}

TEST_F(SelectionTest, ProfileErrorsNameTheFile) {
  api::SelectionRequest req;
  req.profiles = {profile(R"({"properties": {"nvidia": "12.8"}})")};
  auto s = api::make_selection(req, nullptr);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message.rfind(req.profiles.front().string() + ": ", 0), 0u) << s.error().message;
  req.profiles = {root_ / "missing.json"};
  auto missing = api::make_selection(req, nullptr);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("missing.json"), std::string::npos) << missing.error().message;
}

TEST_F(SelectionTest, SeveralProfilesAreLaidOverEachOtherInOrder) {
  const auto first = root_ / "first.json";
  const auto second = root_ / "second.json";
  std::ofstream(first) << R"({"properties": {
      "nvidia": [{"name": "cuda_version_lower_bound", "values": ["12.6"], "multi_value": false}],
      "x86_64": [{"name": "level", "values": ["v3", "v2", "v1"], "multi_value": false}]},
    "environment": {"python_version": "3.11", "sys_platform": "linux"}, "tags": ["py3-none-any"]})";
  std::ofstream(second) << R"({"properties": {
      "nvidia": [{"name": "cuda_version_lower_bound", "values": ["12.8", "12.7"], "multi_value": false}]}})";
  api::SelectionRequest req;
  req.profiles = {first, second};
  auto s = api::make_selection(req, nullptr);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->description, "target profiles " + first.string() + ", " + second.string());
  EXPECT_TRUE(s->from_profile);
  EXPECT_EQ(s->supported.at("nvidia").front().values, (std::vector<std::string>{"12.8", "12.7"}));
  EXPECT_EQ(s->supported.at("x86_64").front().values.front(), "v3");
  EXPECT_EQ(s->property_sources.at("nvidia"), "target profile " + second.string());
  EXPECT_EQ(s->property_sources.at("x86_64"), "target profile " + first.string());
  EXPECT_EQ(s->environment_source, "target profile " + first.string());
  EXPECT_EQ(s->python_version(), "3.11");
  // Without `detect`, a namespace no file lists is unsupported: nothing is detected.
  std::string note;
  auto answer = s->oracle->supported("amd", nullptr, note);
  ASSERT_TRUE(answer);
  EXPECT_FALSE(answer->has_value());
  EXPECT_NE(note.find("lists no properties"), std::string::npos) << note;

  // The other order: the first file's nvidia wins.
  req.profiles = {second, first};
  auto r = api::make_selection(req, nullptr);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->supported.at("nvidia").front().values, (std::vector<std::string>{"12.6"}));
  EXPECT_EQ(r->property_sources.at("nvidia"), "target profile " + first.string());
}

TEST_F(SelectionTest, DetectTrueDetectsTheNamespacesTheProfilesDoNotList) {
  // This machine's GPUs hidden, its CPU read from a fixed file: detection is deterministic.
  const auto cpuinfo = root_ / "cpuinfo";
  std::ofstream(cpuinfo) << "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 60\nflags\t\t: fpu cx8 cmov mmx fxsr sse sse2 syscall lm cx16 lahf_lm popcnt pni ssse3 sse4_1 sse4_2\n\n";
  ::setenv("VWHEEL_PROC_CPUINFO", cpuinfo.c_str(), 1);
  ::setenv("VWHEEL_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  ::setenv("VWHEEL_ZE_LOADER_LIBRARY", "/nonexistent/libze_loader.so.1", 1);
  ::setenv("VWHEEL_SYSFS_ROOT", root_.c_str(), 1);
  const auto cuda = root_ / "cuda.json";
  std::ofstream(cuda) << R"({"detect": true, "properties": {
      "nvidia": [{"name": "cuda_version_lower_bound", "values": ["12.8"], "multi_value": false},
                 {"name": "sm_arch", "values": ["90_real"], "multi_value": true}]}})";
  api::SelectionRequest req;
  req.profiles = {cuda};
  req.no_cache = true;
  auto s = api::make_selection(req, nullptr);
  ::unsetenv("VWHEEL_PROC_CPUINFO");
  ::unsetenv("VWHEEL_NVML_LIBRARY");
  ::unsetenv("VWHEEL_ZE_LOADER_LIBRARY");
  ::unsetenv("VWHEEL_SYSFS_ROOT");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->description, "target profile " + cuda.string() + " (namespaces not listed: this machine, detected)");
  // No environment in the profile: this machine's (detected) variables, as without a profile.
  EXPECT_FALSE(s->from_profile);
  EXPECT_EQ(s->environment.at("sys_platform"), "linux");
  // The profile answers nvidia although no NVIDIA library exists here ...
  EXPECT_EQ(s->property_sources.at("nvidia"), "target profile " + cuda.string());
  std::string note;
  auto nvidia = s->oracle->supported("nvidia", nullptr, note);
  ASSERT_TRUE(nvidia && nvidia->has_value());
  EXPECT_EQ((**nvidia)[1].values, (std::vector<std::string>{"90_real"}));
  // ... and detection's note about the missing library is not shown for it.
  for (const auto& n : s->notes) EXPECT_NE(n.rfind("nvidia:", 0), 0U) << n;
  // x86_64 is detected from the cpuinfo file.
  ASSERT_TRUE(s->property_sources.contains("x86_64")) << testing::PrintToString(s->notes);
  EXPECT_EQ(s->property_sources.at("x86_64").rfind("detected: ", 0), 0U) << s->property_sources.at("x86_64");
  auto x86 = s->oracle->supported("x86_64", nullptr, note);
  ASSERT_TRUE(x86 && x86->has_value());
  EXPECT_EQ(**x86, s->supported.at("x86_64"));
  // An unknown namespace goes to detection (and its Python-provider policy), not to the table.
  note.clear();
  auto other = s->oracle->supported("quantum", nullptr, note);
  ASSERT_TRUE(other);
  EXPECT_FALSE(other->has_value());
  EXPECT_NE(note.find("--allow-python-provider quantum"), std::string::npos) << note;
}

TEST_F(SelectionTest, DetectMustBeABooleanAndALaterFileMayTurnItOff) {
  const auto on = root_ / "on.json";
  const auto off = root_ / "off.json";
  const auto bad = root_ / "bad.json";
  std::ofstream(on) << R"({"detect": true, "properties": {}})";
  std::ofstream(off) << R"({"detect": false, "properties": {}})";
  std::ofstream(bad) << R"({"detect": "yes", "properties": {}})";
  api::SelectionRequest req;
  req.profiles = {on, off};
  auto s = api::make_selection(req, nullptr);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_TRUE(s->from_profile);
  EXPECT_EQ(s->keepalive, nullptr);  // nothing was detected
  req.profiles = {on, bad};
  auto e = api::make_selection(req, nullptr);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().message, bad.string() + ": detect: expected true or false, got \"yes\"");
}
