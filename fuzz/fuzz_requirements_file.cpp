// libFuzzer target for requirement files (`-r requirements.txt`, resolve component): any bytes
// either parse or fail with a message naming the file.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "vwheel/resolve/requirements_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = vwheel::resolve::parse_requirements_file(text, "fuzz.txt");
  if (!parsed && parsed.error().message.rfind("fuzz.txt", 0) != 0) {
    std::fprintf(stderr, "fuzz_requirements_file: error without the file name: %s\n", parsed.error().message.c_str());
    std::abort();
  }
  return 0;
}
