#include <cstdlib>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "vwheel/http/client.hpp"
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
  todo.head_answers = plan.head_answers;
  for (const auto& s : plan.packages) {
    auto it = present.find(s.name);
    if (!options.force_reinstall && !s.origin && it != present.end() && it->second.version == s.version &&
        it->second.variant_label == s.label) {
      applied.unchanged.push_back(fmt::format("{} {}", s.name, s.version));
      continue;
    }
    todo.packages.push_back(s);
  }
  std::vector<std::string> unlisted;
  if (remove_unlisted) {
    std::set<std::string> listed;
    for (const auto& s : plan.packages) listed.insert(s.name);
    for (const auto& [name, d] : present) {
      if (listed.contains(name) || name == "pip" || name == "setuptools" || name == "wheel") continue;
      unlisted.push_back(name);
    }
  }
  if (!todo.packages.empty() || !unlisted.empty()) {
    // A different version or variant replaces what is installed.
    options.force_reinstall = true;
    // One display for the downloads and the unpacking that overlaps them, its rows the slots of
    // `todo` (Session::add's too). Made before the session, so that it outlives the session's
    // workers (they report to it); its destructor erases the bars on every way out, errors and
    // interruptions included, before the caller prints anything.
    std::vector<std::string> names;
    for (const auto& s : todo.packages) names.push_back(s.wheel.filename);
    http::ProgressDisplay display(std::move(names), http::ProgressDisplay::style_for(quiet));
    options.on_unpack = [&display](std::size_t slot, std::uint64_t written, std::uint64_t total) {
      if (written >= total) {
        display.unpack_done(slot);
      } else {
        display.unpack_update({slot, written, total});
      }
    };
    // Each wheel is unpacked as soon as it is on disk, while the others still download; the
    // installs and the removals (sync) are then one transaction.
    auto session = install::Session::begin(env, options, todo.packages.size());
    if (!session) return fail(session.error());
    (*session)->uninstall_too(unlisted);
    if (!todo.packages.empty()) {
      Settings fetching = settings;
      fetching.unpacked_cache = options.cache_dir;
      auto fetched = fetch_wheels(
          todo, fetching, quiet,
          [&](const Fetched& f) {
            const auto& chosen = todo.packages[f.index];
            install::WheelRequest request(f.path, chosen.requested, chosen.origin.has_value(), f.sha256);
            request.origin = chosen.origin;
            request.arriving = f.arriving;
            request.skeleton = f.skeleton;
            (*session)->add(f.index, std::move(request));
          },
          &display);
      if (!fetched) return fail(fetched.error());
    }
    auto done = (*session)->finish();
    display.finish();
    if (!done) return fail(done.error());
    applied.installed = std::move(*done);
    applied.removed = (*session)->removed();
  }
  return applied;
}

}  // namespace vwheel::plan
