// Writing pylock.toml: deterministic text, PEP 825's layout for `[packages.variants-json]`.

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lock/internal.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/lock/pylock.hpp"
#include "vwheel/metadata/document.hpp"
#include "vwheel/metadata/serialize.hpp"
#include "vwheel/pep440/version.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::lock {
namespace {

using Json = nlohmann::json;

std::string string_array_inline(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i != 0) out += ", ";
    append_toml_string(out, items[i]);
  }
  out += "]";
  return out;
}

// `key = [` one item a line `]`; nothing when empty.
void write_string_list(std::string& out, std::string_view key, const std::vector<std::string>& items) {
  if (items.empty()) return;
  out += toml_key(key);
  out += " = [\n";
  for (const auto& item : items) {
    out += "    ";
    append_toml_string(out, item);
    out += ",\n";
  }
  out += "]\n";
}

void write_string_key(std::string& out, std::string_view key, const std::optional<std::string>& value) {
  if (!value) return;
  out += toml_key(key);
  out += " = ";
  append_toml_string(out, *value);
  out += '\n';
}

std::string inline_table(const std::map<std::string, std::string>& entries) {
  if (entries.empty()) return "{}";
  std::string out = "{ ";
  bool first = true;
  for (const auto& [key, value] : entries) {
    if (!first) out += ", ";
    first = false;
    out += toml_key(key);
    out += " = ";
    append_toml_string(out, value);
  }
  out += " }";
  return out;
}

// `, upload-time = ..., url = ..., path = ..., size = ..., hashes = {...}`: a file's keys after its name.
std::string file_keys(const std::optional<std::string>& upload_time, const std::optional<std::string>& url,
                      const std::optional<std::string>& path, const std::optional<std::uint64_t>& size,
                      const std::map<std::string, std::string>& hashes) {
  std::string out;
  if (upload_time) {
    // An upload time that is not a TOML date-time is left out (PEP 751 wants a date-time).
    if (auto canonical = detail::canonical_date_time(*upload_time)) out += ", upload-time = " + *canonical;
  }
  // No credentials at rest: they come from the command line (or a keyring), never from the lock.
  if (url) out += ", url = " + toml_string(url_without_userinfo(*url));
  if (path) out += ", path = " + toml_string(*path);
  if (size) out += fmt::format(", size = {}", *size);
  out += ", hashes = " + inline_table(hashes);
  return out;
}

// `{ name = ..., upload-time = ..., url = ..., path = ..., size = ..., hashes = {...} }`
std::string inline_file(const LockedFile& file) {
  std::string out = "{ name = ";
  append_toml_string(out, file.name);
  out += file_keys(file.upload_time, file.url, file.path, file.size, file.hashes);
  out += " }";
  return out;
}

// `, key = "value"` when set.
std::string optional_key(std::string_view key, const std::optional<std::string>& value) {
  return value ? fmt::format(", {} = {}", key, toml_string(*value)) : std::string();
}

std::string inline_directory(const LockedDirectory& directory) {
  std::string out = "{ path = " + toml_string(directory.path);
  if (directory.editable) out += *directory.editable ? ", editable = true" : ", editable = false";
  return out + optional_key("subdirectory", directory.subdirectory) + " }";
}

std::string inline_archive(const LockedArchive& archive) {
  std::string out = "{";
  out += file_keys(archive.upload_time, archive.url, archive.path, archive.size, archive.hashes).substr(1);
  return out + optional_key("subdirectory", archive.subdirectory) + " }";
}

std::string inline_vcs(const LockedVcs& vcs) {
  std::string out = "{ type = " + toml_string(vcs.type);
  if (vcs.url) out += ", url = " + toml_string(url_without_userinfo(*vcs.url));
  out += optional_key("path", vcs.path);
  out += optional_key("requested-revision", vcs.requested_revision);
  out += ", commit-id = " + toml_string(vcs.commit_id);
  return out + optional_key("subdirectory", vcs.subdirectory) + " }";
}

