// The pure CPU detection functions on hand-written cpuinfo texts: parsing edge cases and
// archspec's matching rules.

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "provider/cpu_cpuinfo.hpp"
#include "vwheel/provider/cpu.hpp"

using namespace std::string_literals;
using vwheel::provider::aarch64_supported_configs;
using vwheel::provider::match_aarch64_cpuinfo;
using vwheel::provider::match_x86_64_cpuinfo;
using vwheel::provider::x86_64_supported_configs;
using vwheel::variant::FeatureConfig;

namespace {

// The first flags line of linux-rhel7-haswell (Xeon E5-2680 v3).
constexpr std::string_view kHaswellFlags =
    "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx fxsr "
    "sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc arch_perfmon pebs bts rep_good "
    "nopl xtopology nonstop_tsc aperfmperf eagerfpu pni pclmulqdq dtes64 monitor ds_cpl vmx smx est tm2 "
    "ssse3 fma cx16 xtpr pdcm pcid dca sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave "
    "avx f16c rdrand lahf_lm abm epb invpcid_single tpr_shadow vnmi flexpriority ept vpid fsgsbase "
    "tsc_adjust bmi1 avx2 smep bmi2 erms invpcid cqm xsaveopt cqm_llc cqm_occup_llc ibpb ibrs stibp "
    "dtherm arat pln pts spec_ctrl intel_stibp";

const std::vector<std::string> kHaswellReported = {
    "level", "avx2",  "avx",    "bmi2",  "bmi1",   "abm",   "f16c",   "fma",
    "movbe", "xsave", "rdrand", "aes",   "pclmulqdq", "sse4_2", "sse4_1", "ssse3",
    "sse3",  "cx16",  "lahf_lm", "popcnt", "sse2",  "sse",   "mmx"};

// The Emerald Rapids KVM guest of providers.md §4.7 (no AMX flags: not sapphirerapids).
constexpr std::string_view kEmeraldRapidsGuestFlags =
    "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ss "
    "ht syscall nx pdpe1gb rdtscp lm constant_tsc rep_good nopl xtopology nonstop_tsc cpuid tsc_known_freq "
    "pni pclmulqdq ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave avx "
    "f16c rdrand hypervisor lahf_lm abm 3dnowprefetch cpuid_fault fsgsbase tsc_adjust bmi1 hle avx2 smep "
    "bmi2 erms invpcid rtm avx512f avx512dq rdseed adx smap avx512ifma clflushopt clwb avx512cd sha_ni "
    "avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves avx_vnni avx512_bf16 arat avx512vbmi umip "
    "avx512_vbmi2 gfni vaes vpclmulqdq avx512_vnni avx512_bitalg avx512_vpopcntdq rdpid cldemote movdiri "
    "movdir64b fsrm serialize tsxldtrk avx512_fp16 arch_capabilities";

// linux-amazon-neoverse_n1 and linux-rhel9-neoverse_v2 Features lines.
constexpr std::string_view kNeoverseN1Features =
    "fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs";
constexpr std::string_view kNeoverseV2Features =
    "fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm jscvt fcma lrcpc dcpop "
    "sha3 sm3 sm4 asimddp sha512 sve asimdfhm dit uscat ilrcpc flagm ssbs sb paca pacg dcpodp sve2 sveaes "
    "svepmull svebitperm svesha3 svesm4 flagm2 frint svei8mm svebf16 i8mm bf16 dgh rng bti";

std::string x86_text(std::string_view vendor, std::string_view flags) {
  return "processor\t: 0\nvendor_id\t: "s + std::string(vendor) + "\ncpu family\t: 6\nflags\t\t: " +
         std::string(flags) + "\nbogomips\t: 4987.97\n\nprocessor\t: 1\nvendor_id\t: " + std::string(vendor) +
         "\nflags\t\t: avx512f\n";
}

std::string arm_text(std::string_view implementer, std::string_view part, std::string_view features) {
  return "processor       : 0\nBogoMIPS        : 243.75\nFeatures        : "s + std::string(features) +
         "\nCPU implementer : " + std::string(implementer) + "\nCPU architecture: 8\nCPU variant     : 0x3\n" +
         "CPU part        : " + std::string(part) + "\nCPU revision    : 1\n\n";
}

std::vector<std::string> names(const std::vector<FeatureConfig>& configs) {
  std::vector<std::string> out;
  for (const auto& c : configs) out.push_back(c.name);
  return out;
}

const std::vector<std::string> kV3 = {"v3", "v2", "v1"};

}  // namespace

