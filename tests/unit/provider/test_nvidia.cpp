// The nvidia provider's decision function (no NVML involved): worked examples of providers.md §3.6,
// the override parsing, the reference's exceptions, and NVML's laziness.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "provider/gpu_util.hpp"
#include "vwheel/provider/gpu.hpp"

namespace {

using vwheel::provider::ReferenceAnswer;
using vwheel::provider::nvidia::ComputeCapability;
using vwheel::provider::nvidia::NvmlSnapshot;
using vwheel::provider::nvidia::Overrides;
using vwheel::provider::nvidia::supported_configs_from;

NvmlSnapshot snapshot(std::optional<int> cuda, std::vector<ComputeCapability> caps) {
  NvmlSnapshot s;
  s.driver_version = "580.65.06";
  s.cuda_driver_version = cuda;
  s.device_count = static_cast<unsigned>(caps.size());
  s.compute_capabilities = std::move(caps);
  return s;
}

Overrides forced(std::optional<std::string> cuda, std::optional<std::string> sm) {
  Overrides o;
  o.cuda_driver_version = std::move(cuda);
  o.sm_arch = std::move(sm);
  return o;
}

const vwheel::variant::FeatureConfig* feature(const ReferenceAnswer& a, const std::string& name) {
  for (const auto& c : a.supported) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::string error_of(const vwheel::Result<ReferenceAnswer>& r) {
  return r ? std::string("<no error>") : r.error().message;
}

TEST(NvidiaAlgorithm, ScenarioB_Cuda124_A100) {
  const auto r = supported_configs_from(snapshot(12040, {{8, 0}}), Overrides{});
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->supported.size(), 3U);
  const auto& lower = r->supported[0];
  EXPECT_EQ(lower.name, "cuda_version_lower_bound");
  EXPECT_FALSE(lower.multi_value);
  ASSERT_EQ(lower.values.size(), 28U);
  EXPECT_EQ(lower.values.front(), "12.4");
  EXPECT_EQ(lower.values[5], "12");
  EXPECT_EQ(lower.values[6], "11.20");
  EXPECT_EQ(lower.values.back(), "11");
  const auto& upper = r->supported[1];
  EXPECT_EQ(upper.name, "cuda_version_upper_bound");
  ASSERT_EQ(upper.values.size(), 82U);
  EXPECT_EQ(upper.values.front(), "15.20");
  EXPECT_EQ(upper.values[21], "15");
  EXPECT_EQ(upper.values.back(), "12.5");
  const auto& sm = r->supported[2];
  EXPECT_EQ(sm.name, "sm_arch");
  EXPECT_TRUE(sm.multi_value);
  EXPECT_EQ(sm.values, (std::vector<std::string>{"80_real", "80_virtual"}));
  EXPECT_TRUE(r->warnings.empty());
}

TEST(NvidiaAlgorithm, OnlyTheHighestCapabilityCounts) {
  const auto r = supported_configs_from(snapshot(12070, {{7, 5}, {8, 9}, {8, 9}, {9, 0}}), Overrides{});
  ASSERT_TRUE(r);
  EXPECT_EQ(feature(*r, "sm_arch")->values, (std::vector<std::string>{"90_real", "90_virtual"}));
  const auto f = supported_configs_from(snapshot(12060, {{8, 9}}), Overrides{});
  ASSERT_TRUE(f);
  const auto& values = feature(*f, "sm_arch")->values;
  ASSERT_EQ(values.size(), 11U);
  EXPECT_EQ(values.front(), "89_real");
  EXPECT_EQ(values[9], "80_real");
  EXPECT_EQ(values.back(), "80_virtual");
}

TEST(NvidiaAlgorithm, RangeEdges) {
  // 15.20 detected: no upper bound at all.
  auto r = supported_configs_from(snapshot(15200, {{9, 0}}), Overrides{});
  ASSERT_TRUE(r);
  EXPECT_EQ(feature(*r, "cuda_version_upper_bound"), nullptr);
  EXPECT_EQ(feature(*r, "cuda_version_lower_bound")->values.size(), 110U);
  // Outside [11.0, 15.20]: warning, nothing.
  for (const int v : {10090, 15210, 16000, 0}) {
    r = supported_configs_from(snapshot(v, {{9, 0}}), Overrides{});
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->supported.empty()) << v;
    ASSERT_EQ(r->warnings.size(), 1U);
    EXPECT_NE(r->warnings[0].find("is outside the supported range: `>=11.0,<=15.20`."), std::string::npos);
  }
  r = supported_configs_from(snapshot(12085, {{9, 0}}), Overrides{});
  ASSERT_TRUE(r);
  EXPECT_EQ(feature(*r, "cuda_version_lower_bound")->values.front(), "12.8");
}

