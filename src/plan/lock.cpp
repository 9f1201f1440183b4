#include <algorithm>
#include <deque>
#include <optional>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "choose.hpp"
#include "client_for.hpp"
#include "finder_options.hpp"
#include "index_provider.hpp"
#include "local_provider.hpp"
#include "lock_hashes.hpp"
#include "lock_markers.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/metadata/document.hpp"
#include "vwheel/metadata/merge.hpp"
#include "vwheel/plan/plan.hpp"
#include "vwheel/resolve/resolver.hpp"
#include "vwheel/simple/core_metadata.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::plan {
namespace fs = std::filesystem;
using detail::IndexProvider;
using detail::kPython;
using detail::pinned_versions;
using detail::finder_loader;
using detail::environment_marker;
using detail::lock_universe;
using detail::marker_and;
using detail::marker_or;

namespace {

using Node = std::pair<std::string, std::string>;  // canonical name, normalized version

/// More forks than any real graph needs: a guard against a combinatorial explosion.
constexpr std::size_t kMaxForks = 512;

std::string normalized_version(const std::string& version) {
  auto v = pep440::Version::parse(version);
  return v ? v->to_string() : version;
}

/// Children of `fork` when the root requirements' markers differ between its environments.
Result<std::vector<IndexProvider::Fork>> split_roots(const std::vector<markers::Requirement>& roots,
                                                    const std::vector<markers::Environment>& environments,
                                                    const IndexProvider::Fork& fork) {
  std::vector<std::pair<std::vector<bool>, std::vector<std::size_t>>> parts;
  for (auto e : fork.environments) {
    std::vector<bool> sig;
    for (const auto& r : roots) {
      auto env = environments[e];
      env.variables.insert_or_assign("extra", "");
      auto v = r.applies_to(env);
      if (!v) return fail(v.error().with_context(fmt::format("requirement `{}`", r.to_string())));
      sig.push_back(*v);
    }
    auto it = std::find_if(parts.begin(), parts.end(), [&](const auto& p) { return p.first == sig; });
    if (it == parts.end()) {
      parts.push_back({sig, {e}});
    } else {
      it->second.push_back(e);
    }
  }
  std::vector<IndexProvider::Fork> out;
  if (parts.size() < 2) return out;
  for (const auto& [sig, members] : parts) {
    auto child = fork;
    child.environments = members;
    const auto& env = environments[members.front()];
    child.description.push_back(fmt::format("requirements for environments like {} Python {}",
                                            env.variables.at("sys_platform"), env.variables.at("python_version")));
    out.push_back(std::move(child));
  }
  return out;
}

/// The condition of an edge from a package to `dep` `version`, from the Requires-Dist of its
/// wheels (file name -> lines): the markers of the requirements that admit that version, as
/// written (variant markers included: PEP 825 evaluates them against the wheel selected for the
/// package). Where the wheels' requirements differ, each alternative is qualified with the labels
/// of the wheels that have it (`variant_label == ""` for non-variant wheels). nullopt: always.
std::optional<std::string> edge_marker(const std::map<std::string, std::vector<std::string>>& per_wheel,
                                       const std::string& dep, const std::string& version) {
  std::map<std::vector<std::string>, std::set<std::string>> lists;  // Requires-Dist -> labels of its wheels
  for (const auto& [file, requires_dist] : per_wheel) {
    auto parsed = wheel_name::parse_wheel_name(file);
    lists[requires_dist].insert(parsed && parsed->label ? *parsed->label : "");
  }
  auto any_of = [](const std::vector<std::string>& conditions) {
    if (conditions.size() == 1) return conditions.front();
    std::vector<std::string> wrapped;
    for (const auto& c : conditions) wrapped.push_back("(" + c + ")");
    return fmt::format("{}", fmt::join(wrapped, " or "));
  };
  // Each distinct Requires-Dist's condition for the edge: nullopt when unconditional, "" when it
  // does not require the version at all.
  std::map<std::optional<std::string>, std::set<std::string>> by_condition;  // condition -> labels
  for (const auto& [requires_dist, labels] : lists) {
    std::vector<std::string> markers;
    bool always = false;
    for (const auto& text : requires_dist) {
      auto r = markers::Requirement::parse(text);
      if (!r || wheel_name::canonicalize_name(r->name) != dep || !r->specifier.contains(version, true)) continue;
      if (!r->marker) {
        always = true;
      } else if (auto m = r->marker->to_string(); std::find(markers.begin(), markers.end(), m) == markers.end()) {
        markers.push_back(std::move(m));
      }
    }
    std::optional<std::string> condition;
    if (!always) condition = markers.empty() ? "" : any_of(markers);
    by_condition[condition].insert(labels.begin(), labels.end());
  }
  if (by_condition.size() == 1) {
    const auto& only = by_condition.begin()->first;
    if (!only || only->empty()) return std::nullopt;
    return only;
  }
  // The wheels differ: each condition holds for the labels of the wheels that have it.
  std::vector<std::string> alternatives;
  for (const auto& [condition, labels] : by_condition) {
    if (condition && condition->empty()) continue;
    std::vector<std::string> which;
    for (const auto& l : labels) which.push_back(fmt::format("variant_label == \"{}\"", l));
    const auto label_condition = any_of(which);
    alternatives.push_back(condition ? fmt::format("({}) and ({})", *condition, label_condition) : label_condition);
  }
  if (alternatives.empty()) return std::nullopt;
  return any_of(alternatives);
}

/// Writes each entry's `dependencies`: `{name, version}` of the entries it needed, with `marker`:
/// the condition under which it needs it (evaluated against the wheel selected for the entry).
void set_dependencies(lock::Lock& lock, const std::map<Node, std::set<Node>>& edges,
                      const std::map<Node, std::string>& written,
                      const std::map<Node, std::map<std::string, std::vector<std::string>>>& wheel_deps) {
  for (auto& p : lock.packages) {
    const Node node{p.name, normalized_version(p.version)};
    auto it = edges.find(node);
    if (it == edges.end()) continue;
    const auto deps = wheel_deps.find(node);
    for (const auto& [name, version] : it->second) {
      auto w = written.find({name, version});
      if (w == written.end()) continue;
      lock::LockedDependency d{{"name", name}, {"version", w->second}};
      if (deps != wheel_deps.end()) {
        if (auto m = edge_marker(deps->second, name, version)) d["marker"] = *m;
      }
      p.dependencies.push_back(std::move(d));
    }
  }
}

/// The lock's top-level `requires-python`: what every environment needs, i.e. the Requires-Python
/// of the projects required unconditionally by the roots (each of them in every environment), joined
/// (an intersection). A root project locked at versions whose Requires-Python differ adds nothing:
/// no one specifier holds for all of them. nullopt where none say anything.
std::optional<std::string> lock_requires_python(const Requirements& requirements, const lock::Lock& lock) {
  std::vector<std::string> parts;
  for (const auto& r : requirements.roots) {
    if (r.marker) continue;
    const auto name = wheel_name::canonicalize_name(r.name);
    std::set<std::optional<std::string>> specs;
    for (const auto& p : lock.packages) {
      if (p.name == name) specs.insert(p.requires_python);
    }
    if (specs.size() != 1 || !*specs.begin()) continue;
    auto spec = pep440::SpecifierSet::parse(**specs.begin());
    if (!spec) continue;
    for (const auto& one : spec->specifiers()) {
      auto text = one.to_string();
      if (std::find(parts.begin(), parts.end(), text) == parts.end()) parts.push_back(std::move(text));
    }
  }
  if (parts.empty()) return std::nullopt;
  std::sort(parts.begin(), parts.end());
  return fmt::format("{}", fmt::join(parts, ", "));
}


/// The PEP 751 marker term of a root's origin.
std::string origin_term(const RootOrigin& origin) {
  switch (origin.kind) {
    case RootOrigin::Kind::extra:
      return fmt::format("\"{}\" in extras", origin.name);
    case RootOrigin::Kind::group:
      return fmt::format("\"{}\" in dependency_groups", origin.name);
    case RootOrigin::Kind::dependencies:
      break;
  }
  return fmt::format("\"{}\" in dependency_groups", kDefaultGroup);
}

/// The origin terms (origin_term) that reach each pin of one fork's resolution: a pin the roots
/// name gets the origins of the roots that name it and apply in the fork (`environment`, one of
/// its environments: the roots' markers agree in all of them, split_roots made sure), and what a
/// pin requires gets at least its requirer's origins. Empty sets without origins (plain
/// requirements).
Result<std::map<std::string, std::set<std::string>>> pin_origins(const Requirements& requirements,
                                                                 const std::vector<resolve::Pin>& pins,
                                                                 markers::Environment environment) {
  std::map<std::string, std::set<std::string>> out;
  if (requirements.origins.empty()) return out;
  environment.variables.insert_or_assign("extra", "");
  for (std::size_t i = 0; i < requirements.roots.size() && i < requirements.origins.size(); ++i) {
    const auto& r = requirements.roots[i];
    auto applies = r.applies_to(environment);
    if (!applies) return fail(applies.error().with_context(fmt::format("requirement `{}`", r.to_string())));
    if (*applies) out[wheel_name::canonicalize_name(r.name)].insert(origin_term(requirements.origins[i]));
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& pin : pins) {
      for (const auto& by : pin.required_by) {
        auto eq = by.find("==");
        if (eq == std::string::npos) continue;
        auto parent = out.find(by.substr(0, eq));
        if (parent == out.end()) continue;
        auto& mine = out[pin.name];
        const auto before = mine.size();
        mine.insert(parent->second.begin(), parent->second.end());
        changed = changed || mine.size() != before;
      }
    }
  }
  return out;
}

