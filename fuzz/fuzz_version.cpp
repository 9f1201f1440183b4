// libFuzzer target: PEP 440 versions and specifiers. Invariants: the normalized text parses back
// to an equal version and is a fixed point; ordering is a consistent total order; specifier sets
// round-trip; matching never crashes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "vwheel/pep440/specifier.hpp"
#include "vwheel/pep440/version.hpp"

using vwheel::pep440::Specifier;
using vwheel::pep440::SpecifierSet;
using vwheel::pep440::Version;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  auto v = Version::parse(text);
  if (v) {
    const std::string s = v->to_string();
    auto again = Version::parse(s);
    if (!again || *again != *v || again->to_string() != s) __builtin_trap();
    if (v->compare(*v) != 0) __builtin_trap();
    if (v->without_local() > *v) __builtin_trap();
    if (v->has_local() && !(v->without_local() < *v)) __builtin_trap();
    auto pub = Version::parse(v->public_version());
    if (!pub || *pub != v->without_local()) __builtin_trap();
    if (!Version::parse(v->base_version())) __builtin_trap();
    if (v->is_prerelease() != (v->pre().has_value() || v->dev().has_value())) __builtin_trap();
  }

  // Two versions separated by a newline: the ordering must be antisymmetric and consistent.
  if (const auto nl = text.find('\n'); nl != std::string_view::npos) {
    auto a = Version::parse(text.substr(0, nl));
    auto b = Version::parse(text.substr(nl + 1));
    if (a && b) {
      const auto ab = a->compare(*b);
      const auto ba = b->compare(*a);
      if ((ab < 0) != (ba > 0) || (ab == 0) != (ba == 0)) __builtin_trap();
      if ((ab == 0) != (*a == *b)) __builtin_trap();
    }
  }

  auto set = SpecifierSet::parse(text);
  if (set) {
    const std::string s = set->to_string();
    auto again = SpecifierSet::parse(s);
    if (!again || again->to_string() != s || !(*again == *set)) __builtin_trap();
    for (const char* probe : {"0", "1.0", "1.0a1", "2.0.post1+local", "1!1.0.dev1", "99999999999999999999999"}) {
      const auto pv = *Version::parse(probe);
      const bool with = set->contains(pv, true);
      const bool without = set->contains(pv, false);
      if (without && !with) __builtin_trap();  // allowing pre-releases never removes a match
      (void)set->contains(pv);
    }
    if (v) (void)set->contains(*v);
  }

  auto spec = Specifier::parse(text);
  if (spec) {
    auto again = Specifier::parse(spec->to_string());
    if (!again || again->to_string() != spec->to_string() || !(*again == *spec)) __builtin_trap();
  }

  // `spec|version`
  if (const auto bar = text.find('|'); bar != std::string_view::npos) {
    if (auto s = Specifier::parse(text.substr(0, bar))) {
      (void)s->contains(text.substr(bar + 1));
      (void)s->contains(text.substr(bar + 1), true);
    }
  }

  if (vwheel::pep440::match_specifier(text) > text.size()) __builtin_trap();
  return 0;
}
