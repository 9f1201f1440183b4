// Reading pylock.toml (PEP 751) with PEP 825's `[packages.variants-json]`.

#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lock/internal.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/lock/pylock.hpp"
#include "vwheel/markers/marker.hpp"
#include "vwheel/markers/requirement.hpp"
#include "vwheel/metadata/document.hpp"
#include "vwheel/pep440/specifier.hpp"
#include "vwheel/pep440/version.hpp"
#include "vwheel/wheel_name/names.hpp"
#include "vwheel/wheel_name/wheel_name.hpp"

namespace vwheel::lock {
namespace {

using Json = nlohmann::json;
using detail::backquoted;

// Deeper than any valid variants-json (4 levels); guards the recursive conversion.
constexpr int kMaxVariantsJsonDepth = 32;


std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto uc = static_cast<unsigned char>(c);
    if (c == '\n' || c == '\r' || c == '\t') {
      out.push_back(' ');
    } else if (uc < 0x20U || uc == 0x7FU) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned>(uc));
    } else {
      out.push_back(c);
    }
  }
  return out;
}


// `https://host/a/numpy-2.0-py3-none-any.whl?x#sha256=...` -> `numpy-2.0-py3-none-any.whl`
std::string last_segment(std::string_view location, bool is_url) {
  if (is_url) {
    if (const auto hash = location.find('#'); hash != std::string_view::npos) location = location.substr(0, hash);
    if (const auto query = location.find('?'); query != std::string_view::npos) location = location.substr(0, query);
  }
  const auto slash = location.find_last_of(is_url ? "/" : "/\\");
  std::string_view segment = slash == std::string_view::npos ? location : location.substr(slash + 1);
  if (!is_url) return std::string(segment);
  std::string out;
  for (std::size_t i = 0; i < segment.size(); ++i) {
    const auto hex = hex_digit_value;
    if (segment[i] == '%' && i + 2 < segment.size() + 0 && hex(segment[i + 1]) >= 0 && hex(segment[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(segment[i + 1]) * 16 + hex(segment[i + 2])));
      i += 2;
    } else {
      out.push_back(segment[i]);
    }
  }
  return out;
}

