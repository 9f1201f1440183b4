// The document reader (reader.hpp): `providers`, in PEP 817's form and in the Providers draft's
// (format 0.2.0), and the rules that tie them to the static properties and the namespace list.

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "metadata/reader.hpp"
#include "vwheel/variant/ordering.hpp"
#include "vwheel/variant/property.hpp"

namespace vwheel::metadata::detail {

void Reader::read_providers(const Json& root) {
  const auto where = path("providers");
  const auto it = root.find("providers");
  if (it == root.end()) {
    if (v020_ && is_json()) {
      problem(Severity::Error, "providers-missing", where,
              "missing; format 0.2.0 requires it (provider information for every namespace of "
              "default-priorities.namespace)");
    }
    return;
  }
  providers_present_ = true;
  if (!expect_object(*it, where, "an object mapping namespaces to provider information")) {
    providers_ok_ = false;
    return;
  }
  if (!draft_ && !v020_)
    problem(Severity::Warning, "draft-key", where,
            "not part of the PEP 825 format; read as PEP 817 provider information");
  for (const auto& [ns, info] : it->items()) {
    if (!check_key(ns, where, "namespace", kNamePattern)) {
      providers_ok_ = false;
      continue;
    }
    const auto ns_path = child_path(where, ns);
    if (!expect_object(info, ns_path, "an object (provider information)")) {
      providers_ok_ = false;
      continue;
    }
    if (!(v020_ ? read_provider_v020(info, ns, ns_path) : read_provider(info, ns, ns_path))) providers_ok_ = false;
  }
}

bool Reader::read_provider(const Json& info, const std::string& ns, const std::string& ns_path) {
  ProviderInfo provider;
  std::optional<bool> install_time;
  std::optional<std::string> plugin_use;
  bool has_requires = false;
  bool has_build_requires = false;
  bool ok = true;
  for (const auto& [key, value] : info.items()) {
    const auto key_path = child_path(ns_path, key);
    if (key == "requires") {
      has_requires = true;
      ok = read_string_list(value, key_path, kTextPattern, provider.requires_) && ok;
    } else if (key == "build-requires") {
      has_build_requires = !is_json();
      ok = read_build_requires(value, key_path, provider) && ok;
    } else if (key == "enable-if") {
      ok = read_optional_text(value, key_path, kTextPattern, provider.enable_if) && ok;
    } else if (key == "plugin-api") {
      ok = read_optional_text(value, key_path, kPluginApiPattern, provider.plugin_api) && ok;
    } else if (key == "optional") {
      ok = read_bool_value(value, key_path, provider.optional) && ok;
    } else if (key == "install-time") {
      bool flag = true;
      if (read_bool_value(value, key_path, flag)) {
        install_time = flag;
      } else {
        ok = false;
      }
    } else if (key == "plugin-use" && draft_) {
      if (value.is_string() && (value == "none" || value == "build" || value == "all")) {
        plugin_use = value.get<std::string>();
        if (out_.metadata.schema != variant::kSchemaDraft002) {
          problem(Severity::Warning, "draft-key", key_path, "a draft v0.0.2 key; later formats use `install-time`");
        }
      } else {
        error(key_path, fmt::format("expected one of \"none\", \"build\", \"all\", got {}", describe_value(value)));
        ok = false;
      }
    } else {
      problem(Severity::Warning, "unknown-key", key_path, "unknown key, ignored");
    }
  }
  if (plugin_use) {
    const bool at_install = *plugin_use == "all";
    if (install_time && *install_time != at_install) {
      error(ns_path, fmt::format("install-time = {} contradicts plugin-use = \"{}\"", *install_time, *plugin_use));
      ok = false;
    }
    provider.install_time = at_install;
    if (!at_install) plugin_use_aot_.insert(ns);
  } else if (install_time) {
    provider.install_time = *install_time;
  }
  if (has_build_requires) {
    if (has_requires) {
      error(ns_path,
            "has both `build-requires` and `requires`; a provider whose plugin fills static-properties at "
            "build time has only `build-requires` (Building draft)");
      ok = false;
    }
    if (install_time.value_or(false)) {
      error(ns_path, "install-time = true contradicts `build-requires` (its plugin runs only at build time)");
      ok = false;
    }
    provider.install_time = false;
  }
  if (ok && provider.install_time && provider.requires_.empty()) {
    error(ns_path, "an install-time provider needs a non-empty `requires` list (PEP 817)");
    ok = false;
  }
  out_.metadata.providers[ns] = std::move(provider);
  return ok;
}

bool Reader::read_build_requires(const Json& value, const std::string& where, ProviderInfo& provider) {
  if (is_json()) {
    // Only the Providers format (0.2.0), which the Building draft extends, states the rule.
    problem(v020_ ? Severity::Error : Severity::Warning, "build-requires-built", where,
            "a pyproject.toml key (Building draft): building the wheel replaces it with static-properties; "
            "ignored");
    return true;
  }
  // The Building draft: the plugin fills static-properties when the wheel is built.
  if (!read_string_list(value, where, kTextPattern, provider.build_requires)) return false;
  if (provider.build_requires.empty()) {
    error(where, "empty; it must list one or more requirements for the plugin package");
    return false;
  }
  return true;
}

bool Reader::read_static_features(const Json& value, const std::string& where,
                                  std::map<std::string, std::vector<std::string>>& out) {
  if (!expect_object(value, where, "an object mapping feature names to value lists")) return false;
  bool ok = true;
  for (const auto& [feature, values] : value.items()) {
    if (!check_key(feature, where, "feature", kNamePattern)) {
      ok = false;
      continue;
    }
    const auto feature_path = child_path(where, feature);
    auto& list = out[feature];
    if (!read_string_list(values, feature_path, kValuePattern, list)) {
      ok = false;
      continue;
    }
    auto sorted = list;
    std::sort(sorted.begin(), sorted.end());
    if (const auto dup = std::adjacent_find(sorted.begin(), sorted.end()); dup != sorted.end()) {
      error(feature_path, fmt::format("value {} is listed more than once", python_json_string(*dup)));
      ok = false;
    }
  }
  return ok;
}

std::string Reader::inferred_module(std::string_view requirement) {
  std::size_t i = 0;
  while (i < requirement.size() && (requirement[i] == ' ' || requirement[i] == '\t')) ++i;
  std::string out;
  bool separator = false;
  for (; i < requirement.size(); ++i) {
    const char c = requirement[i];
    if (c == '-' || c == '_' || c == '.') {
      separator = true;
    } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
      if (separator && !out.empty()) out.push_back('_');
      separator = false;
      out.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
    } else {
      break;
    }
  }
  return out;
}

