// The document reader: walks a JSON tree (parsed JSON, or TOML converted to JSON) and fills a
// VariantMetadata, collecting hard errors and conformance problems. See document.hpp for the rules.

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "metadata/internal.hpp"
#include "vwheel/variant/ordering.hpp"
#include "vwheel/variant/property.hpp"

namespace vwheel::metadata::detail {
namespace {

using variant::PropertyMap;
using variant::ProviderInfo;
using variant::SchemaVersion;
using variant::VariantMetadata;

constexpr SchemaVersion kPep825WithoutOverrides{0, 1, 1};

// What a list element or a key must look like.
struct Pattern {
  bool (*check)(std::string_view) noexcept;
  std::string_view text;  // shown in messages
};

bool check_name(std::string_view s) noexcept { return variant::is_valid_namespace(s); }
bool check_value(std::string_view s) noexcept { return variant::is_valid_feature_value(s); }
bool check_label(std::string_view s) noexcept { return variant::is_valid_label(s); }
bool check_text(std::string_view s) noexcept { return is_single_line_text(s); }
bool check_plugin_api(std::string_view s) noexcept { return is_plugin_api_reference(s); }

constexpr Pattern kNamePattern{check_name, "[a-z0-9_]+"};
constexpr Pattern kValuePattern{check_value, "[a-z0-9_.]+"};
constexpr Pattern kLabelPattern{check_label, "[0-9a-z_.]+"};
constexpr Pattern kTextPattern{check_text, "[\\S ]+ (non-empty, no tabs or line breaks)"};
constexpr Pattern kPluginApiPattern{check_plugin_api, "an object reference `module:attr` ([\\w.]+(\\s*:\\s*[\\w.]+)?)"};

bool is_wheelnext_schema_host(std::string_view url) {
  for (std::string_view prefix : {"https://variants-schema.wheelnext.dev", "http://variants-schema.wheelnext.dev"}) {
    if (url.starts_with(prefix)) {
      const auto rest = url.substr(prefix.size());
      return rest.empty() || rest.front() == '/';
    }
  }
  return false;
}

std::string version_text(const SchemaVersion& v) { return fmt::format("{}.{}.{}", v.major, v.minor, v.patch); }

class Reader {
 public:
  Reader(DocumentKind kind, std::optional<std::string_view> expected_label, std::string_view json_text)
      : kind_(kind),
        expected_label_(expected_label),
        root_(kind == DocumentKind::Pyproject ? "variant" : ""),
        json_text_(json_text) {}

  ReadOutcome run(const Json& root) {
    if (!root.is_object()) {
      if (kind_ == DocumentKind::Pyproject) {
        error(root_, fmt::format("expected a table, got {}", describe_value(root)));
      } else {
        error("(document)", fmt::format("expected a JSON object, got {}", describe_value(root)));
      }
      return std::move(out_);
    }
    if (!read_schema(root)) return std::move(out_);
    read_default_priorities(root);
    read_providers(root);
    if (v020_) {
      if (root.contains("static-properties")) {
        problem(Severity::Warning, "draft-key", path("static-properties"),
                "not part of format 0.2.0 (static properties belong in providers.NAMESPACE.static-properties); ignored");
      }
    } else {
      static_ok_ = read_property_map(root, "static-properties", out_.metadata.static_properties);
      if (has_static_ && !draft_) {
        problem(Severity::Warning, "draft-key", path("static-properties"), "not part of the PEP 825 format; read as PEP 817 static properties");
      }
    }
    read_variants(root);
    for (const auto& [key, value] : root.items()) {
      static const std::set<std::string, std::less<>> kKnown = {"$schema", "default-priorities", "providers",
                                                                "static-properties", "variants"};
      if (!kKnown.contains(key)) problem(Severity::Warning, "unknown-key", path(key), "unknown key, ignored");
    }
    if (!v020_) check_providers_against_static_properties();
    check_namespace_rules();
    return std::move(out_);
  }

