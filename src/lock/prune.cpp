// PEP 825: pruning `[packages.variants-json]` to the variants a lock lists.

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "vwheel/lock/pylock.hpp"
#include "vwheel/wheel_name/wheel_name.hpp"

namespace vwheel::lock {

variant::VariantMetadata prune_variants_json(const variant::VariantMetadata& metadata,
                                             const std::vector<std::string>& used_labels) {
  variant::VariantMetadata out = metadata;
  const std::set<std::string> used(used_labels.begin(), used_labels.end());
  std::erase_if(out.variants, [&](const auto& entry) { return used.count(entry.first) == 0; });

  std::set<std::string> namespaces;
  for (const auto& [label, properties] : out.variants) {
    for (const auto& property : properties) namespaces.insert(property.ns);
  }
  std::vector<std::string> kept;
  for (const auto& ns : metadata.namespace_priorities) {
    if (namespaces.count(ns) != 0) kept.push_back(ns);
  }
  // The schema wants at least one namespace: when only the null variant (or none) is left, the
  // highest-priority namespace stays.
  if (kept.empty() && !metadata.namespace_priorities.empty()) kept.push_back(metadata.namespace_priorities.front());
  const std::set<std::string> keep(kept.begin(), kept.end());
  out.namespace_priorities = std::move(kept);
  const auto unused = [&](const auto& entry) { return keep.count(entry.first) == 0; };
  std::erase_if(out.feature_priorities, unused);
  std::erase_if(out.property_priorities, unused);
  std::erase_if(out.providers, unused);
  std::erase_if(out.static_properties, unused);
  return out;
}

std::vector<std::string> used_variant_labels(const LockedPackage& package) {
  std::set<std::string> labels;
  for (const auto& wheel : package.wheels) {
    auto parsed = wheel_name::parse_wheel_name(wheel.name);
    if (parsed && parsed->label) labels.insert(*parsed->label);
  }
  return {labels.begin(), labels.end()};
}

}  // namespace vwheel::lock
