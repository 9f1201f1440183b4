// libFuzzer target: PEP 508 requirements. Invariant: the normalized text parses back to an equal
// requirement with the same text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "vwheel/markers/requirement.hpp"

using vwheel::markers::Requirement;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = Requirement::parse(text);
  if (!r) {
    if (r.error().message.find("at column ") == std::string::npos) __builtin_trap();
    return 0;
  }
  if (r->name.empty()) __builtin_trap();
  if (!r->url.empty() && !r->specifier.empty()) __builtin_trap();
  const std::string s = r->to_string();
  auto again = Requirement::parse(s);
  if (!again || !(*again == *r) || again->to_string() != s) __builtin_trap();
  (void)r->applies_to({});
  return 0;
}
