// A project's locking inputs from pyproject.toml: `[project]` (PEP 621) and `[dependency-groups]`
// (PEP 735).

#include "vwheel/metadata/project.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/toml.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/markers/marker.hpp"
#include "vwheel/pep440/version.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::metadata {
namespace {

using markers::Requirement;
using Requirements = std::vector<Requirement>;

// The synthetic group of a project lock's `[project].dependencies` (plan::kDefaultGroup; the plan
// component is not reachable from here).
constexpr std::string_view kDefaultGroup = "default";

std::string shown(std::string_view text) { return "`" + printable(excerpt(text, 80)) + "`"; }


// `a and b` of two optional markers.
std::optional<markers::Marker> both(const std::optional<markers::Marker>& a, const std::optional<markers::Marker>& b) {
  if (!a) return b;
  if (!b) return a;
  auto joined = markers::Marker::parse("(" + a->to_string() + ") and (" + b->to_string() + ")");
  return joined ? std::optional<markers::Marker>(std::move(*joined)) : a;  // both parsed: always parses
}

// An entry of an extra or group before expansion: a requirement, or an `include-group`.
struct Entry {
  std::optional<Requirement> requirement;
  std::string include;     // normalized group name
  std::string where;       // `dependency-groups.dev[2]`, for errors
};

class Reader {
 public:
  explicit Reader(std::string_view source) : source_(source) {}

  Result<std::optional<Project>> read(std::string_view text) {
    if (auto bad = toml_unsupported_character(text)) return fail(fmt::format("{}: {}", source_, *bad));
    toml::table doc;
    try {
      doc = toml::parse(text);
    } catch (const toml::parse_error& e) {
      const auto& at = e.source().begin;
      return fail(fmt::format("{}: invalid TOML at line {}, column {}: {}", source_, at.line, at.column,
                              printable(e.description())));
    }
    const toml::node* node = doc.get("project");
    if (node == nullptr) return std::optional<Project>();
    const auto* project = node->as_table();
    if (project == nullptr) return error("project", fmt::format("expected a table, got {}", toml_type_name(*node)));
    Project out;
    if (auto ok = read_identity(*project, out); !ok) return fail(ok.error());
    if (auto ok = read_requires_python(*project, out); !ok) return fail(ok.error());
    auto dependencies = requirement_list(*project, "dependencies", "project.dependencies");
    if (!dependencies) return fail(dependencies.error());
    if (auto ok = read_extras(*project); !ok) return fail(ok.error());
    if (auto ok = read_groups(doc); !ok) return fail(ok.error());
    name_ = out.name;
    for (const auto& [extra, entries] : extras_) {
      std::vector<std::string> visiting;
      auto expanded = expand_extra(extra, std::nullopt, visiting);
      if (!expanded) return fail(expanded.error());
      out.optional_dependencies[extra] = std::move(*expanded);
    }
    for (std::size_t i = 0; i < dependencies->size(); ++i) {
      std::vector<std::string> visiting;
      Entry entry{std::move((*dependencies)[i]), "", fmt::format("project.dependencies[{}]", i)};
      if (auto ok = add_entry(std::move(entry), std::nullopt, visiting, out.dependencies); !ok) return fail(ok.error());
    }
    out.dependencies = dedupe(std::move(out.dependencies));
    for (const auto& [group, entries] : groups_) {
      std::vector<std::string> visiting;
      auto expanded = expand_group(group, visiting);
      if (!expanded) return fail(expanded.error());
      out.dependency_groups[group] = std::move(*expanded);
    }
    return std::optional<Project>(std::move(out));
  }

 private:
  tl::unexpected<Error> error(std::string_view where, std::string_view message) const {
    return fail(fmt::format("{}: {}: {}", source_, where, message));
  }

  // A string value, or an error naming its type.
  Result<std::optional<std::string>> string_of(const toml::table& table, std::string_view key, std::string_view where) {
    const toml::node* node = table.get(key);
    if (node == nullptr) return std::optional<std::string>();
    if (const auto* s = node->as_string()) return std::optional<std::string>(s->get());
    return error(where, fmt::format("expected a string, got {}", toml_type_name(*node)));
  }

