// libFuzzer target: wheel file names. Invariants: a parsed name prints back to the input, its
// base name is a prefix of it, and the tag sets expand.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "vwheel/wheel_name/names.hpp"
#include "vwheel/wheel_name/wheel_name.hpp"

using vwheel::wheel_name::parse_wheel_name;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto w = parse_wheel_name(text);
  if (w) {
    if (w->to_string() != text) __builtin_trap();
    if (!text.starts_with(w->base_name())) __builtin_trap();
    if (!w->base_name().starts_with(w->namever())) __builtin_trap();
    if (w->tags().empty()) __builtin_trap();
    if (w->python_tags().empty() || w->python_tags().front().empty()) __builtin_trap();
    auto again = parse_wheel_name(w->to_string());
    if (!again || !(*again == *w)) __builtin_trap();
  } else if (w.error().message.find('\n') != std::string::npos) {
    __builtin_trap();
  }
  const std::string canonical = vwheel::wheel_name::canonicalize_name(text);
  if (vwheel::wheel_name::canonicalize_name(canonical) != canonical) __builtin_trap();
  if (!vwheel::wheel_name::is_normalized_name(canonical)) __builtin_trap();
  (void)vwheel::wheel_name::is_valid_project_name(text);
  (void)vwheel::wheel_name::escape_wheel_name(text);
  return 0;
}
