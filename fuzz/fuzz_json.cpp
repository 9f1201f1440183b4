// libFuzzer target for core's untrusted JSON reader, against plain nlohmann::json::parse: a
// document it accepts reads the same there, a syntax error is one there too, and every refusal is
// one line with a place. Small limits, so that depth and size refusals are reached often.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/json.hpp"

namespace {

[[noreturn]] void fail(const char* what, std::string_view detail) {
  std::fprintf(stderr, "fuzz_json: %s: %.*s\n", what, static_cast<int>(detail.size()), detail.data());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const vwheel::JsonLimits limits{.max_depth = 8, .max_members = 16};
  auto parsed = vwheel::parse_untrusted_json(text, limits);
  const auto reference = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed) {
    if (reference.is_discarded()) fail("accepted what nlohmann refuses", text);
    if (reference != *parsed) fail("read differently from nlohmann", text);
    return 0;
  }
  const auto& e = parsed.error();
  const std::string message = e.message();
  if (message.empty() || message.find('\n') != std::string::npos || message.find('\r') != std::string::npos) {
    fail("message is not one line", message);
  }
  if (e.kind == vwheel::JsonError::Kind::syntax) {
    if (!reference.is_discarded()) fail("syntax error where nlohmann reads a document", message);
    return 0;
  }
  if (e.line == 0 || e.column == 0 || e.line > size + 1 || e.column > size + 1) fail("no place", message);
  if (e.kind == vwheel::JsonError::Kind::depth && e.path.size() != limits.max_depth) fail("depth path", message);
  return 0;
}