/// Where one locked (name, version) is needed: the universe's environments of the forks that
/// pinned it, per origin term (one key, "", without origins), and those forks.
struct Needed {
  std::map<std::string, std::vector<bool>> environments;
  std::vector<std::size_t> forks;
};

/// The entry's `marker`: each origin's term with the environments it needs the entry in (origins
/// needing it in the same environments share one), nullopt where it holds everywhere.
Result<std::optional<std::string>> entry_marker(const std::vector<markers::Environment>& universe, const Needed& needed) {
  std::map<std::vector<bool>, std::vector<std::string>> by_environments;
  for (const auto& [origin, members] : needed.environments) by_environments[members].push_back(origin);
  std::vector<std::string> terms;
  for (const auto& [members, origins] : by_environments) {
    auto m = environment_marker(universe, members);
    if (!m) return fail(m.error());
    std::vector<std::string> named;
    for (const auto& o : origins) {
      if (!o.empty()) named.push_back(o);
    }
    const auto origin = named.empty() ? std::string() : marker_or(named);
    if (origin.empty() && !*m) return std::nullopt;
    terms.push_back(marker_and(origin, m->value_or("")));
  }
  if (terms.empty()) return std::nullopt;
  return marker_or(terms);
}

/// Two entries of one name must not both apply in one environment of the universe, except where
/// they come from variant forks (PEP 825: a variant of another package pins each, and the variant
/// selected at install time tells them apart). A fork shares environments with another only when
/// they follow different wheel kinds of some version; two forks that share one and follow the
/// same kinds mean the markers would make an installer see two candidates: a bug, said loudly.
Result<void> check_overlaps(const std::map<Node, Needed>& needed, const std::vector<IndexProvider::Fork>& forks) {
  for (auto a = needed.begin(); a != needed.end(); ++a) {
    for (auto b = std::next(a); b != needed.end() && b->first.first == a->first.first; ++b) {
      for (auto fa : a->second.forks) {
        for (auto fb : b->second.forks) {
          const auto& ea = forks[fa].environments;
          const auto& eb = forks[fb].environments;
          const bool overlap = std::any_of(ea.begin(), ea.end(), [&](std::size_t e) {
            return std::find(eb.begin(), eb.end(), e) != eb.end();
          });
          if (overlap && forks[fa].kinds == forks[fb].kinds) {
            return fail(fmt::format("internal error: the lock entries {} {} and {} {} both apply in one environment "
                                    "without being variant forks",
                                    a->first.first, a->first.second, b->first.first, b->first.second));
          }
        }
      }
    }
  }
  return {};
}
}  // namespace

