#pragma once
// Private to the metadata component: the document reader, which walks a JSON tree (parsed JSON, or
// TOML converted to JSON) and fills a VariantMetadata, collecting hard errors and conformance
// problems (see document.hpp for the rules). reader.cpp holds the generic pieces, `$schema`,
// `default-priorities`, `variants` and the namespace rules; reader_providers.cpp reads `providers`
// in every format version and checks them against the static properties and the namespace list.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "metadata/internal.hpp"
#include "vwheel/variant/metadata.hpp"
#include "vwheel/variant/property.hpp"

namespace vwheel::metadata::detail {

using variant::PropertyMap;
using variant::ProviderInfo;
using variant::SchemaVersion;
using variant::VariantMetadata;

/// What a list element or a key must look like.
struct Pattern {
  bool (*check)(std::string_view) noexcept;
  std::string_view text;  // shown in messages
};

inline bool check_name(std::string_view s) noexcept { return variant::is_valid_namespace(s); }
inline bool check_value(std::string_view s) noexcept { return variant::is_valid_feature_value(s); }
inline bool check_label(std::string_view s) noexcept { return variant::is_valid_label(s); }
inline bool check_text(std::string_view s) noexcept { return is_single_line_text(s); }
inline bool check_plugin_api(std::string_view s) noexcept { return is_plugin_api_reference(s); }

inline constexpr Pattern kNamePattern{check_name, "[a-z0-9_]+"};
inline constexpr Pattern kValuePattern{check_value, "[a-z0-9_.]+"};
inline constexpr Pattern kLabelPattern{check_label, "[0-9a-z_.]+"};
inline constexpr Pattern kTextPattern{check_text, "[\\S ]+ (non-empty, no tabs or line breaks)"};
inline constexpr Pattern kPluginApiPattern{check_plugin_api,
                                           "an object reference `module:attr` ([\\w.]+(\\s*:\\s*[\\w.]+)?)"};

/// `major.minor.patch`.
inline std::string version_text(const SchemaVersion& v) { return fmt::format("{}.{}.{}", v.major, v.minor, v.patch); }

/// Reads one document (read_document() in internal.hpp is its entry point): each instance reads
/// once. `expected_label`: the label a wheel's variant.json must describe; `json_text`: the
/// document's text, for the order in which it writes static features (the tree's objects are
/// sorted).
class Reader {
 public:
  Reader(DocumentKind kind, std::optional<std::string_view> expected_label, std::string_view json_text)
      : kind_(kind),
        expected_label_(expected_label),
        root_(kind == DocumentKind::Pyproject ? "variant" : ""),
        json_text_(json_text) {}

  /// The document's model, errors and conformance problems.
  ReadOutcome run(const Json& root);

  /// PEP 825 rules on a model (shared with the public conformance_problems()). With
  /// `abi_reserved` (v0.2.0), variants may use abi_dependency without it being listed.
  static void append_model_problems(const VariantMetadata& md, DocumentKind kind, const std::string& root,
                                    bool namespace_list_present, Severity must, std::vector<Finding>& out,
                                    bool abi_reserved = false);

 private:
  DocumentKind kind_;
  std::optional<std::string_view> expected_label_;
  std::string root_;
  std::string_view json_text_;
  ReadOutcome out_;
  bool draft_ = true;
  bool v020_ = false;  // the Providers draft's rules (v0.2.0 and newer minors)
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
  /// Hard errors: the document cannot be used, whatever its version.
  void error(const std::string& where, const std::string& what) {
    out_.errors.push_back(single_line(where.empty() ? what : fmt::format("{}: {}", where, what)));
    out_.findings.push_back({Severity::Error, "invalid", {}, where, single_line(what)});
  }
  /// Conformance problems: the document is used; `severity` says whether the declared format
  /// version requires what is missing (see Severity).
  void problem(Severity severity, std::string rule, const std::string& where, const std::string& what) {
    out_.conformance.push_back(single_line(where.empty() ? what : fmt::format("{}: {}", where, what)));
    out_.findings.push_back({severity, std::move(rule), {}, where, single_line(what)});
  }
  /// A PEP 825 MUST: an error in a PEP 825 document, a warning in a draft one (the drafts did not
  /// have the rule, or were never normative).
  Severity pep825_must() const { return draft_ ? Severity::Warning : Severity::Error; }

  // ---- generic pieces ----

  bool expect_object(const Json& value, const std::string& where, std::string_view what);

  /// A key of an object that must match `pattern`; reports against the object's path.
  bool check_key(std::string_view key, const std::string& where, std::string_view what, const Pattern& pattern);

  bool read_bool_value(const Json& value, const std::string& where, bool& target);

  /// A string or null (absent), checked against `pattern`.
  bool read_optional_text(const Json& value, const std::string& where, const Pattern& pattern,
                          std::optional<std::string>& target);

  /// A list of strings each matching `pattern`. Returns false (after reporting) on any problem.
  bool read_string_list(const Json& value, const std::string& where, const Pattern& pattern,
                        std::vector<std::string>& out);

  /// `{namespace: {feature: [values]}}` (static-properties, default-priorities.property).
  bool read_property_map_value(const Json& value, const std::string& where, PropertyMap& out);

  bool read_property_map(const Json& root, std::string_view key, PropertyMap& out);

  // ---- $schema ----

  /// False when the version is not supported: the rest of the document is then not read.
  bool read_schema(const Json& root);

  // ---- default-priorities ----

  void read_default_priorities(const Json& root);

  // ---- providers ----

  void read_providers(const Json& root);

  bool read_provider(const Json& info, const std::string& ns, const std::string& ns_path);

  /// A provider's `build-requires` (the Building draft). In pyproject.toml: the plugin's packages,
  /// into `provider.build_requires`. A JSON file is a built wheel's metadata (or a merge of them),
  /// from which the build removed the key: a conformance problem there, and the value is ignored.
  /// Returns false (after reporting) when the value is unusable.
  bool read_build_requires(const Json& value, const std::string& where, ProviderInfo& provider);

  // ---- providers, v0.2.0 (the Providers draft) ----

  /// `static-properties` of one provider: `{feature: [values]}`, values in preference order.
  bool read_static_features(const Json& value, const std::string& where,
                            std::map<std::string, std::vector<std::string>>& out);

  /// The module a requirement names, as the draft infers `plugin-api`: the normalized project name
  /// (lowercase, runs of `-_.` as one `-`) with `-` replaced by `_`. Empty when there is no name.
  static std::string inferred_module(std::string_view requirement);

  /// Without `plugin-api`, the first requirement left after marker filtering names the plugin's
  /// module, and it must be the same one in every environment.
  void check_inferred_plugin_api(const std::vector<std::string>& requirements, const std::string& ns_path);

  bool read_provider_v020(const Json& info, const std::string& ns, const std::string& ns_path);

  // ---- variants ----

  void read_variants(const Json& root);

  void read_variant(const std::string& label, const Json& body, const std::string& where);

  // ---- cross-key rules ----

  /// PEP 817: static properties exist exactly for the ahead-of-time providers (JSON: all of them;
  /// pyproject.toml: those without a plugin), and several static features need an order.
  void check_providers_against_static_properties();

  void check_namespace_rules();

  /// v0.2.0: `providers` keys and the namespace list name the same namespaces, abi_dependency in
  /// neither (a provider for it was already reported and dropped).
  void check_namespaces_against_providers_v020();

};

}  // namespace vwheel::metadata::detail