  Result<void> read_identity(const toml::table& project, Project& out) {
    auto name = string_of(project, "name", "project.name");
    if (!name) return fail(name.error());
    if (!*name) return error("project.name", "missing (PEP 621 requires the project's name)");
    if (!wheel_name::is_valid_project_name(**name)) {
      return error("project.name", fmt::format("{} is not a valid project name", shown(**name)));
    }
    out.name = wheel_name::canonicalize_name(**name);

    std::set<std::string> dynamic;
    if (const toml::node* node = project.get("dynamic")) {
      const auto* array = node->as_array();
      if (array == nullptr) return error("project.dynamic", fmt::format("expected an array of strings, got {}", toml_type_name(*node)));
      for (std::size_t i = 0; i < array->size(); ++i) {
        const auto* s = array->get(i)->as_string();
        if (s == nullptr) {
          return error(fmt::format("project.dynamic[{}]", i), fmt::format("expected a string, got {}", toml_type_name(*array->get(i))));
        }
        dynamic.insert(s->get());
      }
    }
    for (const char* key : {"dependencies", "optional-dependencies"}) {
      if (dynamic.contains(key)) {
        return error("project.dynamic", fmt::format("lists `{}`: a lock needs them written in pyproject.toml", key));
      }
    }
    auto version = string_of(project, "version", "project.version");
    if (!version) return fail(version.error());
    if (*version) {
      auto parsed = pep440::Version::parse(**version);
      if (!parsed) return error("project.version", fmt::format("{} is not a PEP 440 version", shown(**version)));
      out.version = parsed->to_string();
    } else if (!dynamic.contains("version")) {
      return error("project.version", "missing, and `dynamic` does not list it (PEP 621)");
    }
    return {};
  }

  Result<void> read_requires_python(const toml::table& project, Project& out) {
    auto text = string_of(project, "requires-python", "project.requires-python");
    if (!text) return fail(text.error());
    if (!*text) return {};
    auto parsed = pep440::SpecifierSet::parse(**text);
    if (!parsed) {
      return error("project.requires-python",
                   fmt::format("{} is not a PEP 440 version specifier set: {}", shown(**text),
                               printable(parsed.error().message)));
    }
    out.requires_python = std::move(*parsed);
    return {};
  }

  Result<Requirement> requirement(std::string_view text, const std::string& where) const {
    auto parsed = Requirement::parse(text);
    if (!parsed) {
      return error(where, fmt::format("{} is not a PEP 508 requirement: {}", shown(text), printable(parsed.error().message)));
    }
    return std::move(*parsed);
  }

  Result<Requirements> requirement_list(const toml::table& table, std::string_view key, const std::string& where) {
    Requirements out;
    const toml::node* node = table.get(key);
    if (node == nullptr) return out;
    const auto* array = node->as_array();
    if (array == nullptr) return error(where, fmt::format("expected an array of strings, got {}", toml_type_name(*node)));
    for (std::size_t i = 0; i < array->size(); ++i) {
      const std::string at = fmt::format("{}[{}]", where, i);
      const auto* s = array->get(i)->as_string();
      if (s == nullptr) return error(at, fmt::format("expected a string, got {}", toml_type_name(*array->get(i))));
      auto r = requirement(s->get(), at);
      if (!r) return fail(r.error());
      out.push_back(std::move(*r));
    }
    return out;
  }

  // A table's keys as normalized names: invalid names and two keys of one name are errors.
  Result<std::string> table_name(std::string_view key, std::string_view table, std::set<std::string>& seen,
                                 std::string_view what) const {
    if (!wheel_name::is_valid_project_name(key)) {
      return error(table, fmt::format("{} is not a valid {} name (letters, digits, `-`, `_`, `.`)", shown(key), what));
    }
    std::string name = wheel_name::canonicalize_name(key);
    if (!seen.insert(name).second) {
      return error(table, fmt::format("{} {} is defined twice (names are compared normalized)", what, shown(name)));
    }
    return name;
  }

