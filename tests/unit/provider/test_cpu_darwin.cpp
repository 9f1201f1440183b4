// The aarch64 provider on macOS: `sysctl` outputs of Apple silicon read and matched as archspec
// matches on macOS (the brand's model) or, without a brand, as on Linux (features). No Mac here:
// the texts below are written in the form `sysctl hw.optional machdep.cpu.brand_string` prints,
// with the values Apple's documentation and public listings give for these chips (macOS 13/14 on
// M1 and M2, macOS 15 on M4: FEAT_SME on, FEAT_SSBS off), and macOS 11's older names.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "provider/cpu_darwin.hpp"
#include "vwheel/provider/cpu.hpp"

namespace vp = vwheel::provider;

namespace {

constexpr std::string_view kCommonFeatures =
    "hw.optional.arm.FEAT_FlagM: 1\nhw.optional.arm.FEAT_FlagM2: 1\nhw.optional.arm.FEAT_FHM: 1\n"
    "hw.optional.arm.FEAT_DotProd: 1\nhw.optional.arm.FEAT_SHA3: 1\nhw.optional.arm.FEAT_RDM: 1\n"
    "hw.optional.arm.FEAT_LSE: 1\nhw.optional.arm.FEAT_SHA256: 1\nhw.optional.arm.FEAT_SHA512: 1\n"
    "hw.optional.arm.FEAT_SHA1: 1\nhw.optional.arm.FEAT_AES: 1\nhw.optional.arm.FEAT_PMULL: 1\n"
    "hw.optional.arm.FEAT_SPECRES: 0\nhw.optional.arm.FEAT_SB: 1\nhw.optional.arm.FEAT_FRINTTS: 1\n"
    "hw.optional.arm.FEAT_LRCPC: 1\nhw.optional.arm.FEAT_LRCPC2: 1\nhw.optional.arm.FEAT_FCMA: 1\n"
    "hw.optional.arm.FEAT_JSCVT: 1\nhw.optional.arm.FEAT_PAuth: 1\nhw.optional.arm.FEAT_PAuth2: 0\n"
    "hw.optional.arm.FEAT_FPAC: 0\nhw.optional.arm.FEAT_DPB: 1\nhw.optional.arm.FEAT_DPB2: 1\n"
    "hw.optional.arm.FEAT_LSE2: 1\nhw.optional.arm.FEAT_CSV2: 1\nhw.optional.arm.FEAT_CSV3: 1\n"
    "hw.optional.arm.FEAT_DIT: 1\nhw.optional.arm.FEAT_FP16: 1\n"
    "hw.optional.floatingpoint: 1\nhw.optional.neon: 1\nhw.optional.neon_hpfp: 1\nhw.optional.neon_fp16: 1\n"
    "hw.optional.armv8_1_atomics: 1\nhw.optional.armv8_crc32: 1\nhw.optional.armv8_2_fhm: 1\n"
    "hw.optional.armv8_2_sha512: 1\nhw.optional.armv8_2_sha3: 1\nhw.optional.amx_version: 2\n"
    "hw.optional.arm64: 1\n";

std::string m1(bool brand = true) {
  return std::string(kCommonFeatures) +
         "hw.optional.arm.FEAT_SSBS: 1\nhw.optional.arm.FEAT_BF16: 0\nhw.optional.arm.FEAT_I8MM: 0\n"
         "hw.optional.arm.FEAT_ECV: 0\nhw.optional.arm.FEAT_BTI: 0\n" +
         (brand ? "machdep.cpu.brand_string: Apple M1\n" : "");
}

std::string m2(bool brand = true) {
  return std::string(kCommonFeatures) +
         "hw.optional.arm.FEAT_SSBS: 1\nhw.optional.arm.FEAT_BF16: 1\nhw.optional.arm.FEAT_I8MM: 1\n"
         "hw.optional.arm.FEAT_ECV: 1\nhw.optional.arm.FEAT_BTI: 1\n" +
         (brand ? "machdep.cpu.brand_string: Apple M2 Pro\n" : "");
}

std::string m4() {
  return std::string(kCommonFeatures) +
         "hw.optional.arm.FEAT_SSBS: 0\nhw.optional.arm.FEAT_BF16: 1\nhw.optional.arm.FEAT_I8MM: 1\n"
         "hw.optional.arm.FEAT_ECV: 1\nhw.optional.arm.FEAT_BTI: 1\nhw.optional.arm.FEAT_SME: 1\n"
         "hw.optional.arm.FEAT_SME2: 1\nhw.optional.arm.FEAT_WFxT: 1\nmachdep.cpu.brand_string: Apple M4\n";
}

bool has(const std::vector<std::string>& v, std::string_view s) { return std::find(v.begin(), v.end(), s) != v.end(); }

}  // namespace

