// The frontend's pure part (see plan.hpp): reading the tables and deciding which backend runs to make with
// which config_settings. No I/O here (see frontend.cpp).

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/toml.hpp"
#include "vwheel/build/plan.hpp"
#include "vwheel/markers/requirement.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::build {
namespace {

std::string toml_type(const toml::node& node) {
  if (node.is_table()) return "a table";
  if (node.is_array()) return "an array";
  if (node.is_string()) return "a string";
  if (node.is_integer() || node.is_floating_point()) return "a number";
  if (node.is_boolean()) return "a boolean";
  return "a date/time";
}

Result<std::vector<std::string>> string_list(const toml::node& node, const std::string& where) {
  const auto* array = node.as_array();
  if (array == nullptr) return fail(fmt::format("{}: expected an array of strings, got {}", where, toml_type(node)));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const auto* s = (*array)[i].as_string();
    if (s == nullptr) {
      return fail(fmt::format("{}[{}]: expected a string, got {}", where, i, toml_type((*array)[i])));
    }
    out.push_back(s->get());
  }
  return out;
}

Result<std::map<std::string, std::string>> string_map(const toml::node& node, const std::string& where) {
  const auto* table = node.as_table();
  if (table == nullptr) return fail(fmt::format("{}: expected a table of strings, got {}", where, toml_type(node)));
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : *table) {
    const auto* s = value.as_string();
    if (s == nullptr) {
      return fail(fmt::format("{}.{}: expected a string, got {}", where, key.str(), toml_type(value)));
    }
    out.emplace(std::string(key.str()), s->get());
  }
  return out;
}

Result<BuildSystem> read_build_system(const toml::table& doc, std::string_view file) {
  BuildSystem out;
  const toml::node* node = doc.get("build-system");
  if (node == nullptr) {
    // PEP 517 (and pip): setuptools' legacy backend, which needs setuptools and wheel.
    out.requires_ = {"setuptools>=40.8.0", "wheel"};
    return out;
  }
  const auto* table = node->as_table();
  if (table == nullptr) return fail(fmt::format("{}: build-system: expected a table, got {}", file, toml_type(*node)));
  if (const auto* req = table->get("requires")) {
    auto list = string_list(*req, fmt::format("{}: build-system.requires", file));
    if (!list) return fail(list.error());
    out.requires_ = std::move(*list);
  }
  if (const auto* backend = table->get("build-backend")) {
    const auto* s = backend->as_string();
    if (s == nullptr || s->get().empty()) {
      return fail(fmt::format("{}: build-system.build-backend: expected a `module:object` string, got {}", file,
                              s == nullptr ? toml_type(*backend) : "an empty string"));
    }
    out.backend = s->get();
  }
  if (const auto* path = table->get("backend-path")) {
    auto list = string_list(*path, fmt::format("{}: build-system.backend-path", file));
    if (!list) return fail(list.error());
    for (const auto& p : *list) {
      if (p.empty() || p.front() == '/' || p.find("..") != std::string::npos) {
        return fail(fmt::format("{}: build-system.backend-path: `{}` must be a relative path inside the source tree",
                                file, p));
      }
    }
    out.backend_path = std::move(*list);
  }
  return out;
}

Result<variant::PropertySet> read_variant_properties(const toml::table& body, const std::string& where) {
  std::vector<variant::Property> properties;
  for (const auto& [ns, features] : body) {
    const auto ns_where = fmt::format("{}.{}", where, ns.str());
    const auto* feature_table = features.as_table();
    if (feature_table == nullptr) {
      return fail(fmt::format("{}: expected a table of feature = [values], got {}", ns_where, toml_type(features)));
    }
    for (const auto& [feature, values] : *feature_table) {
      const auto f_where = fmt::format("{}.{}", ns_where, feature.str());
      auto list = string_list(values, f_where);
      if (!list) return fail(list.error());
      if (list->empty()) return fail(fmt::format("{}: expected at least one value", f_where));
      for (const auto& v : *list) {
        auto p = variant::make_property(std::string(ns.str()), std::string(feature.str()), v);
        if (!p) return fail(p.error().with_context(f_where));
        properties.push_back(std::move(*p));
      }
    }
  }
  auto set = variant::make_property_set(std::move(properties));
  if (!set) return fail(set.error().with_context(where));
  return set;
}

