#include <set>

#include <fmt/format.h>

#include "vwheel/plan/plan.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::plan {

Result<Applied> apply_plan(const Plan& plan, const install::Environment& env, const Settings& settings,
                           install::InstallOptions options, bool remove_unlisted, bool quiet) {
  Applied applied;
  std::map<std::string, install::Distribution> present;
  for (auto& d : install::list_distributions(env)) present.emplace(wheel_name::canonicalize_name(d.name), std::move(d));

  Plan todo;
  todo.target = plan.target;
  for (const auto& s : plan.packages) {
    auto it = present.find(s.name);
    if (!options.force_reinstall && it != present.end() && it->second.version == s.version &&
        it->second.variant_label == s.label) {
      applied.unchanged.push_back(fmt::format("{} {}", s.name, s.version));
      continue;
    }
    todo.packages.push_back(s);
  }
  if (!todo.packages.empty()) {
    // A different version or variant replaces what is installed.
    options.force_reinstall = true;
    // Each wheel is unpacked as soon as it is on disk, while the others still download.
    auto session = install::Session::begin(env, options, todo.packages.size());
    if (!session) return fail(session.error());
    auto fetched = fetch_wheels(todo, settings, quiet, [&](const Fetched& f) {
      (*session)->add(f.index, {f.path, todo.packages[f.index].requested, false, f.sha256});
    });
    if (!fetched) return fail(fetched.error());
    auto done = (*session)->finish();
    if (!done) return fail(done.error());
    applied.installed = std::move(*done);
  }
  if (remove_unlisted) {
    std::set<std::string> listed;
    for (const auto& s : plan.packages) listed.insert(s.name);
    for (const auto& [name, d] : present) {
      if (listed.contains(name) || name == "pip" || name == "setuptools" || name == "wheel") continue;
      auto gone = install::uninstall(env, name);
      if (!gone) return fail(gone.error());
      applied.removed.push_back(std::move(*gone));
    }
  }
  return applied;
}

}  // namespace vwheel::plan
