// libFuzzer target for target profiles (target component, JSON): whatever parses must write with
// to_json and read back equal, and laid over an empty profile (`--target` repeated) give itself.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "vwheel/target/profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto profile = vwheel::target::parse_target_profile(text);
  if (!profile) return 0;
  const std::string json = vwheel::target::to_json(*profile);
  auto again = vwheel::target::parse_target_profile(json);
  if (!again || !(*again == *profile)) {
    std::fprintf(stderr, "fuzz_target_profile: to_json does not read back equal: %s\n%s\n",
                 again ? "different" : again.error().message.c_str(), json.c_str());
    std::abort();
  }
  vwheel::target::TargetProfile layered;
  vwheel::target::overlay(layered, *profile);
  if (!(layered == *profile)) {
    std::fprintf(stderr, "fuzz_target_profile: overlay on an empty profile changed it:\n%s\n", json.c_str());
    std::abort();
  }
  return 0;
}