void add_setting(std::map<std::string, std::vector<std::string>>& settings, const std::string& key, std::string value) {
  settings[key].push_back(std::move(value));
}

}  // namespace

Result<BuildProject> parse_build_project(std::string_view toml_text, std::string_view file) {
  if (auto bad = toml_unsupported_character(toml_text)) return fail(fmt::format("{}: {}", file, *bad));
  toml::table doc;
  try {
    doc = toml::parse(toml_text);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    return fail(fmt::format("{}: invalid TOML at line {}, column {}: {}", file, where.line, where.column,
                            e.description()));
  }
  BuildProject project;
  auto system = read_build_system(doc, file);
  if (!system) return fail(system.error());
  project.build_system = std::move(*system);
  if (const auto* name = doc.at_path("project.name").as_string()) project.name = name->get();
  if (const auto* version = doc.at_path("project.version").as_string()) project.version = version->get();

  const toml::node* variant_node = doc.get("variant");
  project.has_variant_table = variant_node != nullptr;
  const toml::table* variants = nullptr;
  if (variant_node != nullptr && variant_node->is_table()) {
    if (const auto* v = variant_node->as_table()->get("variants")) {
      variants = v->as_table();
      if (variants == nullptr) {
        return fail(fmt::format("{}: variant.variants: expected a table of labels, got {}", file, toml_type(*v)));
      }
    }
  }
  const toml::table* settings = nullptr;
  if (const auto* s = doc.at_path("tool.vwheel.build.variants").node()) {
    settings = s->as_table();
    if (settings == nullptr) {
      return fail(fmt::format("{}: tool.vwheel.build.variants: expected a table of labels, got {}", file, toml_type(*s)));
    }
  }
  if (variants != nullptr) {
    for (const auto& [key, body] : *variants) {
      const std::string label(key.str());
      const auto where = fmt::format("{}: variant.variants.{}", file, label);
      if (!variant::is_valid_label(label)) {
        return fail(fmt::format("{}: invalid label `{}`: expected lowercase letters, digits, `_` and `.`", where, label));
      }
      const auto* table = body.as_table();
      if (table == nullptr) {
        return fail(fmt::format("{}: expected a table of namespace.feature = [values], got {}", where, toml_type(body)));
      }
      auto properties = read_variant_properties(*table, where);
      if (!properties) return fail(properties.error());
      if (label == variant::kNullLabel && !properties->empty()) {
        return fail(fmt::format("{}: the label `null` is reserved for the variant without properties", where));
      }
      if (label != variant::kNullLabel && properties->empty()) {
        return fail(fmt::format("{}: no properties; only the label `null` may have none", where));
      }
      project.variants.push_back({label, std::move(*properties), {}, {}});
    }
  }
  if (settings != nullptr) {
    for (const auto& [key, body] : *settings) {
      const std::string label(key.str());
      const auto where = fmt::format("{}: tool.vwheel.build.variants.{}", file, label);
      auto it = std::find_if(project.variants.begin(), project.variants.end(),
                             [&](const DeclaredVariant& v) { return v.label == label; });
      if (it == project.variants.end()) {
        return fail(fmt::format("{}: there is no [variant.variants.{}] table for these settings", where, label));
      }
      const auto* table = body.as_table();
      if (table == nullptr) return fail(fmt::format("{}: expected a table, got {}", where, toml_type(body)));
      for (const auto& [name, value] : *table) {
        if (name.str() == "config-settings") {
          auto map = string_map(value, where + ".config-settings");
          if (!map) return fail(map.error());
          it->config_settings = std::move(*map);
        } else if (name.str() == "environment") {
          auto map = string_map(value, where + ".environment");
          if (!map) return fail(map.error());
          it->environment = std::move(*map);
        } else {
          return fail(fmt::format("{}.{}: unknown key; expected `config-settings` or `environment`", where, name.str()));
        }
      }
    }
  }
  return project;
}

std::string BuildJob::describe() const {
  if (sdist) return "the sdist";
  if (label.empty()) return "the plain wheel";
  if (label == variant::kNullLabel) return "the null variant";
  return fmt::format("variant `{}`", label);
}

