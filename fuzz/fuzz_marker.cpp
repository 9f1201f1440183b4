// libFuzzer target: PEP 508 / PEP 825 markers. Invariants: the normalized text parses back to the
// same text, and evaluating the reparsed marker gives the same result (or the same error).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "vwheel/markers/marker.hpp"

using vwheel::markers::Environment;
using vwheel::markers::Marker;

namespace {

const Environment& environment() {
  static const Environment env = [] {
    Environment e;
    e.variables = {
        {"implementation_name", "cpython"},
        {"implementation_version", "3.11.2"},
        {"os_name", "posix"},
        {"platform_machine", "x86_64"},
        {"platform_release", "6.1.0-rc1"},
        {"platform_system", "Linux"},
        {"platform_version", "#1 SMP"},
        {"python_full_version", "3.11.2"},
        {"platform_python_implementation", "CPython"},
        {"python_version", "3.11"},
        {"sys_platform", "linux"},
        {"extra", "Test_Extra"},
    };
    e.variant_label = "cu126";
    e.variant_properties = {"nvidia :: sm_arch :: 120_real", "x86_64 :: level :: v3"};
    e.variant_features = {"nvidia :: sm_arch", "x86_64 :: level"};
    e.variant_namespaces = {"nvidia", "x86_64"};
    return e;
  }();
  return env;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto m = Marker::parse(text);
  if (!m) {
    if (m.error().message.empty()) __builtin_trap();
    return 0;
  }
  const std::string s = m->to_string();
  auto again = Marker::parse(s);
  if (!again || again->to_string() != s) __builtin_trap();

  auto r1 = m->evaluate(environment());
  auto r2 = again->evaluate(environment());
  if (r1.has_value() != r2.has_value()) __builtin_trap();
  if (r1 && *r1 != *r2) __builtin_trap();
  if (!r1 && r1.error().message != r2.error().message) __builtin_trap();
  (void)m->evaluate(Environment{});
  (void)m->variables();
  return 0;
}
