// Writing variant metadata (draft v0.0.3 as variantlib does, PEP 825 v0.1.1, and the Providers
// draft's v0.2.0).

#include "vwheel/metadata/serialize.hpp"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "metadata/internal.hpp"
#include "vwheel/metadata/document.hpp"
#include "vwheel/variant/label.hpp"
#include "vwheel/variant/ordering.hpp"

namespace vwheel::metadata {
namespace {

using detail::Json;

Json string_list(const std::vector<std::string>& items) {
  Json out = Json::array();
  for (const auto& item : items) out.push_back(item);
  return out;
}

Json property_map(const variant::PropertyMap& map) {
  Json out = Json::object();
  for (const auto& [ns, features] : map) {
    Json& ns_out = out[ns] = Json::object();
    for (const auto& [feature, values] : features) ns_out[feature] = string_list(values);
  }
  return out;
}

// `{label: {ns: {feature: [values]}}}`; values come out sorted because the sets are.
Json variants_json(const std::map<std::string, variant::PropertySet>& variants) {
  Json out = Json::object();
  for (const auto& [label, properties] : variants) {
    Json& body = out[label] = Json::object();
    for (const auto& p : properties) {
      Json& ns = body[p.ns];
      if (ns.is_null()) ns = Json::object();
      Json& values = ns[p.feature];
      if (values.is_null()) values = Json::array();
      values.push_back(p.value);
    }
  }
  return out;
}

// `text` (a dump at indent 0) re-indented to sit `levels` deep in an indent-4 dump.
std::string indented(const std::string& text, int levels) {
  const std::string pad(static_cast<std::size_t>(levels) * 4, ' ');
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    out.push_back(c);
    if (c == '\n') out += pad;
  }
  return out;
}

// `{key: value, ...}` at `levels` deep, keys in the given order, values already dumped at indent 0
// (Python's `json.dumps(indent=4)` layout; `{}` when empty).
std::string ordered_object(const std::vector<std::pair<std::string, std::string>>& members, int levels) {
  if (members.empty()) return "{}";
  const std::string pad(static_cast<std::size_t>(levels + 1) * 4, ' ');
  std::string out = "{";
  for (std::size_t i = 0; i < members.size(); ++i) {
    out += i == 0 ? "\n" : ",\n";
    out += pad;
    detail::append_python_json_string(out, members[i].first);
    out += ": ";
    out += indented(members[i].second, levels + 1);
  }
  out += "\n" + std::string(static_cast<std::size_t>(levels) * 4, ' ') + "}";
  return out;
}

// A provider's static features in priority order: `feature_priorities` first, then the rest by name.
std::vector<std::string> static_feature_names(const variant::VariantMetadata& md, const std::string& ns,
                                              const std::map<std::string, std::vector<std::string>>& table) {
  std::vector<std::string> out;
  if (const auto order = md.feature_priorities.find(ns); order != md.feature_priorities.end()) {
    for (const auto& f : order->second) {
      if (table.contains(f) && std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
    }
  }
  for (const auto& [f, values] : table) {
    if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
  }
  return out;
}

}  // namespace

std::string to_json_v020(const variant::VariantMetadata& md) {
  // Keys sorted as elsewhere, except each `static-properties` object, whose order is the
  // features' priority: the document is assembled from sorted dumps and ordered objects.
  std::vector<std::string> namespaces;
  for (const auto& ns : md.namespace_priorities) {
    if (ns != variant::kAbiDependencyNamespace) namespaces.push_back(ns);
  }
  Json priorities = Json::object();
  priorities["namespace"] = string_list(namespaces);

  std::vector<std::string> provider_names(namespaces.begin(), namespaces.end());
  std::sort(provider_names.begin(), provider_names.end());
  provider_names.erase(std::unique(provider_names.begin(), provider_names.end()), provider_names.end());
  std::vector<std::pair<std::string, std::string>> providers;
  for (const auto& ns : provider_names) {
    const auto it = md.providers.find(ns);
    if (it == md.providers.end()) continue;
    const auto& p = it->second;
    std::vector<std::pair<std::string, std::string>> info;  // sorted: optional, plugin-api, requires, static-properties
    if (p.optional) info.emplace_back("optional", "true");
    const auto statics = md.static_properties.find(ns);
    if (!p.install_time && statics != md.static_properties.end()) {
      std::vector<std::pair<std::string, std::string>> features;
      for (const auto& f : static_feature_names(md, ns, statics->second)) {
        features.emplace_back(f, detail::python_json_dump(string_list(statics->second.at(f))));
      }
      info.emplace_back("static-properties", ordered_object(features, 0));
    } else {
      if (p.plugin_api) info.emplace_back("plugin-api", detail::python_json_string(*p.plugin_api));
      info.emplace_back("requires", detail::python_json_dump(string_list(p.requires_)));
    }
    providers.emplace_back(ns, ordered_object(info, 0));
  }

  std::vector<std::pair<std::string, std::string>> doc;
  doc.emplace_back("$schema", detail::python_json_string(kSchemaUrlProviders));
  doc.emplace_back("default-priorities", detail::python_json_dump(priorities));
  doc.emplace_back("providers", ordered_object(providers, 0));
  doc.emplace_back("variants", detail::python_json_dump(variants_json(md.variants)));
  auto text = ordered_object(doc, 0);
  text.push_back('\n');
  return text;
}

std::string to_json_draft003(const variant::VariantMetadata& md) {
  Json doc = Json::object();
  doc["$schema"] = std::string(kSchemaUrlDraft003);

  Json priorities = Json::object();
  priorities["namespace"] = string_list(md.namespace_priorities);
  if (!md.feature_priorities.empty()) {
    Json features = Json::object();
    for (const auto& [ns, list] : md.feature_priorities) features[ns] = string_list(list);
    priorities["feature"] = std::move(features);
  }
  if (!md.property_priorities.empty()) priorities["property"] = property_map(md.property_priorities);
  doc["default-priorities"] = std::move(priorities);

  Json providers = Json::object();
  for (const auto& [ns, p] : md.providers) {
    Json info = Json::object();
    if (!p.requires_.empty()) info["requires"] = string_list(p.requires_);
    if (p.enable_if) info["enable-if"] = *p.enable_if;
    if (p.optional) info["optional"] = true;
    if (p.plugin_api) info["plugin-api"] = *p.plugin_api;
    if (!p.install_time) info["install-time"] = false;
    providers[ns] = std::move(info);
  }
  doc["providers"] = std::move(providers);

  doc["variants"] = variants_json(md.variants);
  if (!md.static_properties.empty()) doc["static-properties"] = property_map(md.static_properties);
  return detail::python_json_dump(doc);
}

std::string to_json_pep825(const variant::VariantMetadata& md) {
  Json doc = Json::object();
  doc["$schema"] = std::string(kSchemaUrlPep825);
  Json priorities = Json::object();
  priorities["namespace"] = string_list(md.namespace_priorities);
  doc["default-priorities"] = std::move(priorities);
  doc["variants"] = variants_json(md.variants);
  auto text = detail::python_json_dump(doc);
  text.push_back('\n');
  return text;
}

Result<variant::VariantMetadata> make_dist_info_metadata(const variant::PropertySet& properties,
                                                         const std::optional<variant::VariantMetadata>& pyproject,
                                                         const std::optional<std::string>& label) {
  auto set = variant::make_property_set(properties);
  if (!set) return fail(set.error());
  auto chosen = variant::make_label(*set, label);
  if (!chosen) return fail(chosen.error());
  variant::VariantMetadata md = pyproject.value_or(variant::VariantMetadata{});
  md.variants.clear();
  md.variants.emplace(std::move(*chosen), std::move(*set));
  md.schema_url = std::string(kSchemaUrlDraft003);
  md.schema = variant::kSchemaDraft003;
  return md;
}

Result<std::string> make_variant_dist_info(const variant::PropertySet& properties,
                                           const std::optional<variant::VariantMetadata>& pyproject,
                                           const std::optional<std::string>& label) {
  auto md = make_dist_info_metadata(properties, pyproject, label);
  if (!md) return fail(md.error());
  return to_json_draft003(*md);
}

}  // namespace vwheel::metadata
