// libFuzzer target for the user configuration (config component, TOML): any bytes parse or fail
// with a message, without crashing.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "vwheel/config/user_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = vwheel::config::parse_user_config(text);
  if (!parsed && parsed.error().message.empty()) {
    std::fprintf(stderr, "fuzz_user_config: an error without a message\n");
    std::abort();
  }
  return 0;
}