std::string inline_json(const Json& value) {
  switch (value.type()) {
    case Json::value_t::string:
      return toml_string(value.get_ref<const std::string&>());
    case Json::value_t::boolean:
      return value.get<bool>() ? "true" : "false";
    case Json::value_t::number_integer:
      return fmt::format("{}", value.get<std::int64_t>());
    case Json::value_t::number_unsigned:
      return fmt::format("{}", value.get<std::uint64_t>());
    case Json::value_t::number_float: {
      const double d = value.get<double>();
      if (std::isnan(d)) return "nan";
      if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
      std::string text = fmt::format("{}", d);
      if (text.find_first_of(".eE") == std::string::npos) text += ".0";
      return text;
    }
    case Json::value_t::array: {
      std::string out = "[";
      bool first = true;
      for (const auto& item : value) {
        if (!first) out += ", ";
        first = false;
        out += inline_json(item);
      }
      return out + "]";
    }
    case Json::value_t::object: {
      if (value.empty()) return "{}";
      std::string out = "{ ";
      bool first = true;
      for (const auto& [key, item] : value.items()) {
        if (!first) out += ", ";
        first = false;
        out += toml_key(key) + " = " + inline_json(item);
      }
      return out + " }";
    }
    default:
      return "\"\"";  // null and binary do not occur in serialized variant metadata
  }
}

// Writes a JSON object as `[path]` and its keys. Objects become subtables at depth 0 (the
// variants-json root: default-priorities, providers, static-properties, variants) and depth 1
// (default-priorities.feature/property, providers.{ns}), except the variants and static
// properties themselves, which are inline tables as in PEP 825's example.
void write_json_table(std::string& out, const std::string& path, const Json& object, int depth,
                      std::string_view parent_key) {
  out += "\n[" + path + "]\n";
  std::vector<std::pair<std::string, const Json*>> subtables;
  for (const auto& [key, value] : object.items()) {
    const bool header = value.is_object() &&
                        (depth == 0 || (depth == 1 && parent_key != "variants" && parent_key != "static-properties"));
    if (header) {
      subtables.emplace_back(key, &value);
    } else {
      out += toml_key(key) + " = " + inline_json(value) + "\n";
    }
  }
  for (const auto& [key, value] : subtables) write_json_table(out, path + "." + toml_key(key), *value, depth + 1, key);
}

std::string variants_json_text(const variant::VariantMetadata& metadata) {
  if (metadata::is_draft_schema(metadata.schema)) return metadata::to_json_draft003(metadata);
  // v0.2.x keeps its providers (the PEP 825 writer would drop them).
  if (variant::is_providers_schema(metadata.schema)) return metadata::to_json_v020(metadata);
  std::string text = metadata::to_json_pep825(metadata);
  return text;
}

void write_variants_json(std::string& out, const variant::VariantMetadata& metadata) {
  Json json = Json::parse(variants_json_text(metadata));
  if (!metadata::is_draft_schema(metadata.schema) && !metadata.schema_url.empty()) {
    // PEP 825: `$schema` is preserved. A newer minor version's URL is kept as read.
    const auto version = metadata::parse_schema_version(metadata.schema_url);
    if (version && !metadata::is_draft_schema(*version) && metadata::is_supported_schema(*version)) {
      json["$schema"] = metadata.schema_url;
    }
  }
  write_json_table(out, "packages.variants-json", json, 0, "");
}

// Sort key: normalized name, then version (valid PEP 440 versions first, in PEP 440 order), then
// the version text, then the marker. A strict weak order whatever the model holds.
struct PackageKey {
  std::string name;
  std::optional<pep440::Version> version;
  std::string version_text;
  std::string marker;

  explicit PackageKey(const LockedPackage& package)
      : name(wheel_name::canonicalize_name(package.name)),
        version_text(package.version),
        marker(package.marker.value_or("")) {
    if (auto parsed = pep440::Version::parse(package.version)) version = std::move(*parsed);
  }

