#include <algorithm>
#include <array>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "choose.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/plan/plan.hpp"
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
  /// The chosen wheel's Requires-Dist that apply (its variant, no extra): read only where some
  /// name has several applicable entries.
  std::optional<std::vector<markers::Requirement>> requirements;
  /// Names its Requires-Dist asks for only under variant markers that the chosen variant fails.
  std::set<std::string> variant_excluded;
  std::vector<std::string> requires_dist;  ///< as read
  /// Installed from this instead of a wheel: its archive, directory or vcs; its sdist when it has
  /// no wheels (set before choosing), or none of them fits (set by choose_wheel).
  std::optional<LockedSource> source;
  std::optional<LockedSource> sdist;  ///< the entry's sdist, for when no wheel fits
};

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

/// A lock path: relative ones are the lock file's directory's (PEP 751).
fs::path lock_relative(const std::string& path, const fs::path& lock_dir) {
  const fs::path p(path);
  return (p.is_absolute() ? p : lock_dir / p).lexically_normal();
}

/// What installs the entry when its `key` source is used: the source's location made absolute,
/// its checks, and the name errors give it.
LockedSource source_of(const lock::LockedPackage& p, std::size_t index, LockedSource::Kind kind,
                       const fs::path& lock_file) {
  static constexpr std::array<const char*, 4> kKeys = {"sdist", "archive", "directory", "vcs"};
  const fs::path lock_dir = lock_file.parent_path();
  LockedSource s;
  s.kind = kind;
  s.entry = fmt::format("{} packages[{}].{} ({}{}{})", lock_file.string(), index,
                        kKeys.at(static_cast<std::size_t>(kind)), p.name, p.version.empty() ? "" : " ", p.version);
  const auto locate = [&](const std::optional<std::string>& url, const std::optional<std::string>& path) {
    if (url) {
      s.url = *url;
    } else if (path) {
      s.path = lock_relative(*path, lock_dir);
    }
  };
  switch (kind) {
    case LockedSource::Kind::sdist:
      locate(p.sdist->url, p.sdist->path);
      s.size = p.sdist->size;
      s.hashes = p.sdist->hashes;
      break;
    case LockedSource::Kind::archive:
      locate(p.archive->url, p.archive->path);
      s.size = p.archive->size;
      s.hashes = p.archive->hashes;
      s.subdirectory = p.archive->subdirectory;
      break;
    case LockedSource::Kind::directory:
      s.path = lock_relative(p.directory->path, lock_dir);
      s.editable = p.directory->editable.value_or(false);
      s.subdirectory = p.directory->subdirectory;
      break;
    case LockedSource::Kind::vcs:
      // A local repository's path is the lock's directory's; a URL is the repository's.
      locate(p.vcs->url, p.vcs->path);
      s.vcs_type = p.vcs->type;
      s.commit_id = p.vcs->commit_id;
      s.requested_revision = p.vcs->requested_revision;
      s.subdirectory = p.vcs->subdirectory;
      break;
  }
  return s;
}

/// The project a lock was made for (`vwheel lock` in a project): its own `directory` entry, which
/// `vwheel sync` does not build (it installs the project's dependencies).
bool own_project(const lock::Lock& lock, const lock::LockedPackage& p) {
  return lock.project_inputs && p.directory && p.marker && p.marker->find(kDefaultGroup) != std::string::npos;
}

/// `, `-joined, or `none`.
std::string listed(const std::vector<std::string>& values) {
  return values.empty() ? std::string("none") : fmt::format("{}", fmt::join(values, ", "));
}

/// Whether `offered` (as the lock writes them) holds `name` (canonical).
bool offers(const std::vector<std::string>& offered, const std::string& name) {
  return std::any_of(offered.begin(), offered.end(),
                     [&](const std::string& o) { return wheel_name::canonicalize_name(o) == name; });
}

