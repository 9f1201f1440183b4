// libFuzzer target: the CPU providers' /proc/cpuinfo detection (x86_64 and aarch64).
// Invariants: detection never crashes; the answer is within the provider's all-configs and
// shaped as the reference's (`level`/`version` first, flags `on`, single-value); reading only up
// to the end of the first processor block (as the providers do, chunk by chunk) gives the same
// answer as the whole text.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

// Private header of the provider component (the fuzzer checks the incremental reader too).
#include "provider/cpu_cpuinfo.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/provider/cpu.hpp"

namespace {

using vwheel::provider::CpuMatch;
using vwheel::variant::FeatureConfig;

void check_shape(const CpuMatch& m, const std::vector<FeatureConfig>& all, std::string_view first) {
  if (m.microarchitecture.empty() && (!m.supported.empty() || !m.generic.empty())) __builtin_trap();
  if (!m.supported.empty() && m.supported.front().name != first) __builtin_trap();
  for (std::size_t i = 0; i < m.supported.size(); ++i) {
    const FeatureConfig& c = m.supported[i];
    if (c.multi_value || c.values.empty()) __builtin_trap();
    if (i > 0 && c.values != std::vector<std::string>{"on"}) __builtin_trap();
    const auto it = std::find_if(all.begin(), all.end(), [&](const FeatureConfig& a) { return a.name == c.name; });
    if (it == all.end()) __builtin_trap();
    for (const auto& v : c.values) {
      if (std::find(it->values.begin(), it->values.end(), v) == it->values.end()) __builtin_trap();
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (m.supported[j].name == c.name) __builtin_trap();
    }
  }
}

bool same(const CpuMatch& a, const CpuMatch& b) {
  return a.microarchitecture == b.microarchitecture && a.generic == b.generic && a.vendor == b.vendor &&
         a.supported == b.supported;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  const CpuMatch x86 = vwheel::provider::match_x86_64_cpuinfo(text);
  const CpuMatch arm = vwheel::provider::match_aarch64_cpuinfo(text);
  static const auto x86_all = vwheel::provider::x86_64_all_configs();
  static const auto arm_all = vwheel::provider::aarch64_all_configs();
  check_shape(x86, x86_all, "level");
  check_shape(arm, arm_all, "version");
  // aarch64 reports at least `version` for readable text, unless its first block is an x86_64
  // one (`vendor_id` or `flags`, and none of the lines an aarch64 kernel writes).
  bool x86_block = false;
  if (const auto block = vwheel::provider::cpu::parse_cpuinfo_first_block(text)) {
    x86_block = (block->get("vendor_id") || block->get("flags")) && !block->get("Features") &&
                !block->get("CPU implementer") && !block->get("CPU part") && !block->get("CPU architecture");
  }
  if (!arm.microarchitecture.empty() && arm.supported.empty() && !x86_block) __builtin_trap();
  if (x86.microarchitecture.empty() != arm.microarchitecture.empty()) __builtin_trap();

  // Feed the text in chunks (size from the first byte) as read_cpuinfo_file does; once the
  // scanner says the first block has ended, the prefix read so far must give the same answer.
  const std::size_t chunk = size == 0 ? 1 : 1 + static_cast<std::size_t>(data[0] % 64);
  vwheel::provider::cpu::FirstBlockScanner scanner;
  for (std::size_t end = std::min(chunk, size); end <= size; end = std::min(end + chunk, size)) {
    const bool at_eof = end == size;
    if (scanner.feed(text.substr(0, end), at_eof) || at_eof) {
      const std::string_view prefix = text.substr(0, end);
      if (!same(vwheel::provider::match_x86_64_cpuinfo(prefix), x86)) __builtin_trap();
      if (!same(vwheel::provider::match_aarch64_cpuinfo(prefix), arm)) __builtin_trap();
      break;
    }
  }

  const auto words = vwheel::provider::cpu::split_words(text);
  for (const auto w : words) {
    if (w.empty() || vwheel::python_strip(w) != w) __builtin_trap();
  }
  return 0;
}
