// The frontend runs a backend with the build environment and the variant wheels coming from its
// caller's `BuildServices`: a tiny in-tree backend (plain Python, no requirements) and services
// that only record what they were asked.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "vwheel/build/frontend.hpp"

namespace vwheel::build {
namespace {
namespace fs = std::filesystem;

constexpr const char* kPyproject = R"(
[build-system]
requires = ["base-req"]
build-backend = "tiny_backend"
backend-path = ["_backend"]

[project]
name = "demo"
version = "1.0"

[variant.default-priorities]
namespace = ["x86_64"]

[variant.variants.v1]
x86_64.level = ["v1"]
)";

// Asks for one more requirement and writes a minimal wheel that passes an installer's checks.
constexpr const char* kBackend = R"PY(
import base64, hashlib, os, zipfile
def get_requires_for_build_wheel(config_settings=None):
    return ["extra-req>=1"]
def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = "demo-1.0-py3-none-any.whl"
    files = {
        "demo/__init__.py": b"",
        "demo-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n",
        "demo-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: tiny\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as z:
        for path, data in files.items():
            z.writestr(path, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append("%s,sha256=%s,%d" % (path, digest, len(data)))
        record.append("demo-1.0.dist-info/RECORD,,")
        z.writestr("demo-1.0.dist-info/RECORD", "\n".join(record) + "\n")
    return name
)PY";

// Records the calls; the environment is the base interpreter itself, and no variant wheel is made.
class RecordingServices final : public BuildServices {
 public:
  Result<fs::path> create_environment(const fs::path& dir, const fs::path& base) override {
    environments.push_back(dir);
    return base;
  }
  Result<void> install(const fs::path& /*python*/, const std::vector<std::string>& requirements) override {
    installs.push_back(requirements);
    return {};
  }
  Result<fs::path> make_variant(const VariantWheelRequest& request, std::vector<std::string>& warnings) override {
    made.push_back(request.job->label);
    has_table = request.variant_table.has_value();
    warnings = {"a note about the variant", "pyproject.toml: variant.variants: must not be given in this file"};
    return fail("no variant wheels today");
  }

  std::vector<fs::path> environments;
  std::vector<std::vector<std::string>> installs;
  std::vector<std::string> made;
  bool has_table = false;
};

class Frontend : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vwheel-build-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "src" / "_backend");
    std::ofstream(dir_ / "src" / "pyproject.toml") << kPyproject;
    std::ofstream(dir_ / "src" / "_backend" / "tiny_backend.py") << kBackend;
    request_.source = dir_ / "src";
    request_.output_dir = dir_ / "dist";
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  BuildRequest request_;
};

TEST_F(Frontend, IsolatedBuildsGetTheirEnvironmentAndRequirementsFromTheServices) {
  RecordingServices services;
  auto report = build_project(request_, services);
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->outcomes.size(), 1U);
  const auto& outcome = report->outcomes.front();
  ASSERT_TRUE(outcome.wheel) << outcome.wheel.error().message;
  EXPECT_EQ(*outcome.wheel, dir_ / "dist" / "demo-1.0-py3-none-any.whl");
  EXPECT_TRUE(fs::is_regular_file(*outcome.wheel));
  ASSERT_EQ(services.environments.size(), 1U);
  EXPECT_EQ(services.environments.front().filename(), "env");
  // [build-system] requires first, then what get_requires_for_build_wheel added.
  EXPECT_EQ(services.installs, (std::vector<std::vector<std::string>>{{"base-req"}, {"extra-req>=1"}}));
  EXPECT_TRUE(services.made.empty());
  EXPECT_EQ(report->failed(), 0U);
}

TEST_F(Frontend, WithoutIsolationTheServicesAreNotAskedAndMissingRequirementsFail) {
  request_.no_isolation = true;
  RecordingServices services;
  auto report = build_project(request_, services);
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->outcomes.size(), 1U);
  ASSERT_FALSE(report->outcomes.front().wheel);
  EXPECT_NE(report->outcomes.front().wheel.error().message.find("base-req"), std::string::npos)
      << report->outcomes.front().wheel.error().message;
  EXPECT_TRUE(services.environments.empty());
  EXPECT_TRUE(services.installs.empty());
}

TEST_F(Frontend, APlainWheelBecomesTheVariantWheelThroughTheServices) {
  request_.selection.labels = {"v1"};
  RecordingServices services;
  auto report = build_project(request_, services);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(services.made, std::vector<std::string>{"v1"});
  EXPECT_TRUE(services.has_table);
  ASSERT_EQ(report->outcomes.size(), 1U);
  ASSERT_FALSE(report->outcomes.front().wheel);
  EXPECT_EQ(report->outcomes.front().wheel.error().message, "variant `v1`: no variant wheels today");
  // The metadata reader's note about [variant.variants] is vwheel's own business here.
  EXPECT_EQ(report->warnings, std::vector<std::string>{"a note about the variant"});
  EXPECT_FALSE(fs::exists(dir_ / "dist" / "demo-1.0-py3-none-any.whl"));
}

}  // namespace
}  // namespace vwheel::build