TEST(NvidiaAlgorithm, NoCudaVersionWarns) {
  const auto r = supported_configs_from(snapshot(std::nullopt, {{9, 0}}), Overrides{});
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->supported.empty());
  ASSERT_EQ(r->warnings.size(), 1U);
  EXPECT_EQ(r->warnings[0],
            "No UMD version found. NVIDIA platform is not supported or properly installed on this machine.");
}

TEST(NvidiaAlgorithm, NoNvmlNoProperties) {
  const auto r = supported_configs_from(std::nullopt, Overrides{});
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->supported.empty());
  EXPECT_TRUE(r->warnings.empty());
}

TEST(NvidiaAlgorithm, ZeroGpusRaisesIndexError) {
  EXPECT_EQ(error_of(supported_configs_from(snapshot(12080, {}), Overrides{})), "IndexError: list index out of range");
  // Even with the CUDA override: the capability still comes from NVML.
  EXPECT_EQ(error_of(supported_configs_from(snapshot(12080, {}), forced("12.9", std::nullopt))),
            "IndexError: list index out of range");
  // Both overrides: fine.
  EXPECT_TRUE(supported_configs_from(snapshot(12080, {}), forced("12.9", "9.0")));
}

TEST(NvidiaAlgorithm, OldGpuWarnsWithoutSmFeature) {
  const auto r = supported_configs_from(snapshot(11040, {{3, 7}}), Overrides{});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->supported.size(), 2U);
  EXPECT_EQ(feature(*r, "cuda_version_lower_bound")->values,
            (std::vector<std::string>{"11.4", "11.3", "11.2", "11.1", "11.0", "11"}));
  ASSERT_EQ(r->warnings.size(), 1U);
  EXPECT_EQ(r->warnings[0],
            "The SM version is lower than the lowest SM architecture supported by the NVIDIA Variant Plugin: 3.7. "
            "NVIDIA platform detection may not work as expected.");
}

TEST(NvidiaAlgorithm, ForcedCudaVersionIsPep440) {
  for (const char* text : {"12.7", "12.7.1", "12.7rc1", "1!12.7", " v12.07 ", "12.7+local", "V12.7.post1.dev2"}) {
    const auto r = supported_configs_from(std::nullopt, forced(text, "9.0"));
    ASSERT_TRUE(r) << text << ": " << r.error().message;
    EXPECT_EQ(feature(*r, "cuda_version_lower_bound")->values.front(), "12.7") << text;
    EXPECT_EQ(feature(*r, "cuda_version_lower_bound")->values.size(), 31U) << text;
  }
  const auto twelve = supported_configs_from(std::nullopt, forced("12", "9.0"));
  ASSERT_TRUE(twelve);
  EXPECT_EQ(feature(*twelve, "cuda_version_lower_bound")->values.front(), "12.0");
  for (const char* bad : {"abc", "   ", "12.7-", "..", "12,7"}) {
    EXPECT_EQ(error_of(supported_configs_from(std::nullopt, forced(bad, "9.0"))),
              "InvalidVersion: Invalid version: " + vwheel::provider::gpu_detail::python_repr(bad))
        << bad;
  }
}