class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}

  Result<Lock> read(std::string_view text) {
    if (auto bad = toml_unsupported_character(text)) return fail(source_ + ": " + *bad);
    toml::table doc;
    try {
      doc = toml::parse(text);
    } catch (const toml::parse_error& e) {
      const auto& where = e.source().begin;
      return fail(fmt::format("{}: invalid TOML at line {}, column {}: {}", source_, where.line, where.column,
                              one_line(e.description())));
    }

    Lock lock;
    if (!read_lock_version(doc, lock)) return finish(std::move(lock));
    lock.created_by = string_key(doc, "created-by", "").value_or("");
    lock.requires_python = string_key(doc, "requires-python", "");
    if (lock.requires_python) check_specifiers(*lock.requires_python, "requires-python");
    lock.environments = string_list(doc, "environments", "");
    for (std::size_t i = 0; i < lock.environments.size(); ++i) {
      check_marker(lock.environments[i], fmt::format("environments[{}]", i));
    }
    lock.extras = string_list(doc, "extras", "");
    lock.dependency_groups = string_list(doc, "dependency-groups", "");
    lock.default_groups = string_list(doc, "default-groups", "");
    if (const auto* vwheel = tool_table(doc, "")) {
      lock.requirements = string_list(*vwheel, "requirements", "tool.vwheel.");
      lock.project_inputs = string_key(*vwheel, "project-inputs", "tool.vwheel.");
      for (std::size_t i = 0; i < lock.requirements.size(); ++i) {
        check_requirement(lock.requirements[i], fmt::format("tool.vwheel.requirements[{}]", i));
      }
    }

    if (const toml::node* packages = doc.get("packages")) {
      if (const auto* array = packages->as_array()) {
        for (std::size_t i = 0; i < array->size(); ++i) {
          const auto& node = *array->get(i);
          if (const auto* table = node.as_table()) {
            lock.packages.push_back(read_package(*table, i));
          } else {
            error(fmt::format("packages[{}]: expected a table, got {}", i, toml_type_name(node)));
          }
        }
      } else {
        error(fmt::format("packages: expected an array of tables, got {}", toml_type_name(*packages)));
      }
    }
    return finish(std::move(lock));
  }

 private:
  void error(std::string message) { errors_.push_back(source_ + ": " + std::move(message)); }

  Result<Lock> finish(Lock lock) {
    if (errors_.empty()) return lock;
    std::string first = std::move(errors_.front());
    errors_.erase(errors_.begin());
    return fail(Error(std::move(first), std::move(errors_)));
  }

  bool read_lock_version(const toml::table& doc, Lock& lock) {
    const toml::node* node = doc.get("lock-version");
    if (node == nullptr) {
      error("lock-version is missing (PEP 751 requires it)");
      return false;
    }
    const auto* value = node->as_string();
    if (value == nullptr) {
      error(fmt::format("lock-version: expected a string, got {}", toml_type_name(*node)));
      return false;
    }
    const std::string& text = value->get();
    const auto dot = text.find('.');
    const auto digits = [](std::string_view s) {
      return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
    };
    if (dot == std::string::npos || !digits(std::string_view(text).substr(0, dot)) ||
        !digits(std::string_view(text).substr(dot + 1))) {
      error(fmt::format("lock-version {}: expected `major.minor`, e.g. `1.0`", backquoted(text)));
      return false;
    }
    const std::string_view major = std::string_view(text).substr(0, dot);
    if (major.find_first_not_of('0') == std::string_view::npos || major.substr(major.find_first_not_of('0')) != "1") {
      error(fmt::format("unsupported lock-version {}: vwheel reads 1.x", backquoted(text)));
      return false;
    }
    lock.lock_version = text;
    return true;
  }

  // `key` of `table` as a string; an error when present with another type.
  std::optional<std::string> string_key(const toml::table& table, std::string_view key, std::string_view where) {
    const toml::node* node = table.get(key);
    if (node == nullptr) return std::nullopt;
    if (const auto* value = node->as_string()) return value->get();
    error(fmt::format("{}{}: expected a string, got {}", where, key, toml_type_name(*node)));
    return std::nullopt;
  }

  std::vector<std::string> string_list(const toml::table& table, std::string_view key, std::string_view where) {
    std::vector<std::string> out;
    const toml::node* node = table.get(key);
    if (node == nullptr) return out;
    const auto* array = node->as_array();
    if (array == nullptr) {
      error(fmt::format("{}{}: expected an array of strings, got {}", where, key, toml_type_name(*node)));
      return out;
    }
    for (std::size_t i = 0; i < array->size(); ++i) {
      const auto& item = *array->get(i);
      if (const auto* value = item.as_string()) {
        out.push_back(value->get());
      } else {
        error(fmt::format("{}{}[{}]: expected a string, got {}", where, key, i, toml_type_name(item)));
      }
    }
    return out;
  }

  // `[tool.vwheel]` of a table, or nullptr.
  const toml::table* tool_table(const toml::table& table, std::string_view where) {
    const toml::node* tool = table.get("tool");
    if (tool == nullptr || !tool->is_table()) return nullptr;  // other tools' business
    const toml::node* vwheel = tool->as_table()->get("vwheel");
    if (vwheel == nullptr) return nullptr;
    if (const auto* t = vwheel->as_table()) return t;
    error(fmt::format("{}tool.vwheel: expected a table, got {}", where, toml_type_name(*vwheel)));
    return nullptr;
  }

  void check_specifiers(const std::string& text, std::string_view where) {
    if (auto parsed = pep440::SpecifierSet::parse(text); !parsed) {
      error(fmt::format("{}: invalid version specifier {}: {}", where, backquoted(text),
                        one_line(parsed.error().message)));
    }
  }

  void check_marker(const std::string& text, std::string_view where) {
    auto parsed = markers::Marker::parse(text);
    if (!parsed) {
      error(fmt::format("{}: invalid marker: {}", where, one_line(parsed.error().message)));
    } else if (parsed->uses_variant_variables()) {
      error(fmt::format("{}: marker {} uses a variant marker, which PEP 825 allows only in dependency specifiers",
                        where, backquoted(text)));
    }
  }

  void check_requirement(const std::string& text, std::string_view where) {
    if (auto parsed = markers::Requirement::parse(text); !parsed) {
      error(fmt::format("{}: invalid requirement: {}", where, one_line(parsed.error().message)));
    }
  }

  LockedPackage read_package(const toml::table& table, std::size_t index) {
    LockedPackage package;
    std::string where = fmt::format("packages[{}].", index);
    const auto name = string_key(table, "name", where);
    const auto version = string_key(table, "version", where);
    if (!table.contains("name")) error(fmt::format("packages[{}]: `name` is missing", index));
    // PEP 751 leaves `version` out where it may not match the code: a source tree.
    if (!table.contains("version") && !table.contains("directory") && !table.contains("vcs")) {
      error(fmt::format("packages[{}]{}: `version` is missing", index, name ? " " + backquoted(*name) : std::string()));
    }
    package.name = name.value_or("");
    package.version = version.value_or("");
    if (name && !wheel_name::is_valid_project_name(*name)) {
      error(fmt::format("packages[{}].name: {} is not a valid project name", index, backquoted(*name)));
    }
    std::optional<pep440::Version> parsed_version;
    if (version) {
      if (auto v = pep440::Version::parse(*version)) {
        parsed_version = std::move(*v);
      } else {
        error(fmt::format("packages[{}].version: {} is not a valid PEP 440 version", index, backquoted(*version)));
      }
    }
    const std::string ctx = fmt::format("package {} {}", backquoted(package.name), backquoted(package.version));

    package.marker = string_key(table, "marker", ctx + ": ");
    if (package.marker) check_marker(*package.marker, ctx + ": marker");
    package.requires_python = string_key(table, "requires-python", ctx + ": ");
    if (package.requires_python) check_specifiers(*package.requires_python, ctx + ": requires-python");
    package.index = string_key(table, "index", ctx + ": ");
    read_dependencies(table, ctx, package);

    if (const toml::node* sdist = table.get("sdist")) {
      if (const auto* t = sdist->as_table()) {
        package.sdist = read_file(*t, ctx + ": sdist");
      } else {
        error(fmt::format("{}: sdist: expected a table, got {}", ctx, toml_type_name(*sdist)));
      }
    }
    // PEP 751: `vcs`, `directory` and `archive` each stand alone; `sdist` and `wheels` may go together.
    std::vector<std::string_view> sources;
    for (const char* key : {"vcs", "directory", "archive", "sdist", "wheels"}) {
      if (table.contains(key)) sources.emplace_back(key);
    }
    if (sources.size() > 1 && !(sources.size() == 2 && sources[0] == "sdist")) {
      error(fmt::format("{}: `{}` and `{}` are mutually exclusive (PEP 751): one source per entry", ctx, sources[0],
                        sources[1]));
    }
    if (const toml::node* directory = table.get("directory")) {
      if (const auto* t = directory->as_table()) {
        package.directory = read_directory(*t, ctx + ": directory");
      } else {
        error(fmt::format("{}: directory: expected a table, got {}", ctx, toml_type_name(*directory)));
      }
    }
    if (const toml::node* archive = table.get("archive")) {
      if (const auto* t = archive->as_table()) {
        package.archive = read_archive(*t, ctx + ": archive");
      } else {
        error(fmt::format("{}: archive: expected a table, got {}", ctx, toml_type_name(*archive)));
      }
    }
    if (const toml::node* vcs = table.get("vcs")) {
      if (const auto* t = vcs->as_table()) {
        package.vcs = read_vcs(*t, ctx + ": vcs");
      } else {
        error(fmt::format("{}: vcs: expected a table, got {}", ctx, toml_type_name(*vcs)));
      }
    }

    // wheels
    std::vector<std::optional<wheel_name::WheelName>> parsed_wheels;
    if (const toml::node* wheels = table.get("wheels")) {
      if (const auto* array = wheels->as_array()) {
        std::set<std::string> seen;
        for (std::size_t i = 0; i < array->size(); ++i) {
          const auto& node = *array->get(i);
          const std::string wheel_where = fmt::format("{}: wheels[{}]", ctx, i);
          const auto* t = node.as_table();
          if (t == nullptr) {
            error(fmt::format("{}: expected a table, got {}", wheel_where, toml_type_name(node)));
            continue;
          }
          LockedWheel wheel = read_file(*t, wheel_where);
          auto parsed = check_wheel_name(wheel, wheel_where, package, parsed_version);
          if (!wheel.name.empty() && !seen.insert(wheel.name).second) {
            error(fmt::format("{}: wheel {} is listed twice", wheel_where, backquoted(wheel.name)));
          }
          package.wheels.push_back(std::move(wheel));
          parsed_wheels.push_back(std::move(parsed));
        }
      } else {
        error(fmt::format("{}: wheels: expected an array of tables, got {}", ctx, toml_type_name(*wheels)));
      }
    }

    if (const toml::node* variants = table.get("variants-json")) {
      if (const auto* t = variants->as_table()) {
        package.variants_json = read_variants_json(*t, ctx);
      } else {
        error(fmt::format("{}: variants-json: expected a table, got {}", ctx, toml_type_name(*variants)));
      }
    }
    const bool variants_json_present = table.contains("variants-json");
    for (std::size_t i = 0; i < parsed_wheels.size(); ++i) {
      if (!parsed_wheels[i] || !parsed_wheels[i]->label) continue;
      const std::string& label = *parsed_wheels[i]->label;
      if (!variants_json_present) {
        error(fmt::format("{}: wheel {} has variant label {} but the package has no variants-json", ctx,
                          backquoted(package.wheels[i].name), backquoted(label)));
      } else if (package.variants_json && package.variants_json->variants.count(label) == 0) {
        error(fmt::format("{}: wheel {}: unknown variant label {} (not in variants-json.variants)", ctx,
                          backquoted(package.wheels[i].name), backquoted(label)));
      }
    }

    if (const auto* vwheel = tool_table(table, ctx + ": ")) {
      package.extras = string_list(*vwheel, "extras", ctx + ": tool.vwheel.");
      package.requires_dist = string_list(*vwheel, "requires-dist", ctx + ": tool.vwheel.");
      for (std::size_t i = 0; i < package.requires_dist.size(); ++i) {
        check_requirement(package.requires_dist[i], fmt::format("{}: tool.vwheel.requires-dist[{}]", ctx, i));
      }
      if (const toml::node* per = vwheel->get("wheel-requires-dist")) {
        if (const auto* t = per->as_table()) {
          for (const auto& [file, _] : *t) {
            const std::string wheel(file.str());
            auto deps = string_list(*t, wheel, ctx + ": tool.vwheel.wheel-requires-dist.");
            for (std::size_t i = 0; i < deps.size(); ++i) {
              check_requirement(deps[i], fmt::format("{}: tool.vwheel.wheel-requires-dist.{}[{}]", ctx, wheel, i));
            }
            package.wheel_requires_dist[wheel] = std::move(deps);
          }
        } else {
          error(fmt::format("{}: tool.vwheel.wheel-requires-dist: expected a table, got {}", ctx, toml_type_name(*per)));
        }
      }
    }
    return package;
  }

  void read_dependencies(const toml::table& table, const std::string& ctx, LockedPackage& package) {
    const toml::node* node = table.get("dependencies");
    if (node == nullptr) return;
    const auto* array = node->as_array();
    if (array == nullptr) {
      error(fmt::format("{}: dependencies: expected an array of tables, got {}", ctx, toml_type_name(*node)));
      return;
    }
    for (std::size_t i = 0; i < array->size(); ++i) {
      const auto& item = *array->get(i);
      const auto* t = item.as_table();
      if (t == nullptr) {
        error(fmt::format("{}: dependencies[{}]: expected a table, got {}", ctx, i, toml_type_name(item)));
        continue;
      }
      LockedDependency dependency;
      for (const auto& [key, value] : *t) {
        if (const auto* s = value.as_string()) dependency.emplace(std::string(key.str()), s->get());
      }
      package.dependencies.push_back(std::move(dependency));
    }
  }

  LockedDirectory read_directory(const toml::table& table, const std::string& where) {
    LockedDirectory directory;
    if (auto path = string_key(table, "path", where + ".")) {
      directory.path = std::move(*path);
    } else if (!table.contains("path")) {
      error(fmt::format("{}: `path` is missing (PEP 751 requires it)", where));
    }
    if (const toml::node* editable = table.get("editable")) {
      if (const auto* b = editable->as_boolean()) {
        directory.editable = b->get();
      } else {
        error(fmt::format("{}.editable: expected a boolean, got {}", where, toml_type_name(*editable)));
      }
    }
    directory.subdirectory = string_key(table, "subdirectory", where + ".");
    return directory;
  }

  // The same keys as a file's, without `name`, and `subdirectory`.
  LockedArchive read_archive(const toml::table& table, const std::string& where) {
    LockedFile file = read_file(table, where);
    LockedArchive archive;
    archive.url = std::move(file.url);
    archive.path = std::move(file.path);
    archive.upload_time = std::move(file.upload_time);
    archive.size = file.size;
    archive.hashes = std::move(file.hashes);
    archive.subdirectory = string_key(table, "subdirectory", where + ".");
    return archive;
  }

  LockedVcs read_vcs(const toml::table& table, const std::string& where) {
    LockedVcs vcs;
    const std::string prefix = where + ".";
    for (const auto& [key, field] : {std::pair{"type", &vcs.type}, std::pair{"commit-id", &vcs.commit_id}}) {
      if (auto value = string_key(table, key, prefix)) {
        *field = std::move(*value);
      } else if (!table.contains(key)) {
        error(fmt::format("{}: `{}` is missing (PEP 751 requires it)", where, key));
      }
    }
    vcs.url = string_key(table, "url", prefix);
    vcs.path = string_key(table, "path", prefix);
    if (!table.contains("url") && !table.contains("path")) {
      error(fmt::format("{}: neither `url` nor `path` is given (PEP 751 requires one)", where));
    }
    vcs.requested_revision = string_key(table, "requested-revision", prefix);
    vcs.subdirectory = string_key(table, "subdirectory", prefix);
    return vcs;
  }

  LockedFile read_file(const toml::table& table, const std::string& where) {
    LockedFile file;
    const std::string prefix = where + ": ";
    file.url = string_key(table, "url", prefix);
    file.path = string_key(table, "path", prefix);
    if (auto name = string_key(table, "name", prefix)) {
      file.name = std::move(*name);
    } else if (file.url) {
      file.name = last_segment(*file.url, true);
    } else if (file.path) {
      file.name = last_segment(*file.path, false);
    }
    if (!table.contains("url") && !table.contains("path")) {
      error(fmt::format("{}: neither `url` nor `path` is given (PEP 751 requires one)", where));
    }
    if (const toml::node* upload = table.get("upload-time")) {
      if (const auto* dt = upload->as_date_time()) {
        file.upload_time = detail::format_date_time(dt->get());
      } else {
        error(fmt::format("{}: upload-time: expected a date-time, got {}", where, toml_type_name(*upload)));
      }
    }
    if (const toml::node* size = table.get("size")) {
      const auto* integer = size->as_integer();
      if (integer == nullptr || integer->get() < 0) {
        error(fmt::format("{}: size: expected a non-negative integer, got {}", where,
                          integer == nullptr ? std::string(toml_type_name(*size)) : fmt::format("{}", integer->get())));
      } else {
        file.size = static_cast<std::uint64_t>(integer->get());
      }
    }
    const toml::node* hashes = table.get("hashes");
    if (hashes == nullptr) {
      error(fmt::format("{}: `hashes` is missing (PEP 751 requires the file's hashes)", where));
    } else if (const auto* t = hashes->as_table()) {
      for (const auto& [key, value] : *t) {
        const std::string algorithm(key.str());
        const auto* digest = value.as_string();
        if (digest == nullptr) {
          error(fmt::format("{}: hashes.{}: expected a string, got {}", where, algorithm, toml_type_name(value)));
          continue;
        }
        std::string hex = digest->get();
        const std::size_t expected = detail::hex_digest_length(algorithm);
        if (!detail::is_hex(hex)) {
          error(fmt::format("{}: hashes.{}: {} is not a hex digest", where, backquoted(algorithm), backquoted(hex)));
          continue;
        }
        if (expected != 0 && hex.size() != expected) {
          error(fmt::format("{}: hashes.{}: expected {} hex digits, got {}", where, backquoted(algorithm), expected,
                            hex.size()));
          continue;
        }
        file.hashes.emplace(algorithm, ascii_lower(hex));
      }
    } else {
      error(fmt::format("{}: hashes: expected a table, got {}", where, toml_type_name(*hashes)));
    }
    return file;
  }

  std::optional<wheel_name::WheelName> check_wheel_name(const LockedWheel& wheel, const std::string& where,
                                                        const LockedPackage& package,
                                                        const std::optional<pep440::Version>& version) {
    if (wheel.name.empty()) return std::nullopt;  // no url/path: reported already
    auto parsed = wheel_name::parse_wheel_name(wheel.name);
    if (!parsed) {
      error(fmt::format("{}: {}", where, one_line(parsed.error().message)));
      return std::nullopt;
    }
    bool matches = wheel_name::canonicalize_name(parsed->name) == wheel_name::canonicalize_name(package.name);
    if (matches && version) {
      auto wheel_version = pep440::Version::parse(parsed->version);
      matches = wheel_version && *wheel_version == *version;
    }
    if (!matches && !package.name.empty()) {
      error(fmt::format("{}: wheel {} is not a wheel of {} {}", where, backquoted(wheel.name), backquoted(package.name),
                        backquoted(package.version)));
    }
    return std::move(*parsed);
  }

  // TOML -> JSON for the metadata reader; dates have no JSON form and are reported here.
  std::optional<Json> to_json(const toml::node& node, const std::string& path, int depth) {
    if (depth > kMaxVariantsJsonDepth) {
      error(fmt::format("{}: nested more than {} levels deep", path, kMaxVariantsJsonDepth));
      return std::nullopt;
    }
    if (const auto* table = node.as_table()) {
      Json out = Json::object();
      for (const auto& [key, value] : *table) {
        auto converted = to_json(value, path + "." + std::string(key.str()), depth + 1);
        if (!converted) return std::nullopt;
        out[std::string(key.str())] = std::move(*converted);
      }
      return out;
    }
    if (const auto* array = node.as_array()) {
      Json out = Json::array();
      for (std::size_t i = 0; i < array->size(); ++i) {
        auto converted = to_json(*array->get(i), fmt::format("{}[{}]", path, i), depth + 1);
        if (!converted) return std::nullopt;
        out.push_back(std::move(*converted));
      }
      return out;
    }
    if (const auto* s = node.as_string()) return Json(s->get());
    if (const auto* i = node.as_integer()) return Json(i->get());
    if (const auto* f = node.as_floating_point()) return Json(f->get());
    if (const auto* b = node.as_boolean()) return Json(b->get());
    error(fmt::format("{}: {} has no JSON form (variants-json holds JSON data)", path, toml_type_name(node)));
    return std::nullopt;
  }

  std::optional<variant::VariantMetadata> read_variants_json(const toml::table& table, const std::string& ctx) {
    auto json = to_json(table, ctx + ": variants-json", 0);
    if (!json) return std::nullopt;
    const std::string text = json->dump(-1, ' ', false, Json::error_handler_t::replace);
    auto parsed = metadata::parse_json_document(text, metadata::DocumentKind::VariantsJson);
    if (!parsed) {
      error(fmt::format("{}: variants-json: {}", ctx, one_line(parsed.error().message)));
      for (const auto& more : parsed.error().details) error(fmt::format("{}: variants-json: {}", ctx, one_line(more)));
      return std::nullopt;
    }
    variant::VariantMetadata metadata = std::move(parsed->metadata);
    const std::set<std::string> listed(metadata.namespace_priorities.begin(), metadata.namespace_priorities.end());
    bool ok = true;
    for (const auto& [label, properties] : metadata.variants) {
      std::set<std::string> reported;
      for (const auto& property : properties) {
        if (listed.count(property.ns) == 0 && reported.insert(property.ns).second) {
          error(
              fmt::format("{}: variants-json: variant {} uses namespace {}, which default-priorities.namespace "
                          "does not list",
                          ctx, backquoted(label), backquoted(property.ns)));
          ok = false;
        }
      }
    }
    if (!ok) return std::nullopt;
    return metadata;
  }

  const std::string& source_;
  std::vector<std::string> errors_;
};

}  // namespace

Result<Lock> parse_pylock(std::string_view text, const std::string& source) { return Reader(source).read(text); }

}  // namespace vwheel::lock