// ---- x86_64 --------------------------------------------------------------------------------

TEST(CpuX86_64, HaswellFlagsMatchHaswell) {
  const auto m = match_x86_64_cpuinfo(x86_text("GenuineIntel", kHaswellFlags));
  EXPECT_EQ(m.microarchitecture, "haswell");
  EXPECT_EQ(m.generic, "x86_64_v3");
  EXPECT_EQ(m.vendor, "GenuineIntel");
  EXPECT_EQ(names(m.supported), kHaswellReported);
  ASSERT_FALSE(m.supported.empty());
  EXPECT_EQ(m.supported[0].values, kV3);
  for (std::size_t i = 1; i < m.supported.size(); ++i) {
    EXPECT_EQ(m.supported[i].values, std::vector<std::string>{"on"});
    EXPECT_FALSE(m.supported[i].multi_value);
  }
}

TEST(CpuX86_64, EmptyTextIsGenericX86_64WithNoProperties) {
  const auto m = match_x86_64_cpuinfo("");
  EXPECT_EQ(m.microarchitecture, "x86_64");
  EXPECT_EQ(m.generic, "x86_64");
  EXPECT_EQ(m.vendor, "generic");
  EXPECT_TRUE(m.supported.empty());
}

TEST(CpuX86_64, NoFlagsLineMeansNoFeatures) {
  const auto m = match_x86_64_cpuinfo("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel\t: 63\n");
  EXPECT_EQ(m.microarchitecture, "x86_64");
  EXPECT_TRUE(m.supported.empty());
  // Keys are case-sensitive: `Flags` is not `flags`.
  EXPECT_EQ(match_x86_64_cpuinfo("vendor_id: GenuineIntel\nFlags: "s + std::string(kHaswellFlags)).microarchitecture,
            "x86_64");
}

TEST(CpuX86_64, WeirdWhitespaceAndLineEndings) {
  std::string flags(kHaswellFlags);
  // Python's str.split() separators: runs of spaces, tabs, \v, \f, \x1c-\x1f, NBSP, U+3000, U+0085.
  const std::vector<std::string> seps = {"  ", "\t", "\v", "\f", "\x1c", "\xc2\xa0", "\xe3\x80\x80", "\xc2\x85"};
  std::string mixed;
  std::size_t k = 0;
  for (const auto word : vwheel::provider::cpu::split_words(flags)) {
    if (!mixed.empty()) mixed += seps[k++ % seps.size()];
    mixed += word;
  }
  for (const std::string eol : {"\n", "\r\n", "\r"}) {
    SCOPED_TRACE(testing::PrintToString(eol));
    const std::string text = "processor   :0" + eol + "  vendor_id  :\tGenuineIntel \xc2\xa0" + eol +
                             "flags:\t \xe2\x80\x83" + mixed + " \t" + eol + eol + "flags: avx512f" + eol;
    EXPECT_EQ(names(x86_64_supported_configs(text)), kHaswellReported);
  }
  // No trailing newline at all.
  EXPECT_EQ(names(x86_64_supported_configs("vendor_id: GenuineIntel\nflags: "s + std::string(kHaswellFlags))),
            kHaswellReported);
}

TEST(CpuX86_64, NonSeparatorsStayInsideWords) {
  // U+200B (zero width space) and NUL are not whitespace for Python: `sse\0sse2` is one word.
  const auto m = match_x86_64_cpuinfo("vendor_id: GenuineIntel\nflags: "s + std::string(kHaswellFlags) +
                                      " avx512f\xe2\x80\x8b avx512bw avx512cd avx512dq avx512vl"s);
  EXPECT_EQ(m.generic, "x86_64_v3");  // `avx512f\u200b` is not `avx512f`
  std::string nul_flags(kHaswellFlags);
  nul_flags.replace(nul_flags.find(" avx2 "), 6, " avx2\0 "s);
  EXPECT_EQ(match_x86_64_cpuinfo("vendor_id: GenuineIntel\nflags: " + nul_flags).generic, "x86_64_v2");
}