TEST(NvidiaAlgorithm, ForcedOutOfRangeVersions) {
  auto r = supported_configs_from(std::nullopt, forced("16.25", "12.5"));
  ASSERT_TRUE(r);
  EXPECT_EQ(feature(*r, "cuda_version_lower_bound")->values.size(), 137U);
  EXPECT_EQ(feature(*r, "cuda_version_upper_bound"), nullptr);
  r = supported_configs_from(std::nullopt, forced("10.9", "12.5"));
  ASSERT_TRUE(r);
  EXPECT_EQ(feature(*r, "cuda_version_lower_bound"), nullptr);
  EXPECT_EQ(feature(*r, "cuda_version_upper_bound")->values.size(), 121U);
  EXPECT_EQ(feature(*r, "cuda_version_upper_bound")->values.back(), "10.10");
  EXPECT_EQ(feature(*r, "sm_arch")->values.front(), "125_real");
  // Above vwheel's limit: refused rather than listing millions of values.
  EXPECT_NE(error_of(supported_configs_from(std::nullopt, forced("99999999999.0", "9.0"))).find("vwheel:"),
            std::string::npos);
  EXPECT_NE(error_of(supported_configs_from(std::nullopt, forced("12.8", "9.100000"))).find("vwheel:"),
            std::string::npos);
}

TEST(NvidiaAlgorithm, ForcedSmArchIsPythonInt) {
  EXPECT_EQ(error_of(supported_configs_from(std::nullopt, forced("12.7", "8"))),
            "ValueError: not enough values to unpack (expected 2, got 1)");
  EXPECT_EQ(error_of(supported_configs_from(std::nullopt, forced("12.7", "8.9.1"))),
            "ValueError: invalid literal for int() with base 10: '9.1'");
  EXPECT_EQ(error_of(supported_configs_from(std::nullopt, forced("12.7", "sm_90"))),
            "ValueError: invalid literal for int() with base 10: 'sm_90'");
  EXPECT_EQ(error_of(supported_configs_from(std::nullopt, forced("12.7", "9."))),
            "ValueError: invalid literal for int() with base 10: ''");
  EXPECT_EQ(error_of(supported_configs_from(std::nullopt, forced("12.7", "8.-1"))),
            "InvalidVersion: Invalid version: '8.-1'");
  EXPECT_EQ(error_of(supported_configs_from(std::nullopt, forced("12.7", "-1.2"))),
            "InvalidVersion: Invalid version: '-1.2'");
  // int() accepts surrounding whitespace, a sign and digit-separating underscores.
  for (const char* ok : {" 9.0", "9.0 ", "+9.0", "9.+0", "0_9.0_0"}) {
    const auto r = supported_configs_from(std::nullopt, forced("12.7", ok));
    ASSERT_TRUE(r) << ok << ": " << r.error().message;
    EXPECT_EQ(feature(*r, "sm_arch")->values, (std::vector<std::string>{"90_real", "90_virtual"})) << ok;
  }
  const auto ten = supported_configs_from(std::nullopt, forced("12.7", "1_0.0"));
  ASSERT_TRUE(ten);
  EXPECT_EQ(feature(*ten, "sm_arch")->values, (std::vector<std::string>{"100_real", "100_virtual"}));
  for (const char* bad : {"9_.0", "_9.0", "9__0.0", "9.0_", "++9.0"}) {
    EXPECT_EQ(
        error_of(supported_configs_from(std::nullopt, forced("12.7", bad))).rfind("ValueError: invalid literal", 0), 0U)
        << bad;
  }
}

TEST(NvidiaAlgorithm, NegativeDriverVersionIsAnInvalidVersion) {
  // Python: -1 // 1000 = -1, (-1 % 1000) // 10 = 99.
  EXPECT_EQ(error_of(supported_configs_from(snapshot(-1, {{9, 0}}), Overrides{})),
            "InvalidVersion: Invalid version: '-1.99'");
}

TEST(NvidiaAlgorithm, NvmlIsQueriedLazilyAndOnce) {
  int calls = 0;
  const vwheel::provider::nvidia::NvmlQuery query = [&]() -> std::optional<NvmlSnapshot> {
    ++calls;
    return snapshot(12080, {{9, 0}});
  };
  ASSERT_TRUE(supported_configs_from(forced("12.9", "9.0"), query));
  EXPECT_EQ(calls, 0);
  EXPECT_FALSE(supported_configs_from(forced("abc", std::nullopt), query));
  EXPECT_EQ(calls, 0);
  ASSERT_TRUE(supported_configs_from(Overrides{}, query));
  EXPECT_EQ(calls, 1);
  ASSERT_TRUE(supported_configs_from(forced("13.0", std::nullopt), query));
  EXPECT_EQ(calls, 2);
  // An invalid SM override is never parsed when there is no CUDA version.
  const auto none = supported_configs_from(forced(std::nullopt, "9"), []() { return std::optional<NvmlSnapshot>(); });
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->supported.empty());
}