void Reader::check_inferred_plugin_api(const std::vector<std::string>& requirements, const std::string& ns_path) {
  const auto where = child_path(ns_path, "requires");
  std::vector<std::string> modules;  // of the requirements that can come first
  bool unconditional = false;
  for (const auto& r : requirements) {
    const auto module = inferred_module(r);
    if (module.empty() || (module.front() >= '0' && module.front() <= '9')) {
      problem(
          Severity::Error, "plugin-api-uninferable", where,
          fmt::format("no importable module name can be inferred from {}; give `plugin-api`", python_json_string(r)));
      return;
    }
    if (std::find(modules.begin(), modules.end(), module) == modules.end()) modules.push_back(module);
    if (r.find(';') == std::string::npos) {
      unconditional = true;
      break;
    }
  }
  if (modules.size() > 1) {
    problem(Severity::Error, "plugin-api-ambiguous", where,
            fmt::format("the first requirement that applies depends on environment markers and gives different "
                        "plugin modules ({}); `plugin-api` must be given",
                        quoted_list(modules)));
  } else if (!unconditional) {
    problem(Severity::Warning, "requires-conditional", where,
            "every requirement has an environment marker; at least one must apply in every environment");
  }
}

bool Reader::read_provider_v020(const Json& info, const std::string& ns, const std::string& ns_path) {
  ProviderInfo provider;
  std::map<std::string, std::vector<std::string>> statics;
  bool has_requires = false;
  bool has_static = false;
  bool ok = true;
  for (const auto& [key, value] : info.items()) {
    const auto key_path = child_path(ns_path, key);
    if (key == "requires") {
      has_requires = true;
      if (!read_string_list(value, key_path, kTextPattern, provider.requires_)) {
        ok = false;
      } else if (provider.requires_.empty()) {
        error(key_path, "empty; it must list one or more requirements for the plugin package");
        ok = false;
      }
    } else if (key == "build-requires") {  // a JSON file's: this format is not read from pyproject.toml
      ok = read_build_requires(value, key_path, provider) && ok;
    } else if (key == "static-properties") {
      has_static = true;
      ok = read_static_features(value, key_path, statics) && ok;
    } else if (key == "plugin-api") {
      ok = read_optional_text(value, key_path, kPluginApiPattern, provider.plugin_api) && ok;
    } else if (key == "optional") {
      ok = read_bool_value(value, key_path, provider.optional) && ok;
    } else if (key == "enable-if" || key == "install-time" || key == "plugin-use") {
      error(key_path, fmt::format("not part of format {} (the Providers draft removed it)",
                                  version_text(variant::kSchemaProviders)));
      ok = false;
    } else {
      problem(Severity::Warning, "unknown-key", key_path, "unknown key, ignored");
    }
  }
  if (has_requires && has_static) {
    error(ns_path, "has both `requires` and `static-properties`; a provider has exactly one of them");
    ok = false;
  } else if (!has_requires && !has_static) {
    error(ns_path,
          "needs exactly one of `requires` (the plugin's packages) or `static-properties` (the "
          "supported features and values)");
    ok = false;
  }
  if (has_static && provider.plugin_api) {
    error(child_path(ns_path, "plugin-api"), "only allowed with `requires`; this provider has `static-properties`");
    ok = false;
  }
  if (ns == variant::kAbiDependencyNamespace) {
    problem(Severity::Error, "abi-dependency-reserved", ns_path,
            "the namespace abi_dependency is reserved and needs no provider; it must not be in `providers` "
            "(ignored)");
    return ok;
  }
  if (!ok) return false;
  if (has_requires && !provider.plugin_api) check_inferred_plugin_api(provider.requires_, ns_path);
  provider.install_time = !has_static;
  if (has_static && !statics.empty()) {
    // Feature priority is the order the document writes them in; a PEP 817 override read
    // from default-priorities.feature comes first.
    if (!static_order_) static_order_ = static_feature_order(json_text_);
    auto& order = out_.metadata.feature_priorities[ns];
    auto add = [&](const std::string& feature) {
      if (statics.contains(feature) && std::find(order.begin(), order.end(), feature) == order.end()) {
        order.push_back(feature);
      }
    };
    if (const auto written = static_order_->find(ns); written != static_order_->end()) {
      for (const auto& feature : written->second) add(feature);
    }
    for (const auto& [feature, values] : statics) add(feature);  // no text: sorted
  }
  if (has_static) out_.metadata.static_properties[ns] = std::move(statics);
  out_.metadata.providers[ns] = std::move(provider);
  return true;
}

