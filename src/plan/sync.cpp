#include <algorithm>
#include <deque>
#include <set>

#include <fmt/format.h>

#include "choose.hpp"
#include "vwheel/plan/plan.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::plan {
namespace fs = std::filesystem;

namespace {

struct LockedProject {
  const lock::LockedPackage* package = nullptr;
  std::vector<finder::File> files;
  std::optional<detail::Choice> choice;
};

Result<finder::File> file_of(const lock::LockedPackage& p, const lock::LockedWheel& w, const fs::path& lock_dir,
                             const std::string& source) {
  finder::File f;
  f.filename = w.name;
  if (w.url) {
    f.url = *w.url;
  } else if (w.path) {
    fs::path path(*w.path);
    f.path = path.is_absolute() ? path : lock_dir / path;
  } else {
    return fail(fmt::format("{}: package `{}`: wheel `{}` has neither `url` nor `path`", source, p.name, w.name));
  }
  f.hashes = w.hashes;
  f.size = w.size;
  auto name = wheel_name::parse_wheel_name(w.name);
  if (!name) return fail(name.error().with_context(fmt::format("{}: package `{}`", source, p.name)));
  auto version = pep440::Version::parse(name->version);
  if (!version) return fail(version.error().with_context(fmt::format("{}: package `{}`", source, p.name)));
  f.version = std::move(*version);
  f.wheel = std::move(*name);
  if (!f.sha256()) {
    return fail(fmt::format("{}: package `{}`: wheel `{}` has no sha256 hash; vwheel sync verifies every file", source,
                            p.name, w.name));
  }
  return f;
}

}  // namespace

