#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "choose.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/variant/property.hpp"
#include "vwheel/simple/core_metadata.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::plan::detail {

std::string unmet_requirement(std::string_view name, std::string_view version, const std::optional<std::string>& label,
                              const markers::Requirement& r, std::string_view tail) {
  std::string what = r.name;
  if (!r.extras.empty()) what += fmt::format("[{}]", fmt::join(r.extras, ","));
  what += r.specifier.to_string();
  return fmt::format("{} {}{} requires {}, {}", name, version, label ? fmt::format(" [{}]", *label) : "", what, tail);
}

Result<void> check_complete(const Plan& plan, std::string_view tail) {
  std::map<std::string, const Selected*> by_name;
  for (const auto& s : plan.packages) by_name[s.name] = &s;
  for (const auto& s : plan.packages) {
    std::vector<std::string> contexts{""};
    contexts.insert(contexts.end(), s.extras.begin(), s.extras.end());
    for (const auto& text : s.requires_dist) {
      auto r = markers::Requirement::parse(text);
      if (!r) return fail(r.error().with_context(fmt::format("{} {}: requires-dist", s.name, s.version)));
      const auto name = wheel_name::canonicalize_name(r->name);
      if (name == s.name) continue;  // a self-reference (extras of itself)
      bool applies = false;
      for (const auto& extra : contexts) {
        auto env = s.environment;
        env.variables.insert_or_assign("extra", extra);
        auto v = r->applies_to(env);
        if (!v) return fail(v.error().with_context(fmt::format("{} {}", s.name, s.version)));
        if (*v) {
          applies = true;
          break;
        }
      }
      if (!applies) continue;
      auto it = by_name.find(name);
      bool met = it != by_name.end() && r->specifier.contains(it->second->version, true);
      if (met) {
        for (const auto& e : r->extras) {
          const auto& have = it->second->extras;
          met = met && std::find(have.begin(), have.end(), wheel_name::canonicalize_name(e)) != have.end();
        }
      }
      if (!met) return fail(unmet_requirement(s.name, s.version, s.label, *r, tail));
    }
  }
  return {};
}

}  // namespace vwheel::plan::detail

namespace vwheel::plan {

std::vector<BrokenRequirement> broken_requirements(const std::map<std::string, std::string>& installing,
                                                   const install::Environment& env,
                                                   const selection::Selection& target) {
  std::vector<BrokenRequirement> out;
  for (const auto& d : install::list_distributions(env)) {
    const auto name = wheel_name::canonicalize_name(d.name);
    if (installing.contains(name)) continue;  // replaced (or confirmed) by the run, checked with it
    auto text = read_file(d.dist_info / "METADATA");
    if (!text) continue;  // a distribution without METADATA states no requirements
    auto md = simple::parse_core_metadata(*text, (d.dist_info / "METADATA").string());
    if (!md) continue;
    variant::PropertySet properties;
    for (const auto& p : d.variant_properties) {
      if (auto parsed = variant::parse_property(p)) properties.push_back(std::move(*parsed));
    }
    auto environment = detail::label_environment(target.marker_environment(), d.variant_label.value_or(""), properties);
    environment.variables.insert_or_assign("extra", "");
    for (const auto& line : md->requires_dist) {
      auto r = markers::Requirement::parse(line);
      if (!r) continue;  // what the installed metadata cannot state is not this run's to enforce
      auto it = installing.find(wheel_name::canonicalize_name(r->name));
      if (it == installing.end()) continue;
      auto applies = r->applies_to(environment);
      if (!applies || !*applies) continue;
      if (r->specifier.contains(it->second, true)) continue;
      out.push_back(
          {d.name, detail::unmet_requirement(d.name, d.version, d.variant_label, *r,
                                             fmt::format("but this run would install {} {}", it->first, it->second))});
    }
  }
  return out;
}

Result<void> check_kept(const Plan& plan, const install::Environment& env, const selection::Selection& target) {
  std::map<std::string, std::string> installing;
  for (const auto& s : plan.packages) installing.emplace(s.name, s.version);
  auto broken = broken_requirements(installing, env, target);
  if (broken.empty()) return {};
  return fail(fmt::format("{}: give both requirements (or {} too) to resolve them together", broken.front().message,
                          broken.front().distribution));
}

}  // namespace vwheel::plan