 private:
  DocumentKind kind_;
  std::optional<std::string_view> expected_label_;
  std::string root_;
  std::string_view json_text_;
  ReadOutcome out_;
  bool draft_ = true;
  bool v020_ = false;              // the Providers draft's rules (v0.2.0 and newer minors)
  bool providers_present_ = false;
  bool namespace_list_present_ = false;
  bool namespaces_ok_ = false;
  bool features_ok_ = true;
  bool providers_ok_ = true;
  bool static_ok_ = true;
  bool has_static_ = false;
  std::set<std::string> plugin_use_aot_;  // providers made ahead-of-time by v0.0.2's plugin-use
  // v0.2.0: per namespace, static features in the order the text writes them (computed once).
  std::optional<std::map<std::string, std::vector<std::string>>> static_order_;

  bool is_json() const { return kind_ != DocumentKind::Pyproject; }
  std::string path(std::string_view key) const { return child_path(root_, key); }
  // Hard errors: the document cannot be used, whatever its version.
  void error(const std::string& where, const std::string& what) {
    out_.errors.push_back(single_line(where.empty() ? what : fmt::format("{}: {}", where, what)));
    out_.findings.push_back({Severity::Error, "invalid", {}, where, single_line(what)});
  }
  // Conformance problems: the document is used; `severity` says whether the declared format
  // version requires what is missing (see Severity).
  void problem(Severity severity, std::string rule, const std::string& where, const std::string& what) {
    out_.conformance.push_back(single_line(where.empty() ? what : fmt::format("{}: {}", where, what)));
    out_.findings.push_back({severity, std::move(rule), {}, where, single_line(what)});
  }
  // A PEP 825 MUST: an error in a PEP 825 document, a warning in a draft one (the drafts did not
  // have the rule, or were never normative).
  Severity pep825_must() const { return draft_ ? Severity::Warning : Severity::Error; }

  // ---- generic pieces ----

  bool expect_object(const Json& value, const std::string& where, std::string_view what) {
    if (value.is_object()) return true;
    error(where, fmt::format("expected {}, got {}", what, describe_value(value)));
    return false;
  }

  // A key of an object that must match `pattern`; reports against the object's path.
  bool check_key(std::string_view key, const std::string& where, std::string_view what, const Pattern& pattern) {
    if (pattern.check(key)) return true;
    error(where, fmt::format("{} {} must match {}", what, python_json_string(key), pattern.text));
    return false;
  }

  bool read_bool_value(const Json& value, const std::string& where, bool& target) {
    if (value.is_boolean()) {
      target = value.get<bool>();
      return true;
    }
    error(where, fmt::format("expected a boolean, got {}", describe_value(value)));
    return false;
  }

  // A string or null (absent), checked against `pattern`.
  bool read_optional_text(const Json& value, const std::string& where, const Pattern& pattern,
                          std::optional<std::string>& target) {
    if (value.is_null()) return true;
    if (!value.is_string()) {
      error(where, fmt::format("expected a string, got {}", describe_value(value)));
      return false;
    }
    const auto& text = value.get_ref<const std::string&>();
    if (!pattern.check(text)) {
      error(where, fmt::format("value {} must match {}", python_json_string(text), pattern.text));
      return false;
    }
    target = text;
    return true;
  }

  // A list of strings each matching `pattern`. Returns false (after reporting) on any problem.
  bool read_string_list(const Json& value, const std::string& where, const Pattern& pattern,
                        std::vector<std::string>& out) {
    if (!value.is_array()) {
      error(where, fmt::format("expected an array of strings, got {}", describe_value(value)));
      return false;
    }
    bool ok = true;
    out.clear();
    out.reserve(value.size());
    std::size_t index = 0;
    for (const auto& item : value) {
      // The item's path is made only for a message: one per value would be most of the strings
      // this reader builds.
      const auto item_path = [&where, at = index++] { return index_path(where, at); };
      if (!item.is_string()) {
        error(item_path(), fmt::format("expected a string, got {}", describe_value(item)));
        ok = false;
        continue;
      }
      const auto& text = item.get_ref<const std::string&>();
      if (!pattern.check(text)) {
        error(item_path(), fmt::format("value {} must match {}", python_json_string(text), pattern.text));
        ok = false;
        continue;
      }
      out.push_back(text);
    }
    return ok;
  }

