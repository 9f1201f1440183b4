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
  req.profile = profile(
      R"({"properties": {}, "environment": {"python_version": "3.8", "sys_platform": "linux"},
          "tags": ["cp38-cp38-manylinux_2_17_x86_64", "py3-none-any"]})");
  const auto interp = interpreter("3.11.2");
  for (const python::Interpreter* i : {&interp, static_cast<const python::Interpreter*>(nullptr)}) {
    auto s = api::make_selection(req, i);
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_EQ(s->tags(), (std::vector<std::string>{"cp38-cp38-manylinux_2_17_x86_64", "py3-none-any"}));
    EXPECT_EQ(s->python_version(), "3.8");
    EXPECT_EQ(s->environment_source, "target profile " + req.profile->string());
    EXPECT_EQ(s->description, "target profile " + req.profile->string());
    EXPECT_TRUE(s->from_profile);
    auto r = s->check_requires_python(">=3.10", "modern-1.0-py3-none-any.whl");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message, "modern-1.0-py3-none-any.whl: Requires-Python `>=3.10` excludes Python 3.8 (of the target profile " +
                                     req.profile->string() + ")");
  }
  // A profile without a Python version in its environment leaves the interpreter's.
  req.profile = profile(R"({"properties": {}, "environment": {"sys_platform": "linux"}})");
  auto s = api::make_selection(req, &interp);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->python_version(), "3.11.2");
  EXPECT_EQ(s->environment_source, "interpreter /opt/python/bin/python3");
  EXPECT_EQ(s->tags(), interp.tags);
}

TEST_F(SelectionTest, AbiDependencyValuesInstalledThenProfileThenEnvironmentThenOption) {
  api::SelectionRequest req;
  req.profile = profile(R"({"properties": {"abi_dependency": [
      {"name": "torch", "values": ["2", "2.9", "2.9.0"], "multi_value": true},
      {"name": "jax_lib", "values": ["0.4"], "multi_value": true}]}})");
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
  req.profile = profile(R"({"properties": {}})");
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
  req.profile = root_ / "never-read.json";  // a universal selection reads no profile
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
  req.profile = profile(R"({"properties": {"nvidia": "12.8"}})");
  auto s = api::make_selection(req, nullptr);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message.rfind(req.profile->string() + ": ", 0), 0u) << s.error().message;
  req.profile = root_ / "missing.json";
  auto missing = api::make_selection(req, nullptr);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("missing.json"), std::string::npos) << missing.error().message;
}
