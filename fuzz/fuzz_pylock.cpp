// libFuzzer target for pylock.toml (lock component): whatever parse_pylock accepts must write,
// read back, and write to the same text (the round trip write_pylock documents).

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "vwheel/lock/pylock.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto lock = vwheel::lock::parse_pylock(text, "fuzz");
  if (!lock) return 0;
  const std::string first = vwheel::lock::write_pylock(*lock);
  auto again = vwheel::lock::parse_pylock(first, "fuzz");
  if (!again) {
    std::fprintf(stderr, "fuzz_pylock: the written lock does not parse: %s\n%s\n", again.error().message.c_str(),
                 first.c_str());
    std::abort();
  }
  if (vwheel::lock::write_pylock(*again) != first) {
    std::fprintf(stderr, "fuzz_pylock: write -> parse -> write changed the text:\n%s\n", first.c_str());
    std::abort();
  }
  return 0;
}
