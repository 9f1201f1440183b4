// The Python provider's environment creation, driven by a fake interpreter (a shell script):
// failed creations and installs leave nothing, timeouts, concurrent runs sharing one
// environment, leftovers of a killed creation, and cache folders refused before anything runs.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "python_provider_test_util.hpp"
#include "shared_data.hpp"
#include "vwheel/core/process.hpp"
#include "vwheel/provider/python.hpp"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using vwheel::provider::ProviderMethod;
using vwheel::provider::PythonProviderOptions;
using vwheel::provider::run_python_provider;
using vwheel::provider::test::count_entries;
using vwheel::provider::test::kNs;
using vwheel::provider::test::ScratchDir;
using vwheel::variant::FeatureConfig;

namespace {

// ---- environment creation with a fake interpreter ------------------------------------------

/// A shell script standing in for python: answers the interpreter probe, makes a fake environment
/// (whose bin/python is a copy of itself) and prints a canned answer for the loader.
class PythonProviderFake : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* path = std::getenv("PATH");
    if (!vwheel::find_executable("sh", path != nullptr ? path : "")) GTEST_SKIP() << "no sh";
    cache_ = scratch_.path() / "cache";
    counter_ = scratch_.path() / "created";
  }

  /// Writes the fake interpreter; `venv_step` and `pip_step` are shell snippets for
  /// `-m venv DIR` ($4 = DIR) and `-m pip install ...`.
  fs::path write_fake(const std::string& venv_step, const std::string& pip_step) {
    const fs::path fake = scratch_.path() / "fake-python";
    std::ofstream(fake) << fmt::format(
        "#!/bin/sh\n"
        "if [ \"$3\" = -c ]; then printf '{}' \"$0\" \"$0\"; exit 0; fi\n"
        "if [ \"$2 $3\" = '-m venv' ]; then echo created >> '{}'; {}; fi\n"
        "if [ \"$2 $3\" = '-m pip' ]; then {}; fi\n"
        "if [ \"$2\" = -B ]; then printf '%s' '{}'; exit 0; fi\n"
        "echo \"fake python: unexpected $*\" >&2; exit 9\n",
        kQueryAnswer, counter_.string(), venv_step, pip_step,
        R"({"namespace": "fictional_hw", "configs": [{"name": "gpu", "values": ["zort"], "multi_value": true}]})");
    fs::permissions(fake, fs::perms::owner_all);
    return fake;
  }

  [[nodiscard]] PythonProviderOptions options(const fs::path& fake) const {
    PythonProviderOptions o;
    o.cache_dir = cache_;
    o.python = fake.string();
    o.allowed = {kNs};
    o.timeout = 10s;
    o.install_timeout = 20s;
    return o;
  }

  [[nodiscard]] std::size_t creations() const {
    const std::string text = vwheel::testing::read_file(counter_);
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  }

  /// What python::query_interpreter reads (`%s`: sys.executable, then its real path).
  static constexpr const char* kQueryAnswer =
      R"({"environment": {"implementation_name": "fake"}, "paths": {}, "prefix": "/", "base_prefix": "/", )"
      R"("implementation": "fake", "version": [3, 99], "micro": 0, "releaselevel": "final", "abiflags": "", )"
      R"("gil_disabled": false, "platform": "linux-x86_64", "libc": ["", ""], "executable": "%s", )"
      R"("real_executable": "%s"})";

  static constexpr const char* kMakeVenv = "mkdir -p \"$4/bin\" && cp \"$0\" \"$4/bin/python\" && exit 0";

  ScratchDir scratch_;
  fs::path cache_;
  fs::path counter_;
};

TEST_F(PythonProviderFake, FailedVenvCreationLeavesNothing) {
  const auto fake =
      write_fake("mkdir -p \"$4/bin\"; touch \"$4/half-made\"; echo 'Error: fake venv failure' >&2; exit 1", "exit 0");
  const auto r =
      run_python_provider({kNs, {"fixture-provider"}, std::nullopt}, options(fake), ProviderMethod::supported_configs);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("python provider `fictional_hw`: cannot create a virtual environment: " +
                                    fake.string() + " -m venv "),
            std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find(": failed (exit 1): Error: fake venv failure"), std::string::npos)
      << r.error().message;
  EXPECT_EQ(count_entries(cache_, "venv-"), 0U);
  EXPECT_EQ(count_entries(cache_, ".tmp-"), 0U);
}

TEST_F(PythonProviderFake, FailedInstallLeavesNothing) {
  const auto fake =
      write_fake(kMakeVenv, "echo 'ERROR: No matching distribution found for fixture-provider' >&2; exit 1");
  const auto r =
      run_python_provider({kNs, {"fixture-provider"}, std::nullopt}, options(fake), ProviderMethod::supported_configs);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "python provider `fictional_hw`: pip install fixture-provider failed: ERROR: No matching distribution "
            "found for fixture-provider");
  EXPECT_EQ(count_entries(cache_, "venv-"), 0U);
  EXPECT_EQ(count_entries(cache_, ".tmp-"), 0U);
  // The next attempt starts afresh.
  EXPECT_EQ(creations(), 1U);
  EXPECT_FALSE(
      run_python_provider({kNs, {"fixture-provider"}, std::nullopt}, options(fake), ProviderMethod::supported_configs));
  EXPECT_EQ(creations(), 2U);
}