void Reader::check_providers_against_static_properties() {
  auto& md = out_.metadata;
  if (!providers_ok_ || !static_ok_) return;
  auto expects_static = [&](const ProviderInfo& p) {
    return !p.install_time && (is_json() || (p.requires_.empty() && p.build_requires.empty()));
  };
  // v0.0.2: an ahead-of-time provider's values were its default-priorities.property entry.
  for (const auto& ns : plugin_use_aot_) {
    const auto provider = md.providers.find(ns);
    const auto values = md.property_priorities.find(ns);
    if (provider != md.providers.end() && expects_static(provider->second) && !md.static_properties.contains(ns) &&
        values != md.property_priorities.end()) {
      md.static_properties[ns] = values->second;
    }
  }
  const auto where = path("static-properties");
  for (const auto& [ns, provider] : md.providers) {
    if (expects_static(provider) && !md.static_properties.contains(ns)) {
      error(where, fmt::format("missing for the ahead-of-time provider {}{} (PEP 817)", python_json_string(ns),
                               is_json() ? "" : " that has no plugin (`requires` is empty)"));
    }
  }
  for (const auto& [ns, features] : md.static_properties) {
    const auto ns_path = child_path(where, ns);
    const auto provider = md.providers.find(ns);
    if (provider == md.providers.end()) {
      error(ns_path, fmt::format("no provider is declared for namespace {} (static properties belong to "
                                 "ahead-of-time providers)",
                                 python_json_string(ns)));
    } else if (provider->second.install_time) {
      error(ns_path, fmt::format("{} is an install-time provider; static properties belong to ahead-of-time "
                                 "providers (install-time = false)",
                                 python_json_string(ns)));
    } else if (!provider->second.build_requires.empty()) {
      error(ns_path, fmt::format("must not be given in pyproject.toml for {}, whose `build-requires` plugin fills "
                                 "it when the wheel is built (Building draft)",
                                 python_json_string(ns)));
    } else if (!expects_static(provider->second)) {
      error(ns_path, fmt::format("must not be given in pyproject.toml for {}, an ahead-of-time provider with a "
                                 "plugin (`requires`): the build backend fills it from the plugin",
                                 python_json_string(ns)));
    }
    if (features.size() > 1 && features_ok_) {
      std::vector<std::string> missing;
      const auto order = md.feature_priorities.find(ns);
      for (const auto& [feature, values] : features) {
        if (order == md.feature_priorities.end() ||
            std::find(order->second.begin(), order->second.end(), feature) == order->second.end()) {
          missing.push_back(feature);
        }
      }
      if (!missing.empty()) {
        error(ns_path, fmt::format("features {} must be listed in default-priorities.feature.{} (an ahead-of-time "
                                   "provider with several features needs their order)",
                                   quoted_list(missing), ns));
      }
    }
  }
}

