#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "choose.hpp"
#include "vwheel/plan/plan.hpp"
#include "vwheel/resolve/resolver.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::plan {
namespace fs = std::filesystem;

namespace {

const std::string kSource = "pylock.toml";

/// One `[[packages]]` entry that applies to the target, its files, and the wheel chosen for it.
struct LockedEntry {
  const lock::LockedPackage* package = nullptr;
  pep440::Version version;
  std::vector<finder::File> files;
  std::optional<detail::Choice> choice;
  bool chosen = false;  ///< `choice` was computed (it may be nullopt: no wheel fits)
  std::string reason;   ///< why no wheel fits
  std::vector<std::string> requirements;  ///< the chosen wheel's requirements (after `dependencies`)
};

std::string normalized(const std::string& version) {
  auto v = pep440::Version::parse(version);
  return v ? v->to_string() : version;
}

Result<finder::File> file_of(const lock::LockedPackage& p, const lock::LockedWheel& w, const fs::path& lock_dir) {
  finder::File f;
  f.filename = w.name;
  if (w.url) {
    f.url = *w.url;
  } else if (w.path) {
    fs::path path(*w.path);
    f.path = path.is_absolute() ? path : lock_dir / path;
  } else {
    return fail(fmt::format("{}: package `{}`: wheel `{}` has neither `url` nor `path`", kSource, p.name, w.name));
  }
  f.hashes = w.hashes;
  f.size = w.size;
  auto name = wheel_name::parse_wheel_name(w.name);
  if (!name) return fail(name.error().with_context(fmt::format("{}: package `{}`", kSource, p.name)));
  auto version = pep440::Version::parse(name->version);
  if (!version) return fail(version.error().with_context(fmt::format("{}: package `{}`", kSource, p.name)));
  f.version = std::move(*version);
  f.wheel = std::move(*name);
  if (!f.sha256()) {
    return fail(fmt::format("{}: package `{}`: wheel `{}` has no sha256 hash; vwheel sync verifies every file", kSource,
                            p.name, w.name));
  }
  return f;
}

/// The Requires-Dist of the wheel chosen for an entry.
const std::vector<std::string>& requires_of(const lock::LockedPackage& package, const std::string& wheel) {
  auto own = package.wheel_requires_dist.find(wheel);
  return own != package.wheel_requires_dist.end() ? own->second : package.requires_dist;
}

/// Answers the resolver from the lock's entries: each version's dependencies are those of the wheel
/// chosen for the target, evaluated with its variant. A dependency that no locked version of the
/// project satisfies is remembered, so that a failed resolution names it.
class LockProvider final : public resolve::Provider {
 public:
  LockProvider(std::map<std::string, std::vector<LockedEntry>>& projects, const selection::Selection& target)
      : projects_(projects), target_(target) {}

  Result<std::vector<pep440::Version>> versions(std::string_view name) override {
    std::vector<pep440::Version> out;
    auto it = projects_.find(std::string(name));
    if (it == projects_.end()) return out;
    for (auto& entry : it->second) {
      auto c = choose(std::string(name), entry);
      if (!c) return fail(c.error());
      if (*c) out.push_back(entry.version);
    }
    std::sort(out.begin(), out.end(), std::greater<>());
    return out;
  }

  Result<resolve::Dependencies> dependencies(std::string_view name, const pep440::Version& version) override {
    auto* entry = find(std::string(name), version);
    if (!entry || !entry->choice) return fail(fmt::format("{}: package `{}` {}: no wheel chosen", kSource, name, version.to_string()));
    const auto& c = *entry->choice;
    resolve::Dependencies deps;
    deps.environment = c.environment;
    auto texts = requirements_of(*entry);
    if (!texts) return fail(texts.error());
    for (const auto& text : *texts) {
      auto r = markers::Requirement::parse(text);
      if (!r) return fail(r.error().with_context(fmt::format("{}: package `{}`: requires-dist", kSource, name)));
      if (wheel_name::canonicalize_name(r->name) != name) {
        auto env = c.environment;
        env.variables.insert_or_assign("extra", "");
        auto applies = r->applies_to(env);
        if (!applies) return fail(applies.error().with_context(fmt::format("{}: package `{}`", kSource, name)));
        if (*applies && !satisfiable(*r)) {
          missing_.push_back(detail::unmet_requirement(name, entry->package->version, c.label, *r,
                                                       "which the lock does not contain: run vwheel lock again"));
        }
      }
      deps.requires_dist.push_back(std::move(*r));
    }
    entry->requirements = std::move(*texts);
    return deps;
  }

