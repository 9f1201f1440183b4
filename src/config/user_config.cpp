#include "vwheel/config/user_config.hpp"

#include <cstdlib>

#include <fmt/format.h>
#include "core/toml.hpp"
#include "vwheel/core/fs.hpp"

namespace vwheel::config {
namespace {

Result<std::vector<std::string>> string_list(const toml::node& node, const std::string& where) {
  const auto* array = node.as_array();
  if (array == nullptr) return fail(fmt::format("{}: expected an array of strings", where));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const auto* s = array->get(i)->as_string();
    if (s == nullptr) return fail(fmt::format("{}[{}]: expected a string", where, i));
    out.push_back(s->get());
  }
  return out;
}

Result<void> check_namespace(std::string_view ns, const std::string& where) {
  if (!variant::is_valid_namespace(ns)) {
    return fail(fmt::format("{}: invalid namespace `{}`: expected one or more of [a-z0-9_]", where, ns));
  }
  return {};
}

std::optional<std::filesystem::path> env_path(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::filesystem::path(v);
}

}  // namespace

Result<UserConfig> parse_user_config(std::string_view toml_text) {
  toml::table root;
  if (auto bad = toml_unsupported_character(toml_text)) return fail(*bad);
  try {
    root = toml::parse(toml_text);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    return fail(fmt::format("invalid TOML at line {}, column {}: {}", where.line, where.column, e.description()));
  }
  UserConfig cfg;
  for (const auto& [key, node] : root) {
    const std::string k(key.str());
    if (k == "namespace_priorities") {
      auto list = string_list(node, k);
      if (!list) return fail(list.error());
      for (std::size_t i = 0; i < list->size(); ++i) {
        if (auto ok = check_namespace((*list)[i], fmt::format("{}[{}]", k, i)); !ok) return fail(ok.error());
      }
      cfg.priorities.namespace_priorities = std::move(*list);
    } else if (k == "feature_priorities") {
      const auto* table = node.as_table();
      if (table == nullptr) return fail(fmt::format("{}: expected a table of namespace = [features]", k));
      for (const auto& [ns, features] : *table) {
        const auto where = fmt::format("{}.{}", k, ns.str());
        if (auto ok = check_namespace(ns.str(), where); !ok) return fail(ok.error());
        auto list = string_list(features, where);
        if (!list) return fail(list.error());
        cfg.priorities.feature_priorities[std::string(ns.str())] = std::move(*list);
      }
    } else if (k == "property_priorities") {
      const auto* table = node.as_table();
      if (table == nullptr) return fail(fmt::format("{}: expected a table of namespace.feature = [values]", k));
      for (const auto& [ns, features] : *table) {
        const auto ns_where = fmt::format("{}.{}", k, ns.str());
        if (auto ok = check_namespace(ns.str(), ns_where); !ok) return fail(ok.error());
        const auto* ft = features.as_table();
        if (ft == nullptr) return fail(fmt::format("{}: expected a table of feature = [values]", ns_where));
        for (const auto& [feature, values] : *ft) {
          auto list = string_list(values, fmt::format("{}.{}", ns_where, feature.str()));
          if (!list) return fail(list.error());
          cfg.priorities.property_priorities[std::string(ns.str())][std::string(feature.str())] = std::move(*list);
        }
      }
    } else if (k == "allow_python_providers") {
      auto list = string_list(node, k);
      if (!list) return fail(list.error());
      for (std::size_t i = 0; i < list->size(); ++i) {
        if (auto ok = check_namespace((*list)[i], fmt::format("{}[{}]", k, i)); !ok) return fail(ok.error());
      }
      cfg.allow_python_providers = std::move(*list);
    } else {
      return fail(fmt::format("unknown key `{}` (expected namespace_priorities, feature_priorities, "
                              "property_priorities, allow_python_providers)",
                              k));
    }
  }
  return cfg;
}

std::vector<std::filesystem::path> config_search_path() {
  std::vector<std::filesystem::path> out;
  if (auto p = env_path("VWHEEL_CONFIG")) out.push_back(*p);
  out.emplace_back("variants.toml");
  if (auto venv = env_path("VIRTUAL_ENV")) out.push_back(*venv / "variants.toml");
  std::optional<std::filesystem::path> xdg = env_path("XDG_CONFIG_HOME");
  if (!xdg) {
    if (auto home = env_path("HOME")) xdg = *home / ".config";
  }
  if (xdg) out.push_back(*xdg / "vwheel" / "variants.toml");
  out.emplace_back("/etc/xdg/vwheel/variants.toml");
  if (xdg) out.push_back(*xdg / "variantlib" / "variants.toml");
  out.emplace_back("/etc/xdg/variantlib/variants.toml");
  return out;
}

Result<UserConfig> load_user_config(const std::optional<std::filesystem::path>& explicit_path) {
  std::optional<std::filesystem::path> path = explicit_path;
  if (path) {
    // Only a missing file is "not found": a FIFO or a directory is named as such by read_file.
    std::error_code ec;
    if (!std::filesystem::exists(*path, ec)) return fail(fmt::format("{}: configuration file not found", path->string()));
  } else {
    for (const auto& candidate : config_search_path()) {
      std::error_code ec;
      if (std::filesystem::is_regular_file(candidate, ec)) {
        path = candidate;
        break;
      }
    }
  }
  if (!path) return UserConfig{};
  auto text = read_file(*path);  // never blocks: a FIFO is refused (open_regular_file)
  if (!text) return fail(text.error());
  auto cfg = parse_user_config(*text);
  if (!cfg) return fail(cfg.error().with_context(path->string()));
  cfg->source = *path;
  return cfg;
}

}  // namespace vwheel::config
