#include "vwheel/variant/property.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

#include <fmt/format.h>

#include "vwheel/core/text.hpp"

namespace vwheel::variant {
namespace {

// Character classes as one table lookup a character: bit 1 for names ([a-z0-9_]), bit 2 for
// values and labels (names' characters and '.').
constexpr std::array<std::uint8_t, 256> kCharClass = [] {
  std::array<std::uint8_t, 256> table{};
  for (int c = 'a'; c <= 'z'; ++c) table[c] = 3;
  for (int c = '0'; c <= '9'; ++c) table[c] = 3;
  table['_'] = 3;
  table['.'] = 2;
  return table;
}();

constexpr bool is_name_char(char c) noexcept { return (kCharClass[static_cast<unsigned char>(c)] & 1) != 0; }
constexpr bool is_value_char(char c) noexcept { return (kCharClass[static_cast<unsigned char>(c)] & 2) != 0; }

// Whether a whole string is made of `Pred` characters. The predicate is a template argument, not a
// function pointer, so that it is inlined: `rank` checks every name and value of the package's file and of
// the target's profile, and the calls through a pointer cost it 107 k instructions (4%, callgrind).
template <bool (*Pred)(char) noexcept>
bool all_of_nonempty(std::string_view s) noexcept {
  if (s.empty()) return false;
  for (const char c : s) {
    if (!Pred(c)) return false;
  }
  return true;
}

std::string_view skip_ws(std::string_view s) noexcept {
  while (!s.empty()) {
    const std::size_t n = python_space_length(s, 0);
    if (n == 0) break;
    s.remove_prefix(n);
  }
  return s;
}

// Consumes a run of characters accepted by `pred`; returns it (possibly empty).
template <class Pred>
std::string_view take(std::string_view& s, Pred pred) noexcept {
  std::size_t n = 0;
  while (n < s.size() && pred(s[n])) ++n;
  auto head = s.substr(0, n);
  s.remove_prefix(n);
  return head;
}

bool take_separator(std::string_view& s) noexcept {
  s = skip_ws(s);
  if (!s.starts_with("::")) return false;
  s.remove_prefix(2);
  s = skip_ws(s);
  return true;
}

}  // namespace

std::string Property::to_string() const { return fmt::format("{} :: {} :: {}", ns, feature, value); }
std::string Property::feature_string() const { return fmt::format("{} :: {}", ns, feature); }
std::string FeatureRef::to_string() const { return fmt::format("{} :: {}", ns, feature); }

bool is_valid_namespace(std::string_view s) noexcept { return all_of_nonempty<is_name_char>(s); }
bool is_valid_feature_name(std::string_view s) noexcept { return all_of_nonempty<is_name_char>(s); }
bool is_valid_feature_value(std::string_view s) noexcept { return all_of_nonempty<is_value_char>(s); }
bool is_valid_label(std::string_view s) noexcept { return all_of_nonempty<is_value_char>(s); }

Result<Property> parse_property(std::string_view text) {
  std::string_view s = python_strip(text);
  const auto ns = take(s, is_name_char);
  bool ok = !ns.empty() && take_separator(s);
  std::string_view feature;
  std::string_view value;
  if (ok) {
    feature = take(s, is_name_char);
    ok = !feature.empty() && take_separator(s);
  }
  if (ok) {
    value = take(s, is_value_char);
    ok = !value.empty() && s.empty();
  }
  if (!ok) {
    return fail(fmt::format("invalid variant property `{}`: expected `<namespace> :: <feature> :: <value>` "
                            "(namespace and feature of [a-z0-9_], value of [a-z0-9_.])",
                            text));
  }
  return Property{std::string(ns), std::string(feature), std::string(value)};
}

Result<FeatureRef> parse_feature(std::string_view text) {
  std::string_view s = python_strip(text);
  const auto ns = take(s, is_name_char);
  bool ok = !ns.empty() && take_separator(s);
  std::string_view feature;
  if (ok) {
    feature = take(s, is_name_char);
    ok = !feature.empty() && s.empty();
  }
  if (!ok) {
    return fail(fmt::format("invalid variant feature `{}`: expected `<namespace> :: <feature>` "
                            "(both of [a-z0-9_])",
                            text));
  }
  return FeatureRef{std::string(ns), std::string(feature)};
}

namespace {

// Checks the three parts without copying them (make_property_set checks every property of a file).
Result<void> check_property(std::string_view ns, std::string_view feature, std::string_view value) {
  if (!is_valid_namespace(ns)) {
    return fail(fmt::format("invalid variant namespace `{}`: expected one or more of [a-z0-9_]", ns));
  }
  if (!is_valid_feature_name(feature)) {
    return fail(fmt::format("invalid variant feature name `{}`: expected one or more of [a-z0-9_]", feature));
  }
  if (!is_valid_feature_value(value)) {
    return fail(fmt::format("invalid variant feature value `{}`: expected one or more of [a-z0-9_.]", value));
  }
  return {};
}

}  // namespace

Result<Property> make_property(std::string ns, std::string feature, std::string value) {
  if (auto ok = check_property(ns, feature, value); !ok) return fail(ok.error());
  return Property{std::move(ns), std::move(feature), std::move(value)};
}

Result<PropertySet> make_property_set(std::vector<Property> properties) {
  for (const auto& p : properties) {
    if (auto ok = check_property(p.ns, p.feature, p.value); !ok) return fail(ok.error());
  }
  std::sort(properties.begin(), properties.end());
  if (auto dup = std::adjacent_find(properties.begin(), properties.end()); dup != properties.end()) {
    return fail(fmt::format("duplicate variant property `{}`", dup->to_string()));
  }
  return properties;
}

}  // namespace vwheel::variant
