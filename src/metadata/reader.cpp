// The document reader (reader.hpp): the generic pieces, `$schema`, `default-priorities`,
// `variants` and the namespace rules; reader_providers.cpp reads `providers`.

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "metadata/reader.hpp"
#include "vwheel/variant/ordering.hpp"
#include "vwheel/variant/property.hpp"

namespace vwheel::metadata::detail {
namespace {

constexpr SchemaVersion kPep825WithoutOverrides{0, 1, 1};

bool is_wheelnext_schema_host(std::string_view url) {
  for (std::string_view prefix : {"https://variants-schema.wheelnext.dev", "http://variants-schema.wheelnext.dev"}) {
    if (url.starts_with(prefix)) {
      const auto rest = url.substr(prefix.size());
      return rest.empty() || rest.front() == '/';
    }
  }
  return false;
}

}  // namespace

ReadOutcome Reader::run(const Json& root) {
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
      problem(Severity::Warning, "draft-key", path("static-properties"),
              "not part of the PEP 825 format; read as PEP 817 static properties");
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

bool Reader::expect_object(const Json& value, const std::string& where, std::string_view what) {
  if (value.is_object()) return true;
  error(where, fmt::format("expected {}, got {}", what, describe_value(value)));
  return false;
}

bool Reader::check_key(std::string_view key, const std::string& where, std::string_view what, const Pattern& pattern) {
  if (pattern.check(key)) return true;
  error(where, fmt::format("{} {} must match {}", what, python_json_string(key), pattern.text));
  return false;
}

bool Reader::read_bool_value(const Json& value, const std::string& where, bool& target) {
  if (value.is_boolean()) {
    target = value.get<bool>();
    return true;
  }
  error(where, fmt::format("expected a boolean, got {}", describe_value(value)));
  return false;
}

bool Reader::read_optional_text(const Json& value, const std::string& where, const Pattern& pattern,
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

bool Reader::read_string_list(const Json& value, const std::string& where, const Pattern& pattern,
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

bool Reader::read_property_map_value(const Json& value, const std::string& where, PropertyMap& out) {
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

bool Reader::read_property_map(const Json& root, std::string_view key, PropertyMap& out) {
  const auto it = root.find(key);
  if (it == root.end()) return true;
  if (key == "static-properties") has_static_ = true;
  return read_property_map_value(*it, path(key), out);
}

bool Reader::read_schema(const Json& root) {
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
    problem(Severity::Warning, "schema-missing", "$schema",
            fmt::format("missing; expected the URL of the format's schema, e.g. \"{}\" (read as draft "
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
        problem(Severity::Warning, "schema-newer-minor", "$schema",
                fmt::format("format version {} is newer than this tool knows ({}); read as {}, keys it "
                            "does not know are ignored",
                            version_text(*version), version_text(variant::kSchemaProviders),
                            version_text(variant::kSchemaProviders)));
      }
    } else if (is_wheelnext_schema_host(md.schema_url)) {
      md.schema = variant::kSchemaDraft002;
      problem(Severity::Warning, "schema-unversioned", "$schema",
              fmt::format("{} has no version (expected a URL ending in /vMAJOR.MINOR.PATCH.json); "
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

void Reader::read_default_priorities(const Json& root) {
  const auto where = path("default-priorities");
  const auto it = root.find("default-priorities");
  if (it == root.end()) {
    problem(pep825_must(), "default-priorities-missing", where,
            "missing; it must hold `namespace`, the namespaces of the variants in priority order");
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
        features_ok_ = read_string_list(features, child_path(key_path, ns), kNamePattern, md.feature_priorities[ns]) &&
                       features_ok_;
      }
    } else if (key == "property") {
      read_property_map_value(value, key_path, md.property_priorities);
    } else {
      problem(Severity::Warning, "unknown-key", key_path, "unknown key, ignored");
      continue;
    }
    if (key != "namespace" && v020_) {
      problem(Severity::Warning, "draft-key", key_path,
              fmt::format("not part of format {} (default-priorities holds only `namespace`); "
                          "read as a PEP 817 priority override",
                          version_text(md.schema)));
    } else if (key != "namespace" && is_json() && md.schema >= kPep825WithoutOverrides) {
      problem(Severity::Warning, "draft-key", key_path,
              fmt::format("not part of the PEP 825 format v{} (removed in v0.1.1); read as a PEP 817 "
                          "priority override",
                          version_text(md.schema)));
    }
  }
  if (!namespace_list_present_) {
    problem(pep825_must(), "namespace-list-missing", child_path(where, "namespace"),
            "missing; it must list the namespaces of the variants in priority order");
  }
}

void Reader::read_variants(const Json& root) {
  const auto where = path("variants");
  const auto it = root.find("variants");
  if (!is_json()) {
    if (it != root.end())
      problem(Severity::Warning, "unknown-key", where, "must not be given in pyproject.toml; ignored");
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
      error(where, fmt::format("a wheel's variant.json must describe exactly one variant, found {}{}", labels.size(),
                               labels.empty() ? "" : " (" + quoted_list(labels) + ")"));
    } else if (expected_label_ && labels.front() != *expected_label_) {
      error(where, fmt::format("label {} does not match the label {} in the wheel's file name",
                               python_json_string(labels.front()), python_json_string(*expected_label_)));
    }
  }
}

void Reader::read_variant(const std::string& label, const Json& body, const std::string& where) {
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
      if (list.empty())
        problem(pep825_must(), "values-empty", feature_path,
                "empty list of values; PEP 825 requires at least one value");
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
        problem(Severity::Warning, "values-unsorted", feature_path,
                fmt::format("values are not sorted ({}); PEP 825 lists them sorted lexically", quoted_list(list)));
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
    problem(Severity::Warning, "label-length", label_path,
            fmt::format("label longer than {} characters: valid for PEP 825, but not in the draft "
                        "format, and today's installers reject it",
                        variant::kMaxPortableLabelLength));
  }
  out_.metadata.variants[label] = std::move(*set);
}

void Reader::check_namespace_rules() {
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
      problem(Severity::Warning, "namespace-providers-mismatch", ns_path,
              fmt::format("does not list {}, which {} in `providers` (draft format: the namespace list "
                          "and the providers keys must match)",
                          quoted_list(unlisted), unlisted.size() == 1 ? "is" : "are"));
    }
    if (!without_provider.empty()) {
      // With provider information, a listed namespace that has no provider can never be supported
      // (PEP 817: the two MUST have the same members): reject, as the reference does. Without any
      // (no table, or an empty one, which the v0.0.3 writer always emits), the file is read with
      // PEP 825's semantics, and this is only reported.
      const auto what = fmt::format(
          "lists {} without an entry in `providers` (draft format: the namespace list "
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

void Reader::append_model_problems(const VariantMetadata& md, DocumentKind kind, const std::string& root,
                                   bool namespace_list_present, Severity must, std::vector<Finding>& out,
                                   bool abi_reserved) {
  const auto ns_path = child_path(root, "default-priorities.namespace");
  const auto& list = md.namespace_priorities;
  if (namespace_list_present) {
    if (list.empty())
      out.push_back({must, "namespace-list-empty", {}, ns_path, "empty; it must list at least one namespace"});
    std::set<std::string> seen;
    std::set<std::string> reported;
    for (const auto& ns : list) {
      if (!seen.insert(ns).second && reported.insert(ns).second) {
        out.push_back({must,
                       "namespace-repeated",
                       {},
                       ns_path,
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
      out.push_back({must,
                     "null-label",
                     {},
                     child_path("variants", label),
                     "a variant without properties must use the label \"null\""});
    }
  }
  if (!namespace_list_present) return;
  for (const auto& [ns, labels] : used) {
    if (abi_reserved && ns == variant::kAbiDependencyNamespace) continue;
    if (std::find(list.begin(), list.end(), ns) == list.end()) {
      out.push_back({must,
                     "namespace-unlisted",
                     {},
                     ns_path,
                     fmt::format("does not list namespace {}, used by {} {}", python_json_string(ns),
                                 labels.size() == 1 ? "variant" : "variants", quoted_list(labels, 4))});
    }
  }
}

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
      out.push_back(
          fmt::format("{}: missing; format 0.2.0 needs a provider for every namespace (a plugin's "
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
      out.push_back(
          fmt::format("{}: an ahead-of-time provider needs its static properties (format 0.2.0 has no "
                      "ahead-of-time plugins)",
                      where));
    }
  }
  return out;
}

}  // namespace vwheel::metadata

namespace vwheel::metadata {

std::string_view severity_name(Severity severity) noexcept { return severity == Severity::Error ? "error" : "warning"; }

}  // namespace vwheel::metadata