TEST(CpuX86_64, OnlyTheFirstProcessorBlockCounts) {
  // The second block has AVX-512; only the first is read.
  EXPECT_EQ(match_x86_64_cpuinfo(x86_text("GenuineIntel", kHaswellFlags)).generic, "x86_64_v3");
  // A whitespace-only line also ends the block.
  const std::string text = "vendor_id: GenuineIntel\n \t \nflags: "s + std::string(kHaswellFlags) + "\n";
  EXPECT_EQ(match_x86_64_cpuinfo(text).microarchitecture, "x86_64");
  // Any line without a colon ends it, blank or not.
  EXPECT_EQ(match_x86_64_cpuinfo("vendor_id: GenuineIntel\ngarbage\nflags: "s + std::string(kHaswellFlags))
                .microarchitecture,
            "x86_64");
}

TEST(CpuX86_64, LeadingBlankLines) {
  // One leading line without a colon is stored as a key (archspec's dict was empty), so the
  // block goes on; a second one ends the block before any data.
  EXPECT_EQ(names(x86_64_supported_configs("\nvendor_id: GenuineIntel\nflags: "s + std::string(kHaswellFlags))),
            kHaswellReported);
  EXPECT_TRUE(x86_64_supported_configs("\n\nvendor_id: GenuineIntel\nflags: "s + std::string(kHaswellFlags)).empty());
  EXPECT_TRUE(x86_64_supported_configs("\r\n\r\nvendor_id: GenuineIntel\nflags: "s + std::string(kHaswellFlags)).empty());
}

TEST(CpuX86_64, RepeatedKeysKeepTheLastValue) {
  const std::string haswell = "flags: "s + std::string(kHaswellFlags) + "\n";
  EXPECT_EQ(match_x86_64_cpuinfo("vendor_id: GenuineIntel\nflags: mmx sse\n" + haswell).microarchitecture, "haswell");
  EXPECT_EQ(match_x86_64_cpuinfo("vendor_id: GenuineIntel\n" + haswell + "flags: mmx sse\n").microarchitecture,
            "x86_64");
  // A value keeps its own colons.
  EXPECT_EQ(match_x86_64_cpuinfo("vendor_id: Genuine:Intel\n" + haswell).vendor, "Genuine:Intel");
}

TEST(CpuX86_64, UnknownVendorGetsTheGenericLevelWithExactlyItsFeatures) {
  const auto m = match_x86_64_cpuinfo(x86_text("CentaurHauls", kHaswellFlags));
  EXPECT_EQ(m.microarchitecture, "x86_64_v3");
  EXPECT_EQ(m.vendor, "CentaurHauls");
  EXPECT_EQ(m.supported, vwheel::provider::x86_64_configs_for_microarchitecture("x86_64_v3").value());
  EXPECT_EQ(names(m.supported),
            (std::vector<std::string>{"level", "avx2", "avx", "bmi2", "bmi1", "abm", "f16c", "fma", "movbe",
                                      "xsave", "sse4_2", "sse4_1", "ssse3", "sse3", "cx16", "lahf_lm", "popcnt",
                                      "sse2", "sse", "mmx"}));
  // No vendor_id line: vendor "generic", same answer.
  const auto g = match_x86_64_cpuinfo("flags: "s + std::string(kHaswellFlags));
  EXPECT_EQ(g.vendor, "generic");
  EXPECT_EQ(g.microarchitecture, "x86_64_v3");
  // An empty vendor_id value is a vendor "" (not generic): still only generic entries match.
  EXPECT_EQ(match_x86_64_cpuinfo("vendor_id:\nflags: "s + std::string(kHaswellFlags)).microarchitecture, "x86_64_v3");
  // The vendor string is compared exactly.
  EXPECT_EQ(match_x86_64_cpuinfo(x86_text("genuineintel", kHaswellFlags)).microarchitecture, "x86_64_v3");
}

