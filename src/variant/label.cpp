#include "vwheel/variant/label.hpp"


#include <fmt/format.h>
#include "vwheel/core/hash.hpp"

namespace vwheel::variant {

std::string canonical_text(const PropertySet& properties) {
  std::string text;
  std::size_t size = 0;
  for (const auto& p : properties) size += p.ns.size() + p.feature.size() + p.value.size() + 9;
  text.reserve(size);
  for (const auto& p : properties) {
    text.append(p.ns).append(" :: ").append(p.feature).append(" :: ").append(p.value).push_back('\n');
  }
  return text;
}

std::string variant_hash(const PropertySet& properties) {
  return sha256_hex(canonical_text(properties)).substr(0, 8);
}

Result<std::string> make_label(const PropertySet& properties, const std::optional<std::string>& custom) {
  if (!custom) {
    return properties.empty() ? std::string(kNullLabel) : variant_hash(properties);
  }
  if (properties.empty()) {
    if (*custom != kNullLabel) {
      return fail(fmt::format("invalid variant label `{}`: a variant without properties must use the label `null`",
                              *custom));
    }
    return *custom;
  }
  if (*custom == kNullLabel) {
    return fail("invalid variant label `null`: it is reserved for the variant without properties");
  }
  if (!is_valid_label(*custom)) {
    return fail(fmt::format("invalid variant label `{}`: expected one or more of [0-9a-z_.]", *custom));
  }
  return *custom;
}

}  // namespace vwheel::variant