Result<std::vector<BuildJob>> plan_builds(const BuildProject& project, const BuildSelection& selection) {
  std::map<std::string, std::vector<std::string>> cli_settings;
  for (const auto& text : selection.config_settings) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0) {
      return fail(fmt::format("-C `{}`: expected KEY=VALUE", text));
    }
    add_setting(cli_settings, text.substr(0, eq), text.substr(eq + 1));
  }
  const bool table = !project.variants.empty();
  if (selection.all_variants && !table) {
    return fail("--all-variants: the project's pyproject.toml has no [variant.variants] table");
  }
  if (selection.all_variants && !selection.labels.empty()) return fail("--all-variants cannot be combined with --variant");
  if (!selection.properties.empty()) {
    if (table) return fail("-p/--property: the variants' properties come from [variant.variants]; use --variant LABEL");
    if (selection.labels.size() != 1) return fail("-p/--property needs exactly one --variant LABEL");
  }

  std::vector<const DeclaredVariant*> chosen;
  std::vector<DeclaredVariant> from_cli;  // the -p variant when there is no table
  std::set<std::string> seen;
  if (selection.all_variants) {
    for (const auto& v : project.variants) chosen.push_back(&v);
  } else {
    for (const auto& label : selection.labels) {
      if (!seen.insert(label).second) return fail(fmt::format("--variant `{}` is given twice", label));
      if (!variant::is_valid_label(label)) {
        return fail(fmt::format("--variant `{}`: invalid label: expected lowercase letters, digits, `_` and `.`", label));
      }
      if (label == variant::kNullLabel) return fail("--variant null: use --null for the null variant");
      auto it = std::find_if(project.variants.begin(), project.variants.end(),
                             [&](const DeclaredVariant& v) { return v.label == label; });
      if (it != project.variants.end()) {
        chosen.push_back(&*it);
        continue;
      }
      if (table) {
        std::vector<std::string> known;
        for (const auto& v : project.variants) known.push_back("`" + v.label + "`");
        return fail(fmt::format("--variant `{}`: no such label in [variant.variants] (known: {})", label,
                                fmt::join(known, ", ")));
      }
      if (selection.properties.empty()) {
        return fail(fmt::format("--variant `{}`: the project has no [variant.variants] table; give the variant's "
                                "properties with -p/--property",
                                label));
      }
      std::vector<variant::Property> parsed;
      for (const auto& text : selection.properties) {
        auto p = variant::parse_property(text);
        if (!p) return fail(p.error().with_context(fmt::format("-p `{}`", text)));
        parsed.push_back(std::move(*p));
      }
      auto set = variant::make_property_set(std::move(parsed));
      if (!set) return fail(set.error().with_context("-p/--property"));
      from_cli.push_back({label, std::move(*set), {}, {}});
      chosen.push_back(&from_cli.back());
    }
  }
  // The table's `null` entry is the null variant: --all-variants builds it, --null selects it.
  const DeclaredVariant* null_entry = nullptr;
  for (const auto& v : project.variants) {
    if (v.label == variant::kNullLabel) null_entry = &v;
  }
  bool want_null = selection.null_variant;
  std::erase_if(chosen, [&](const DeclaredVariant* v) {
    if (v->label != variant::kNullLabel) return false;
    want_null = true;
    return true;
  });
  if (want_null && !project.has_variant_table) {
    return fail("--null: the null variant's variant.json lists the project's namespaces, but its pyproject.toml "
                "has no [variant] table");
  }

  std::vector<BuildJob> jobs;
  auto make_job = [&](const DeclaredVariant* v, std::string label, const variant::PropertySet& properties) {
    BuildJob job;
    job.label = std::move(label);
    job.properties = properties;
    add_setting(job.config_settings, "variant-label", job.label);
    if (job.label == variant::kNullLabel) add_setting(job.config_settings, "null-variant", "true");
    for (const auto& p : properties) add_setting(job.config_settings, "variant", p.to_string());
    if (v != nullptr) {
      for (const auto& [k, value] : v->config_settings) job.config_settings[k] = {value};
      job.environment = v->environment;
    }
    for (const auto& [k, values] : cli_settings) job.config_settings[k] = values;
    return job;
  };
  if (want_null) jobs.push_back(make_job(null_entry, std::string(variant::kNullLabel), {}));
  for (const auto* v : chosen) jobs.push_back(make_job(v, v->label, v->properties));
  if (jobs.empty()) {
    BuildJob plain;
    plain.config_settings = cli_settings;
    jobs.push_back(std::move(plain));
  }
  return jobs;
}

