#include "vwheel/selection/selection.hpp"

#include <fmt/format.h>

#include "vwheel/pep440/specifier.hpp"

namespace vwheel::selection {

void Selection::set_tags(std::vector<std::string> tags) {
  tags_ = std::move(tags);
  tag_index_.clear();
  // First occurrence wins: the list is in preference order.
  for (std::size_t i = 0; i < tags_.size(); ++i) tag_index_.emplace(tags_[i], i);
}

std::optional<std::size_t> Selection::tag_rank(const wheel_name::WheelName& wheel) const {
  std::optional<std::size_t> best;
  for (const auto& t : wheel.tags()) {
    auto it = tag_index_.find(t.to_string());
    if (it != tag_index_.end() && (!best || it->second < *best)) best = it->second;
  }
  return best;
}

std::optional<std::string> Selection::python_version() const {
  for (const char* key : {"python_full_version", "python_version"}) {
    if (auto it = environment.find(key); it != environment.end() && !it->second.empty()) return it->second;
  }
  return std::nullopt;
}

Result<void> Selection::check_requires_python(std::string_view requires_python, std::string_view what) const {
  if (requires_python.empty()) return {};
  const auto version = python_version();
  if (!version) return {};
  auto spec = pep440::SpecifierSet::parse(requires_python);
  if (!spec) return fail(fmt::format("{}: Requires-Python `{}`: {}", what, requires_python, spec.error().message));
  // As pip: pre-releases of Python itself are admitted.
  if (spec->contains(*version, true)) return {};
  return fail(fmt::format("{}: Requires-Python `{}` excludes Python {} (of the {})", what, requires_python, *version,
                          environment_source.empty() ? std::string("target") : environment_source));
}

markers::Environment Selection::marker_environment() const {
  markers::Environment env;
  for (const auto& [k, v] : environment) env.variables.emplace(k, v);
  return env;
}

variant::SelectionOptions Selection::ranking_options(const markers::Environment* env) const {
  variant::SelectionOptions options;
  options.enable_all_optional = enable_all_optional;
  options.enabled_optional = enabled_optional;
  options.abi_dependencies = abi_dependencies;
  options.environment = env;
  return options;
}

Result<variant::Ranking> Selection::rank(const variant::VariantMetadata& metadata,
                                         const markers::Environment* env) const {
  if (!oracle) return fail(fmt::format("{}: no variant support known", description));
  return variant::rank_variants(metadata, *oracle, priorities, ranking_options(env));
}

const std::string* Selection::forced_label(std::string_view project) const {
  auto it = variant_choices.find(project);
  return it == variant_choices.end() ? nullptr : &it->second;
}

variant::SupportedProperties supported_of(const variant::Ranking& ranking) {
  variant::SupportedProperties supported;
  for (const auto& p : ranking.sorted_supported) {
    auto& features = supported[p.ns];
    if (features.empty() || features.back().name != p.feature) features.push_back({p.feature, {}, false});
    features.back().values.push_back(p.value);
  }
  return supported;
}

markers::Environment variant_environment(const markers::Environment& base, const std::string& label,
                                         const variant::PropertySet& properties,
                                         const variant::SupportedProperties& supported) {
  markers::Environment env = base;
  variant::set_variant_markers(env, label, properties, supported);
  return env;
}

}  // namespace vwheel::selection