TEST(CpuX86_64, EmeraldRapidsGuestIsIcelakeWith44Flags) {
  const auto m = match_x86_64_cpuinfo(x86_text("GenuineIntel", kEmeraldRapidsGuestFlags));
  EXPECT_EQ(m.microarchitecture, "icelake");
  EXPECT_EQ(m.generic, "x86_64_v4");
  ASSERT_EQ(m.supported.size(), 45U);
  EXPECT_EQ(m.supported[0].values, (std::vector<std::string>{"v4", "v3", "v2", "v1"}));
  const auto n = names(m.supported);
  // Flags the host has but the matched entry does not list are never reported.
  for (const char* absent : {"avx_vnni", "avx512_bf16", "movdiri", "movdir64b", "tsc_adjust", "fsgsbase"}) {
    EXPECT_EQ(std::count(n.begin(), n.end(), absent), 0) << absent;
  }
  // With the AMX flags (and waitpkg) it is a Sapphire Rapids.
  const std::string spr = std::string(kEmeraldRapidsGuestFlags) + " amx_bf16 amx_tile amx_int8 waitpkg";
  EXPECT_EQ(match_x86_64_cpuinfo(x86_text("GenuineIntel", spr)).microarchitecture, "sapphirerapids");
}

TEST(CpuX86_64, BelowV2ReportsNothing) {
  // k10: the AMD entry right above plain x86_64.
  const auto k10 = match_x86_64_cpuinfo(x86_text("AuthenticAMD", "fpu mmx sse sse2 sse4a abm cx16 3dnow 3dnowext"));
  EXPECT_EQ(k10.microarchitecture, "k10");
  EXPECT_EQ(k10.generic, "x86_64");
  EXPECT_TRUE(k10.supported.empty());
  // core2: needs ssse3; nocona's sse3 comes from the ssse3 alias (Linux says `pni`).
  const auto core2 = match_x86_64_cpuinfo(x86_text("GenuineIntel", "fpu mmx sse sse2 pni ssse3 cx16"));
  EXPECT_EQ(core2.microarchitecture, "core2");
  EXPECT_TRUE(core2.supported.empty());
  EXPECT_EQ(match_x86_64_cpuinfo(x86_text("GenuineIntel", "fpu mmx sse sse2 pni")).microarchitecture, "x86_64");
  EXPECT_EQ(match_x86_64_cpuinfo(x86_text("GenuineIntel", "fpu mmx sse sse2 sse3")).microarchitecture, "nocona");
}

TEST(CpuX86_64, ExactV2FlagSet) {
  const auto m = match_x86_64_cpuinfo(x86_text("GenuineIntel", "mmx sse sse2 ssse3 sse4_1 sse4_2 popcnt cx16 lahf_lm"));
  EXPECT_EQ(m.microarchitecture, "nehalem");
  EXPECT_EQ(m.supported[0].values, (std::vector<std::string>{"v2", "v1"}));
  EXPECT_EQ(match_x86_64_cpuinfo(x86_text("AuthenticAMD", "mmx sse sse2 ssse3 sse4_1 sse4_2 popcnt cx16 lahf_lm"))
                .microarchitecture,
            "x86_64_v2");
}

TEST(CpuX86_64, InvalidUtf8InTheFirstBlockIsUnreadable) {
  const std::string bad = "vendor_id: Genuine\xff" "Intel\nflags: "s + std::string(kHaswellFlags) + "\n";
  const auto m = match_x86_64_cpuinfo(bad);
  EXPECT_TRUE(m.microarchitecture.empty());
  EXPECT_TRUE(m.supported.empty());
  // After the first block it is never read.
  EXPECT_EQ(match_x86_64_cpuinfo(x86_text("GenuineIntel", kHaswellFlags) + "\xff\xfe\n").microarchitecture, "haswell");
}

TEST(CpuX86_64, ConfigsForMicroarchitecture) {
  EXPECT_FALSE(vwheel::provider::x86_64_configs_for_microarchitecture("neoverse_n1"));
  EXPECT_FALSE(vwheel::provider::x86_64_configs_for_microarchitecture(""));
  const auto cannonlake = vwheel::provider::x86_64_configs_for_microarchitecture("cannonlake").value();
  EXPECT_EQ(cannonlake[0].values, kV3);  // v3 level, yet AVX-512 flags (database 9b22d3d)
  const auto n = names(cannonlake);
  EXPECT_NE(std::find(n.begin(), n.end(), "avx512f"), n.end());
  EXPECT_TRUE(vwheel::provider::x86_64_configs_for_microarchitecture("core2").value().empty());
}