std::string config_settings_json(const std::map<std::string, std::vector<std::string>>& settings) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, values] : settings) {
    if (values.size() == 1) {
      out[key] = values.front();
    } else {
      out[key] = values;
    }
  }
  return out.dump();
}

Result<void> check_build_requirements(const std::vector<std::string>& requirements,
                                      const std::map<std::string, std::string>& installed,
                                      const std::map<std::string, std::string>& markers) {
  markers::Environment env;
  for (const auto& [k, v] : markers) env.variables.emplace(k, v);
  env.variables.emplace("extra", "");
  std::vector<std::string> missing;
  for (const auto& text : requirements) {
    auto req = markers::Requirement::parse(text);
    if (!req) return fail(req.error().with_context("build requirement"));
    auto applies = req->applies_to(env);
    if (applies && !*applies) continue;
    const auto it = installed.find(wheel_name::canonicalize_name(req->name));
    if (it == installed.end()) {
      missing.push_back(fmt::format("`{}` (not installed)", text));
    } else if (!req->specifier.empty() && !req->specifier.contains(it->second, true)) {
      missing.push_back(fmt::format("`{}` (installed: {})", text, it->second));
    }
  }
  if (missing.empty()) return {};
  return fail(fmt::format("build requirements missing from the interpreter's environment (--no-isolation): {}",
                          fmt::join(missing, ", ")));
}

Result<void> fill_static_properties(variant::VariantMetadata& metadata, const std::string& ns,
                                   const provider::PluginAnswer& answer, const variant::PropertySet& properties) {
  const auto provider = metadata.providers.find(ns);
  const auto where = fmt::format("variant.providers.{}.build-requires", ns);
  if (provider == metadata.providers.end() || provider->second.build_requires.empty()) {
    return fail(fmt::format("{}: no such provider with `build-requires`", where));
  }
  if (!answer.all_properties_compatible) {
    return fail(fmt::format("{}: its plugin does not set `all_properties_compatible = True`, so it cannot fill "
                            "static-properties at build time (Building draft)",
                            where));
  }
  if (answer.configs.empty()) return fail(fmt::format("{}: its plugin's get_supported_configs() returned no feature", where));
  std::map<std::string, std::vector<std::string>> given;
  for (const auto& p : properties) {
    if (p.ns != ns) continue;
    const auto config = std::find_if(answer.configs.begin(), answer.configs.end(),
                                     [&](const variant::FeatureConfig& c) { return c.name == p.feature; });
    if (config == answer.configs.end()) {
      return fail(fmt::format("`{}`: the `{}` plugin ({}) supports no feature `{}`", p.to_string(), ns, where, p.feature));
    }
    if (std::find(config->values.begin(), config->values.end(), p.value) == config->values.end()) {
      return fail(fmt::format("`{}`: `{}` is not among the values the `{}` plugin ({}) supports: {}", p.to_string(),
                              p.value, ns, where, fmt::join(config->values, ", ")));
    }
    auto& values = given[p.feature];
    values.push_back(p.value);
    if (values.size() == 2 && !config->multi_value) {
      return fail(fmt::format("`{} :: {}` is a single-value feature of the `{}` plugin ({}) but is given {} and {}", ns,
                              p.feature, ns, where, values[0], values[1]));
    }
  }
  auto& info = provider->second;
  info.build_requires.clear();
  info.plugin_api.reset();
  info.requires_.clear();
  info.install_time = false;
  auto& statics = metadata.static_properties[ns];
  statics.clear();
  for (const auto& c : answer.configs) statics[c.name] = c.values;
  if (answer.configs.size() > 1) {
    auto& order = metadata.feature_priorities[ns];
    for (const auto& c : answer.configs) {
      if (std::find(order.begin(), order.end(), c.name) == order.end()) order.push_back(c.name);
    }
  }
  return {};
}

namespace {

std::string shown_list(const std::vector<std::string>& list) { return fmt::format("[{}]", fmt::join(list, ", ")); }

std::string shown_map(const std::map<std::string, std::vector<std::string>>& map) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : map) parts.push_back(fmt::format("{} = {}", k, shown_list(v)));
  return fmt::format("{{{}}}", fmt::join(parts, ", "));
}

