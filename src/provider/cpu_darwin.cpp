#include "provider/cpu_darwin.hpp"

#include "provider/cpu_cpuinfo.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

#ifdef __APPLE__
#include <sys/sysctl.h>
#include <sys/types.h>
#endif

namespace vwheel::provider::cpu {
namespace {

/// sysctl name (after `hw.optional.`) → the Linux names of the same features. Apple's names from
/// its "Determining instruction set characteristics" page; the Linux names from the kernel's
/// Documentation/arch/arm64/elf_hwcaps.rst.
constexpr std::array<std::pair<std::string_view, std::string_view>, 46> kFeatures{{
    {"arm.FEAT_AES", "aes"},
    {"arm.FEAT_PMULL", "pmull"},
    {"arm.FEAT_SHA1", "sha1"},
    {"arm.FEAT_SHA256", "sha2"},
    {"arm.FEAT_SHA512", "sha512"},
    {"arm.FEAT_SHA3", "sha3"},
    {"arm.FEAT_CRC32", "crc32"},
    {"arm.FEAT_LSE", "atomics"},
    {"arm.FEAT_LSE2", "uscat"},
    {"arm.FEAT_RDM", "asimdrdm"},
    {"arm.FEAT_DotProd", "asimddp"},
    {"arm.FEAT_FHM", "asimdfhm"},
    {"arm.FEAT_FP16", "fphp asimdhp"},
    {"arm.FEAT_FCMA", "fcma"},
    {"arm.FEAT_JSCVT", "jscvt"},
    {"arm.FEAT_LRCPC", "lrcpc"},
    {"arm.FEAT_LRCPC2", "ilrcpc"},
    {"arm.FEAT_DPB", "dcpop"},
    {"arm.FEAT_DPB2", "dcpodp"},
    {"arm.FEAT_DIT", "dit"},
    {"arm.FEAT_FlagM", "flagm"},
    {"arm.FEAT_FlagM2", "flagm2"},
    {"arm.FEAT_SSBS", "ssbs"},
    {"arm.FEAT_SB", "sb"},
    {"arm.FEAT_PAuth", "paca pacg"},
    {"arm.FEAT_FRINTTS", "frint"},
    {"arm.FEAT_BF16", "bf16"},
    {"arm.FEAT_EBF16", "ebf16"},
    {"arm.FEAT_I8MM", "i8mm"},
    {"arm.FEAT_ECV", "ecv"},
    {"arm.FEAT_AFP", "afp"},
    {"arm.FEAT_RPRES", "rpres"},
    {"arm.FEAT_WFxT", "wfxt"},
    {"arm.FEAT_BTI", "bti"},
    {"arm.FEAT_SME", "sme"},
    {"arm.FEAT_SME2", "sme2"},
    {"arm.FEAT_CSSC", "cssc"},
    {"arm.FEAT_HBC", "hbc"},
    // macOS 11's names, still answered by later releases.
    {"neon", "asimd"},
    {"neon_hpfp", "fphp asimdhp"},
    {"neon_fp16", "fphp asimdhp"},
    {"armv8_1_atomics", "atomics"},
    {"armv8_crc32", "crc32"},
    {"armv8_2_fhm", "asimdfhm"},
    {"armv8_2_sha512", "sha512"},
    {"armv8_2_sha3", "sha3"},
}};

constexpr std::string_view kOptional = "hw.optional.";
constexpr std::string_view kBrand = "machdep.cpu.brand_string";

void add_words(std::vector<std::string>& out, std::string_view words) {
  while (!words.empty()) {
    const auto space = words.find(' ');
    const auto word = words.substr(0, space);
    if (std::find(out.begin(), out.end(), word) == out.end()) out.emplace_back(word);
    if (space == std::string_view::npos) break;
    words.remove_prefix(space + 1);
  }
}

/// archspec's reading of the brand on macOS (`m2` in "apple m2 max" → m2; any other Apple → m1),
/// with the models newer than the embedded database mapped to the newest it has.
void choose_model(DarwinCpu& cpu) {
  std::string lower;
  for (const char c : cpu.brand) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  const auto at = lower.find("apple m");
  if (at != std::string::npos) {
    int generation = 0;
    for (std::size_t i = at + 7; i < lower.size() && std::isdigit(static_cast<unsigned char>(lower[i])) != 0; ++i) {
      generation = generation * 10 + (lower[i] - '0');
      if (generation > 99) break;
    }
    if (generation == 1 || generation == 2) {
      cpu.model = generation == 1 ? "m1" : "m2";
      cpu.model_note = "machdep.cpu.brand_string \"" + cpu.brand + "\": " + cpu.model;
      return;
    }
    if (generation > 2) {
      cpu.model = "m2";
      cpu.model_note = "machdep.cpu.brand_string \"" + cpu.brand +
                       "\": newer than the database's Apple models, answered as m2 (its ancestor in later databases)";
      return;
    }
  }
  if (lower.find("apple") != std::string::npos) {
    cpu.model = "m1";
    cpu.model_note = "machdep.cpu.brand_string \"" + cpu.brand + "\": an Apple CPU of no known model, answered as m1";
  }
}

}  // namespace

std::optional<DarwinCpu> parse_darwin_sysctl(std::string_view text) {
  // Read as the first processor block of a cpuinfo text is (the same lines, the same stripping,
  // the same end, nullopt for text that is not UTF-8): a recorded output given as a cpuinfo file
  // is read only that far, and the answer must not depend on how much more was read.
  const auto block = parse_cpuinfo_first_block(text);
  if (!block) return std::nullopt;
  const auto& fields = block->fields();
  if (std::none_of(fields.begin(), fields.end(), [](const auto& f) { return f.first.starts_with(kOptional); })) {
    return std::nullopt;
  }
  DarwinCpu cpu;
  cpu.features = {"fp", "asimd", "evtstrm", "cpuid"};
  if (const auto brand = block->get(kBrand)) cpu.brand = std::string(*brand);
  for (const auto& [sysctl_name, linux_names] : kFeatures) {
    // The last value of a repeated name counts, as for a cpuinfo key.
    if (block->get(std::string(kOptional) + std::string(sysctl_name)) == std::string_view("1")) {
      add_words(cpu.features, linux_names);
    }
  }
  choose_model(cpu);
  return cpu;
}

#ifdef __APPLE__
std::string read_darwin_sysctl() {
  std::string out;
  char brand[256] = {};
  std::size_t size = sizeof(brand) - 1;
  if (sysctlbyname(std::string(kBrand).c_str(), brand, &size, nullptr, 0) == 0) {
    out += std::string(kBrand) + ": " + std::string(brand, strnlen(brand, sizeof(brand))) + "\n";
  }
  for (const auto& [sysctl_name, linux_names] : kFeatures) {
    const std::string name = std::string(kOptional) + std::string(sysctl_name);
    int value = 0;
    std::size_t value_size = sizeof(value);
    if (sysctlbyname(name.c_str(), &value, &value_size, nullptr, 0) == 0) {
      out += name + ": " + std::to_string(value) + "\n";
    }
  }
  return out;
}
#endif

}  // namespace vwheel::provider::cpu