  /// The requirements of an entry: from its `dependencies` (PEP 751) when it has them, each edge
  /// group (same project, same marker) a requirement that admits exactly the group's locked
  /// versions; else from `[packages.tool.vwheel]` (locks written before the edges carried markers).
  Result<std::vector<std::string>> requirements_of(const LockedEntry& entry) {
    const auto& package = *entry.package;
    if (package.dependencies.empty()) return requires_of(package, entry.choice->wheel->filename);
    std::map<std::pair<std::string, std::string>, std::set<std::string>> groups;  // (name, marker) -> versions
    for (const auto& d : package.dependencies) {
      auto n = d.find("name");
      if (n == d.end()) continue;
      auto v = d.find("version");
      auto m = d.find("marker");
      auto& versions = groups[{wheel_name::canonicalize_name(n->second), m == d.end() ? "" : m->second}];
      if (v != d.end()) versions.insert(normalized(v->second));
    }
    std::vector<std::string> out;
    for (const auto& [key, versions] : groups) {
      const auto& [dep, marker] = key;
      std::vector<std::string> excluded;
      bool any = versions.empty();  // an edge without `version` (other tools): any locked version
      if (auto it = projects_.find(dep); it != projects_.end() && !versions.empty()) {
        for (const auto& e : it->second) {
          if (versions.contains(e.version.to_string())) {
            any = true;
          } else {
            excluded.push_back("!=" + e.version.to_string());
          }
        }
      }
      std::string text = dep;
      if (!any) {
        // No entry of the group is in the lock (for this target): a requirement nothing satisfies.
        text += fmt::format("=={}", *versions.begin());
      } else if (!excluded.empty()) {
        text += fmt::format("{}", fmt::join(excluded, ","));
      }
      if (!marker.empty()) text += "; " + marker;
      out.push_back(std::move(text));
    }
    return out;
  }

  LockedEntry* find(const std::string& name, const pep440::Version& version) {
    auto it = projects_.find(name);
    if (it == projects_.end()) return nullptr;
    for (auto& e : it->second) {
      if (e.version == version) return &e;
    }
    return nullptr;
  }

  const std::vector<std::string>& missing() const { return missing_; }

 private:
  bool satisfiable(const markers::Requirement& r) const {
    auto it = projects_.find(wheel_name::canonicalize_name(r.name));
    if (it == projects_.end()) return false;
    return std::any_of(it->second.begin(), it->second.end(),
                       [&](const LockedEntry& e) { return r.specifier.contains(e.version, true); });
  }

  Result<bool> choose(const std::string& name, LockedEntry& entry) {
    if (entry.chosen) return entry.choice.has_value();
    detail::ChooseRequest request;
    request.name = name;
    request.version = entry.package->version;
    for (const auto& f : entry.files) request.files.push_back(&f);
    request.no_variants = target_.no_variants;
    if (const auto* forced = target_.forced_label(name)) request.forced_label = *forced;
    request.allow_yanked = true;
    const auto* package = entry.package;
    auto loader = [&](const finder::File*, const std::vector<const finder::File*>&,
                      std::vector<std::string>&) -> Result<variant::VariantMetadata> {
      if (!package->variants_json) {
        return fail(fmt::format("{}: package `{}` lists variant wheels but no [packages.variants-json]", kSource, name));
      }
      return *package->variants_json;
    };
    auto c = detail::choose(request, target_, loader, entry.reason);
    if (!c) return fail(c.error());
    entry.chosen = true;
    entry.choice = std::move(*c);
    return entry.choice.has_value();
  }

