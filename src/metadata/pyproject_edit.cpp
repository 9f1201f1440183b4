// Editing pyproject.toml's [variant] table in place: span edits by the toml_edit component, each
// result re-parsed with toml++ and checked against the intended document. See pyproject_edit.hpp
// for the rules.

#include "vwheel/metadata/pyproject_edit.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "core/toml.hpp"
#include "metadata/internal.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/markers/marker.hpp"
#include "vwheel/markers/requirement.hpp"
#include "vwheel/metadata/document.hpp"
#include "vwheel/toml_edit/editor.hpp"
#include "vwheel/variant/property.hpp"

namespace vwheel::metadata {
namespace {

using toml_edit::Editor;
using toml_edit::toml_string_array;
using toml_edit::TomlStatementKind;
using Path = toml_edit::TomlPath;

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

// An editor on `text`, refusing arrays of tables under [variant]: PEP 817 has none there, and a
// `[[variant...]]` would make every path below it ambiguous.
Result<Editor> open_editor(std::string_view text) {
  auto ed = Editor::open(text);
  if (!ed) return fail(ed.error());
  for (const auto& st : ed->statements()) {
    if (st.kind == TomlStatementKind::ArrayTable && !st.key.empty() && st.key.front() == "variant") {
      return fail(
          fmt::format("line {}: `[[{}]]` (an array of tables) under [variant] cannot be edited: PEP 817 "
                      "has no arrays of tables there",
                      st.line, toml_edit::toml_path_text(st.key)));
    }
  }
  return ed;
}

Path join(Path path, std::string_view key) {
  path.emplace_back(key);
  return path;
}

Result<toml::table> parse_toml(std::string_view text) {
  if (auto bad = toml_unsupported_character(text)) return fail(*bad);
  try {
    return toml::parse(text);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    return fail(detail::single_line(
        fmt::format("invalid TOML at line {}, column {}: {}", where.line, where.column, e.description())));
  }
}

const toml::node* node_at(const toml::table& doc, const Path& path) {
  const toml::node* node = &doc;
  for (const auto& key : path) {
    const auto* table = node->as_table();
    if (table == nullptr) return nullptr;
    node = table->get(key);
    if (node == nullptr) return nullptr;
  }
  return node;
}

// The table at `path` below `doc`, created where missing; nullptr when a non-table is in the way.
toml::table* make_table(toml::table& doc, const Path& path) {
  toml::table* table = &doc;
  for (const auto& key : path) {
    toml::node* child = table->get(key);
    if (child == nullptr) child = &table->insert(key, toml::table{}).first->second;
    table = child->as_table();
    if (table == nullptr) return nullptr;
  }
  return table;
}

void erase_at(toml::table& doc, const Path& path) {
  toml::table* table = &doc;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    toml::node* child = table->get(path[i]);
    table = child != nullptr ? child->as_table() : nullptr;
    if (table == nullptr) return;
  }
  if (!path.empty()) table->erase(path.back());
}

// Removes empty tables below `table` (recursively); true when `table` ends up empty.
bool prune_empty_tables(toml::table& table) {
  std::vector<std::string> empty;
  for (auto& [key, value] : table) {
    if (auto* child = value.as_table(); child != nullptr && prune_empty_tables(*child)) empty.emplace_back(key.str());
  }
  for (const auto& key : empty) table.erase(key);
  return table.empty();
}

// Both documents with empty tables inside [variant] (and an empty [variant]) removed, then
// compared: what an edit may change besides the expected values is only whether an emptied table
// is still written.
bool same_document(toml::table a, toml::table b) {
  for (auto* doc : {&a, &b}) {
    if (auto* variant = doc->get_as<toml::table>("variant"); variant != nullptr && prune_empty_tables(*variant)) {
      doc->erase("variant");
    }
  }
  return a == b;
}

std::vector<std::string> string_items(const toml::array& array) {
  std::vector<std::string> out;
  for (const auto& item : array) {
    if (const auto* s = item.as_string()) out.push_back(s->get());
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Provider edits
// ---------------------------------------------------------------------------------------------

const Path kNamespaceList{"variant", "default-priorities", "namespace"};
const Path kDefaultPriorities{"variant", "default-priorities"};
const Path kFeaturePriorities{"variant", "default-priorities", "feature"};
const Path kPropertyPriorities{"variant", "default-priorities", "property"};

Path provider_path(std::string_view ns) { return {"variant", "providers", std::string(ns)}; }
Path static_path(std::string_view ns) { return {"variant", "static-properties", std::string(ns)}; }

Result<void> check_spec(const ProviderSpec& spec) {
  using detail::python_json_string;
  if (!variant::is_valid_namespace(spec.ns)) {
    return fail(fmt::format("namespace {} must match [a-z0-9_]+", python_json_string(spec.ns)));
  }
  for (const auto& r : spec.requires_) {
    if (!detail::is_single_line_text(r)) {
      return fail(fmt::format("requires item {}: expected one line of text without tabs", python_json_string(r)));
    }
    if (auto parsed = markers::Requirement::parse(r); !parsed) {
      return fail(fmt::format("requires item {} is not a valid PEP 508 requirement: {}", python_json_string(r),
                              parsed.error().message));
    }
  }
  if (spec.enable_if) {
    if (!detail::is_single_line_text(*spec.enable_if)) {
      return fail(
          fmt::format("enable-if {}: expected one line of text without tabs", python_json_string(*spec.enable_if)));
    }
    if (auto parsed = markers::Marker::parse(*spec.enable_if); !parsed) {
      return fail(fmt::format("enable-if {} is not a valid environment marker: {}", python_json_string(*spec.enable_if),
                              parsed.error().message));
    }
  }
  if (spec.plugin_api && !detail::is_plugin_api_reference(*spec.plugin_api)) {
    return fail(fmt::format("plugin-api {} must be an object reference `module` or `module:attr`",
                            python_json_string(*spec.plugin_api)));
  }
  std::set<std::string> features;
  for (const auto& [feature, values] : spec.static_properties) {
    if (!variant::is_valid_feature_name(feature)) {
      return fail(fmt::format("static property feature {} must match [a-z0-9_]+", python_json_string(feature)));
    }
    if (!features.insert(feature).second) {
      return fail(fmt::format("static property feature {} is given twice", python_json_string(feature)));
    }
    if (values.empty()) {
      return fail(fmt::format("static property feature {} needs at least one value", python_json_string(feature)));
    }
    std::set<std::string> seen;
    for (const auto& v : values) {
      if (!variant::is_valid_feature_value(v)) {
        return fail(fmt::format("static property {} :: {} :: {}: the value must match [a-z0-9_.]+", spec.ns, feature,
                                python_json_string(v)));
      }
      if (!seen.insert(v).second) {
        return fail(
            fmt::format("static property {} :: {}: value {} is given twice", spec.ns, feature, python_json_string(v)));
      }
    }
  }
  if (!spec.static_properties.empty() && !spec.requires_.empty()) {
    return fail(
        fmt::format("provider {}: static properties are for ahead-of-time providers without a plugin; a "
                    "provider with `requires` gets them from its plugin at build time",
                    spec.ns));
  }
  if (!spec.static_properties.empty() && spec.install_time.value_or(false)) {
    return fail(
        fmt::format("provider {}: static properties are for ahead-of-time providers (install-time = false), "
                    "not install-time ones",
                    spec.ns));
  }
  return {};
}

// The edited text, if it is valid TOML, equals `expected` and has no hard errors.
Result<std::string> finish(std::string text, const toml::table& expected) {
  auto parsed = parse_toml(text);
  if (!parsed) {
    return fail("internal error: the edited file would not be valid TOML (" + parsed.error().message +
                "); nothing was changed");
  }
  if (!same_document(*parsed, expected)) {
    return fail("internal error: the edited file would not have the intended content; nothing was changed");
  }
  auto report = check_pyproject(text);
  if (!report.errors.empty()) {
    std::vector<std::string> rest(report.errors.begin() + 1, report.errors.end());
    return fail(Error("the edited file would not be valid: " + report.errors.front(), std::move(rest)));
  }
  return text;
}

}  // namespace

Result<std::string> add_provider(std::string_view toml_text, const ProviderSpec& spec) {
  if (auto ok = check_spec(spec); !ok) return fail(ok.error());
  auto original = parse_toml(toml_text);
  if (!original) return fail(original.error());
  auto editor = open_editor(toml_text);
  if (!editor) return fail(editor.error());
  Editor& ed = *editor;
  toml::table expected = *original;

  // Provider keys, in the order they are written when new.
  std::vector<std::pair<std::string, std::string>> keys;
  const bool write_install_time = spec.install_time.has_value() || !spec.static_properties.empty();
  const bool install_time = spec.install_time.value_or(false);
  if (!spec.requires_.empty()) keys.emplace_back("requires", toml_string_array(spec.requires_));
  if (spec.enable_if) keys.emplace_back("enable-if", toml_string(*spec.enable_if));
  if (spec.plugin_api) keys.emplace_back("plugin-api", toml_string(*spec.plugin_api));
  if (spec.optional) keys.emplace_back("optional", *spec.optional ? "true" : "false");
  if (write_install_time) keys.emplace_back("install-time", install_time ? "true" : "false");
  if (spec.requires_.empty() && spec.static_properties.empty() &&
      node_at(*original, provider_path(spec.ns)) == nullptr) {
    return fail(
        fmt::format("variant.providers.{} does not exist; a new provider needs `requires` (an install-time "
                    "or ahead-of-time provider plugin) or static properties (an ahead-of-time provider "
                    "without a plugin)",
                    spec.ns));
  }

  // default-priorities.namespace
  const toml::node* list_node = node_at(*original, kNamespaceList);
  if (list_node != nullptr) {
    if (!list_node->is_array()) {
      return fail(fmt::format("line {}: variant.default-priorities.namespace must be an array of namespaces",
                              list_node->source().begin.line));
    }
    toml::array list = *list_node->as_array();
    std::size_t current = kNone;
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (const auto* s = list[i].as_string(); s != nullptr && s->get() == spec.ns) {
        current = i;
        break;
      }
    }
    const std::size_t others = current == kNone ? list.size() : list.size() - 1;
    if (spec.priority && *spec.priority > others) {
      return fail(
          fmt::format("priority {} is out of range: variant.default-priorities.namespace has {} other "
                      "namespace(s), so the position must be 0..{}",
                      *spec.priority, others, others));
    }
    const bool move = current != kNone && spec.priority && *spec.priority != current;
    if (current == kNone || move) {
      if (move) {
        if (auto r = ed.array_remove(kNamespaceList, spec.ns); !r) return fail(r.error());
        toml::array rest;
        for (const auto& item : list) {
          if (const auto* s = item.as_string(); s == nullptr || s->get() != spec.ns) rest.push_back(item);
        }
        list = std::move(rest);
      }
      const std::size_t at = std::min(spec.priority.value_or(list.size()), list.size());
      if (auto r = ed.array_insert(kNamespaceList, at, toml_string(spec.ns)); !r) return fail(r.error());
      list.insert(list.cbegin() + static_cast<std::ptrdiff_t>(at), spec.ns);
      make_table(expected, kDefaultPriorities)->insert_or_assign("namespace", std::move(list));
    }
  } else {
    if (spec.priority && *spec.priority != 0) {
      return fail(
          fmt::format("priority {} is out of range: there is no variant.default-priorities.namespace yet, "
                      "so the position must be 0",
                      *spec.priority));
    }
    if (auto r = ed.set_value(kDefaultPriorities, "namespace", toml_string_array({spec.ns})); !r)
      return fail(r.error());
    auto* table = make_table(expected, kDefaultPriorities);
    if (table == nullptr) return fail("variant.default-priorities must be a table");
    table->insert_or_assign("namespace", toml::array{spec.ns});
  }

  // [variant.providers.NS]
  const Path provider = provider_path(spec.ns);
  for (const auto& [key, value] : keys) {
    if (auto r = ed.set_value(provider, key, value); !r) return fail(r.error());
  }
  if (!keys.empty()) {
    auto* table = make_table(expected, provider);
    if (table == nullptr) return fail(fmt::format("variant.providers.{} must be a table", spec.ns));
    if (!spec.requires_.empty()) {
      toml::array requires_list;
      for (const auto& r : spec.requires_) requires_list.push_back(r);
      table->insert_or_assign("requires", std::move(requires_list));
    }
    if (spec.enable_if) table->insert_or_assign("enable-if", *spec.enable_if);
    if (spec.plugin_api) table->insert_or_assign("plugin-api", *spec.plugin_api);
    if (spec.optional) table->insert_or_assign("optional", *spec.optional);
    if (write_install_time) table->insert_or_assign("install-time", install_time);
  }

  // [variant.static-properties.NS]
  if (!spec.static_properties.empty()) {
    const Path statics = static_path(spec.ns);
    auto* table = make_table(expected, statics);
    if (table == nullptr) return fail(fmt::format("variant.static-properties.{} must be a table", spec.ns));
    for (const auto& [feature, values] : spec.static_properties) {
      if (auto r = ed.set_value(statics, feature, toml_string_array(values)); !r) return fail(r.error());
      toml::array array;
      for (const auto& v : values) array.push_back(v);
      table->insert_or_assign(feature, std::move(array));
    }
    // Several static features need their order in default-priorities.feature.NS (PEP 817).
    if (table->size() > 1) {
      const Path order_path = join(kFeaturePriorities, spec.ns);
      const toml::node* order_node = node_at(*original, order_path);
      if (order_node != nullptr && !order_node->is_array()) {
        return fail(fmt::format("line {}: variant.default-priorities.feature.{} must be an array of feature names",
                                order_node->source().begin.line, spec.ns));
      }
      std::vector<std::string> order =
          order_node != nullptr ? string_items(*order_node->as_array()) : std::vector<std::string>{};
      std::vector<std::string> missing;
      auto listed = [&](const std::string& f) {
        return std::find(order.begin(), order.end(), f) != order.end() ||
               std::find(missing.begin(), missing.end(), f) != missing.end();
      };
      for (const auto& [feature, values] : spec.static_properties) {
        if (!listed(feature)) missing.push_back(feature);
      }
      std::vector<std::string> others;
      for (const auto& [feature, value] : *table) {
        if (!listed(std::string(feature.str()))) others.emplace_back(feature.str());
      }
      std::sort(others.begin(), others.end());
      missing.insert(missing.end(), others.begin(), others.end());
      if (!missing.empty()) {
        toml::array full_order = order_node != nullptr ? *order_node->as_array() : toml::array{};
        if (order_node != nullptr) {
          for (const auto& f : missing) {
            auto size = ed.array_size(order_path);
            if (!size) return fail(size.error());
            if (auto r = ed.array_insert(order_path, *size, toml_string(f)); !r) return fail(r.error());
          }
        } else {
          if (auto r = ed.set_value(kFeaturePriorities, spec.ns, toml_string_array(missing)); !r)
            return fail(r.error());
        }
        for (const auto& f : missing) full_order.push_back(f);
        auto* features = make_table(expected, kFeaturePriorities);
        if (features == nullptr) return fail("variant.default-priorities.feature must be a table");
        features->insert_or_assign(spec.ns, std::move(full_order));
      }
    }
  }
  return finish(ed.text(), expected);
}

Result<std::string> remove_provider(std::string_view toml_text, std::string_view ns) {
  auto original = parse_toml(toml_text);
  if (!original) return fail(original.error());
  auto editor = open_editor(toml_text);
  if (!editor) return fail(editor.error());
  Editor& ed = *editor;
  toml::table expected = *original;

  // What to remove, and the table to suggest when it is inside an inline table.
  const std::vector<std::pair<Path, Path>> parts{{provider_path(ns), provider_path(ns)},
                                                 {static_path(ns), static_path(ns)},
                                                 {join(kFeaturePriorities, ns), kFeaturePriorities},
                                                 {join(kPropertyPriorities, ns), join(kPropertyPriorities, ns)}};
  bool found = false;
  for (const auto& [path, table] : parts) {
    if (node_at(*original, path) == nullptr) continue;
    found = true;
    auto removed = ed.remove(path, table);
    if (!removed) return fail(removed.error());
    if (*removed == 0) return fail(fmt::format("could not locate `{}` in the text", toml_edit::toml_path_text(path)));
    erase_at(expected, path);
  }
  if (const toml::node* list_node = node_at(*original, kNamespaceList); list_node != nullptr && list_node->is_array()) {
    toml::array list;
    for (const auto& item : *list_node->as_array()) {
      if (const auto* s = item.as_string(); s != nullptr && s->get() == ns) continue;
      list.push_back(item);
    }
    if (list.size() != list_node->as_array()->size()) {
      found = true;
      auto removed = ed.array_remove(kNamespaceList, ns);
      if (!removed) return fail(removed.error());
      if (*removed == 0) {
        return fail(fmt::format("could not locate {} in `variant.default-priorities.namespace`",
                                detail::python_json_string(ns)));
      }
      if (list.empty()) {
        if (auto r = ed.remove(kNamespaceList, kDefaultPriorities); !r) return fail(r.error());
        erase_at(expected, kNamespaceList);
      } else {
        make_table(expected, kDefaultPriorities)->insert_or_assign("namespace", std::move(list));
      }
    }
  }
  if (!found) {
    return fail(
        fmt::format("namespace {} is not in the [variant] table (not in providers, static-properties, or "
                    "default-priorities.namespace, .feature or .property)",
                    detail::python_json_string(ns)));
  }
  return finish(ed.text(), expected);
}

}  // namespace vwheel::metadata