void Reader::check_namespaces_against_providers_v020() {
  const auto& md = out_.metadata;
  const auto ns_path = path("default-priorities.namespace");
  if (!namespace_list_present_ || !namespaces_ok_) return;
  const std::set<std::string> listed(md.namespace_priorities.begin(), md.namespace_priorities.end());
  if (listed.contains(std::string(variant::kAbiDependencyNamespace))) {
    problem(Severity::Error, "abi-dependency-reserved", ns_path,
            "lists the reserved namespace abi_dependency; format 0.2.0 keeps it out of the namespace list");
  }
  if (!providers_present_ || !providers_ok_) return;
  std::vector<std::string> unlisted;
  std::vector<std::string> without_provider;
  for (const auto& [ns, provider] : md.providers) {
    if (!listed.contains(ns)) unlisted.push_back(ns);
  }
  for (const auto& ns : listed) {
    if (!md.providers.contains(ns) && ns != variant::kAbiDependencyNamespace) without_provider.push_back(ns);
  }
  if (!unlisted.empty()) {
    problem(Severity::Error, "namespace-providers-mismatch", ns_path,
            fmt::format("does not list {}, which {} in `providers` (format 0.2.0: the namespace list and the "
                        "providers keys must match)",
                        quoted_list(unlisted), unlisted.size() == 1 ? "is" : "are"));
  }
  if (!without_provider.empty()) {
    problem(Severity::Error, "namespace-providers-mismatch", ns_path,
            fmt::format("lists {} without an entry in `providers` (format 0.2.0: every namespace needs a "
                        "provider)",
                        quoted_list(without_provider)));
  }
}
}  // namespace vwheel::metadata::detail