  std::map<std::string, std::vector<LockedEntry>>& projects_;
  const selection::Selection& target_;
  std::vector<std::string> missing_;
};



/// `name==version` requirements for the roots of a lock without `[tool.vwheel] requirements`:
/// lock::root_packages of the entries that apply to the target (the source components of their
/// `dependencies` graph, so that a dependency cycle nothing else names is installed too).
std::vector<markers::Requirement> roots_of(const std::map<std::string, std::vector<LockedEntry>>& projects) {
  std::vector<const lock::LockedPackage*> packages;
  std::vector<std::string> names;
  for (const auto& [name, entries] : projects) {
    for (const auto& e : entries) {
      packages.push_back(e.package);
      names.push_back(name);
    }
  }
  std::vector<markers::Requirement> out;
  for (auto i : lock::root_packages(packages)) {
    auto r = markers::Requirement::parse(fmt::format("{}=={}", names[i], packages[i]->version));
    if (r) out.push_back(std::move(*r));
  }
  return out;
}

/// Why an entry without wheels cannot be synced: what it has instead (PEP 751's other sources).
std::string without_wheels(const lock::Lock& lock, const lock::LockedPackage& p) {
  std::vector<std::string> has;
  if (p.sdist) has.emplace_back("an sdist");
  for (const auto& key : p.other_sources) {
    has.push_back(fmt::format("{} `{}` source", key == "archive" ? "an" : "a", key));
  }
  return fmt::format("{}: packages[{}] ({} {}) has {}; vwheel sync installs only wheels (`wheels = [...]`)", kSource,
                     &p - lock.packages.data(), p.name, p.version,
                     has.empty() ? std::string("no wheels and no other source")
                                 : fmt::format("only {}", fmt::join(has, " and ")));
}

}  // namespace

