#include "vwheel/variant/property.hpp"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

namespace vwheel::variant {
namespace {

constexpr bool is_name_char(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}
constexpr bool is_value_char(char c) noexcept { return is_name_char(c) || c == '.'; }

template <class Pred>
bool all_of_nonempty(std::string_view s, Pred pred) noexcept {
  return !s.empty() && std::all_of(s.begin(), s.end(), pred);
}

// Length in bytes of the Unicode whitespace character at the start of `s` (Python's
// str.isspace() set, which is also what `\s` matches), or 0.
std::size_t whitespace_len(std::string_view s) noexcept {
  if (s.empty()) return 0;
  const auto c0 = static_cast<unsigned char>(s[0]);
  if (c0 == ' ' || (c0 >= 0x09 && c0 <= 0x0d) || (c0 >= 0x1c && c0 <= 0x1f)) return 1;
  if (c0 < 0x80) return 0;
  auto byte = [&](std::size_t i) { return i < s.size() ? static_cast<unsigned char>(s[i]) : 0U; };
  std::uint32_t cp = 0;
  std::size_t len = 0;
  if ((c0 & 0xE0) == 0xC0) {
    cp = ((c0 & 0x1FU) << 6) | (byte(1) & 0x3FU);
    len = 2;
  } else if ((c0 & 0xF0) == 0xE0) {
    cp = ((c0 & 0x0FU) << 12) | ((byte(1) & 0x3FU) << 6) | (byte(2) & 0x3FU);
    len = 3;
  } else {
    return 0;
  }
  for (std::size_t i = 1; i < len; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return 0;
  }
  const bool space = cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
                     cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
  return space ? len : 0;
}

// Length of the Unicode whitespace character that ends `s`, or 0.
std::size_t trailing_whitespace_len(std::string_view s) noexcept {
  for (std::size_t len = 1; len <= 3 && len <= s.size(); ++len) {
    if (whitespace_len(s.substr(s.size() - len)) == len) return len;
  }
  return 0;
}

std::string_view skip_ws(std::string_view s) noexcept {
  while (std::size_t n = whitespace_len(s)) s.remove_prefix(n);
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

bool is_valid_namespace(std::string_view s) noexcept { return all_of_nonempty(s, is_name_char); }
bool is_valid_feature_name(std::string_view s) noexcept { return all_of_nonempty(s, is_name_char); }
bool is_valid_feature_value(std::string_view s) noexcept { return all_of_nonempty(s, is_value_char); }
bool is_valid_label(std::string_view s) noexcept { return all_of_nonempty(s, is_value_char); }

std::string_view strip_unicode_whitespace(std::string_view text) noexcept {
  text = skip_ws(text);
  while (std::size_t n = trailing_whitespace_len(text)) text.remove_suffix(n);
  return text;
}

Result<Property> parse_property(std::string_view text) {
  std::string_view s = strip_unicode_whitespace(text);
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
  std::string_view s = strip_unicode_whitespace(text);
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

Result<Property> make_property(std::string ns, std::string feature, std::string value) {
  if (!is_valid_namespace(ns)) {
    return fail(fmt::format("invalid variant namespace `{}`: expected one or more of [a-z0-9_]", ns));
  }
  if (!is_valid_feature_name(feature)) {
    return fail(fmt::format("invalid variant feature name `{}`: expected one or more of [a-z0-9_]", feature));
  }
  if (!is_valid_feature_value(value)) {
    return fail(fmt::format("invalid variant feature value `{}`: expected one or more of [a-z0-9_.]", value));
  }
  return Property{std::move(ns), std::move(feature), std::move(value)};
}

Result<PropertySet> make_property_set(std::vector<Property> properties) {
  for (const auto& p : properties) {
    if (auto r = make_property(p.ns, p.feature, p.value); !r) return fail(r.error());
  }
  std::sort(properties.begin(), properties.end());
  if (auto dup = std::adjacent_find(properties.begin(), properties.end()); dup != properties.end()) {
    return fail(fmt::format("duplicate variant property `{}`", dup->to_string()));
  }
  return properties;
}

}  // namespace vwheel::variant
