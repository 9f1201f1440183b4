// The x86_64 / aarch64 Provider objects: configuration, where they read, failure modes, speed.

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>

#include <fmt/format.h>

#include "provider/cpu_cpuinfo.hpp"
#include "shared_data.hpp"
#include "vwheel/provider/cpu.hpp"

using namespace std::string_literals;
namespace vp = vwheel::provider;
using vwheel::variant::FeatureConfig;

namespace {

constexpr std::string_view kHaswell =
    "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu mmx sse sse2 pni pclmulqdq ssse3 fma cx16 "
    "sse4_1 sse4_2 movbe popcnt aes xsave avx f16c rdrand lahf_lm abm bmi1 avx2 bmi2\n\nprocessor\t: 1\n";

// Sets (or unsets) an environment variable for the scope.
class EnvGuard {
 public:
  EnvGuard(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~EnvGuard() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A file in a fresh temporary directory, removed at the end of the scope.
class TempFile {
 public:
  explicit TempFile(std::string_view content) {
    static int counter = 0;
    dir_ = std::filesystem::temp_directory_path() / fmt::format("vwheel-cpu-{}-{}", ::getpid(), counter++);
    std::filesystem::create_directories(dir_);
    path_ = dir_ / "cpuinfo";
    std::ofstream(path_, std::ios::binary) << content;
  }
  ~TempFile() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  [[nodiscard]] std::string path() const { return path_.string(); }
  [[nodiscard]] std::string dir() const { return dir_.string(); }

 private:
  std::filesystem::path dir_;
  std::filesystem::path path_;
};

constexpr const char* kEnv = "VWHEEL_PROC_CPUINFO";

bool any_note_contains(const vp::Detection& d, std::string_view needle) {
  return std::any_of(d.notes.begin(), d.notes.end(), [&](const std::string& n) { return n.find(needle) != std::string::npos; });
}

}  // namespace

TEST(CpuProvider, Identity) {
  const auto x86 = vp::make_x86_64_provider();
  const auto arm = vp::make_aarch64_provider();
  EXPECT_EQ(x86->ns(), "x86_64");
  EXPECT_EQ(arm->ns(), "aarch64");
  EXPECT_EQ(x86->version(), "0.0.3");
  EXPECT_EQ(arm->version(), "0.0.3");
  EXPECT_TRUE(x86->install_time());
  EXPECT_TRUE(arm->install_time());
}

TEST(CpuProvider, X86_64AllConfigs) {
  const auto all = vp::make_x86_64_provider()->all_configs();
  EXPECT_EQ(all, vp::x86_64_all_configs());
  ASSERT_EQ(all.size(), 57U);
  EXPECT_EQ(all[0], (FeatureConfig{"level", {"v4", "v3", "v2", "v1"}, false}));
  EXPECT_EQ(all[1].name, "avx_vnni");
  EXPECT_EQ(all[15].name, "avx512vbmi");
  EXPECT_EQ(all.back().name, "mmx");
  std::set<std::string> seen;
  for (std::size_t i = 1; i < all.size(); ++i) {
    EXPECT_EQ(all[i].values, std::vector<std::string>{"on"});
    EXPECT_FALSE(all[i].multi_value);
    EXPECT_TRUE(vwheel::variant::is_valid_feature_name(all[i].name)) << all[i].name;
    EXPECT_TRUE(seen.insert(all[i].name).second) << all[i].name;
  }
}

TEST(CpuProvider, Aarch64AllConfigs) {
  const auto all = vp::make_aarch64_provider()->all_configs();
  EXPECT_EQ(all, vp::aarch64_all_configs());
  ASSERT_EQ(all.size(), 41U);
  EXPECT_EQ(all[0], (FeatureConfig{"version", {"9.0a", "8.5a", "8.4a", "8.3a", "8.2a", "8.1a", "8a"}, false}));
  std::vector<std::string> n;
  for (const auto& c : all) n.push_back(c.name);
  EXPECT_EQ(n[1], "sve2");
  EXPECT_EQ(n[5], "btiecv");
  EXPECT_EQ(n[31], "asimdrdmatomics");
  EXPECT_EQ(n.back(), "sha2");
  for (const char* absent : {"bti", "ecv", "asimdrdm", "atomics"}) {
    EXPECT_EQ(std::count(n.begin(), n.end(), absent), 0) << absent;
  }
  for (const auto& c : all) {
    for (const auto& v : c.values) EXPECT_TRUE(vwheel::variant::is_valid_feature_value(v)) << v;
  }
}

TEST(CpuProvider, SupportedIsWithinAllConfigsOnEverySample) {
  VWHEEL_REQUIRE_SHARED("data/cpu/cpuinfo");
  for (const auto& entry : std::filesystem::directory_iterator(shared_path)) {
    SCOPED_TRACE(entry.path().filename().string());
    const std::string text = vwheel::testing::read_file(entry.path());
    for (const auto& [supported, all] :
         {std::pair{vp::x86_64_supported_configs(text), vp::x86_64_all_configs()},
          std::pair{vp::aarch64_supported_configs(text), vp::aarch64_all_configs()}}) {
      for (const auto& c : supported) {
        const auto it = std::find_if(all.begin(), all.end(), [&](const FeatureConfig& a) { return a.name == c.name; });
        ASSERT_NE(it, all.end()) << c.name;
        for (const auto& v : c.values) EXPECT_NE(std::find(it->values.begin(), it->values.end(), v), it->values.end());
      }
    }
  }
}

TEST(CpuProvider, ExplicitFileIsReadOnAnyMachine) {
  const TempFile file(kHaswell);
  const EnvGuard env(kEnv, nullptr);
  vp::CpuProviderOptions options;
  options.cpuinfo_path = file.path();
  options.machine = "riscv64";
  const auto d = vp::make_x86_64_provider(options)->detect();
  EXPECT_EQ(d.source, file.path() + ": microarchitecture haswell");
  ASSERT_FALSE(d.supported.empty());
  EXPECT_EQ(d.supported[0].values, (std::vector<std::string>{"v3", "v2", "v1"}));
  // The aarch64 provider reading an x86 cpuinfo: no aarch64 CPU, no properties (it used to
  // report the generic `version 8a`).
  const auto a = vp::make_aarch64_provider(options)->detect();
  EXPECT_TRUE(a.supported.empty());
  EXPECT_EQ(a.source, file.path() + ": microarchitecture aarch64");
  EXPECT_TRUE(any_note_contains(a, "the first processor block is an x86_64 one"));
}

TEST(CpuProvider, EnvironmentVariableOverridesProcCpuinfo) {
  const TempFile file(kHaswell);
  const EnvGuard env(kEnv, file.path().c_str());
  vp::CpuProviderOptions options;
  options.machine = "s390x";  // the variable is honoured whatever the machine
  const auto d = vp::make_x86_64_provider(options)->detect();
  EXPECT_EQ(d.source, file.path() + ": microarchitecture haswell");
  EXPECT_EQ(d.supported.size(), 23U);
  EXPECT_TRUE(any_note_contains(d, "VWHEEL_PROC_CPUINFO"));
  // An explicit option wins over the variable.
  const TempFile other("vendor_id: AuthenticAMD\nflags: mmx sse sse2 sse4a abm cx16 3dnow 3dnowext\n");
  options.cpuinfo_path = other.path();
  const auto k10 = vp::make_x86_64_provider(options)->detect();
  EXPECT_EQ(k10.source, other.path() + ": microarchitecture k10");
  EXPECT_TRUE(k10.supported.empty());
  EXPECT_TRUE(any_note_contains(k10, "below x86-64-v2"));
}

TEST(CpuProvider, EmptyVariableIsIgnored) {
  const EnvGuard env(kEnv, "");
  vp::CpuProviderOptions options;
  options.machine = "riscv64";
  const auto d = vp::make_x86_64_provider(options)->detect();
  EXPECT_TRUE(d.supported.empty());
  EXPECT_TRUE(any_note_contains(d, "riscv64"));
}

TEST(CpuProvider, OtherArchitectureReportsNothingWithANote) {
  const EnvGuard env(kEnv, nullptr);
  vp::CpuProviderOptions options;
  options.machine = "aarch64";
  const auto x = vp::make_x86_64_provider(options)->detect();
  EXPECT_TRUE(x.supported.empty());
  EXPECT_TRUE(any_note_contains(x, "aarch64 machine, not x86_64"));
  options.machine = "AMD64";
  const auto a = vp::make_aarch64_provider(options)->detect();
  EXPECT_TRUE(a.supported.empty());
  EXPECT_TRUE(any_note_contains(a, "x86_64 machine, not aarch64"));
}

TEST(CpuProvider, UnreadableFilesAreAnEmptyAnswerWithANote) {
  const EnvGuard env(kEnv, nullptr);
  const TempFile file(kHaswell);
  for (const std::string& path : {file.dir() + "/missing", file.dir(), file.path() + "/below-a-file"}) {
    SCOPED_TRACE(path);
    vp::CpuProviderOptions options;
    options.cpuinfo_path = path;
    for (const auto& provider : {vp::make_x86_64_provider(options), vp::make_aarch64_provider(options)}) {
      vp::Detection d;
      EXPECT_NO_THROW(d = provider->detect());
      EXPECT_TRUE(d.supported.empty());
      ASSERT_FALSE(d.notes.empty());
      EXPECT_NE(d.notes[0].find(path), std::string::npos) << d.notes[0];
      EXPECT_EQ(d.source, path + ": not read");
    }
  }
  // Not UTF-8: unreadable as for the reference.
  const TempFile bad("vendor_id: \xff\nflags: sse\n");
  vp::CpuProviderOptions options;
  options.cpuinfo_path = bad.path();
  const auto d = vp::make_aarch64_provider(options)->detect();
  EXPECT_TRUE(d.supported.empty());
  EXPECT_TRUE(any_note_contains(d, "not valid UTF-8"));
}

TEST(CpuProvider, ReadsOnlyTheFirstBlockOfALargeFile) {
  std::string big(kHaswell);
  big += "vendor_id: x\n";
  for (int cpu = 2; cpu < 5000; ++cpu) big += fmt::format("\nprocessor\t: {}\nflags\t\t: sse sse2 avx512f\n", cpu);
  const TempFile file(big);
  const auto text = vp::cpu::read_cpuinfo_file(file.path());
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_LT(text->size(), 64U * 1024U);
  EXPECT_EQ(text->substr(0, kHaswell.size()), kHaswell);
  // A file with no line ends at all stops at the limit.
  const TempFile flat(std::string((1U << 20U) + 4096U, 'x'));
  const auto capped = vp::cpu::read_cpuinfo_file(flat.path(), 1U << 20U);
  ASSERT_TRUE(capped);
  EXPECT_EQ(capped->size(), 1U << 20U);
}

TEST(CpuProvider, DetectsThisMachine) {
  const EnvGuard env(kEnv, nullptr);
  if (!std::filesystem::exists(vp::kProcCpuinfo)) GTEST_SKIP() << "no /proc/cpuinfo here";
  const std::string machine = vp::cpu_machine();
  for (const auto& provider : {vp::make_x86_64_provider(), vp::make_aarch64_provider()}) {
    const auto d = provider->detect();
    if (machine == provider->ns()) {
      EXPECT_TRUE(d.source.starts_with("/proc/cpuinfo: microarchitecture ")) << d.source;
    } else {
      EXPECT_TRUE(d.supported.empty());
      EXPECT_FALSE(d.notes.empty());
    }
  }
}

// Its time is measured by bench/bench_cpu_detect.cpp (former limit here: a median under 1 ms).
TEST(CpuProvider, DetectionFromTextAndFromTheFileAgree) {
  VWHEEL_REQUIRE_SHARED("data/cpu/cpuinfo/linux-unknown-sapphirerapids");
  const std::string text = vwheel::testing::read_file(shared_path);
  vp::CpuProviderOptions options;
  options.cpuinfo_path = shared_path.string();
  const auto from_file = vp::make_x86_64_provider(options)->detect();
  const auto from_text = vp::x86_64_supported_configs(text);
  EXPECT_EQ(from_text.size(), 48U);
  EXPECT_EQ(from_file.supported, from_text);
  EXPECT_EQ(from_file.source, shared_path.string() + ": microarchitecture sapphirerapids");
}