Result<Plan> plan_from_lock(const lock::Lock& lock, const fs::path& lock_file, const selection::Selection& target) {
  const fs::path lock_dir = lock_file.parent_path();
  auto base = target.marker_environment();
  // PEP 751: markers may test the extras and dependency groups being installed (none asked: the
  // lock's default groups).
  for (const auto& g : lock.default_groups) base.dependency_groups.insert(wheel_name::canonicalize_name(g));
  Plan plan;
  plan.target = target.description;
  // PEP 751's installer rules: the lock's requires-python and environments must admit the target.
  if (lock.requires_python) {
    if (auto ok = target.check_requires_python(*lock.requires_python, kSource); !ok) return fail(ok.error());
  }
  if (!lock.environments.empty()) {
    bool any = false;
    for (const auto& text : lock.environments) {
      auto m = markers::Marker::parse(text);
      if (!m) return fail(m.error().with_context(fmt::format("{}: environments", kSource)));
      auto v = m->evaluate(base);
      if (!v) return fail(v.error().with_context(fmt::format("{}: environments", kSource)));
      any = any || *v;
    }
    if (!any) {
      return fail(fmt::format("{}: none of the lock's `environments` matches {}: {}", kSource, target.description,
                              fmt::join(lock.environments, "; ")));
    }
  }
  if (lock.lock_version != "1.0") {
    plan.warnings.push_back(fmt::format("{}: lock-version `{}` is newer than the 1.0 vwheel knows; reading it as 1.0",
                                        kSource, lock.lock_version));
  }
  // PEP 751: an entry whose marker is false for the target is not installed; several entries of one
  // project (other versions, other markers) are allowed as long as one version is listed once.
  std::map<std::string, std::vector<LockedEntry>> projects;
  for (const auto& p : lock.packages) {
    if (p.marker) {
      auto m = markers::Marker::parse(*p.marker);
      if (!m) return fail(m.error().with_context(fmt::format("{}: package `{}`: marker", kSource, p.name)));
      auto v = m->evaluate(base);
      if (!v) return fail(v.error().with_context(fmt::format("{}: package `{}`: marker", kSource, p.name)));
      if (!*v) continue;
    }
    auto version = pep440::Version::parse(p.version);
    if (!version) return fail(version.error().with_context(fmt::format("{}: package `{}`", kSource, p.name)));
    auto name = wheel_name::canonicalize_name(p.name);
    auto& entries = projects[name];
    for (const auto& e : entries) {
      if (e.version == *version) {
        return fail(fmt::format("{}: package `{}` {} is listed twice for {}", kSource, p.name, p.version,
                                target.description));
      }
    }
    LockedEntry entry;
    entry.package = &p;
    entry.version = std::move(*version);
    for (const auto& w : p.wheels) {
      auto f = file_of(p, w, lock_dir);
      if (!f) return fail(f.error());
      entry.files.push_back(std::move(*f));
    }
    entries.push_back(std::move(entry));
  }

  std::vector<markers::Requirement> roots;
  if (!lock.requirements.empty()) {
    for (const auto& text : lock.requirements) {
      auto r = markers::Requirement::parse(text);
      if (!r) return fail(r.error().with_context(fmt::format("{}: [tool.vwheel] requirements", kSource)));
      roots.push_back(std::move(*r));
    }
  } else {
    roots = roots_of(projects);
  }
  for (const auto& r : roots) {
    auto applies = r.applies_to(base);
    if (!applies) return fail(applies.error().with_context(fmt::format("{}: requirement `{}`", kSource, r.to_string())));
    if (!*applies) continue;
    auto it = projects.find(wheel_name::canonicalize_name(r.name));
    const bool found = it != projects.end() && std::any_of(it->second.begin(), it->second.end(), [&](const auto& e) {
                         return r.specifier.contains(e.version, true);
                       });
    if (!found) {
      return fail(fmt::format("{}: `{}` (required by root) is not in the lock; run vwheel lock again", kSource,
                              r.to_string()));
    }
  }

  // Sync walks the lock's graph with the resolver: from the roots, each project's version is one
  // the lock holds, its wheel is chosen for the target, and its requirements (evaluated with that
  // wheel's variant) lead to the locked versions that satisfy them.
  LockProvider provider(projects, target);
  resolve::Options options;
  options.pre = true;
  auto resolution = resolve::resolve(provider, roots, {}, base, options);
  if (!resolution) {
    if (!provider.missing().empty()) return fail(provider.missing().front());
    // A project whose only locked version has no wheel for the target: say why.
    for (const auto& r : roots) {
      auto it = projects.find(wheel_name::canonicalize_name(r.name));
      if (it == projects.end()) continue;
      for (const auto& e : it->second) {
        if (e.chosen && !e.choice && e.files.empty()) return fail(without_wheels(lock, *e.package));
        if (e.chosen && !e.choice) {
          return fail(fmt::format("{}: package `{}` {}: no listed wheel fits {}: {}", kSource, it->first,
                                  e.package->version, target.description, e.reason));
        }
      }
    }
    // A dependency none of whose locked versions can be installed because it has no wheels.
    for (const auto& [name, entries] : projects) {
      if (std::any_of(entries.begin(), entries.end(), [](const auto& e) { return e.choice.has_value(); })) continue;
      for (const auto& e : entries) {
        if (e.chosen && e.files.empty()) return fail(without_wheels(lock, *e.package));
      }
    }
    return fail(resolution.error().with_context(kSource));
  }

  for (const auto& pin : resolution->pins) {
    auto* entry = provider.find(pin.name, pin.version);
    if (!entry || !entry->choice) return fail(fmt::format("{}: package `{}`: no wheel chosen", kSource, pin.name));
    const auto& c = *entry->choice;
    if (entry->package->requires_python) {
      auto ok = target.check_requires_python(*entry->package->requires_python,
                                             fmt::format("{}: package `{}` {}", kSource, pin.name, entry->package->version));
      if (!ok) return fail(ok.error());
    }
    Selected s;
    s.name = pin.name;
    s.version = entry->package->version;
    s.wheel = *c.wheel;
    s.label = c.label;
    s.properties = detail::property_strings(c.properties);
    s.why = c.why;
    s.other_variants = c.others;
    s.requested = pin.requested;
    s.required_by = pin.required_by;
    s.extras = pin.extras;
    s.requires_dist = entry->requirements;
    s.environment = c.environment;
    s.explain = c.explain;
    if (c.label) {
      s.variants_json_location =
          fmt::format("{} packages[{}].variants-json", lock_file.string(), entry->package - lock.packages.data());
    }
    if (auto sha = s.wheel.sha256()) s.allowed_sha256.push_back(*sha);
    s.listed_at = fmt::format("{} packages[{}].wheels[{}]", lock_file.string(), entry->package - lock.packages.data(),
                              c.wheel - entry->files.data());
    plan.packages.push_back(std::move(s));
  }
  if (auto ok = detail::check_complete(plan, "which the lock does not contain: run vwheel lock again"); !ok) {
    return fail(ok.error());
  }
  // An exact sync of an empty plan uninstalls everything: from a lock with packages, that is never
  // what was meant, and is refused with the reason.
  if (plan.packages.empty() && !lock.packages.empty()) {
    return fail(fmt::format("{}: none of the lock's {} package{} applies to {}: {}; refusing to empty the environment",
                            kSource, lock.packages.size(), lock.packages.size() == 1 ? "" : "s", target.description,
                            projects.empty() ? "every package's `marker` is false there"
                                             : "no `[tool.vwheel] requirements` applies there"));
  }
  return plan;
}

}  // namespace vwheel::plan