// ---- aarch64 -------------------------------------------------------------------------------

TEST(CpuAarch64, NeoverseN1) {
  const auto m = match_aarch64_cpuinfo(arm_text("0x41", "0xd0c", kNeoverseN1Features));
  EXPECT_EQ(m.microarchitecture, "neoverse_n1");
  EXPECT_EQ(m.generic, "armv8.2a");
  EXPECT_EQ(m.vendor, "ARM");
  ASSERT_FALSE(m.supported.empty());
  EXPECT_EQ(m.supported[0].name, "version");
  EXPECT_EQ(m.supported[0].values, (std::vector<std::string>{"8.2a", "8.1a", "8a"}));
  EXPECT_EQ(names(m.supported), (std::vector<std::string>{"version", "asimddp", "lrcpc", "asimdhp", "dcpop", "fphp",
                                                          "aes", "asimd", "cpuid", "crc32", "evtstrm", "fp", "pmull",
                                                          "sha1", "sha2"}));
}

TEST(CpuAarch64, EmptyTextIsVersion8aOnly) {
  const std::vector<FeatureConfig> v8a = {{"version", {"8a"}, false}};
  for (const std::string& text : {""s, "processor: 0\n"s}) {
    const auto m = match_aarch64_cpuinfo(text);
    EXPECT_EQ(m.microarchitecture, "aarch64");
    EXPECT_EQ(m.vendor, "generic");
    EXPECT_EQ(m.supported, v8a);
  }
}

TEST(CpuAarch64, ForeignTextGivesNothing) {
  // An x86_64 cpuinfo (read through $VWHEEL_PROC_CPUINFO) is no aarch64 CPU: no `version 8a`.
  for (const std::string& text : {x86_text("GenuineIntel", kHaswellFlags), "vendor_id: AuthenticAMD\n"s,
                                  "flags: fpu sse sse2\n"s}) {
    const auto m = match_aarch64_cpuinfo(text);
    EXPECT_EQ(m.microarchitecture, "aarch64");
    EXPECT_TRUE(m.supported.empty()) << text;
  }
  // One aarch64 line is enough for the block to be an aarch64 one.
  EXPECT_EQ(match_aarch64_cpuinfo("flags: fpu\nCPU architecture: 8\n").supported,
            (std::vector<FeatureConfig>{{"version", {"8a"}, false}}));
  // And the other way round: an aarch64 cpuinfo on the x86_64 side gives nothing.
  EXPECT_TRUE(x86_64_supported_configs(arm_text("0x41", "0xd0c", kNeoverseN1Features)).empty());
}

TEST(CpuAarch64, UnknownImplementerMatchesNoModel) {
  const auto m = match_aarch64_cpuinfo(arm_text("0xc0", "0xac3", kNeoverseV2Features));
  EXPECT_EQ(m.microarchitecture, "aarch64");
  EXPECT_EQ(m.vendor, "0xc0");
  EXPECT_EQ(m.supported, (std::vector<FeatureConfig>{{"version", {"8a"}, false}}));
  // A missing implementer line is vendor "generic": no model either.
  const auto g = match_aarch64_cpuinfo("Features: "s + std::string(kNeoverseV2Features) + "\nCPU part: 0xd4f\n");
  EXPECT_EQ(g.vendor, "generic");
  EXPECT_EQ(g.microarchitecture, "aarch64");
  // Codes are compared as written.
  EXPECT_EQ(match_aarch64_cpuinfo(arm_text("0X41", "0xd0c", kNeoverseN1Features)).microarchitecture, "aarch64");
}