  // `{namespace: {feature: [values]}}` (static-properties, default-priorities.property).
  bool read_property_map_value(const Json& value, const std::string& where, PropertyMap& out) {
    if (!expect_object(value, where, "an object mapping namespaces to {feature: [values]}")) return false;
    bool ok = true;
    for (const auto& [ns, features] : value.items()) {
      if (!check_key(ns, where, "namespace", kNamePattern)) {
        ok = false;
        continue;
      }
      const auto ns_path = child_path(where, ns);
      if (!expect_object(features, ns_path, "an object mapping feature names to value lists")) {
        ok = false;
        continue;
      }
      auto& ns_out = out[ns];
      for (const auto& [feature, values] : features.items()) {
        if (!check_key(feature, ns_path, "feature", kNamePattern)) {
          ok = false;
          continue;
        }
        ok = read_string_list(values, child_path(ns_path, feature), kValuePattern, ns_out[feature]) && ok;
      }
    }
    return ok;
  }

  bool read_property_map(const Json& root, std::string_view key, PropertyMap& out) {
    const auto it = root.find(key);
    if (it == root.end()) return true;
    if (key == "static-properties") has_static_ = true;
    return read_property_map_value(*it, path(key), out);
  }

  // ---- $schema ----

  // False when the version is not supported: the rest of the document is then not read.
  bool read_schema(const Json& root) {
    auto& md = out_.metadata;
    if (!is_json()) {  // pyproject.toml: the PEP 817 data model; a `$schema` there is ignored
      md.schema = variant::kSchemaDraft003;
      md.schema_url.clear();
      draft_ = true;
      return true;
    }
    const auto it = root.find("$schema");
    md.schema = variant::kSchemaDraft003;
    md.schema_url.clear();
    if (it == root.end()) {
      problem(Severity::Warning, "schema-missing", "$schema", fmt::format("missing; expected the URL of the format's schema, e.g. \"{}\" (read as draft "
                                     "v0.0.3)",
                                     kSchemaUrlPep825));
    } else if (!it->is_string()) {
      error("$schema", fmt::format("expected a string (the schema URL), got {}", describe_value(*it)));
    } else {
      md.schema_url = it->get<std::string>();
      if (const auto version = parse_schema_version(md.schema_url)) {
        md.schema = *version;
        if (!is_supported_schema(*version)) {
          error("$schema", fmt::format("unsupported format version {} in {} (this tool reads 0.0.2, 0.0.3 and 0.1.0 "
                                       "or newer within major version 0)",
                                       version_text(*version), python_json_string(md.schema_url)));
          return false;
        }
        // A newer minor of the known major reads as the newest known minor (PEP 825: minor
        // versions stay readable by older consumers).
        if (version->major == variant::kSchemaProviders.major && version->minor > variant::kSchemaProviders.minor) {
          problem(Severity::Warning, "schema-newer-minor", "$schema", fmt::format("format version {} is newer than this tool knows ({}); read as {}, keys it "
                                         "does not know are ignored",
                                         version_text(*version), version_text(variant::kSchemaProviders),
                                         version_text(variant::kSchemaProviders)));
        }
      } else if (is_wheelnext_schema_host(md.schema_url)) {
        md.schema = variant::kSchemaDraft002;
        problem(Severity::Warning, "schema-unversioned", "$schema", fmt::format("{} has no version (expected a URL ending in /vMAJOR.MINOR.PATCH.json); "
                                       "read as draft v0.0.2",
                                       python_json_string(md.schema_url)));
      } else {
        error("$schema", fmt::format("cannot tell the format version from {} (expected a URL ending in "
                                     "/vMAJOR.MINOR.PATCH.json)",
                                     python_json_string(md.schema_url)));
        return false;
      }
    }
    draft_ = is_draft_schema(md.schema);
    v020_ = variant::is_providers_schema(md.schema);
    return true;
  }

  // ---- default-priorities ----