Result<Plan> plan_from_lock(const lock::Lock& lock, const fs::path& lock_dir, const selection::Selection& target) {
  const std::string source = "pylock.toml";
  std::map<std::string, LockedProject> projects;
  for (const auto& p : lock.packages) {
    auto name = wheel_name::canonicalize_name(p.name);
    auto& project = projects[name];
    if (project.package) return fail(fmt::format("{}: package `{}` is listed twice", source, p.name));
    project.package = &p;
    for (const auto& w : p.wheels) {
      auto f = file_of(p, w, lock_dir, source);
      if (!f) return fail(f.error());
      project.files.push_back(std::move(*f));
    }
  }
  const auto base = target.marker_environment();

  auto choose = [&](const std::string& name, LockedProject& project) -> Result<const detail::Choice*> {
    if (project.choice) return &*project.choice;
    detail::ChooseRequest request;
    request.name = name;
    request.version = project.package->version;
    for (const auto& f : project.files) request.files.push_back(&f);
    request.no_variants = target.no_variants;
    if (const auto* forced = target.forced_label(name)) request.forced_label = *forced;
    request.allow_yanked = true;
    auto loader = [&](const finder::File*, const std::vector<const finder::File*>&,
                      std::vector<std::string>&) -> Result<variant::VariantMetadata> {
      if (!project.package->variants_json) {
        return fail(fmt::format("{}: package `{}` lists variant wheels but no [packages.variants-json]", source, name));
      }
      return *project.package->variants_json;
    };
    std::string reason;
    auto c = detail::choose(request, target, loader, reason);
    if (!c) return fail(c.error());
    if (!*c) {
      return fail(fmt::format("{}: package `{}` {}: no listed wheel fits {}: {}", source, name, project.package->version,
                              target.description, reason));
    }
    project.choice = std::move(**c);
    return &*project.choice;
  };

  // Walk from the lock's requirements; a lock without them (another tool's) installs every
  // package whose marker holds.
  struct Want {
    std::string name;
    std::set<std::string> extras;
    std::set<std::string> required_by;
    bool requested = false;
  };
  std::map<std::string, Want> wanted;
  std::deque<std::pair<std::string, std::set<std::string>>> queue;
  auto want = [&](const markers::Requirement& r, const std::string& by) -> Result<void> {
    auto name = wheel_name::canonicalize_name(r.name);
    auto it = projects.find(name);
    if (it == projects.end()) {
      return fail(fmt::format("{}: `{}` (required by {}) is not in the lock; lock again", source, r.to_string(), by));
    }
    if (!r.specifier.contains(it->second.package->version, true)) {
      return fail(fmt::format("{}: `{}` (required by {}) does not match the locked {} {}; lock again", source,
                              r.to_string(), by, it->second.package->name, it->second.package->version));
    }
    auto& w = wanted[name];
    w.name = name;
    w.required_by.insert(by);
    if (by == "root") w.requested = true;
    std::set<std::string> extras;
    for (const auto& e : r.extras) extras.insert(wheel_name::canonicalize_name(e));
    std::set<std::string> added;
    bool first = w.required_by.size() == 1 && !w.extras.size() && added.empty();
    for (const auto& e : extras) {
      if (w.extras.insert(e).second) added.insert(e);
    }
    if (first || !added.empty()) queue.emplace_back(name, extras);
    return {};
  };
  if (!lock.requirements.empty()) {
    for (const auto& text : lock.requirements) {
      auto r = markers::Requirement::parse(text);
      if (!r) return fail(r.error().with_context(fmt::format("{}: [tool.vwheel] requirements", source)));
      auto applies = r->applies_to(base);
      if (!applies) return fail(applies.error());
      if (!*applies) continue;
      if (auto ok = want(*r, "root"); !ok) return fail(ok.error());
    }
  } else {
    for (const auto& [name, project] : projects) {
      if (project.package->marker) {
        auto m = markers::Marker::parse(*project.package->marker);
        if (!m) return fail(m.error().with_context(fmt::format("{}: package `{}`: marker", source, name)));
        auto v = m->evaluate(base);
        if (!v) return fail(v.error());
        if (!*v) continue;
      }
      wanted[name] = {name, {}, {"root"}, true};
      queue.emplace_back(name, std::set<std::string>{});
    }
  }
  std::set<std::string> expanded;
  while (!queue.empty()) {
    auto [name, extras] = queue.front();
    queue.pop_front();
    auto& project = projects.at(name);
    auto c = choose(name, project);
    if (!c) return fail(c.error());
    const auto by = fmt::format("{}=={}", name, project.package->version);
    const bool base_done = !expanded.insert(name).second;
    const auto& wheel_deps = project.package->wheel_requires_dist;
    auto own = wheel_deps.find((*c)->wheel->filename);
    for (const auto& text : own != wheel_deps.end() ? own->second : project.package->requires_dist) {
      auto r = markers::Requirement::parse(text);
      if (!r) return fail(r.error().with_context(fmt::format("{}: package `{}`: requires-dist", source, name)));
      std::vector<std::string> contexts;
      if (!base_done) contexts.push_back("");
      contexts.insert(contexts.end(), extras.begin(), extras.end());
      for (const auto& extra : contexts) {
        auto env = (*c)->environment;
        env.variables.insert_or_assign("extra", extra);
        auto applies = r->applies_to(env);
        if (!applies) return fail(applies.error().with_context(fmt::format("{}: package `{}`", source, name)));
        if (!*applies) continue;
        if (wheel_name::canonicalize_name(r->name) == name) continue;
        if (auto ok = want(*r, by); !ok) return fail(ok.error());
        break;
      }
    }
  }

  Plan plan;
  plan.target = target.description;
  for (auto& [name, w] : wanted) {
    auto& project = projects.at(name);
    auto c = choose(name, project);
    if (!c) return fail(c.error());
    Selected s;
    s.name = name;
    s.version = project.package->version;
    s.wheel = *(*c)->wheel;
    s.label = (*c)->label;
    s.properties = detail::property_strings((*c)->properties);
    s.why = (*c)->why;
    s.other_variants = (*c)->others;
    s.requested = w.requested;
    s.required_by.assign(w.required_by.begin(), w.required_by.end());
    s.extras.assign(w.extras.begin(), w.extras.end());
    auto own = project.package->wheel_requires_dist.find(s.wheel.filename);
    s.requires_dist = own != project.package->wheel_requires_dist.end() ? own->second : project.package->requires_dist;
    s.explain = (*c)->explain;
    if (auto sha = s.wheel.sha256()) s.allowed_sha256.push_back(*sha);
    plan.packages.push_back(std::move(s));
  }
  return plan;
}

}  // namespace vwheel::plan
