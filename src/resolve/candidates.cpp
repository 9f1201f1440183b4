#include "resolve/candidates.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "vwheel/wheel_name/names.hpp"

namespace vwheel::resolve::detail {
namespace {

using pep440::Version;

std::string requirement_text(const markers::Requirement& r) {
  std::string out = r.name;
  if (!r.extras.empty()) {
    out += '[';
    for (std::size_t i = 0; i < r.extras.size(); ++i) out += (i ? "," : "") + r.extras[i];
    out += ']';
  }
  out += r.specifier.to_string();
  return out;
}

}  // namespace

Dep to_dep(const markers::Requirement& r) {
  Dep d;
  d.name = wheel_name::canonicalize_name(r.name);
  for (const auto& e : r.extras) d.extras.push_back(wheel_name::canonicalize_name(e));
  std::sort(d.extras.begin(), d.extras.end());
  d.extras.erase(std::unique(d.extras.begin(), d.extras.end()), d.extras.end());
  d.spec = r.specifier;
  d.text = requirement_text(r);
  return d;
}

Result<Project*> Cache::project(const std::string& name) {
  if (auto it = projects_.find(name); it != projects_.end()) return it->second.get();
  auto versions = provider_.versions(name);
  if (!versions) return fail(versions.error());
  auto p = std::make_unique<Project>();
  p->versions = std::move(*versions);
  p->has_final =
      std::any_of(p->versions.begin(), p->versions.end(), [](const Version& v) { return !v.is_prerelease(); });
  auto* raw = p.get();
  projects_.emplace(name, std::move(p));
  return raw;
}

Result<const Dependencies*> Cache::dependencies(const std::string& name, Project& p, std::size_t idx) {
  if (auto it = p.deps.find(idx); it != p.deps.end()) return &it->second;
  auto deps = provider_.dependencies(name, p.versions[idx]);
  if (!deps) return fail(deps.error());
  return &p.deps.emplace(idx, std::move(*deps)).first->second;
}

Result<const std::vector<Dep>*> Cache::parsed(const std::string& name, std::size_t idx, const std::string& extra) {
  auto proj = project(name);
  if (!proj) return fail(proj.error());
  Project& p = **proj;
  const auto key = std::make_pair(idx, extra);
  if (auto it = p.parsed.find(key); it != p.parsed.end()) return &it->second;
  auto deps = dependencies(name, p, idx);
  if (!deps) return fail(deps.error());
  const std::string label = fmt::format("{}=={}", name, p.versions[idx].to_string());
  markers::Environment env = (*deps)->environment;
  markers::Environment base_env = env;
  base_env.variables["extra"] = "";
  env.variables["extra"] = extra;
  std::vector<Dep> out;
  for (const auto& r : (*deps)->requires_dist) {
    if (!r.url.empty())
      return fail(
          fmt::format("direct URL requirements are not supported: `{}` (required by {})", r.to_string(), label));
    auto applies = r.applies_to(env);
    if (!applies)
      return fail(
          fmt::format("{}: cannot evaluate the marker of `{}`: {}", label, r.to_string(), applies.error().message));
    if (!*applies) continue;
    if (!extra.empty()) {
      auto base = r.applies_to(base_env);
      if (!base)
        return fail(
            fmt::format("{}: cannot evaluate the marker of `{}`: {}", label, r.to_string(), base.error().message));
      if (*base) continue;
    }
    out.push_back(to_dep(r));
  }
  return &p.parsed.emplace(key, std::move(out)).first->second;
}

Result<bool> Cache::declares_extra(const std::string& name, std::size_t idx, const std::string& extra) {
  auto proj = project(name);
  if (!proj) return fail(proj.error());
  auto deps = dependencies(name, **proj, idx);
  if (!deps) return fail(deps.error());
  if (!(*deps)->provides_extra.empty()) {
    return std::any_of((*deps)->provides_extra.begin(), (*deps)->provides_extra.end(),
                       [&](const std::string& e) { return wheel_name::canonicalize_name(e) == extra; });
  }
  auto parsed_deps = parsed(name, idx, extra);
  if (!parsed_deps) return fail(parsed_deps.error());
  return !(*parsed_deps)->empty();
}

}  // namespace vwheel::resolve::detail