  void read_default_priorities(const Json& root) {
    const auto where = path("default-priorities");
    const auto it = root.find("default-priorities");
    if (it == root.end()) {
      problem(pep825_must(), "default-priorities-missing", where, "missing; it must hold `namespace`, the namespaces of the variants in priority order");
      return;
    }
    if (!expect_object(*it, where, "an object")) {
      features_ok_ = false;
      return;
    }
    auto& md = out_.metadata;
    for (const auto& [key, value] : it->items()) {
      const auto key_path = child_path(where, key);
      if (key == "namespace") {
        namespace_list_present_ = true;
        namespaces_ok_ = read_string_list(value, key_path, kNamePattern, md.namespace_priorities);
      } else if (key == "feature") {
        if (!expect_object(value, key_path, "an object mapping namespaces to feature lists")) {
          features_ok_ = false;
          continue;
        }
        for (const auto& [ns, features] : value.items()) {
          if (!check_key(ns, key_path, "namespace", kNamePattern)) {
            features_ok_ = false;
            continue;
          }
          features_ok_ =
              read_string_list(features, child_path(key_path, ns), kNamePattern, md.feature_priorities[ns]) &&
              features_ok_;
        }
      } else if (key == "property") {
        read_property_map_value(value, key_path, md.property_priorities);
      } else {
        problem(Severity::Warning, "unknown-key", key_path, "unknown key, ignored");
        continue;
      }
      if (key != "namespace" && v020_) {
        problem(Severity::Warning, "draft-key", key_path, fmt::format("not part of format {} (default-priorities holds only `namespace`); "
                                      "read as a PEP 817 priority override",
                                      version_text(md.schema)));
      } else if (key != "namespace" && is_json() && md.schema >= kPep825WithoutOverrides) {
        problem(Severity::Warning, "draft-key", key_path, fmt::format("not part of the PEP 825 format v{} (removed in v0.1.1); read as a PEP 817 "
                                      "priority override",
                                      version_text(md.schema)));
      }
    }
    if (!namespace_list_present_) {
      problem(pep825_must(), "namespace-list-missing", child_path(where, "namespace"), "missing; it must list the namespaces of the variants in priority order");
    }
  }

  // ---- providers ----