  friend bool operator<(const PackageKey& a, const PackageKey& b) {
    if (a.name != b.name) return a.name < b.name;
    if (a.version.has_value() != b.version.has_value()) return a.version.has_value();
    if (a.version && *a.version != *b.version) return *a.version < *b.version;
    if (a.version_text != b.version_text) return a.version_text < b.version_text;
    return a.marker < b.marker;
  }
};

void write_package(std::string& out, const LockedPackage& package) {
  out += "\n[[packages]]\n";
  out += "name = " + toml_string(package.name) + "\n";
  if (!package.version.empty()) out += "version = " + toml_string(package.version) + "\n";
  write_string_key(out, "marker", package.marker);
  write_string_key(out, "requires-python", package.requires_python);
  if (package.index) {
    write_string_key(out, "index", url_without_userinfo(*package.index));
  }
  if (!package.dependencies.empty()) {
    out += "dependencies = [\n";
    for (const auto& dependency : package.dependencies) out += "    " + inline_table(dependency) + ",\n";
    out += "]\n";
  }
  if (package.vcs) out += "vcs = " + inline_vcs(*package.vcs) + "\n";
  if (package.directory) out += "directory = " + inline_directory(*package.directory) + "\n";
  if (package.archive) out += "archive = " + inline_archive(*package.archive) + "\n";
  if (package.sdist) out += "sdist = " + inline_file(*package.sdist) + "\n";
  if (!package.wheels.empty()) {
    std::vector<const LockedWheel*> wheels;
    wheels.reserve(package.wheels.size());
    for (const auto& wheel : package.wheels) wheels.push_back(&wheel);
    std::stable_sort(wheels.begin(), wheels.end(),
                     [](const LockedWheel* a, const LockedWheel* b) { return a->name < b->name; });
    out += "wheels = [\n";
    for (const auto* wheel : wheels) out += "    " + inline_file(*wheel) + ",\n";
    out += "]\n";
  }
  if (package.variants_json) write_variants_json(out, *package.variants_json);
  if (!package.requires_dist.empty() || !package.extras.empty() || !package.wheel_requires_dist.empty()) {
    out += "\n[packages.tool.vwheel]\n";
    if (!package.extras.empty()) out += "extras = " + string_array_inline(package.extras) + "\n";
    write_string_list(out, "requires-dist", package.requires_dist);
    if (!package.wheel_requires_dist.empty()) {
      out += "\n[packages.tool.vwheel.wheel-requires-dist]\n";
      for (const auto& [file, deps] : package.wheel_requires_dist) {
        out += toml_key(file) + " = " + string_array_inline(deps) + "\n";
      }
    }
  }
}

}  // namespace

std::string write_pylock(const Lock& lock) {
  std::string out;
  out += "lock-version = " + toml_string(lock.lock_version) + "\n";
  write_string_list(out, "environments", lock.environments);
  write_string_key(out, "requires-python", lock.requires_python);
  // Written even when empty (PEP 751's defaults), so a reader sees what the lock offers.
  out += "extras = " + string_array_inline(lock.extras) + "\n";
  out += "dependency-groups = " + string_array_inline(lock.dependency_groups) + "\n";
  if (!lock.default_groups.empty()) out += "default-groups = " + string_array_inline(lock.default_groups) + "\n";
  if (!lock.created_by.empty()) out += "created-by = " + toml_string(lock.created_by) + "\n";

  std::vector<std::pair<PackageKey, const LockedPackage*>> packages;
  packages.reserve(lock.packages.size());
  for (const auto& package : lock.packages) packages.emplace_back(PackageKey(package), &package);
  std::stable_sort(packages.begin(), packages.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [key, package] : packages) write_package(out, *package);

  if (!lock.requirements.empty() || lock.project_inputs) {
    out += "\n[tool.vwheel]\n";
    write_string_key(out, "project-inputs", lock.project_inputs);
    write_string_list(out, "requirements", lock.requirements);
  }
  return out;
}

}  // namespace vwheel::lock