/// PEP 751's `extras` and `dependency_groups` marker sets for what is asked: the asked extras (all
/// of the lock's with `all_extras`); the asked groups, with the lock's `default-groups` unless
/// `no_default_groups`, or only `only_groups`. A name the lock does not offer is an input error.
Result<void> add_extras_and_groups(const lock::Lock& lock, const LockSelection& asked, markers::Environment& env) {
  for (const auto& e : asked.extras) {
    const auto name = wheel_name::canonicalize_name(e);
    if (!offers(lock.extras, name)) {
      return fail(fmt::format("{}: extra `{}` is not among the lock's `extras` ({})", kSource, e, listed(lock.extras)));
    }
    env.extras.insert(name);
  }
  if (asked.all_extras) {
    for (const auto& e : lock.extras) env.extras.insert(wheel_name::canonicalize_name(e));
  }
  // `default-groups` names synthetic groups that `dependency-groups` need not list.
  auto groups = lock.dependency_groups;
  groups.insert(groups.end(), lock.default_groups.begin(), lock.default_groups.end());
  std::vector<std::string> chosen = asked.only_groups.empty() ? asked.groups : asked.only_groups;
  for (const auto& g : chosen) {
    const auto name = wheel_name::canonicalize_name(g);
    if (!offers(groups, name)) {
      return fail(fmt::format("{}: dependency group `{}` is not among the lock's `dependency-groups` ({})", kSource, g,
                              listed(groups)));
    }
    env.dependency_groups.insert(name);
  }
  if (asked.only_groups.empty() && !asked.no_default_groups) {
    for (const auto& g : lock.default_groups) env.dependency_groups.insert(wheel_name::canonicalize_name(g));
  }
  return {};
}

/// Chooses the entry's wheel for the target (PEP 825 order, `--variant`, `--no-variants`).
Result<void> choose_wheel(const lock::Lock& lock, const std::string& name, LockedEntry& entry,
                          const selection::Selection& target) {
  const auto* package = entry.package;
  if (entry.source) return {};
  if (entry.files.empty()) {
    return fail(fmt::format("{}: packages[{}] ({} {}) has no wheels and no other source (PEP 751 wants one)", kSource,
                            package - lock.packages.data(), package->name, package->version));
  }
  detail::ChooseRequest request;
  request.name = name;
  request.version = package->version;
  for (const auto& f : entry.files) request.files.push_back(&f);
  request.no_variants = target.no_variants;
  if (const auto* forced = target.forced_label(name)) request.forced_label = *forced;
  request.allow_yanked = true;
  auto loader = [&](const finder::File*, const std::vector<const finder::File*>&,
                    std::vector<std::string>&) -> Result<variant::VariantMetadata> {
    if (!package->variants_json) {
      return fail(fmt::format("{}: package `{}` lists variant wheels but no [packages.variants-json]", kSource, name));
    }
    return *package->variants_json;
  };
  std::string reason;
  auto c = detail::choose(request, target, loader, reason);
  if (!c) return fail(c.error());
  if (!*c && entry.sdist) {  // PEP 751: no wheel fits, the sdist is built
    entry.source = entry.sdist;
    return {};
  }
  if (!*c) {
    return fail(fmt::format("{}: package `{}` {}: no listed wheel fits {}: {}", kSource, name, package->version,
                            target.description, reason));
  }
  entry.choice = std::move(**c);
  return {};
}

/// The chosen wheel's own requirements on other projects that apply where it is installed: its
/// core metadata's Requires-Dist (never the lock's `dependencies` or tool tables), evaluated with
/// the wheel's variant and no extra. Read once.
Result<void> read_requirements(const std::string& name, LockedEntry& entry, const RequiresDistReader& read) {
  if (entry.requirements) return {};
  if (!entry.choice) {  // built from a source: its requirements are known only once built
    entry.requirements.emplace();
    return {};
  }
  const auto& c = *entry.choice;
  auto texts = read(*c.wheel);
  if (!texts) return fail(texts.error());
  auto env = c.environment;
  env.variables.insert_or_assign("extra", "");
  std::vector<markers::Requirement> out;
  for (const auto& text : *texts) {
    auto r = markers::Requirement::parse(text);
    if (!r) return fail(r.error().with_context(fmt::format("{}: Requires-Dist", c.wheel->filename)));
    if (wheel_name::canonicalize_name(r->name) == name) continue;
    auto applies = r->applies_to(env);
    if (!applies) return fail(applies.error().with_context(fmt::format("{}: Requires-Dist", c.wheel->filename)));
    if (*applies) {
      out.push_back(std::move(*r));
    } else if (r->marker && r->marker->uses_variant_variables()) {
      entry.variant_excluded.insert(wheel_name::canonicalize_name(r->name));
    }
  }
  entry.requires_dist = std::move(*texts);
  entry.requirements = std::move(out);
  return {};
}

