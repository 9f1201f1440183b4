// Merging variant metadata of one package version (PEP 825 "Metadata consistency"; PEP 817 for
// the draft keys). See merge.hpp for the rules.

#include "vwheel/metadata/merge.hpp"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "metadata/internal.hpp"

namespace vwheel::metadata {
namespace {

using variant::VariantMetadata;

std::string render(const std::vector<std::string>& list) {
  return "[" + detail::quoted_list(list, list.size()) + "]";
}

std::string render(const variant::PropertySet& set) {
  std::string out = "{";
  for (std::size_t i = 0; i < set.size(); ++i) {
    if (i > 0) out += ", ";
    out += set[i].to_string();
  }
  return out + "}";
}

std::string render(const std::map<std::string, std::vector<std::string>>& map) {
  std::string out = "{";
  bool first = true;
  for (const auto& [key, list] : map) {
    if (!first) out += ", ";
    first = false;
    out += fmt::format("{}: {}", detail::python_json_string(key), render(list));
  }
  return out + "}";
}

std::string render(const variant::ProviderInfo& p) {
  std::vector<std::string> parts;
  parts.push_back("requires: " + render(p.requires_));
  if (p.enable_if) parts.push_back("enable-if: " + detail::python_json_string(*p.enable_if));
  parts.push_back(fmt::format("optional: {}", p.optional));
  if (p.plugin_api) parts.push_back("plugin-api: " + detail::python_json_string(*p.plugin_api));
  parts.push_back(fmt::format("install-time: {}", p.install_time));
  std::string out = "{";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i > 0 ? ", " : "") + parts[i];
  return out + "}";
}

bool starts_with(const std::vector<std::string>& longer, const std::vector<std::string>& shorter) {
  return shorter.size() <= longer.size() && std::equal(shorter.begin(), shorter.end(), longer.begin());
}

bool lists_namespace(const VariantMetadata& md, const std::string& ns) {
  return std::find(md.namespace_priorities.begin(), md.namespace_priorities.end(), ns) !=
         md.namespace_priorities.end();
}

// Union of two maps keyed by namespace into `out` (a copy of `acc_map`); a key in both must have
// equal values. With `listed_means_none`, a key in one map only is an inconsistency if the other
// document lists the namespace (that document then states "no override" for it).
template <class Map>
void merge_map(Map& out, const Map& acc_map, const Map& other_map, const VariantMetadata& acc,
               const VariantMetadata& other, std::string_view key, bool listed_means_none,
               std::vector<std::string>& errors) {
  auto absent_error = [&](const std::string& ns, const auto& value) {
    errors.push_back(fmt::format("{}.{}: {} in one input, but absent from another that lists namespace {}", key, ns,
                                 render(value), detail::python_json_string(ns)));
  };
  for (const auto& [ns, value] : other_map) {
    const auto it = acc_map.find(ns);
    if (it != acc_map.end()) {
      if (it->second != value) {
        errors.push_back(
            fmt::format("{}.{}: inconsistent values {} and {}", key, ns, render(it->second), render(value)));
      }
    } else if (listed_means_none && lists_namespace(acc, ns)) {
      absent_error(ns, value);
    } else {
      out.emplace(ns, value);
    }
  }
  if (!listed_means_none) return;
  for (const auto& [ns, value] : acc_map) {
    if (!other_map.contains(ns) && lists_namespace(other, ns)) absent_error(ns, value);
  }
}

}  // namespace

Result<void> merge_into(VariantMetadata& acc, const VariantMetadata& other) {
  VariantMetadata merged = acc;
  std::vector<std::string> errors;

  if (variant::is_providers_schema(acc.schema) != variant::is_providers_schema(other.schema)) {
    const auto version = [](const VariantMetadata& md) {
      return fmt::format("{}.{}.{}", md.schema.major, md.schema.minor, md.schema.patch);
    };
    errors.push_back(fmt::format("$schema: format versions {} and {} cannot be merged (the Providers draft's "
                                 "v0.2 documents of one project version must all use that format)",
                                 version(acc), version(other)));
  }

  // default-priorities.namespace: identical, or one starts with the other; keep the longer.
  if (starts_with(other.namespace_priorities, acc.namespace_priorities)) {
    merged.namespace_priorities = other.namespace_priorities;
  } else if (!starts_with(acc.namespace_priorities, other.namespace_priorities)) {
    errors.push_back(fmt::format("default-priorities.namespace: inconsistent lists {} and {} (neither starts with "
                                 "the other)",
                                 render(acc.namespace_priorities), render(other.namespace_priorities)));
  }

  // variants: union; one label, one property set.
  for (const auto& [label, properties] : other.variants) {
    const auto it = merged.variants.find(label);
    if (it == merged.variants.end()) {
      merged.variants.emplace(label, properties);
    } else if (it->second != properties) {
      errors.push_back(detail::single_line(fmt::format("{}: the label maps to different properties: {} and {}",
                                                       detail::child_path("variants", label), render(it->second),
                                                       render(properties))));
    }
  }

  merge_map(merged.feature_priorities, acc.feature_priorities, other.feature_priorities, acc, other,
            "default-priorities.feature", true, errors);
  merge_map(merged.property_priorities, acc.property_priorities, other.property_priorities, acc, other,
            "default-priorities.property", true, errors);
  merge_map(merged.providers, acc.providers, other.providers, acc, other, "providers", false, errors);
  merge_map(merged.static_properties, acc.static_properties, other.static_properties, acc, other,
            "static-properties", false, errors);

  // $schema: the newest version; the greater URL on a tie (order-independent).
  if (std::tie(other.schema, other.schema_url) > std::tie(acc.schema, acc.schema_url)) {
    merged.schema = other.schema;
    merged.schema_url = other.schema_url;
  }

  if (!errors.empty()) {
    std::vector<std::string> rest(std::make_move_iterator(errors.begin() + 1),
                                  std::make_move_iterator(errors.end()));
    return fail(Error(std::move(errors.front()), std::move(rest)));
  }
  acc = std::move(merged);
  return {};
}

Result<VariantMetadata> merge_all(std::span<const VariantMetadata> inputs) {
  if (inputs.empty()) return VariantMetadata{};
  VariantMetadata acc = inputs.front();
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    if (auto r = merge_into(acc, inputs[i]); !r) {
      return fail(r.error().with_context(fmt::format("merging input #{} (of {})", i + 1, inputs.size())));
    }
  }
  return acc;
}

}  // namespace vwheel::metadata