  void read_providers(const Json& root) {
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
    if (!draft_ && !v020_) problem(Severity::Warning, "draft-key", where, "not part of the PEP 825 format; read as PEP 817 provider information");
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

  bool read_provider(const Json& info, const std::string& ns, const std::string& ns_path) {
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
      } else if (key == "build-requires" && !is_json()) {
        // The Building draft: the plugin fills static-properties when the wheel is built.
        has_build_requires = true;
        if (!read_string_list(value, key_path, kTextPattern, provider.build_requires)) {
          ok = false;
        } else if (provider.build_requires.empty()) {
          error(key_path, "empty; it must list one or more requirements for the plugin package");
          ok = false;
        }
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
        error(ns_path, "has both `build-requires` and `requires`; a provider whose plugin fills static-properties at "
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

  // ---- providers, v0.2.0 (the Providers draft) ----

  // `static-properties` of one provider: `{feature: [values]}`, values in preference order.
  bool read_static_features(const Json& value, const std::string& where,
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

  // The module a requirement names, as the draft infers `plugin-api`: the normalized project name
  // (lowercase, runs of `-_.` as one `-`) with `-` replaced by `_`. Empty when there is no name.
  static std::string inferred_module(std::string_view requirement) {
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

  // Without `plugin-api`, the first requirement left after marker filtering names the plugin's
  // module, and it must be the same one in every environment.
  void check_inferred_plugin_api(const std::vector<std::string>& requirements, const std::string& ns_path) {
    const auto where = child_path(ns_path, "requires");
    std::vector<std::string> modules;  // of the requirements that can come first
    bool unconditional = false;
    for (const auto& r : requirements) {
      const auto module = inferred_module(r);
      if (module.empty() || (module.front() >= '0' && module.front() <= '9')) {
        problem(Severity::Error, "plugin-api-uninferable", where,
                fmt::format("no importable module name can be inferred from {}; give `plugin-api`",
                            python_json_string(r)));
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

  bool read_provider_v020(const Json& info, const std::string& ns, const std::string& ns_path) {
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
      error(ns_path, "needs exactly one of `requires` (the plugin's packages) or `static-properties` (the "
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

  // ---- variants ----

  void read_variants(const Json& root) {
    const auto where = path("variants");
    const auto it = root.find("variants");
    if (!is_json()) {
      if (it != root.end()) problem(Severity::Warning, "unknown-key", where, "must not be given in pyproject.toml; ignored");
      return;
    }
    if (it == root.end()) {
      error(where, "missing; it is required (an object mapping variant labels to their properties)");
      return;
    }
    if (!expect_object(*it, where, "an object mapping variant labels to properties")) return;
    for (const auto& [label, body] : it->items()) read_variant(label, body, where);

    if (kind_ == DocumentKind::VariantJson) {
      std::vector<std::string> labels;
      for (const auto& [label, body] : it->items()) labels.push_back(label);
      if (labels.size() != 1) {
        error(where, fmt::format("a wheel's variant.json must describe exactly one variant, found {}{}",
                                 labels.size(), labels.empty() ? "" : " (" + quoted_list(labels) + ")"));
      } else if (expected_label_ && labels.front() != *expected_label_) {
        error(where, fmt::format("label {} does not match the label {} in the wheel's file name",
                                 python_json_string(labels.front()), python_json_string(*expected_label_)));
      }
    }
  }

  void read_variant(const std::string& label, const Json& body, const std::string& where) {
    if (!check_key(label, where, "label", kLabelPattern)) return;
    const auto label_path = child_path(where, label);
    if (!expect_object(body, label_path, "an object mapping namespaces to {feature: [values]}")) return;
    std::vector<variant::Property> properties;
    bool ok = true;
    for (const auto& [ns, features] : body.items()) {
      if (!check_key(ns, label_path, "namespace", kNamePattern)) {
        ok = false;
        continue;
      }
      const auto ns_path = child_path(label_path, ns);
      if (!expect_object(features, ns_path, "an object mapping feature names to value lists")) {
        ok = false;
        continue;
      }
      for (const auto& [feature, values] : features.items()) {
        if (!check_key(feature, ns_path, "feature", kNamePattern)) {
          ok = false;
          continue;
        }
        const auto feature_path = child_path(ns_path, feature);
        std::vector<std::string> list;
        if (!read_string_list(values, feature_path, kValuePattern, list)) {
          ok = false;
          continue;
        }
        if (list.empty()) problem(pep825_must(), "values-empty", feature_path, "empty list of values; PEP 825 requires at least one value");
        auto sorted = list;
        std::sort(sorted.begin(), sorted.end());
        if (const auto dup = std::adjacent_find(sorted.begin(), sorted.end()); dup != sorted.end()) {
          error(feature_path, fmt::format("value {} is listed more than once", python_json_string(*dup)));
          ok = false;
          continue;
        }
        if (sorted != list) {
          // PEP 825 describes sorted lists but makes no MUST of it, and the drafts never did:
          // PyTorch's published files list sm_arch unsorted and are read the same either way.
          problem(Severity::Warning, "values-unsorted", feature_path, fmt::format("values are not sorted ({}); PEP 825 lists them sorted lexically",
                                            quoted_list(list)));
        }
        for (auto& value : sorted) properties.push_back({ns, feature, std::move(value)});
      }
    }
    if (!ok) return;
    auto set = variant::make_property_set(std::move(properties));
    if (!set) {  // cannot happen after the checks above; kept as a safety net
      error(label_path, set.error().message);
      return;
    }
    if (label == variant::kNullLabel && !set->empty()) {
      std::vector<std::string> texts;
      for (const auto& p : *set) texts.push_back(p.to_string());
      error(label_path, fmt::format("the label \"null\" is reserved for the variant without properties, but this "
                                    "one has {}",
                                    quoted_list(texts)));
      return;
    }
    if ((draft_ || v020_) && label.size() > variant::kMaxPortableLabelLength) {
      problem(Severity::Warning, "label-length", label_path, fmt::format("label longer than {} characters: valid for PEP 825, but not in the draft "
                                      "format, and today's installers reject it",
                                      variant::kMaxPortableLabelLength));
    }
    out_.metadata.variants[label] = std::move(*set);
  }

  // ---- cross-key rules ----

  // PEP 817: static properties exist exactly for the ahead-of-time providers (JSON: all of them;
  // pyproject.toml: those without a plugin), and several static features need an order.
  void check_providers_against_static_properties() {
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

  void check_namespace_rules() {
    const auto& md = out_.metadata;
    const auto ns_path = path("default-priorities.namespace");
    if (namespace_list_present_ && !namespaces_ok_) return;
    std::vector<Finding> model;
    append_model_problems(md, kind_, root_, namespace_list_present_, pep825_must(), model, v020_);
    for (auto& f : model) problem(f.severity, std::move(f.rule), f.location, f.message);
    if (v020_ && is_json()) check_namespaces_against_providers_v020();
    // Draft formats (PEP 817): the namespace list and the providers keys name the same namespaces.
    if (draft_ && namespace_list_present_ && providers_ok_) {
      std::vector<std::string> unlisted;
      std::vector<std::string> without_provider;
      const std::set<std::string> listed(md.namespace_priorities.begin(), md.namespace_priorities.end());
      for (const auto& [ns, provider] : md.providers) {
        if (!listed.contains(ns)) unlisted.push_back(ns);
      }
      for (const auto& ns : listed) {
        // abi_dependency is matched against installed distributions, never by a provider.
        if (!md.providers.contains(ns) && ns != variant::kAbiDependencyNamespace) without_provider.push_back(ns);
      }
      if (!unlisted.empty()) {
        problem(Severity::Warning, "namespace-providers-mismatch", ns_path, fmt::format("does not list {}, which {} in `providers` (draft format: the namespace list "
                                     "and the providers keys must match)",
                                     quoted_list(unlisted), unlisted.size() == 1 ? "is" : "are"));
      }
      if (!without_provider.empty()) {
        // With provider information, a listed namespace that has no provider can never be supported
        // (PEP 817: the two MUST have the same members): reject, as the reference does. Without any
        // (no table, or an empty one, which the v0.0.3 writer always emits), the file is read with
        // PEP 825's semantics, and this is only reported.
        const auto what = fmt::format("lists {} without an entry in `providers` (draft format: the namespace list "
                                      "and the providers keys must match)",
                                      quoted_list(without_provider));
        if (!md.providers.empty()) {
          error(ns_path, what);
        } else {
          problem(Severity::Warning, "namespace-providers-mismatch", ns_path, what);
        }
      }
    }
  }

  // v0.2.0: `providers` keys and the namespace list name the same namespaces, abi_dependency in
  // neither (a provider for it was already reported and dropped).
  void check_namespaces_against_providers_v020() {
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

 public:
  // PEP 825 rules on a model (shared with the public conformance_problems()). With
  // `abi_reserved` (v0.2.0), variants may use abi_dependency without it being listed.
  static void append_model_problems(const VariantMetadata& md, DocumentKind kind, const std::string& root,
                                    bool namespace_list_present, Severity must, std::vector<Finding>& out,
                                    bool abi_reserved = false) {
    const auto ns_path = child_path(root, "default-priorities.namespace");
    const auto& list = md.namespace_priorities;
    if (namespace_list_present) {
      if (list.empty()) out.push_back({must, "namespace-list-empty", {}, ns_path, "empty; it must list at least one namespace"});
      std::set<std::string> seen;
      std::set<std::string> reported;
      for (const auto& ns : list) {
        if (!seen.insert(ns).second && reported.insert(ns).second) {
          out.push_back({must, "namespace-repeated", {}, ns_path,
                         fmt::format("namespace {} is listed more than once", python_json_string(ns))});
        }
      }
    }
    if (kind == DocumentKind::Pyproject) return;
    std::map<std::string, std::vector<std::string>> used;  // namespace -> labels using it
    for (const auto& [label, properties] : md.variants) {
      std::set<std::string> namespaces;
      for (const auto& p : properties) namespaces.insert(p.ns);
      for (const auto& ns : namespaces) used[ns].push_back(label);
      if (properties.empty() && label != variant::kNullLabel) {
        out.push_back({must, "null-label", {}, child_path("variants", label),
                       "a variant without properties must use the label \"null\""});
      }
    }
    if (!namespace_list_present) return;
    for (const auto& [ns, labels] : used) {
      if (abi_reserved && ns == variant::kAbiDependencyNamespace) continue;
      if (std::find(list.begin(), list.end(), ns) == list.end()) {
        out.push_back({must, "namespace-unlisted", {}, ns_path,
                       fmt::format("does not list namespace {}, used by {} {}", python_json_string(ns),
                                   labels.size() == 1 ? "variant" : "variants", quoted_list(labels, 4))});
      }
    }
  }
};

}  // namespace

ReadOutcome read_document(const Json& root, DocumentKind kind, std::optional<std::string_view> expected_label,
                          std::string_view json_text) {
  return Reader(kind, expected_label, json_text).run(root);
}

Result<ParsedDocument> to_result(ReadOutcome outcome) {
  if (!outcome.errors.empty()) {
    std::vector<std::string> rest(std::make_move_iterator(outcome.errors.begin() + 1),
                                  std::make_move_iterator(outcome.errors.end()));
    return fail(Error(std::move(outcome.errors.front()), std::move(rest)));
  }
  return ParsedDocument{std::move(outcome.metadata), std::move(outcome.conformance)};
}

}  // namespace vwheel::metadata::detail

namespace vwheel::metadata {

std::vector<std::string> conformance_problems(const variant::VariantMetadata& metadata, DocumentKind kind) {
  std::vector<std::string> out;
  const std::string root = kind == DocumentKind::Pyproject ? "variant" : "";
  std::vector<Finding> findings;
  detail::Reader::append_model_problems(metadata, kind, root, true, Severity::Error, findings);
  for (const auto& f : findings) out.push_back(detail::single_line(fmt::format("{}: {}", f.location, f.message)));
  if (kind == DocumentKind::VariantJson && metadata.variants.size() != 1) {
    out.push_back(fmt::format("variants: a wheel's variant.json must describe exactly one variant, found {}",
                              metadata.variants.size()));
  }
  return out;
}

std::vector<std::string> conformance_problems_v020(const variant::VariantMetadata& metadata, DocumentKind kind) {
  std::vector<std::string> out;
  const std::string root = kind == DocumentKind::Pyproject ? "variant" : "";
  // abi_dependency is dropped from the namespace list on writing; judge the list without it.
  variant::VariantMetadata listed = metadata;
  std::erase(listed.namespace_priorities, std::string(variant::kAbiDependencyNamespace));
  std::vector<Finding> findings;
  detail::Reader::append_model_problems(listed, kind, root, true, Severity::Error, findings, true);
  for (const auto& f : findings) out.push_back(detail::single_line(fmt::format("{}: {}", f.location, f.message)));
  if (kind == DocumentKind::VariantJson && metadata.variants.size() != 1) {
    out.push_back(fmt::format("variants: a wheel's variant.json must describe exactly one variant, found {}",
                              metadata.variants.size()));
  }
  for (const auto& ns : listed.namespace_priorities) {
    const auto where = detail::child_path("providers", ns);
    const auto it = metadata.providers.find(ns);
    if (it == metadata.providers.end()) {
      out.push_back(fmt::format("{}: missing; format 0.2.0 needs a provider for every namespace (a plugin's "
                                "`requires` or `static-properties`)",
                                where));
      continue;
    }
    const auto& p = it->second;
    if (p.enable_if) {
      out.push_back(fmt::format("{}: has `enable-if`, which format 0.2.0 cannot express", where));
    }
    if (p.install_time && p.requires_.empty()) {
      out.push_back(fmt::format("{}: an install-time provider needs a non-empty `requires`", where));
    }
    if (!p.install_time && !metadata.static_properties.contains(ns)) {
      out.push_back(fmt::format("{}: an ahead-of-time provider needs its static properties (format 0.2.0 has no "
                                "ahead-of-time plugins)",
                                where));
    }
  }
  return out;
}

}  // namespace vwheel::metadata

namespace vwheel::metadata {

std::string_view severity_name(Severity severity) noexcept {
  return severity == Severity::Error ? "error" : "warning";
}

}  // namespace vwheel::metadata