/// A local source's wheel stands for one set of requirements in the whole fork (LocalProvider
/// evaluates them in one environment): a Requires-Dist whose marker differs between the fork's
/// environments would be locked for some of them only, so it is refused.
Result<void> check_local_markers(const std::vector<LocalWheel>& wheels,
                                 const std::vector<markers::Environment>& environments,
                                 const IndexProvider::Fork& fork) {
  for (const auto& w : wheels) {
    auto reqs = simple::parse_requires_dist(w.metadata, w.path.filename().string());
    if (!reqs) return fail(reqs.error());
    for (const auto& r : *reqs) {
      if (!r.marker) continue;
      std::optional<bool> first;
      for (auto e : fork.environments) {
        auto applies = r.marker->evaluate(environments[e]);
        if (!applies) return fail(applies.error().with_context(w.metadata.name));
        if (first && *first != *applies) {
          return fail(
              fmt::format("{}: Requires-Dist `{}` depends on the environment; a universal lock of a local "
                          "source needs its requirements alike everywhere (give --target)",
                          w.metadata.name, r.to_string()));
        }
        first = *applies;
      }
    }
  }
  return {};
}

Result<lock::Lock> make_lock(const Requirements& requirements, const Settings& settings,
                             const selection::Selection& universal, const std::vector<selection::Selection>& targets,
                             bool quiet, HeadStart* head) {
  std::optional<http::Client> own_client;
  auto made = detail::client_for(head, settings, own_client);
  if (!made) return fail(made.error());
  http::Client* client = *made;
  lock::Lock out;
  // Wheels from HTTP servers that give no sha256 for them: hashed once the lock is complete.
  std::vector<detail::Hashless> hashless;
  std::set<std::string> hashless_urls;
  // The resolutions' HEAD answers about such wheels (finder::Finder::head_answers): not asked twice.
  std::map<std::string, http::Response, std::less<>> answered;
  auto finish = [&]() -> Result<lock::Lock> {
    if (hashless.empty()) return std::move(out);
    auto digests = detail::hash_hashless(hashless, settings, *client, answered, quiet);
    if (!digests) return fail(digests.error());
    auto add_digest = [&](lock::LockedFile& w) {
      auto d = w.url ? digests->find(*w.url) : digests->end();
      if (d == digests->end() || w.hashes.contains("sha256")) return;
      w.hashes["sha256"] = d->second.sha256;
      w.size = d->second.size;
    };
    for (auto& p : out.packages) {
      for (auto& w : p.wheels) add_digest(w);
      if (p.sdist) add_digest(*p.sdist);
    }
    return std::move(out);
  };
  for (const auto& r : requirements.roots) out.requirements.push_back(r.to_string());

  auto locked_file = [&](const finder::File& f) -> Result<lock::LockedWheel> {
    lock::LockedWheel w;
    w.name = f.filename;
    if (f.path) {
      w.path = fs::absolute(*f.path).string();
      // Streamed through a bounded buffer: a 2 GB wheel must not cost 2 GB of memory.
      auto digest = sha256_file(*f.path);
      if (!digest) return fail(digest.error());
      w.hashes["sha256"] = std::move(digest->sha256);
      w.size = digest->size;
    } else {
      w.url = f.url;
      w.hashes = f.hashes;
      w.size = f.size;
      w.upload_time = f.upload_time;
      if (!f.sha256()) {
        if (!ascii_istarts_with(f.url, "http://") && !ascii_istarts_with(f.url, "https://")) {
          return fail(fmt::format("{}: the index gives no sha256 for it; a lock needs one", f.url));
        }
        if (hashless_urls.insert(f.url).second) hashless.push_back({f.url, f.filename, f.size});
      }
    }
    return w;
  };
  auto add_package = [&](const std::string& name, const std::string& version,
                         const std::vector<const finder::File*>& wheels,
                         const std::optional<variant::VariantMetadata>& md,
                         const std::vector<std::string>& requires_dist, const std::vector<std::string>& extras,
                         const finder::Source& source, const std::map<std::string, std::vector<std::string>>& per_wheel,
                         const std::optional<std::string>& requires_python, const finder::File* sdist) -> Result<void> {
    lock::LockedPackage p;
    p.name = name;
    p.version = version;
    p.requires_python = requires_python;
    if (source.kind == finder::Source::Kind::index) p.index = source.location;
    std::vector<std::string> labels;
    for (const auto* f : wheels) {
      auto w = locked_file(*f);
      if (!w) return fail(w.error());
      p.wheels.push_back(std::move(*w));
      if (f->wheel->label) labels.push_back(*f->wheel->label);
    }
    std::sort(p.wheels.begin(), p.wheels.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    // The version's sdist beside its wheels (as uv and pdm write it): what an installer builds
    // where no wheel fits (PEP 751), hashed as the wheels are.
    if (sdist) {
      auto s = locked_file(*sdist);
      if (!s) return fail(s.error());
      p.sdist = std::move(*s);
    }
    if (md && !labels.empty()) p.variants_json = lock::prune_variants_json(*md, labels);
    p.requires_dist = requires_dist;
    for (const auto& entry : per_wheel) {
      const auto& file = entry.first;
      if (entry.second != requires_dist &&
          std::any_of(p.wheels.begin(), p.wheels.end(), [&](const auto& w) { return w.name == file; })) {
        p.wheel_requires_dist[file] = entry.second;
      }
    }
    p.extras = extras;
    out.packages.push_back(std::move(p));
    return {};
  };

  // Dependency edges (PEP 751 `packages.dependencies`): (name, version as resolved) -> the
  // (name, version) entries it needed in some fork or target.
  std::map<Node, std::set<Node>> edges;
  std::map<Node, std::string> written;  // (name, version as resolved) -> the entry's version
  std::map<Node, std::map<std::string, std::vector<std::string>>> wheel_deps;  // entry -> wheel -> Requires-Dist
  auto add_edges = [&](const std::string& name, const std::string& version, const std::vector<std::string>& required_by) {
    for (const auto& by : required_by) {
      auto eq = by.find("==");
      if (eq == std::string::npos) continue;  // "root"
      edges[{by.substr(0, eq), by.substr(eq + 2)}].insert({name, version});
    }
  };

  if (targets.empty()) {
    std::optional<finder::Finder> fresh;
    auto& finder = head ? head->finder() : fresh.emplace(*client, settings.sources, detail::finder_options(settings));
    const auto pinned = pinned_versions(requirements);
    IndexProvider provider(finder, universal, pinned, true);
    if (settings.sdist_metadata) {
      provider.set_sdists(&settings.formats, &settings.sdist_metadata, &settings.sdist_prefetch);
    }
    // Each resolved fork's pins are preferred by the forks after it (with an existing lock's
    // versions): a dependency two forks both allow is locked at one version, not at the newest
    // each fork happens to reach first. On the torch-shaped graph of test_lock_forks.py this costs
    // nothing measurable (test_lock_forks.py's lock holds the same entries either way: its forks
    // split on variant kinds and markers, not on versions) and, where forks could reach different
    // versions, keeps the lock at one entry per name outside the variant forks.
    auto preferred = settings.preferred;
    provider.set_preferred(&preferred);
    resolve::Options options;
    options.pre = settings.pre;
    options.no_deps = settings.no_deps;
    const auto environments = lock_universe(universal.marker_environment(), requirements.requires_python);
    if (environments.empty()) {
      return fail(fmt::format("requires-python `{}` excludes every Python the lock could cover (3.9 to 3.15)",
                              requirements.requires_python->to_string()));
    }
    std::vector<IndexProvider::Fork> resolved;  // the forks that resolved
    std::map<Node, Needed> needed;
    std::deque<IndexProvider::Fork> queue;
    queue.push_back({});
    for (std::size_t i = 0; i < environments.size(); ++i) queue.front().environments.push_back(i);
    // Every (name, version) any fork needs, with the extras asked of it.
    std::map<Node, std::pair<pep440::Version, std::set<std::string>>> locked;
    std::size_t forks = 0;
    while (!queue.empty()) {
      auto fork = std::move(queue.front());
      queue.pop_front();
      if (++forks > kMaxForks) {
        return fail(fmt::format("the lock needs more than {} forks (variants and environments whose requirements differ)",
                                kMaxForks));
      }
      // Root requirements whose markers differ between the fork's environments fork it too.
      auto split = split_roots(requirements.roots, environments, fork);
      if (!split) return fail(split.error());
      if (!split->empty()) {
        for (auto& child : *split) queue.push_back(std::move(child));
        continue;
      }
      if (auto ok = check_local_markers(requirements.local_wheels, environments, fork); !ok) return fail(ok.error());
      provider.set_fork(&fork, &environments);
      detail::LocalProvider with_local(provider, requirements.local_wheels, environments[fork.environments.front()]);
      auto resolution = resolve::resolve(with_local, requirements.roots, requirements.constraints,
                                         environments[fork.environments.front()], options);
      if (!resolution) {
        auto children = provider.take_split();
        if (!children.empty()) {
          for (auto& child : children) queue.push_back(std::move(child));
          continue;
        }
        auto e = resolution.error();
        if (!fork.description.empty()) e = e.with_context(fmt::format("fork {}", fmt::join(fork.description, "; ")));
        return fail(std::move(e));
      }
      const auto fork_index = resolved.size();
      resolved.push_back(fork);
      auto origins = pin_origins(requirements, resolution->pins, environments[fork.environments.front()]);
      if (!origins) return fail(origins.error());
      for (const auto& pin : resolution->pins) {
        if (pin.name == kPython) continue;
        preferred[pin.name].insert(pin.version.to_string());
        auto& need = needed[Node{pin.name, pin.version.to_string()}];
        need.forks.push_back(fork_index);
        std::set<std::string> terms{""};
        if (!requirements.origins.empty()) terms = (*origins)[pin.name];
        for (const auto& term : terms) {
          auto& members = need.environments.try_emplace(term, environments.size(), false).first->second;
          for (auto e : fork.environments) members[e] = true;
        }
        auto& entry = locked.try_emplace({pin.name, pin.version.to_string()}, pin.version, std::set<std::string>{})
                          .first->second;
        entry.second.insert(pin.extras.begin(), pin.extras.end());
        add_edges(pin.name, pin.version.to_string(), pin.required_by);
      }
    }
    if (auto ok = check_overlaps(needed, resolved); !ok) return fail(ok.error());
    auto load = finder_loader(finder);
    const finder::Source no_index{finder::Source::Kind::find_links, ""};
    for (const auto& [node, entry] : locked) {
      const auto& [name, version_text] = node;
      // A local source's wheel: the entry api turns into its `directory`, `archive` or `vcs`.
      // (The name by a plain reference: clang 14 cannot capture a structured binding.)
      const std::string& project = node.first;
      const auto local =
          std::find_if(requirements.local_wheels.begin(), requirements.local_wheels.end(),
                       [&](const LocalWheel& w) { return wheel_name::canonicalize_name(w.metadata.name) == project; });
      if (local != requirements.local_wheels.end()) {
        const std::vector<std::string> extras(entry.second.begin(), entry.second.end());
        if (auto ok = add_package(name, local->metadata.version, {}, std::nullopt, local->metadata.requires_dist,
                                  extras, no_index, {}, local->metadata.requires_python, nullptr);
            !ok) {
          return fail(ok.error());
        }
        auto marker = entry_marker(environments, needed[node]);
        if (!marker) return fail(marker.error().with_context(fmt::format("{} {}", name, version_text)));
        out.packages.back().marker = std::move(*marker);
        written[node] = local->metadata.version;
        wheel_deps[node][local->path.filename().string()] = local->metadata.requires_dist;
        continue;
      }
      const auto& files = provider.files_of(name, entry.first);
      // One source per package: the first that has wheels of the version.
      std::optional<std::size_t> source;
      for (const auto* f : files) {
        if (f->is_wheel() && (!source || f->source < *source)) source = f->source;
      }
      // A version without usable wheels was resolved through its sdist: the entry has only that.
      const auto* built = provider.sdist_of(name, entry.first);
      if (!source && built) source = built->source;
      if (!source) continue;
      std::vector<const finder::File*> wheels, variant_wheels;
      const finder::File* variants_json = nullptr;
      for (const auto* f : files) {
        if (f->source != *source) continue;
        if (!f->is_wheel()) {
          variants_json = f;
          continue;
        }
        if (f->yanked || !detail::python_fits(*f, universal)) continue;
        if (f->wheel->is_variant() && universal.no_variants) continue;
        wheels.push_back(f);
        if (f->wheel->is_variant()) variant_wheels.push_back(f);
      }
      // Wheels none of the entry's environments can install are left out (their tags say so); an
      // entry keeps all its wheels rather than none.
      {
        std::vector<bool> members(environments.size(), false);
        for (const auto& [origin, set] : needed[node].environments) {
          for (std::size_t e = 0; e < set.size(); ++e) members[e] = members[e] || set[e];
        }
        auto usable = [&](const finder::File* f) {
          for (std::size_t e = 0; e < environments.size(); ++e) {
            if (members[e] && detail::wheel_may_fit(*f->wheel, environments[e])) return true;
          }
          return false;
        };
        if (std::any_of(wheels.begin(), wheels.end(), usable)) {
          std::erase_if(wheels, [&](const finder::File* f) { return !usable(f); });
          std::erase_if(variant_wheels, [&](const finder::File* f) { return !usable(f); });
        }
      }
      std::optional<variant::VariantMetadata> md;
      if (!variant_wheels.empty()) {
        std::vector<std::string> notes;
        auto m = load(variants_json, variant_wheels, notes);
        if (!m) return fail(m.error());
        md = std::move(*m);
      }
      std::string version = wheels.empty() ? version_text : wheels.front()->wheel->version;
      const std::vector<std::string> extras(entry.second.begin(), entry.second.end());
      const finder::File* sdist = wheels.empty() ? built : nullptr;
      for (const auto& f : finder.sdists(name)) {
        if (sdist) break;
        if (f.source == *source && f.version == entry.first && !f.yanked) sdist = &f;
      }
      if (auto ok = add_package(name, version, wheels, md, provider.requires_dist_of(name, version_text), extras,
                                settings.sources[*source], provider.wheel_requires_dist_of(name, version_text),
                                provider.requires_python_of(name, version_text), sdist);
          !ok) {
        return fail(ok.error());
      }
      auto marker = entry_marker(environments, needed[node]);
      if (!marker) return fail(marker.error().with_context(fmt::format("{} {}", name, version)));
      out.packages.back().marker = std::move(*marker);
      written[node] = version;
      auto& per_wheel = wheel_deps[node];
      for (const auto* f : wheels) {
        const auto& own = provider.wheel_requires_dist_of(name, version_text);
        auto r = own.find(f->filename);
        per_wheel[f->filename] = r != own.end() ? r->second : provider.requires_dist_of(name, version_text);
      }
      // (An sdist's name is no wheel's: its edges' markers are a plain wheel's.)
      if (wheels.empty() && sdist) per_wheel[sdist->filename] = provider.requires_dist_of(name, version_text);
    }
    set_dependencies(out, edges, written, wheel_deps);
    out.requires_python = requirements.requires_python ? requirements.requires_python->to_string()
                                                       : lock_requires_python(requirements, out);
    for (const auto& [url, answer] : finder.head_answers()) {
      if (answer) answered.emplace(url, *answer);
    }
    return finish();
  }

  // One plan per target; the lock lists the union (several versions of a project where the
  // targets resolve it differently).
  std::map<Node, Selected> merged;
  std::map<Node, std::map<std::string, std::vector<std::string>>> chosen_deps;  // entry -> wheel -> deps
  std::map<Node, std::set<std::string>> wanted;  // entry -> wheel file names some target can use
  for (const auto& t : targets) {
    auto plan = resolve_plan(requirements, settings, t, std::exchange(head, nullptr));
    if (!plan) return fail(plan.error().with_context(t.description));
    answered.insert(plan->head_answers.begin(), plan->head_answers.end());
    for (auto& s : plan->packages) {
      const Node node{s.name, normalized_version(s.version)};
      add_edges(s.name, node.second, s.required_by);
      auto& files = wanted[node];
      for (const auto& w : s.all_wheels) {
        if (!t.tag_rank(*w.wheel) || !detail::python_fits(w, t)) continue;
        if (w.wheel->label && std::find(s.compatible_labels.begin(), s.compatible_labels.end(), *w.wheel->label) ==
                                  s.compatible_labels.end()) {
          continue;
        }
        files.insert(w.filename);
      }
      chosen_deps[node][s.wheel.filename] = s.requires_dist;
      auto [it, inserted] = merged.emplace(node, s);
      if (!inserted && !it->second.label && s.label) {
        // The default Requires-Dist of the lock entry is a variant wheel's when one was chosen.
        it->second.requires_dist = s.requires_dist;
        it->second.label = s.label;
      }
      if (!inserted && !it->second.variants_json && s.variants_json) it->second.variants_json = s.variants_json;
      if (!inserted) {
        for (const auto& e : s.extras) {
          if (std::find(it->second.extras.begin(), it->second.extras.end(), e) == it->second.extras.end()) {
            it->second.extras.push_back(e);
          }
        }
      }
    }
  }
  const finder::Source no_index{finder::Source::Kind::find_links, ""};  // a local source's wheel
  for (const auto& [node, s] : merged) {
    std::vector<const finder::File*> wheels;
    for (const auto& w : s.all_wheels) {
      if (wanted[node].contains(w.filename)) wheels.push_back(&w);
    }
    if (auto ok = add_package(node.first, s.version, wheels, s.variants_json, s.requires_dist, s.extras,
                              s.origin ? no_index : settings.sources[s.wheel.source], chosen_deps[node],
                              s.requires_python, s.sdist ? &*s.sdist : nullptr);
        !ok) {
      return fail(ok.error());
    }
    written[node] = s.version;
    auto& per_wheel = wheel_deps[node];
    for (const auto* w : wheels) {
      auto r = chosen_deps[node].find(w->filename);
      per_wheel[w->filename] = r != chosen_deps[node].end() ? r->second : s.requires_dist;
    }
  }
  set_dependencies(out, edges, written, wheel_deps);
  out.requires_python = lock_requires_python(requirements, out);
  // PEP 751 `environments`: the lock is for these targets' platforms and Pythons only.
  for (const auto& t : targets) {
    std::vector<std::string> parts;
    for (const char* key : {"sys_platform", "platform_machine", "python_version"}) {
      if (auto it = t.environment.find(key); it != t.environment.end()) {
        parts.push_back(fmt::format("{} == \"{}\"", key, it->second));
      }
    }
    if (parts.empty()) continue;
    auto marker = fmt::format("{}", fmt::join(parts, " and "));
    if (std::find(out.environments.begin(), out.environments.end(), marker) == out.environments.end()) {
      out.environments.push_back(std::move(marker));
    }
  }
  return finish();
}

}  // namespace vwheel::plan
