// Writing variant metadata (draft v0.0.3 as variantlib does, and PEP 825 v0.1.1).

#include "vwheel/metadata/serialize.hpp"

#include "metadata/internal.hpp"
#include "vwheel/metadata/document.hpp"
#include "vwheel/variant/label.hpp"

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

}  // namespace

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