  Result<void> read_extras(const toml::table& project) {
    const toml::node* node = project.get("optional-dependencies");
    if (node == nullptr) return {};
    const auto* table = node->as_table();
    if (table == nullptr) {
      return error("project.optional-dependencies", fmt::format("expected a table, got {}", toml_type_name(*node)));
    }
    std::set<std::string> seen;
    for (const auto& [key, value] : *table) {
      auto name = table_name(key.str(), "project.optional-dependencies", seen, "extra");
      if (!name) return fail(name.error());
      const std::string where = fmt::format("project.optional-dependencies.{}", key.str());
      auto requirements = requirement_list(*table, key.str(), where);
      if (!requirements) return fail(requirements.error());
      auto& entries = extras_[*name];
      for (std::size_t i = 0; i < requirements->size(); ++i) {
        entries.push_back(Entry{std::move((*requirements)[i]), "", fmt::format("{}[{}]", where, i)});
      }
    }
    return {};
  }

  Result<void> read_groups(const toml::table& doc) {
    const toml::node* node = doc.get("dependency-groups");
    if (node == nullptr) return {};
    const auto* table = node->as_table();
    if (table == nullptr) return error("dependency-groups", fmt::format("expected a table, got {}", toml_type_name(*node)));
    std::set<std::string> seen;
    for (const auto& [key, value] : *table) {
      auto name = table_name(key.str(), "dependency-groups", seen, "group");
      if (!name) return fail(name.error());
      const std::string where = fmt::format("dependency-groups.{}", key.str());
      if (*name == kDefaultGroup) {
        return error(where, "the group name `default` is reserved: the lock's default group holds the "
                            "project's dependencies; rename the group");
      }
      const auto* array = value.as_array();
      if (array == nullptr) {
        return error(where, fmt::format("expected an array of strings and include-group tables, got {}", toml_type_name(value)));
      }
      auto& entries = groups_[*name];
      for (std::size_t i = 0; i < array->size(); ++i) {
        const std::string at = fmt::format("{}[{}]", where, i);
        const toml::node& item = *array->get(i);
        if (const auto* s = item.as_string()) {
          auto r = requirement(s->get(), at);
          if (!r) return fail(r.error());
          entries.push_back(Entry{std::move(*r), "", at});
          continue;
        }
        const auto* include = item.as_table();
        const toml::node* target = include == nullptr ? nullptr : include->get("include-group");
        if (target == nullptr || include->size() != 1 || !target->is_string()) {
          return error(at, fmt::format("expected a requirement string or {{include-group = \"NAME\"}}, got {}",
                                       include == nullptr ? std::string(toml_type_name(item)) : "another table"));
        }
        const std::string& included = target->as_string()->get();
        if (!wheel_name::is_valid_project_name(included)) {
          return error(at, fmt::format("include-group {} is not a valid group name", shown(included)));
        }
        entries.push_back(Entry{std::nullopt, wheel_name::canonicalize_name(included), at});
      }
    }
    return {};
  }

  bool is_self(const Requirement& r) const { return wheel_name::canonicalize_name(r.name) == name_; }

  // Adds one entry's requirement to `out` under `marker`, a self-reference as the extras it names.
  Result<void> add_entry(Entry entry, const std::optional<markers::Marker>& marker, std::vector<std::string>& visiting,
                         Requirements& out) {
    Requirement& r = *entry.requirement;
    if (!is_self(r)) {
      r.marker = both(r.marker, marker);
      out.push_back(std::move(r));
      return {};
    }
    const auto condition = both(r.marker, marker);
    for (const auto& extra : r.extras) {
      const std::string name = wheel_name::canonicalize_name(extra);
      if (!extras_.contains(name)) {
        return error(entry.where, fmt::format("{} names extra {}, which project.optional-dependencies does not define",
                                              shown(r.to_string()), shown(name)));
      }
      auto expanded = expand_extra(name, condition, visiting);
      if (!expanded) return fail(expanded.error());
      for (auto& e : *expanded) out.push_back(std::move(e));
    }
    return {};
  }