std::string shown_provider(const variant::ProviderInfo* p) {
  if (p == nullptr) return "none";
  std::vector<std::string> parts;
  if (!p->requires_.empty()) parts.push_back("requires = " + shown_list(p->requires_));
  if (p->plugin_api) parts.push_back("plugin-api = " + *p->plugin_api);
  if (!p->install_time) parts.push_back("install-time = false");
  if (p->optional) parts.push_back("optional = true");
  if (p->enable_if) parts.push_back("enable-if = " + *p->enable_if);
  return fmt::format("{{{}}}", fmt::join(parts, ", "));
}

// The first field in which two wheels' metadata differ, with both values; nullopt when they agree.
std::optional<std::string> first_difference(const variant::VariantMetadata& a, const variant::VariantMetadata& b) {
  if (a.namespace_priorities != b.namespace_priorities) {
    return fmt::format("default-priorities.namespace ({} vs {})", shown_list(a.namespace_priorities),
                       shown_list(b.namespace_priorities));
  }
  std::set<std::string> namespaces;
  for (const auto* md : {&a, &b}) {
    for (const auto& [ns, _] : md->feature_priorities) namespaces.insert(ns);
    for (const auto& [ns, _] : md->property_priorities) namespaces.insert(ns);
    for (const auto& [ns, _] : md->providers) namespaces.insert(ns);
    for (const auto& [ns, _] : md->static_properties) namespaces.insert(ns);
  }
  auto find = [](const auto& map, const std::string& ns) -> const typename std::decay_t<decltype(map)>::mapped_type* {
    const auto it = map.find(ns);
    return it == map.end() ? nullptr : &it->second;
  };
  for (const auto& ns : namespaces) {
    const auto* fa = find(a.feature_priorities, ns);
    const auto* fb = find(b.feature_priorities, ns);
    if ((fa ? *fa : std::vector<std::string>{}) != (fb ? *fb : std::vector<std::string>{})) {
      return fmt::format("default-priorities.feature.{} ({} vs {})", ns, fa ? shown_list(*fa) : "none",
                         fb ? shown_list(*fb) : "none");
    }
    const auto* pa = find(a.property_priorities, ns);
    const auto* pb = find(b.property_priorities, ns);
    if ((pa ? *pa : std::map<std::string, std::vector<std::string>>{}) !=
        (pb ? *pb : std::map<std::string, std::vector<std::string>>{})) {
      return fmt::format("default-priorities.property.{} ({} vs {})", ns, pa ? shown_map(*pa) : "none",
                         pb ? shown_map(*pb) : "none");
    }
    const auto* ia = find(a.providers, ns);
    const auto* ib = find(b.providers, ns);
    if ((ia == nullptr) != (ib == nullptr) || (ia != nullptr && !(*ia == *ib))) {
      return fmt::format("providers.{} ({} vs {})", ns, shown_provider(ia), shown_provider(ib));
    }
    const auto* sa = find(a.static_properties, ns);
    const auto* sb = find(b.static_properties, ns);
    if ((sa == nullptr) != (sb == nullptr) || (sa != nullptr && *sa != *sb)) {
      return fmt::format("static-properties.{} ({} vs {})", ns, sa ? shown_map(*sa) : "none", sb ? shown_map(*sb) : "none");
    }
  }
  return std::nullopt;
}

}  // namespace

Result<void> check_matrix(const std::vector<BuiltVariant>& built) {
  for (std::size_t i = 0; i < built.size(); ++i) {
    for (std::size_t j = i + 1; j < built.size(); ++j) {
      const auto& a = built[i];
      const auto& b = built[j];
      if (auto diff = first_difference(a.metadata, b.metadata)) {
        return fail(fmt::format("the variants `{}` and `{}` disagree on {}", a.label, b.label, *diff));
      }
      const auto pa = a.metadata.variants.find(a.label);
      const auto pb = b.metadata.variants.find(b.label);
      if (pa != a.metadata.variants.end() && pb != b.metadata.variants.end() && pa->second == pb->second) {
        std::vector<std::string> shown;
        for (const auto& p : pa->second) shown.push_back(p.to_string());
        return fail(fmt::format("the variants `{}` and `{}` have the same properties ({}); an installer could not "
                                "choose between them",
                                a.label, b.label, shown.empty() ? std::string("none") : fmt::format("{}", fmt::join(shown, ", "))));
      }
    }
  }
  return {};
}

}  // namespace vwheel::build