TEST_F(PythonProviderFake, InstallTimeout) {
  const auto fake = write_fake(kMakeVenv, "sleep 30");
  auto o = options(fake);
  o.install_timeout = 1s;
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_python_provider({kNs, {"fixture-provider"}, std::nullopt}, o, ProviderMethod::supported_configs);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("pip install fixture-provider failed: timed out after 1000 ms"), std::string::npos)
      << r.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 6s);
  EXPECT_EQ(count_entries(cache_, ".tmp-"), 0U);
}

TEST_F(PythonProviderFake, ConcurrentRunsShareOneEnvironment) {
  const auto fake = write_fake(std::string("sleep 0.3; ") + kMakeVenv, "exit 0");
  constexpr int kThreads = 4;
  std::vector<vwheel::Result<std::vector<FeatureConfig>>> results(kThreads);
  std::vector<std::thread> threads;
  const auto o = options(fake);
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      results[static_cast<std::size_t>(i)] = run_python_provider(
          {kNs, {"b-req", "fixture-provider"}, "fixture_provider:GoodPlugin"}, o, ProviderMethod::supported_configs);
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& r : results) {
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(*r, (std::vector<FeatureConfig>{{"gpu", {"zort"}, true}}));
  }
  EXPECT_EQ(creations(), 1U);
  EXPECT_EQ(count_entries(cache_, "venv-"), 1U);
  EXPECT_EQ(count_entries(cache_, ".tmp-"), 0U);
  // Requirements in another order: the same environment.
  ASSERT_TRUE(run_python_provider({kNs, {"fixture-provider", "b-req"}, "fixture_provider:GoodPlugin"}, o,
                                  ProviderMethod::supported_configs));
  EXPECT_EQ(creations(), 1U);
}

TEST_F(PythonProviderFake, LeftoversOfAKilledCreationAreReplaced) {
  const auto fake = write_fake(kMakeVenv, "exit 0");
  const auto o = options(fake);
  ASSERT_TRUE(run_python_provider({kNs, {"fixture-provider"}, std::nullopt}, o, ProviderMethod::supported_configs));
  fs::path venv;
  for (const auto& entry : fs::directory_iterator(cache_)) {
    if (entry.path().filename().string().rfind("venv-", 0) == 0) venv = entry.path();
  }
  // A half-made temporary folder, and an environment without vwheel's key file.
  fs::create_directories(cache_ / (".tmp-" + venv.filename().string() + "-abcdef") / "bin");
  fs::remove(venv / "vwheel-venv-key");
  ASSERT_TRUE(run_python_provider({kNs, {"fixture-provider"}, std::nullopt}, o, ProviderMethod::supported_configs));
  EXPECT_EQ(creations(), 2U);
  EXPECT_TRUE(fs::exists(venv / "vwheel-venv-key"));
  EXPECT_EQ(count_entries(cache_, ".tmp-"), 0U);
  EXPECT_EQ(count_entries(cache_, ".trash-"), 0U);
}

TEST_F(PythonProviderFake, RelativeCacheFolder) {
  const auto fake = write_fake(kMakeVenv, "exit 0");
  auto o = options(fake);
  o.cache_dir = "relative-cache";
  const fs::path before = fs::current_path();
  fs::current_path(scratch_.path());
  const auto r = run_python_provider({kNs, {"fixture-provider"}, std::nullopt}, o, ProviderMethod::supported_configs);
  fs::current_path(before);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(count_entries(scratch_.path() / "relative-cache", "venv-"), 1U);
}

TEST_F(PythonProviderFake, UnsafeCacheFolderIsRefused) {
  const auto fake = write_fake(kMakeVenv, "exit 0");
  fs::create_directories(cache_);
  fs::permissions(cache_, fs::perms::all);
  const auto r =
      run_python_provider({kNs, {"fixture-provider"}, std::nullopt}, options(fake), ProviderMethod::supported_configs);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("is writable by other users"), std::string::npos) << r.error().message;
  EXPECT_FALSE(fs::exists(counter_));
}

TEST_F(PythonProviderFake, BadInputsAreRefusedBeforeRunning) {
  const auto fake = write_fake(kMakeVenv, "exit 0");
  auto o = options(fake);
  for (const auto& reqs : {std::vector<std::string>{}, std::vector<std::string>{"--index-url=http://evil"},
                           std::vector<std::string>{"fixture-provider", "not a requirement"}}) {
    const auto r = run_python_provider({kNs, reqs, "fixture_provider"}, o, ProviderMethod::supported_configs);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message.rfind("python provider `fictional_hw`: ", 0), 0U) << r.error().message;
  }
  o.extra_env = {{"A=B", "c"}};
  const auto bad_env = run_python_provider({kNs, {"fixture-provider"}, std::nullopt}, o, ProviderMethod::all_configs);
  ASSERT_FALSE(bad_env);
  EXPECT_NE(bad_env.error().message.find("invalid environment variable name `A=B`"), std::string::npos);
  o.extra_env.clear();
  o.allowed = {"Bad NS"};
  EXPECT_FALSE(run_python_provider({"Bad NS", {"fixture-provider"}, std::nullopt}, o, ProviderMethod::all_configs));
  o.python = "/nonexistent/python3";
  o.allowed = {kNs};
  const auto r = run_python_provider({kNs, {"fixture-provider"}, std::nullopt}, o, ProviderMethod::all_configs);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "python provider `fictional_hw`: interpreter `/nonexistent/python3` not found");
  EXPECT_FALSE(fs::exists(counter_));
}

}  // namespace
