#include "vwheel/api/selection.hpp"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "vwheel/config/user_config.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/provider/registry.hpp"
#include "vwheel/target/profile.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::api {
namespace {

/// A profile's `abi_dependency` properties are the distributions the machine had: each feature's
/// most precise value (`M.m.p` over `M.m` over `M`) is its version. A value that is no release
/// of up to three numbers is an error naming it (never silently dropped).
Result<std::vector<std::pair<std::string, std::string>>> profile_abi_dependencies(const variant::SupportedProperties& table,
                                                                                  const std::string& file) {
  std::vector<std::pair<std::string, std::string>> out;
  auto it = table.find(std::string(variant::kAbiDependencyNamespace));
  if (it == table.end()) return out;
  for (const auto& feature : it->second) {
    for (const auto& value : feature.values) {
      if (auto ok = variant::abi_dependency_values(value); !ok) {
        return fail(fmt::format("{}: properties.abi_dependency: feature `{}`: value `{}`: {}", file, feature.name, value,
                                ok.error().message));
      }
    }
    if (feature.values.empty()) continue;
    auto dots = [](const std::string& v) { return std::count(v.begin(), v.end(), '.'); };
    out.emplace_back(feature.name, *std::max_element(feature.values.begin(), feature.values.end(),
                                                     [&](const auto& a, const auto& b) { return dots(a) < dots(b); }));
  }
  return out;
}

Result<void> add_abi_overrides(const SelectionRequest& request, selection::Selection& s) {
  if (const char* env = std::getenv("VARIANT_ABI_DEPENDENCY"); env != nullptr && *env != '\0') {
    auto parsed = variant::parse_abi_dependency_env(env);
    s.abi_dependencies.insert(s.abi_dependencies.end(), parsed.items.begin(), parsed.items.end());
    s.notes.insert(s.notes.end(), parsed.ignored.begin(), parsed.ignored.end());
  }
  for (const auto& item : request.abi_dependencies) {
    auto parsed = variant::parse_abi_dependency_env(item);
    if (parsed.items.size() != 1 || !parsed.ignored.empty()) {
      return fail(fmt::format("--abi-dependency `{}`: expected NAME==VERSION", item));
    }
    s.abi_dependencies.push_back(parsed.items.front());
  }
  return {};
}

Result<void> add_variant_choices(const SelectionRequest& request, selection::Selection& s) {
  s.no_variants = request.no_variants;
  for (const auto& v : request.variants) {
    auto eq = v.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == v.size()) {
      return fail(fmt::format("--variant `{}`: expected NAME=LABEL (e.g. torch=cu128)", v));
    }
    s.variant_choices[wheel_name::canonicalize_name(v.substr(0, eq))] = v.substr(eq + 1);
  }
  return {};
}


std::shared_ptr<provider::MachineReport> detect(const SelectionRequest& request) {
  return std::make_shared<provider::MachineReport>(
      provider::detect_machine(provider::DetectOptions{!request.no_cache, std::nullopt}));
}

provider::PythonProviderPolicy python_policy(const SelectionRequest& request, const config::UserConfig& cfg) {
  provider::PythonProviderPolicy policy;
  policy.allowed.insert(request.allow_python_providers.begin(), request.allow_python_providers.end());
  policy.allowed.insert(cfg.allow_python_providers.begin(), cfg.allow_python_providers.end());
  return policy;
}

/// Detection's notes and sources, for the namespaces not in `skip` (those a profile answers).
void add_detected(const provider::MachineReport& machine, const variant::SupportedProperties& skip,
                  selection::Selection& s) {
  for (const auto& a : machine.answers) {
    if (skip.contains(a.ns)) continue;
    for (const auto& note : a.detection.notes) s.notes.push_back(fmt::format("{}: {}", a.ns, note));
    if (!a.detection.supported.empty()) s.property_sources[a.ns] = fmt::format("detected: {}", a.detection.source);
  }
}

/// Profiles with `"detect": true`: the namespaces they list answer from them (PEP 850's static
/// list in place of a provider), every other one is asked of detection (and the allowed Python
/// providers) as without a profile.
class LayeredOracle final : public variant::SupportOracle {
 public:
  LayeredOracle(variant::SupportedProperties table, std::shared_ptr<const variant::SupportOracle> rest)
      : table_(std::move(table)), rest_(std::move(rest)) {}
  [[nodiscard]] Result<std::optional<std::vector<variant::FeatureConfig>>> supported(
      const std::string& ns, const variant::ProviderInfo* declared, std::string& note) const override {
    if (auto it = table_.find(ns); it != table_.end()) {
      return std::optional<std::vector<variant::FeatureConfig>>{it->second};
    }
    return rest_->supported(ns, declared, note);
  }

 private:
  variant::SupportedProperties table_;
  std::shared_ptr<const variant::SupportOracle> rest_;
};