TEST(CpuDarwin, FeatTranslatedToLinuxNames) {
  const auto cpu = vp::cpu::parse_darwin_sysctl(m2());
  ASSERT_TRUE(cpu);
  EXPECT_EQ(cpu->brand, "Apple M2 Pro");
  EXPECT_EQ(cpu->model, "m2");
  for (const auto* name : {"aes", "sha2", "atomics", "uscat", "fphp", "asimdhp", "paca", "pacg", "frint", "bf16",
                           "i8mm", "bti", "crc32", "ilrcpc", "dcpodp", "fp", "asimd"}) {
    EXPECT_TRUE(has(cpu->features, name)) << name;
  }
  EXPECT_FALSE(has(cpu->features, "fpac"));
  // Not a sysctl output: the Linux reading applies.
  EXPECT_FALSE(vp::cpu::parse_darwin_sysctl("processor : 0\nFeatures : fp asimd\n"));
}

TEST(CpuDarwin, BrandNamesTheModel) {
  const auto m1_match = vp::match_aarch64_cpuinfo(m1());
  EXPECT_EQ(m1_match.microarchitecture, "m1");
  EXPECT_EQ(m1_match.vendor, "Apple");
  EXPECT_EQ(m1_match.supported, *vp::aarch64_configs_for_microarchitecture("m1"));
  const auto m2_match = vp::match_aarch64_cpuinfo(m2());
  EXPECT_EQ(m2_match.microarchitecture, "m2");
  EXPECT_EQ(m2_match.supported, *vp::aarch64_configs_for_microarchitecture("m2"));
  EXPECT_EQ(m2_match.supported.front().name, "version");
  EXPECT_EQ(m2_match.supported.front().values.front(), "8.5a");
}

TEST(CpuDarwin, NewerThanTheDatabaseIsM2WithANote) {
  const auto cpu = vp::cpu::parse_darwin_sysctl(m4());
  ASSERT_TRUE(cpu);
  EXPECT_EQ(cpu->model, "m2");
  EXPECT_NE(cpu->model_note.find("newer than the database"), std::string::npos);
  EXPECT_EQ(vp::match_aarch64_cpuinfo(m4()).microarchitecture, "m2");
  // The provider says which of m2's flags the sysctl does not report (M4: ssbs).
  const auto dir = std::filesystem::temp_directory_path() / ("vwheel-darwin-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "sysctl.txt") << m4();
  vp::CpuProviderOptions options;
  options.cpuinfo_path = (dir / "sysctl.txt").string();
  const auto detection = vp::make_aarch64_provider(options)->detect();
  std::filesystem::remove_all(dir);
  EXPECT_EQ(detection.supported, *vp::aarch64_configs_for_microarchitecture("m2"));
  bool noted = false;
  for (const auto& note : detection.notes) noted = noted || note.find("m2 lists ssbs that sysctl does not report") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(CpuDarwin, WithoutABrandTheFeaturesChoose) {
  EXPECT_EQ(vp::match_aarch64_cpuinfo(m1(false)).microarchitecture, "m1");
  EXPECT_EQ(vp::match_aarch64_cpuinfo(m2(false)).microarchitecture, "m2");
  // macOS 11 had only the older names: too few features for any Apple model: version 8a only.
  const std::string big_sur =
      "hw.optional.floatingpoint: 1\nhw.optional.neon: 1\nhw.optional.neon_hpfp: 1\nhw.optional.neon_fp16: 1\n"
      "hw.optional.armv8_1_atomics: 1\nhw.optional.armv8_crc32: 1\nhw.optional.armv8_2_fhm: 1\n"
      "hw.optional.armv8_2_sha512: 1\nhw.optional.armv8_2_sha3: 1\nhw.optional.arm64: 1\n";
  const auto generic = vp::match_aarch64_cpuinfo(big_sur);
  EXPECT_EQ(generic.microarchitecture, "aarch64");
  ASSERT_EQ(generic.supported.size(), 1u);
  EXPECT_EQ(generic.supported.front().values, std::vector<std::string>{"8a"});
  // With the brand, macOS 11 on an M1 is an m1, as archspec says there.
  EXPECT_EQ(vp::match_aarch64_cpuinfo(big_sur + "machdep.cpu.brand_string: Apple M1 Max\n").microarchitecture, "m1");
}

// Found by fuzz_cpuinfo: a sysctl text is read as far as a cpuinfo block (to its first line without
// `:`), and text that is not UTF-8 there is unreadable, as for a cpuinfo file.
TEST(CpuDarwin, ReadAsFarAsTheFirstBlockOnly) {
  const std::string text = m2(false) + "\nmachdep.cpu.brand_string: Apple M1\n";
  const auto whole = vp::match_aarch64_cpuinfo(text);
  EXPECT_EQ(whole.microarchitecture, "m2");  // the brand after the blank line is not read
  const auto block_end = text.find("\n\n") + 2;
  EXPECT_EQ(vp::match_aarch64_cpuinfo(text.substr(0, block_end)).supported, whole.supported);
  const auto unreadable = vp::match_aarch64_cpuinfo("hw.optional.neon: 1\nhw.optional.arm64: \xff\n");
  EXPECT_TRUE(unreadable.microarchitecture.empty());
  EXPECT_TRUE(unreadable.supported.empty());
  EXPECT_TRUE(vp::match_x86_64_cpuinfo("hw.optional.neon: 1\nhw.optional.arm64: \xff\n").microarchitecture.empty());
}
