// libFuzzer target for a project's locking inputs (metadata component: `[project]` and PEP 735
// `[dependency-groups]` of a pyproject.toml): any bytes parse or fail with a one-line message,
// without crashing; what parses has one digest, however often it is asked.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "vwheel/metadata/project.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = vwheel::metadata::parse_project(text, "pyproject.toml");
  if (!parsed) {
    const auto& message = parsed.error().message;
    if (message.empty() || message.find('\n') != std::string::npos) {
      std::fprintf(stderr, "fuzz_project: an error that is not one line: [%s]\n", message.c_str());
      std::abort();
    }
    return 0;
  }
  if (*parsed && vwheel::metadata::project_inputs_digest(**parsed) != vwheel::metadata::project_inputs_digest(**parsed)) {
    std::fprintf(stderr, "fuzz_project: two digests of one project\n");
    std::abort();
  }
  return 0;
}