TEST(CpuAarch64, CpuPartChoosesAmongCandidates) {
  EXPECT_EQ(match_aarch64_cpuinfo(arm_text("0x41", "0xd4f", kNeoverseV2Features)).microarchitecture, "neoverse_v2");
  EXPECT_EQ(match_aarch64_cpuinfo(arm_text("0x41", "0xd49", kNeoverseV2Features)).microarchitecture, "neoverse_n2");
  // Unknown part (Neoverse V3AE): n2 and v2 tie; v2 comes first in the database.
  EXPECT_EQ(match_aarch64_cpuinfo(arm_text("0x41", "0xd83", kNeoverseV2Features)).microarchitecture, "neoverse_v2");
  // The part filter only applies when some candidate has that part: an N1 reporting V2's part
  // lacks V2's features, so it stays an N1.
  EXPECT_EQ(match_aarch64_cpuinfo(arm_text("0x41", "0xd4f", kNeoverseN1Features)).microarchitecture, "neoverse_n1");
  // With V2 features, the Cortex-A72 part keeps only cortex_a72.
  const auto a72 = match_aarch64_cpuinfo(arm_text("0x41", "0xd08", kNeoverseV2Features));
  EXPECT_EQ(a72.microarchitecture, "cortex_a72");
  EXPECT_EQ(a72.supported[0].values, (std::vector<std::string>{"8a"}));
}

TEST(CpuAarch64, VersionComesFromAncestryAndFusedNamesAreNeverReported) {
  const auto m = match_aarch64_cpuinfo(arm_text("0x41", "0xd4f", kNeoverseV2Features));
  EXPECT_EQ(m.supported[0].values, (std::vector<std::string>{"9.0a", "8.5a", "8.4a", "8.3a", "8.2a", "8.1a", "8a"}));
  const auto n = names(m.supported);
  for (const char* never : {"btiecv", "asimdrdmatomics", "bti", "ecv", "asimdrdm", "atomics"}) {
    EXPECT_EQ(std::count(n.begin(), n.end(), never), 0) << never;
  }
  EXPECT_EQ(m.supported.size(), 33U);
  EXPECT_FALSE(vwheel::provider::aarch64_configs_for_microarchitecture("haswell"));
}

// ---- the cpuinfo reader --------------------------------------------------------------------

TEST(CpuinfoParse, Utf8Validation) {
  using vwheel::provider::cpu::parse_cpuinfo_first_block;
  EXPECT_TRUE(parse_cpuinfo_first_block("model name: caf\xc3\xa9 \xf0\x9f\x98\x80\n"));
  for (const std::string& bad : {"\xc0\xaf"s, "\xe0\x80\xaf"s, "\xed\xa0\x80"s, "\xf4\x90\x80\x80"s, "\xf5\x80\x80\x80"s,
                                "\x80"s, "\xc3"s, "\xe2\x82"s, "\xc3\n\xa9"s}) {
    EXPECT_FALSE(parse_cpuinfo_first_block("model name: x" + bad + "\n")) << testing::PrintToString(bad);
  }
}

TEST(CpuinfoParse, FieldsAndStripping) {
  const auto block = vwheel::provider::cpu::parse_cpuinfo_first_block(
      " processor \t: 0 \r\nmodel name\t: A: B \xe3\x80\x80\r\n\x1f key\x1f:\x1fv\x1f\r\n\r\nignored: 1\r\n");
  ASSERT_TRUE(block);
  EXPECT_EQ(block->get("processor"), "0");
  EXPECT_EQ(block->get("model name"), "A: B");
  EXPECT_EQ(block->get("key"), "v");
  EXPECT_FALSE(block->get("ignored"));
  EXPECT_EQ(block->fields().size(), 3U);
}

TEST(CpuinfoParse, ScannerFindsTheEndOfTheFirstBlockAcrossChunks) {
  using vwheel::provider::cpu::FirstBlockScanner;
  {
    FirstBlockScanner s;
    std::string buf = "a: 1\r";
    EXPECT_FALSE(s.feed(buf, false));
    buf += "\nb: 2\r";
    EXPECT_FALSE(s.feed(buf, false));
    buf += "\n\r";  // a \r that may start \r\n: wait
    EXPECT_FALSE(s.feed(buf, false));
    buf += "\nc: 3\n";
    EXPECT_TRUE(s.feed(buf, false));
  }
  {
    FirstBlockScanner s;  // a first line without a colon does not end the block
    EXPECT_FALSE(s.feed("\n", false));
    EXPECT_FALSE(s.feed("\nflags: x", false));
    EXPECT_TRUE(s.feed("\nflags: x\n\n", false));
  }
  {
    FirstBlockScanner s;  // an unterminated line might still get its colon
    EXPECT_FALSE(s.feed("a: 1\nxyz", false));
    EXPECT_TRUE(s.feed("a: 1\nxyz\n", false));
  }
}