TEST(NvidiaAlgorithm, AllConfigs) {
  const auto all = vwheel::provider::nvidia::all_configs();
  ASSERT_EQ(all.size(), 3U);
  EXPECT_EQ(all[0].values.size(), 110U);
  EXPECT_EQ(all[0].values, all[1].values);
  EXPECT_EQ(all[0].values.front(), "15.20");
  EXPECT_EQ(all[0].values.back(), "11");
  ASSERT_EQ(all[2].values.size(), 160U);
  EXPECT_EQ(all[2].values[0], "129_real");
  EXPECT_EQ(all[2].values[80], "129_virtual");
  EXPECT_EQ(all[2].values.back(), "50_virtual");
  EXPECT_TRUE(all[2].multi_value);
  for (const auto& c : all) {
    for (const auto& v : c.values) EXPECT_TRUE(vwheel::variant::is_valid_feature_value(v)) << v;
  }
}

TEST(NvidiaAlgorithm, ReturnCodeNames) {
  EXPECT_EQ(vwheel::provider::nvidia::nvml_return_name(9), "NVML_ERROR_DRIVER_NOT_LOADED");
  EXPECT_EQ(vwheel::provider::nvidia::nvml_return_name(999), "NVML_ERROR_UNKNOWN");
  EXPECT_EQ(vwheel::provider::nvidia::nvml_return_name(4242), "NVML error 4242");
}

TEST(GpuUtil, PythonRepr) {
  using vwheel::provider::gpu_detail::python_repr;
  EXPECT_EQ(python_repr("abc"), "'abc'");
  EXPECT_EQ(python_repr("   "), "'   '");
  EXPECT_EQ(python_repr("it's"), "\"it's\"");
  EXPECT_EQ(python_repr("a'b\"c"), "'a\\'b\"c'");
  EXPECT_EQ(python_repr("a\nb\\"), "'a\\nb\\\\'");
  EXPECT_EQ(python_repr(std::string("\x01", 1)), "'\\x01'");
}

TEST(GpuUtil, PythonInt) {
  using vwheel::provider::gpu_detail::PyInt;
  using vwheel::provider::gpu_detail::python_int;
  EXPECT_EQ(python_int("42").value, 42);
  EXPECT_EQ(python_int(" -7\t").value, -7);
  EXPECT_EQ(python_int("1_000").value, 1000);
  EXPECT_EQ(python_int("007").value, 7);
  EXPECT_EQ(python_int("\xc2\xa0"
                       "5")
                .value,
            5);  // NO-BREAK SPACE is whitespace for str.strip()
  for (const char* bad : {"", " ", "+", "1_", "_1", "1__0", "0x10", "1.0", "1 0", "--1"}) {
    EXPECT_EQ(python_int(bad).status, PyInt::Status::invalid) << bad;
  }
  EXPECT_EQ(python_int("99999999999999999999").status, PyInt::Status::too_large);
}

TEST(GpuUtil, SplitOnSeparators) {
  using vwheel::provider::gpu_detail::split_on_separators;
  EXPECT_EQ(split_on_separators(" gfx1100 ,gfx90a;;gfx942\n", ",;"),
            (std::vector<std::string>{"gfx1100", "gfx90a", "gfx942"}));
  EXPECT_EQ(split_on_separators(",;, ", ",;"), std::vector<std::string>{});
  EXPECT_EQ(split_on_separators("a\xe2\x80\x83"
                                "b",
                                ",;"),
            (std::vector<std::string>{"a", "b"}));  // EM SPACE
}

TEST(GpuUtil, RunWithTimeout) {
  using vwheel::provider::gpu_detail::run_with_timeout;
  using namespace std::chrono_literals;
  EXPECT_EQ(run_with_timeout<int>([]() { return 42; }, 5s), 42);
  // A probe that hangs is given up on; it finishes on its own later.
  auto release = std::make_shared<std::atomic<bool>>(false);
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_with_timeout<int>(
      [release]() {
        while (!release->load()) std::this_thread::sleep_for(1ms);
        return 1;
      },
      50ms);
  EXPECT_FALSE(r.has_value());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  release->store(true);
}

}  // namespace