/// Reads the request's profiles, lays them over each other (later files win per namespace, and
/// for `environment`, `tags` and `detect`), and fills the selection from the result.
Result<void> add_profiles(const SelectionRequest& request, const python::Interpreter* interpreter,
                          const config::UserConfig& cfg, selection::Selection& s) {
  target::TargetProfile merged;
  std::map<std::string, std::string> origin;  // namespace -> the file that answered it
  std::string environment_file;
  std::vector<std::string> files;
  for (const auto& path : request.profiles) {
    const auto file = path.string();
    auto text = read_file(path);
    if (!text) return fail(text.error());
    auto profile = target::parse_target_profile(*text);
    if (!profile) return fail(profile.error().with_context(file));
    // Checked per file, so that the error names the file the value is in.
    if (auto abi = profile_abi_dependencies(profile->properties, file); !abi) return fail(abi.error());
    for (const auto& [ns, _] : profile->properties) origin.insert_or_assign(ns, file);
    if (profile->environment) environment_file = file;
    files.push_back(file);
    target::overlay(merged, std::move(*profile));
  }
  const bool detect_rest = merged.detect.value_or(false);
  s.description = fmt::format("target profile{} {}", files.size() > 1 ? "s" : "", fmt::join(files, ", "));
  if (detect_rest) s.description += " (namespaces not listed: this machine, detected)";
  s.from_profile = !detect_rest || merged.environment.has_value();
  if (merged.environment) {
    const auto& env = *merged.environment;
    // A profile's python_version without python_full_version must not be mixed with the
    // interpreter's full version.
    if (env.contains("python_version") && !env.contains("python_full_version")) {
      s.environment.insert_or_assign("python_full_version", env.at("python_version"));
    }
    for (const auto& [k, v] : env) s.environment.insert_or_assign(k, v);
    if (env.contains("python_version") || env.contains("python_full_version")) {
      s.environment_source = fmt::format("target profile {}", environment_file);
    }
  } else if (detect_rest && !interpreter) {
    s.environment = provider::host_marker_environment();
  }
  if (merged.tags) s.set_tags(std::move(*merged.tags));
  auto abi = profile_abi_dependencies(merged.properties, origin[std::string(variant::kAbiDependencyNamespace)]);
  if (!abi) return fail(abi.error());
  s.abi_dependencies.insert(s.abi_dependencies.end(), abi->begin(), abi->end());
  merged.properties.erase(std::string(variant::kAbiDependencyNamespace));
  for (const auto& [ns, _] : merged.properties) s.property_sources[ns] = fmt::format("target profile {}", origin[ns]);
  if (!detect_rest) {
    s.supported = merged.properties;
    s.oracle = std::make_shared<variant::TableOracle>(std::move(merged.properties));
    return {};
  }
  auto machine = detect(request);
  add_detected(*machine, merged.properties, s);
  s.supported = machine->supported();
  for (const auto& [ns, features] : merged.properties) s.supported.insert_or_assign(ns, features);
  auto rest = std::make_shared<provider::DetectionOracle>(*machine, python_policy(request, cfg));
  s.oracle = std::make_shared<LayeredOracle>(std::move(merged.properties), std::move(rest));
  s.keepalive = machine;
  return {};
}
}  // namespace

Result<selection::Selection> make_selection(const SelectionRequest& request, const python::Interpreter* interpreter,
                                            const std::vector<std::pair<std::string, std::string>>& installed) {
  selection::Selection s;
  auto cfg = config::load_user_config(request.config);
  if (!cfg) return fail(cfg.error());
  s.priorities = cfg->priorities;
  s.config_source = cfg->source.string();
  s.enable_all_optional = request.enable_all_optional;
  s.enabled_optional.insert(request.enabled_optional.begin(), request.enabled_optional.end());
  s.abi_dependencies = installed;
  if (interpreter) {
    s.environment.insert(interpreter->environment.begin(), interpreter->environment.end());
    s.environment_source = fmt::format("interpreter {}", interpreter->executable.string());
    s.set_tags(interpreter->tags);
  }

  if (request.universal) {
    s.description = "every variant";
  } else if (!request.profiles.empty()) {
    if (auto ok = add_profiles(request, interpreter, *cfg, s); !ok) return fail(ok.error());
  } else {
    auto machine = detect(request);
    s.description = "this machine (detected)";
    if (!interpreter) s.environment = provider::host_marker_environment();
    add_detected(*machine, {}, s);
    s.supported = machine->supported();
    s.oracle = std::make_shared<provider::DetectionOracle>(*machine, python_policy(request, *cfg));
    s.keepalive = machine;
  }
  if (auto ok = add_abi_overrides(request, s); !ok) return fail(ok.error());
  if (auto ok = add_variant_choices(request, s); !ok) return fail(with_kind(ok.error(), ErrorKind::usage));
  return s;
}

void complete_environment(selection::Selection& selection, const variant::VariantMetadata& metadata) {
  if (selection.from_profile || selection.environment_source.starts_with("interpreter ")) return;
  bool needed = false;
  for (const auto& [ns, provider] : metadata.providers) {
    if (!provider.enable_if) continue;
    auto marker = markers::Marker::parse(*provider.enable_if);
    if (!marker) continue;  // reported when the marker is evaluated
    for (auto variable : marker->variables()) {
      const auto name = markers::to_string(variable);
      if (name != "extra" && !markers::is_variant_variable(variable) && !selection.environment.contains(name)) {
        needed = true;
      }
    }
  }
  if (!needed) return;
  auto exe = python::find_interpreter();
  if (!exe) return;
  auto interp = python::query_interpreter_cached(*exe, default_cache_dir());
  if (!interp) return;
  for (const auto& [k, v] : interp->environment) selection.environment.insert_or_assign(k, v);
  selection.environment_source = fmt::format("interpreter {}", interp->executable.string());
}

Result<void> require_environment_and_tags(const selection::Selection& selection) {
  if (selection.environment.empty()) {
    return fail(fmt::format("{}: no marker environment: give --python, or a target profile with `environment`",
                            selection.description));
  }
  if (selection.tags().empty()) {
    return fail(fmt::format("{}: no wheel tags: give --python, or a target profile with `tags`", selection.description));
  }
  return {};
}

}  // namespace vwheel::api
