// The resolver's entry: the root requirements and constraints that apply to the environment,
// then the search (solver.hpp), run again from the start when a pre-release gate opens after it
// was relied on.

#include "vwheel/resolve/resolver.hpp"

#include <fmt/format.h>

#include "resolve/solver.hpp"

namespace vwheel::resolve {

using detail::Cache;
using detail::Dep;
using detail::Shared;
using detail::Solver;
using detail::to_dep;

Result<Resolution> resolve(Provider& provider, const std::vector<markers::Requirement>& requirements,
                           const std::vector<markers::Requirement>& constraints,
                           const markers::Environment& root_environment, const Options& options) {
  Shared shared{Cache(provider), options, {}, {}, {}, {}, 0};
  markers::Environment env = root_environment;
  env.variables["extra"] = "";
  for (const auto& r : requirements) {
    if (!r.url.empty()) return fail(fmt::format("direct URL requirements are not supported: `{}`", r.to_string()));
    auto applies = r.applies_to(env);
    if (!applies)
      return fail(fmt::format("cannot evaluate the marker of the requirement `{}`: {}", r.to_string(),
                              applies.error().message));
    if (!*applies) continue;
    Dep d = to_dep(r);
    if (d.spec.prereleases().value_or(false)) shared.prerelease_ok.insert(d.name);
    shared.roots.push_back(std::move(d));
  }
  for (const auto& r : constraints) {
    if (!r.url.empty()) return fail(fmt::format("constraints cannot be direct URL requirements: `{}`", r.to_string()));
    if (!r.extras.empty()) return fail(fmt::format("constraints cannot have extras: `{}`", r.to_string()));
    auto applies = r.applies_to(env);
    if (!applies)
      return fail(
          fmt::format("cannot evaluate the marker of the constraint `{}`: {}", r.to_string(), applies.error().message));
    if (!*applies) continue;
    Dep d = to_dep(r);
    if (d.spec.prereleases().value_or(false)) shared.prerelease_ok.insert(d.name);
    shared.constraints[d.name].push_back(std::move(d));
  }
  while (true) {
    Solver solver(shared);
    auto r = solver.run();
    if (!r) return fail(r.error());
    if (*r) return std::move(**r);
  }
}

}  // namespace vwheel::resolve