  // An extra's requirements under `marker`; an extra already being expanded adds nothing more (its
  // requirements are added where it started, under a condition no stricter).
  Result<Requirements> expand_extra(const std::string& extra, const std::optional<markers::Marker>& marker,
                                    std::vector<std::string>& visiting) {
    Requirements out;
    if (std::find(visiting.begin(), visiting.end(), extra) != visiting.end()) return out;
    visiting.push_back(extra);
    for (const auto& entry : extras_.at(extra)) {
      if (auto ok = add_entry(entry, marker, visiting, out); !ok) return fail(ok.error());
    }
    visiting.pop_back();
    return dedupe(std::move(out));
  }

  Result<Requirements> expand_group(const std::string& group, std::vector<std::string>& path) {
    path.push_back(group);
    Requirements out;
    for (const auto& entry : groups_.at(group)) {
      if (entry.requirement) {
        std::vector<std::string> visiting;
        if (auto ok = add_entry(entry, std::nullopt, visiting, out); !ok) return fail(ok.error());
        continue;
      }
      if (!groups_.contains(entry.include)) {
        return error(entry.where, fmt::format("include-group {} names no group of dependency-groups", shown(entry.include)));
      }
      if (const auto at = std::find(path.begin(), path.end(), entry.include); at != path.end()) {
        std::vector<std::string> cycle(at, path.end());
        cycle.push_back(entry.include);
        return error(entry.where, fmt::format("include-group {} makes a cycle: {}", shown(entry.include),
                                              fmt::join(cycle, " -> ")));
      }
      auto included = expand_group(entry.include, path);
      if (!included) return fail(included.error());
      for (auto& r : *included) out.push_back(std::move(r));
    }
    path.pop_back();
    return dedupe(std::move(out));
  }

  // The same requirement twice (an extra reached along two paths) is kept once, first place.
  static Requirements dedupe(Requirements in) {
    Requirements out;
    for (auto& r : in) {
      if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(std::move(r));
    }
    return out;
  }

  std::string source_;
  std::string name_;
  std::map<std::string, std::vector<Entry>> extras_;
  std::map<std::string, std::vector<Entry>> groups_;
};

// A requirement's text with its name and extras normalized.
std::string canonical(const Requirement& r) {
  Requirement copy = r;
  copy.name = wheel_name::canonicalize_name(r.name);
  for (auto& e : copy.extras) e = wheel_name::canonicalize_name(e);
  std::sort(copy.extras.begin(), copy.extras.end());
  copy.extras.erase(std::unique(copy.extras.begin(), copy.extras.end()), copy.extras.end());
  return copy.to_string();
}

nlohmann::json canonical(const Requirements& requirements) {
  std::set<std::string> texts;
  for (const auto& r : requirements) texts.insert(canonical(r));
  return nlohmann::json(texts);
}

nlohmann::json canonical(const std::map<std::string, Requirements>& named) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, requirements] : named) out[name] = canonical(requirements);
  return out;
}

}  // namespace

Result<std::optional<Project>> parse_project(std::string_view toml_text, std::string_view source) {
  return Reader(source).read(toml_text);
}

std::string project_inputs_digest(const Project& project) {
  // nlohmann::json orders object keys, and each list is a sorted set: one text per meaning.
  nlohmann::json doc = nlohmann::json::object();
  doc["name"] = project.name;
  doc["version"] = project.version ? nlohmann::json(*project.version) : nlohmann::json(nullptr);
  doc["requires-python"] = project.requires_python ? nlohmann::json(project.requires_python->to_string())
                                                   : nlohmann::json(nullptr);
  doc["dependencies"] = canonical(project.dependencies);
  doc["optional-dependencies"] = canonical(project.optional_dependencies);
  doc["dependency-groups"] = canonical(project.dependency_groups);
  return "sha256:" + sha256_hex(doc.dump());
}

}  // namespace vwheel::metadata