/// PEP 825's narrowing of names with several applicable entries (variants of another package pin
/// different versions; `packages.marker` cannot tell them apart): the entries whose version every
/// applicable requirement of the wheels chosen so far admits. A name left with one entry is chosen
/// and its wheel's requirements narrow the others in turn, to a fixed point. Returns the names
/// that some chosen wheel requires; an error where the requirements leave no entry.
Result<std::set<std::string>> narrow(const lock::Lock& lock, const selection::Selection& target,
                                     std::map<std::string, LockedEntry*>& chosen,
                                     std::map<std::string, std::vector<LockedEntry*>>& ambiguous,
                                     const RequiresDistReader& read) {
  std::set<std::string> named;
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = ambiguous.begin(); it != ambiguous.end();) {
      auto& [name, candidates] = *it;
      for (auto& [from_name, from] : chosen) {
        if (auto ok = read_requirements(from_name, *from, read); !ok) return fail(ok.error());
        for (const auto& r : *from->requirements) {
          if (wheel_name::canonicalize_name(r.name) != name) continue;
          named.insert(name);
          std::erase_if(candidates, [&](const LockedEntry* e) { return !r.specifier.contains(e->version, true); });
          if (candidates.empty()) {
            return fail(detail::unmet_requirement(from_name, from->package->version, from->choice->label, r,
                                                  "which the lock does not contain: run vwheel lock again"));
          }
        }
      }
      if (candidates.size() != 1) {
        ++it;
        continue;
      }
      if (auto ok = choose_wheel(lock, name, *candidates.front(), target); !ok) return fail(ok.error());
      chosen.emplace(name, candidates.front());
      it = ambiguous.erase(it);
      changed = true;
    }
  }
  return named;
}

/// Whether `from` asks for `name` under markers that hold.
bool requires_name(const LockedEntry& from, const std::string& name) {
  return std::any_of(from.requirements->begin(), from.requirements->end(),
                     [&](const markers::Requirement& r) { return wheel_name::canonicalize_name(r.name) == name; });
}

/// PEP 825 keeps variant markers out of `packages.marker`: an entry needed only under a variant
/// marker (torch's `nvidia-cudnn; variant_label == "cu128"`) applies wherever some variant needs
/// it. The condition is read where PEP 825 puts it, in the chosen wheels' Requires-Dist: an entry
/// that some chosen wheel asks for only under a variant marker its variant fails, or that only
/// entries left out ask for, and that no entry kept asks for, is left out (to a fixed point).
/// The metadata of the chosen wheels is read only when some chosen variant wheel has such a
/// requirement. Returns the names left out.
Result<std::set<std::string>> variant_only(std::map<std::string, LockedEntry*>& chosen,
                                           const RequiresDistReader& read) {
  std::set<std::string> out;
  bool any = false;
  for (auto& [name, e] : chosen) {
    if (!e->choice || !e->choice->label) continue;
    if (auto ok = read_requirements(name, *e, read); !ok) return fail(ok.error());
    any = any || !e->variant_excluded.empty();
  }
  if (!any) return out;
  for (auto& [name, e] : chosen) {
    if (auto ok = read_requirements(name, *e, read); !ok) return fail(ok.error());
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [name, e] : chosen) {
      if (out.contains(name)) continue;
      bool drop = false;
      bool keep = false;
      for (const auto& [from_name, from] : chosen) {
        if (from_name == name) continue;
        const bool asks = requires_name(*from, name);
        if (out.contains(from_name)) {
          drop = drop || asks || from->variant_excluded.contains(name);
        } else {
          drop = drop || from->variant_excluded.contains(name);
          keep = keep || asks;
        }
      }
      if (drop && !keep) {
        out.insert(name);
        changed = true;
      }
    }
  }
  return out;
}

/// The Selected of an entry installed from its source: named for messages until it is built.
Selected from_source(const std::string& name, const LockedEntry& entry) {
  const auto& source = *entry.source;
  Selected s;
  s.name = name;
  s.version = entry.package->version;
  s.requested = true;
  s.source = source;
  // Where it comes from, for --report (the built wheel takes its place).
  s.wheel.url = source.url;
  s.wheel.path = source.path;
  using Kind = LockedSource::Kind;
  const std::string where = source.url.empty() ? source.path.value_or(fs::path()).string() : redact_url(source.url);
  switch (source.kind) {
    case Kind::sdist:
      s.wheel.filename = entry.package->sdist->name;
      s.why = entry.package->wheels.empty() ? "the sdist, built" : "no listed wheel fits: the sdist, built";
      break;
    case Kind::archive:
      s.wheel.filename = where;
      s.why = "the archive";
      break;
    case Kind::directory:
      s.wheel.filename = where;
      s.why = source.editable ? "the directory, built editable" : "the directory, built";
      break;
    case Kind::vcs:
      s.wheel.filename = fmt::format("{}+{}@{}", source.vcs_type, where, source.commit_id);
      s.why = "the vcs commit, built";
      break;
  }
  return s;
}

}  // namespace

Result<Plan> plan_from_lock(const lock::Lock& lock, const fs::path& lock_file, const selection::Selection& target,
                            const LockSelection& asked, const RequiresDistReader& read_requires) {
  const fs::path lock_dir = lock_file.parent_path();
  Plan plan;
  plan.target = target.description;
  // PEP 751 "Installation", in its order. The lock-version: a newer minor is read as 1.0.
  if (lock.lock_version != "1.0") {
    plan.warnings.push_back(fmt::format("{}: lock-version `{}` is newer than the 1.0 vwheel knows; reading it as 1.0",
                                        kSource, lock.lock_version));
  }
  // The lock's requires-python and environments must admit the target.
  if (lock.requires_python) {
    if (auto ok = target.check_requires_python(*lock.requires_python, kSource); !ok) return fail(ok.error());
  }
  auto base = target.marker_environment();
  if (auto ok = add_extras_and_groups(lock, asked, base); !ok) return fail(ok.error());
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
  // Each entry whose `marker` holds (with the extras and groups asked) and whose own
  // `requires-python` admits the target applies; the entries of a project are collected by name.
  std::map<std::string, std::vector<LockedEntry>> projects;
  for (const auto& p : lock.packages) {
    const auto where = fmt::format("{}: package `{}`", kSource, p.name);
    if (p.marker) {
      auto m = markers::Marker::parse(*p.marker);
      if (!m) return fail(m.error().with_context(where + ": marker"));
      auto v = m->evaluate(base);
      if (!v) return fail(v.error().with_context(where + ": marker"));
      if (!*v) continue;
    }
    if (p.requires_python) {
      auto ok = target.check_requires_python(*p.requires_python, fmt::format("{} {}", where, p.version));
      if (!ok) return fail(ok.error());
    }
    if (own_project(lock, p)) {
      plan.warnings.push_back(fmt::format("{}: the project {} {} is a directory entry: vwheel sync installs its "
                                          "dependencies, not the project itself",
                                          kSource, p.name, p.version));
      continue;
    }
    LockedEntry entry;
    entry.package = &p;
    // A source tree may have no version (PEP 751): it is known once built.
    if (!p.version.empty() || (!p.directory && !p.vcs)) {
      auto version = pep440::Version::parse(p.version);
      if (!version) return fail(version.error().with_context(where));
      entry.version = std::move(*version);
    }
    const auto index = static_cast<std::size_t>(&p - lock.packages.data());
    using Kind = LockedSource::Kind;
    if (p.vcs) entry.source = source_of(p, index, Kind::vcs, lock_file);
    if (p.directory) entry.source = source_of(p, index, Kind::directory, lock_file);
    if (p.archive) entry.source = source_of(p, index, Kind::archive, lock_file);
    if (p.sdist) entry.sdist = source_of(p, index, Kind::sdist, lock_file);
    if (p.sdist && p.wheels.empty()) entry.source = entry.sdist;
    for (const auto& w : p.wheels) {
      auto f = file_of(p, w, lock_dir);
      if (!f) return fail(f.error());
      entry.files.push_back(std::move(*f));
    }
    projects[wheel_name::canonicalize_name(p.name)].push_back(std::move(entry));
  }

  // A name with one applicable entry is installed from it; several are narrowed (PEP 825), and
  // the core metadata is read only then.
  std::map<std::string, LockedEntry*> chosen;
  std::map<std::string, std::vector<LockedEntry*>> ambiguous;
  for (auto& [name, entries] : projects) {
    if (entries.size() == 1) {
      if (auto ok = choose_wheel(lock, name, entries.front(), target); !ok) return fail(ok.error());
      chosen.emplace(name, &entries.front());
      continue;
    }
    for (auto& e : entries) ambiguous[name].push_back(&e);
  }
  std::set<std::string> named;
  if (!ambiguous.empty() && read_requires) {
    auto n = narrow(lock, target, chosen, ambiguous, read_requires);
    if (!n) return fail(n.error());
    named = std::move(*n);
  }
  // In a lock with variant wheels, several entries of a name that no chosen wheel requires are
  // there for other variants (torch's CUDA runtime libraries on a machine without a GPU): none is
  // needed. Elsewhere, PEP 751 refuses to guess.
  const bool variant_lock =
      std::any_of(lock.packages.begin(), lock.packages.end(), [](const auto& p) { return p.variants_json.has_value(); });
  for (const auto& [name, candidates] : ambiguous) {
    if (read_requires && variant_lock && !named.contains(name)) continue;
    std::vector<std::string> versions;
    for (const auto* e : candidates) versions.push_back(e->package->version);
    return fail(fmt::format("{}: package `{}` has {} entries that apply to {} (versions {}) and nothing tells them "
                            "apart; a lock must leave at most one per name (PEP 751)",
                            kSource, name, candidates.size(), target.description, fmt::join(versions, ", ")));
  }

  std::set<std::string> left_out;
  if (read_requires && variant_lock) {
    auto v = variant_only(chosen, read_requires);
    if (!v) return fail(v.error());
    left_out = std::move(*v);
  }

  for (const auto& [name, entry] : chosen) {
    if (left_out.contains(name)) continue;
    if (entry->source) {
      plan.packages.push_back(from_source(name, *entry));
      continue;
    }
    const auto& c = *entry->choice;
    Selected s;
    s.name = name;
    s.version = entry->package->version;
    s.wheel = *c.wheel;
    s.label = c.label;
    s.properties = detail::property_strings(c.properties);
    s.why = c.why;
    s.other_variants = c.others;
    // What a lock lists is asked for, as every line of a requirements file is.
    s.requested = true;
    s.requires_dist = entry->requires_dist;
    s.environment = c.environment;
    s.explain = c.explain;
    const auto index = entry->package - lock.packages.data();
    if (c.label) s.variants_json_location = fmt::format("{} packages[{}].variants-json", lock_file.string(), index);
    if (auto sha = s.wheel.sha256()) s.allowed_sha256.push_back(*sha);
    s.listed_at = fmt::format("{} packages[{}].wheels[{}]", lock_file.string(), index, c.wheel - entry->files.data());
    plan.packages.push_back(std::move(s));
  }
  // An exact sync of an empty plan uninstalls everything: from a lock with packages and the lock's
  // own default selection, that is never what was meant, and is refused with the reason. Left out
  // on purpose (`--no-default-groups`, `--only-group`), it is what was asked.
  const bool narrowed = asked.no_default_groups || !asked.only_groups.empty();
  if (plan.packages.empty() && !lock.packages.empty() && !narrowed) {
    return fail(fmt::format("{}: none of the lock's {} package{} applies to {}: {}; refusing to empty the environment",
                            kSource, lock.packages.size(), lock.packages.size() == 1 ? "" : "s", target.description,
                            projects.empty() ? "every package's `marker` is false there"
                                             : "none of those whose `marker` holds is installed there"));
  }
  return plan;
}

}  // namespace vwheel::plan
