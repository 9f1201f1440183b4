#pragma once
// Private to the plan component: the resolver's provider over package indexes (for installs, and
// for locks with forking resolution).

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "choose.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/metadata/document.hpp"
#include "vwheel/metadata/merge.hpp"
#include "vwheel/plan/plan.hpp"
#include "vwheel/resolve/resolver.hpp"
#include "vwheel/simple/core_metadata.hpp"
#include "vwheel/wheel_name/names.hpp"


namespace vwheel::plan::detail {


/// The name under which the target's Python takes part in resolution.
constexpr std::string_view kPython = "python";

struct Key {
  std::string name;
  std::string version;
  auto operator<=>(const Key&) const = default;
};

/// Answers the resolver from the finder, choosing each version's wheel for the target (or, for
/// a universal lock, following the dependencies of every variant).
class IndexProvider final : public resolve::Provider {
 public:
  IndexProvider(finder::Finder& finder, const selection::Selection& target,
                const std::set<Key>& pinned, bool universal)
      : finder_(finder), target_(target), pinned_(pinned), universal_(universal),
        load_(finder_loader(finder)) {}

  /// Versions to try first (canonical name -> versions), newest of them first: an existing lock's,
  /// so that re-locking keeps them while they still resolve.
  void set_preferred(const std::map<std::string, std::set<std::string>>* preferred) { preferred_ = preferred; }

  Result<std::vector<pep440::Version>> versions(std::string_view name) override {
    if (name == kPython) {
      // The target's Python is a package with one version, so Requires-Python constrains it.
      const auto python = target_.python_version();
      if (!python) return std::vector<pep440::Version>{};
      auto v = pep440::Version::parse(*python);
      if (!v) return std::vector<pep440::Version>{};
      return std::vector<pep440::Version>{*v};
    }
    auto files = finder_.files(name);
    if (!files) return fail(files.error());
    std::map<pep440::Version, std::vector<const finder::File*>, std::greater<>> by_version;
    for (const auto& f : **files) by_version[f.version].push_back(&f);
    // Which versions are candidates: `yes`, `no`, or `choose` (only variant wheels fit the tags:
    // a candidate only with a compatible variant, which ranking their variant metadata tells).
    enum class Candidate { yes, no, choose };
    std::vector<Candidate> candidate;
    std::vector<const finder::File*> variants_jsons;
    for (auto& [version, list] : by_version) {
      const bool pinned = pinned_.contains({std::string(name), version.to_string()});
      bool any_plain = false, any_variant = false;
      for (const auto* f : list) {
        if (!f->is_wheel() || (f->yanked && !pinned) || !python_fits(*f, target_)) continue;
        if (!universal_ && !target_.tag_rank(*f->wheel)) continue;
        (f->wheel->is_variant() ? any_variant : any_plain) = true;
      }
      if ((universal_ && (any_plain || any_variant)) || (any_plain && !target_.forced_label(name))) {
        candidate.push_back(Candidate::yes);
      } else if (!any_variant || target_.no_variants) {
        candidate.push_back(Candidate::no);
      } else {
        candidate.push_back(Candidate::choose);
        // (A version chosen before, by prefetch_metadata, needs its file no more.)
        if (choices_.contains({std::string(name), version.to_string()})) continue;
        for (const auto* f : list) {
          if (!f->is_wheel()) variants_jsons.push_back(f);
        }
      }
    }
    // Ranking reads each such version's `*-variants.json`: all of them in one round trip.
    finder_.prefetch_texts(variants_jsons);
    std::vector<pep440::Version> out;
    std::size_t at = 0;
    for (auto& [version, list] : by_version) {
      const auto c = candidate[at++];
      if (c == Candidate::no) continue;
      if (c == Candidate::choose) {
        auto choice = choose(name, version, list);
        if (!choice) return fail(choice.error());
        if (!**choice) continue;
      }
      out.push_back(version);
    }
    files_[std::string(name)] = std::move(by_version);
    if (preferred_) {
      if (auto it = preferred_->find(std::string(name)); it != preferred_->end()) {
        std::stable_partition(out.begin(), out.end(), [&](const pep440::Version& v) { return it->second.contains(v.to_string()); });
      }
    }
    return out;
  }

  Result<resolve::Dependencies> dependencies(std::string_view name, const pep440::Version& version) override {
    if (name == kPython) return resolve::Dependencies{};
    const auto& list = files_[std::string(name)][version];
    if (universal_) return universal_dependencies(name, version, list);
    auto choice = choose(name, version, list);
    if (!choice) return fail(choice.error());
    if (!**choice) {
      return fail(fmt::format("{} {}: no installable wheel: {}", name, version.to_string(), reasons_[{std::string(name), version.to_string()}]));
    }
    const auto& c = ***choice;
    auto md = metadata_of(*c.wheel);
    if (!md) return fail(md.error());
    resolve::Dependencies deps;
    auto reqs = simple::parse_requires_dist(*md, c.wheel->filename);
    if (!reqs) return fail(reqs.error());
    deps.requires_dist = std::move(*reqs);
    if (auto python = python_requirement(*md)) deps.requires_dist.push_back(std::move(*python));
    deps.environment = c.environment;
    deps.provides_extra = md->provides_extra;
    requires_dist_[{std::string(name), version.to_string()}] = md->requires_dist;
    requires_python_[{std::string(name), version.to_string()}] = md->requires_python;
    // The resolver asks for these projects next: fetch their pages (and likely metadata) together.
    std::vector<std::string> next;
    for (const auto& r : deps.requires_dist) {
      if (r.name != kPython) next.push_back(r.name);
    }
    finder_.prefetch(next);
    prefetch_metadata(deps.requires_dist, deps.environment);
    return deps;
  }

  /// The metadata the resolver most likely reads next, read together (one round trip, not one
  /// each): for each of `requirements` that holds in `environment` (without extras), the wheel
  /// chosen for the target of the newest version that satisfies it. Torch's wheels pin a version
  /// of each of fifteen CUDA runtimes, mostly not their newest; read one by one, their metadata
  /// took 20 round trips of bench/find_links_latency.sh's install. A guess that misses costs a
  /// request, not a result: the resolver still asks for what it needs. Not for universal locks
  /// (universal_dependencies reads each version's kinds together).
  void prefetch_metadata(const std::vector<markers::Requirement>& requirements, markers::Environment environment) {
    if (universal_) return;
    environment.variables.insert_or_assign("extra", "");
    std::vector<std::pair<std::string, const Versions*>> likely;
    std::vector<const finder::File*> texts;  // the `*-variants.json` that choosing them reads
    for (const auto& r : requirements) {
      if (r.name == kPython || !r.url.empty()) continue;
      if (auto holds = r.applies_to(environment); !holds || !*holds) continue;
      const auto* version = newest_satisfying(r);
      if (!version) continue;
      auto name = wheel_name::canonicalize_name(r.name);
      if (!choices_.contains({name, version->first.to_string()})) {
        for (const auto* f : version->second) {
          if (!f->is_wheel()) texts.push_back(f);
        }
      }
      likely.emplace_back(std::move(name), version);
    }
    finder_.prefetch_texts(texts);
    std::vector<const finder::File*> wheels;
    for (const auto& [name, version] : likely) {
      auto choice = choose(name, version->first, version->second);
      if (choice && **choice) wheels.push_back((***choice).wheel);
    }
    finder_.prefetch_metadata(wheels);
  }

  /// The choice made for a version (after dependencies() asked for it).
  const Choice* choice_of(const std::string& name, const std::string& version) const {
    auto it = choices_.find({name, version});
    if (it == choices_.end() || !it->second) return nullptr;
    return &*it->second;
  }
  const std::vector<std::string>& requires_dist_of(const std::string& name, const std::string& version) {
    return requires_dist_[{name, version}];
  }
  /// Requires-Python of the version's wheel whose metadata was read (nullopt: none given).
  std::optional<std::string> requires_python_of(const std::string& name, const std::string& version) const {
    auto it = requires_python_.find({name, version});
    return it == requires_python_.end() ? std::nullopt : it->second;
  }
  /// The core metadata read for a wheel while resolving, if any.
  const simple::CoreMetadata* metadata_read(const finder::File& wheel) const {
    auto it = metadata_.find(wheel.location());
    return it == metadata_.end() ? nullptr : &it->second;
  }
  const std::vector<const finder::File*>& files_of(const std::string& name, const pep440::Version& version) {
    return files_[name][version];
  }

 private:
  Result<std::optional<Choice>*> choose(std::string_view name, const pep440::Version& version,
                                        const std::vector<const finder::File*>& list) {
    Key key{std::string(name), version.to_string()};
    if (auto it = choices_.find(key); it != choices_.end()) return &it->second;
    ChooseRequest request;
    request.name = key.name;
    request.version = key.version;
    request.files = list;
    request.source_count = finder_.sources().size();
    request.no_variants = target_.no_variants;
    if (const auto* forced = target_.forced_label(key.name)) {
      request.forced_label = *forced;
    }
    request.allow_yanked = pinned_.contains(key);
    std::string reason;
    auto c = detail::choose(request, target_, load_, reason);
    if (!c) return fail(c.error());
    reasons_[key] = reason;
    return &choices_.emplace(key, std::move(*c)).first->second;
  }

  using Versions = std::pair<const pep440::Version, std::vector<const finder::File*>>;

  /// The files of the newest version of `r`'s project that `r` allows (an existing lock's
  /// preferred version first), or nullptr. Looks the project up (prefetched just before).
  const Versions* newest_satisfying(const markers::Requirement& r) {
    const auto name = wheel_name::canonicalize_name(r.name);
    auto files = finder_.files(name);
    if (!files) return nullptr;
    auto& by_version = likely_[name];
    if (by_version.empty()) {
      for (const auto& f : **files) by_version[f.version].push_back(&f);
    }
    const std::set<std::string>* preferred = nullptr;
    if (preferred_) {
      if (auto it = preferred_->find(name); it != preferred_->end()) preferred = &it->second;
    }
    const Versions* newest = nullptr;
    for (const auto& entry : by_version) {
      if (!r.specifier.contains(entry.first)) continue;
      if (!preferred || preferred->contains(entry.first.to_string())) return &entry;
      if (!newest) newest = &entry;
    }
    return newest;
  }

  /// Requires-Python as a requirement on the `python` pseudo-package (nullopt when absent or
  /// unparsable: pip ignores an invalid one too).
  static std::optional<markers::Requirement> python_requirement(const simple::CoreMetadata& md) {
    if (!md.requires_python) return std::nullopt;
    auto r = markers::Requirement::parse(fmt::format("{} {}", kPython, *md.requires_python));
    if (!r) return std::nullopt;
    return std::move(*r);
  }

  Result<simple::CoreMetadata> metadata_of(const finder::File& wheel) {
    const auto key = wheel.location();
    if (auto it = metadata_.find(key); it != metadata_.end()) return it->second;
    auto text = finder_.core_metadata(wheel);
    if (!text) return fail(text.error());
    auto md = simple::parse_core_metadata(*text, wheel.filename);
    if (!md) return fail(md.error());
    return metadata_.emplace(key, std::move(*md)).first->second;
  }

 public:
  /// A universal lock resolves in forks: each fork fixes, for the versions met so far whose
  /// wheels' requirements differ (variant labels, or plain and variant wheels), which of those
  /// requirement sets holds, and the environments (of `fork_environments`) it stands for. A version
  /// met in a fork that has not fixed its requirement set, or whose requirements differ between
  /// the fork's environments, splits the fork: `dependencies` fails and `take_split` gives the
  /// children, to be resolved from the start.
  struct Fork {
    std::vector<std::size_t> environments;  ///< indexes into the environments given to `set_fork`
    std::map<Key, std::string> kinds;       ///< version -> the wheel kind whose requirements hold
    std::vector<std::string> description;   ///< what the fork fixed, for errors
  };

  void set_fork(const Fork* fork, const std::vector<markers::Environment>* environments) {
    fork_ = fork;
    environments_ = environments;
    split_.clear();
  }
  std::vector<Fork> take_split() { return std::exchange(split_, {}); }
  /// Requires-Dist of each wheel whose metadata was read (universal), by file name.
  const std::map<std::string, std::vector<std::string>>& wheel_requires_dist_of(const std::string& name,
                                                                                const std::string& version) {
    return wheel_requires_dist_[{name, version}];
  }

 private:
  /// One kind of wheel of a version: the non-variant wheels (`label` empty), or one variant label.
  struct WheelKind {
    std::string label;
    const finder::File* wheel = nullptr;
    variant::PropertySet properties;
    std::vector<markers::Requirement> requires_dist;
  };

  markers::Environment kind_environment(const WheelKind& kind, std::size_t environment) const {
    const auto& base = (*environments_)[environment];
    return kind.wheel->wheel->is_variant() ? label_environment(base, kind.label, kind.properties) : base;
  }

  /// The requirements of `kind` that hold in one environment, for each extra: a comparable text.
  Result<std::string> signature(const WheelKind& kind, std::size_t environment,
                                const std::vector<std::string>& extras) const {
    std::string out;
    auto env = kind_environment(kind, environment);
    for (const auto& extra : extras) {
      env.variables.insert_or_assign("extra", extra);
      for (const auto& r : kind.requires_dist) {
        auto v = r.applies_to(env);
        if (!v) return fail(v.error().with_context(kind.wheel->filename));
        if (*v) out += r.name + "[" + fmt::format("{}", fmt::join(r.extras, ",")) + "]" + r.specifier.to_string() + "\n";
      }
      out += "|";
    }
    return out;
  }

  /// A version's files as a universal lock reads them: its `*-variants.json` (of the first
  /// source), its first usable non-variant wheel, and its usable variant wheels.
  struct UniversalFiles {
    const finder::File* variants_json = nullptr;
    const finder::File* plain = nullptr;
    std::vector<const finder::File*> variant_wheels;
    /// The wheels whose metadata is read: the plain one, and the first of each label (of the
    /// first variant wheel's source).
    [[nodiscard]] std::vector<const finder::File*> kind_wheels() const {
      std::vector<const finder::File*> out;
      if (plain) out.push_back(plain);
      std::set<std::string> labels;
      for (const auto* f : variant_wheels) {
        if (f->source == variant_wheels.front()->source && labels.insert(*f->wheel->label).second) out.push_back(f);
      }
      return out;
    }
  };

  UniversalFiles universal_files(const std::vector<const finder::File*>& list) const {
    UniversalFiles out;
    for (const auto* f : list) {
      if (!f->is_wheel()) {
        if (!out.variants_json || f->source < out.variants_json->source) out.variants_json = f;
        continue;
      }
      if (f->yanked || !python_fits(*f, target_)) continue;
      if (!f->wheel->is_variant()) {
        if (!out.plain) out.plain = f;
      } else if (!target_.no_variants) {
        out.variant_wheels.push_back(f);
      }
    }
    return out;
  }

  /// Universal: what the forks read next, whichever kind they follow, fetched together: the
  /// pages of the projects the kinds require, then for the newest version each requirement allows
  /// (markers aside: some fork may need it), its `*-variants.json` and its kinds' metadata. Read
  /// as the resolver came to them, a torch-shaped universal lock took 470 requests one after
  /// another (bench/find_links_latency.sh's graph).
  void prefetch_universal(const std::vector<std::vector<markers::Requirement>>& requirements) {
    std::vector<std::string> next;
    for (const auto& list : requirements) {
      for (const auto& r : list) {
        if (r.name != kPython && r.url.empty()) next.push_back(r.name);
      }
    }
    finder_.prefetch(next);
    std::vector<const Versions*> versions;
    std::vector<const finder::File*> texts;
    for (const auto& list : requirements) {
      for (const auto& r : list) {
        if (r.name == kPython || !r.url.empty()) continue;
        const auto* v = newest_satisfying(r);
        if (!v || std::find(versions.begin(), versions.end(), v) != versions.end()) continue;
        versions.push_back(v);
        if (const auto* json = universal_files(v->second).variants_json) texts.push_back(json);
      }
    }
    finder_.prefetch_texts(texts);
    std::vector<const finder::File*> wheels;
    for (const auto* v : versions) {
      const auto kinds = universal_files(v->second).kind_wheels();
      wheels.insert(wheels.end(), kinds.begin(), kinds.end());
    }
    finder_.prefetch_metadata(wheels);
  }

  /// Universal: the version's wheel kinds with differing requirements fork, and so do the
  /// environments of the fork in which the requirements of the kind differ.
  Result<resolve::Dependencies> universal_dependencies(std::string_view name, const pep440::Version& version,
                                                       const std::vector<const finder::File*>& list) {
    const Key key{std::string(name), version.to_string()};
    const auto files = universal_files(list);
    const auto* plain = files.plain;
    auto variant_wheels = files.variant_wheels;
    const auto* variants_json = files.variants_json;
    if (!plain && variant_wheels.empty()) return fail(fmt::format("{} {}: no usable wheel", name, key.version));
    // Each kind's metadata is read below (a plain wheel's, one wheel's per label): all at once.
    finder_.prefetch_metadata(files.kind_wheels());
    std::vector<WheelKind> kinds;
    auto& raw = wheel_requires_dist_[key];
    std::vector<std::string> provides_extra;
    std::optional<markers::Requirement> python;
    auto add_kind = [&](WheelKind kind, const std::vector<const finder::File*>& same) -> Result<void> {
      auto md = metadata_of(*kind.wheel);
      if (!md) return fail(md.error());
      auto reqs = simple::parse_requires_dist(*md, kind.wheel->filename);
      if (!reqs) return fail(reqs.error());
      kind.requires_dist = std::move(*reqs);
      for (const auto* f : same) raw[f->filename] = md->requires_dist;
      for (const auto& e : md->provides_extra) {
        if (std::find(provides_extra.begin(), provides_extra.end(), e) == provides_extra.end()) provides_extra.push_back(e);
      }
      if (!python) {
        python = python_requirement(*md);
        requires_python_[key] = md->requires_python;
      }
      kinds.push_back(std::move(kind));
      return {};
    };
    if (plain) {
      std::vector<const finder::File*> same;
      for (const auto* f : list) {
        if (f->is_wheel() && !f->wheel->is_variant()) same.push_back(f);
      }
      if (auto ok = add_kind({"", plain, {}, {}}, same); !ok) return fail(ok.error());
      requires_dist_[key] = raw[plain->filename];
    }
    if (!variant_wheels.empty()) {
      if (variants_json && variants_json->source != variant_wheels.front()->source) variants_json = nullptr;
      const auto source = variant_wheels.front()->source;
      std::erase_if(variant_wheels, [&](const auto* f) { return f->source != source; });
      std::vector<std::string> notes;  // --explain shows them for installs; a lock has no explanation
      auto vmd = load_(variants_json, variant_wheels, notes);
      if (!vmd) return fail(vmd.error());
      for (const auto& [label, props] : vmd->variants) {
        std::vector<const finder::File*> same;
        for (const auto* f : variant_wheels) {
          if (*f->wheel->label == label) same.push_back(f);
        }
        if (same.empty()) continue;
        if (auto ok = add_kind({label, same.front(), props, {}}, same); !ok) return fail(ok.error());
      }
      // The lock entry's default Requires-Dist is a variant wheel's; the others differ per wheel.
      if (kinds.size() > (plain ? 1u : 0u)) requires_dist_[key] = raw[kinds[plain ? 1 : 0].wheel->filename];
    }
    if (kinds.empty()) return fail(fmt::format("{} {}: no usable wheel", name, key.version));
    {
      std::vector<std::vector<markers::Requirement>> all;
      for (const auto& k : kinds) all.push_back(k.requires_dist);
      prefetch_universal(all);
    }
    std::vector<std::string> extras{""};
    extras.insert(extras.end(), provides_extra.begin(), provides_extra.end());
    const auto& envs = fork_->environments;

    // Which kind's requirements hold: fixed by the fork, else the same for every kind, else split.
    const WheelKind* chosen = nullptr;
    if (auto it = fork_->kinds.find(key); it != fork_->kinds.end()) {
      for (const auto& k : kinds) {
        if (k.label == it->second) chosen = &k;
      }
    }
    if (!chosen) {
      std::vector<std::pair<std::string, std::vector<const WheelKind*>>> groups;
      for (const auto& k : kinds) {
        std::string all;
        for (auto e : envs) {
          auto sig = signature(k, e, extras);
          if (!sig) return fail(sig.error());
          all += *sig + "#";
        }
        auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& x) { return x.first == all; });
        if (g == groups.end()) {
          groups.push_back({all, {&k}});
        } else {
          g->second.push_back(&k);
        }
      }
      if (groups.size() > 1) {
        for (const auto& [sig, members] : groups) {
          Fork child = *fork_;
          child.kinds[key] = members.front()->label;
          std::vector<std::string> labels;
          for (const auto* m : members) labels.push_back(m->label.empty() ? "non-variant" : m->label);
          child.description.push_back(fmt::format("{} {} [{}]", name, key.version, fmt::join(labels, ", ")));
          split_.push_back(std::move(child));
        }
        return fail(fmt::format("{} {}: its wheels' requirements differ; the lock forks", name, key.version));
      }
      chosen = &kinds.front();
    }
    // The environments in which the chosen kind's requirements differ.
    std::vector<std::pair<std::string, std::vector<std::size_t>>> parts;
    for (auto e : envs) {
      auto sig = signature(*chosen, e, extras);
      if (!sig) return fail(sig.error());
      auto g = std::find_if(parts.begin(), parts.end(), [&](const auto& x) { return x.first == *sig; });
      if (g == parts.end()) {
        parts.push_back({*sig, {e}});
      } else {
        g->second.push_back(e);
      }
    }
    if (parts.size() > 1) {
      for (const auto& [sig, members] : parts) {
        Fork child = *fork_;
        child.environments = members;
        const auto& env = (*environments_)[members.front()];
        child.description.push_back(fmt::format("{} {}: environments like {} Python {}", name, key.version,
                                                env.variables.at("sys_platform"), env.variables.at("python_version")));
        split_.push_back(std::move(child));
      }
      return fail(fmt::format("{} {}: its requirements differ between environments; the lock forks", name, key.version));
    }
    resolve::Dependencies deps;
    deps.environment = kind_environment(*chosen, envs.front());
    deps.requires_dist = chosen->requires_dist;
    if (python) deps.requires_dist.push_back(std::move(*python));
    deps.provides_extra = provides_extra;
    return deps;
  }

  const Fork* fork_ = nullptr;
  const std::vector<markers::Environment>* environments_ = nullptr;
  std::vector<Fork> split_;
  std::map<Key, std::map<std::string, std::vector<std::string>>> wheel_requires_dist_;
  finder::Finder& finder_;
  const selection::Selection& target_;
  const std::set<Key>& pinned_;
  bool universal_;
  MetadataLoader load_;
  std::map<std::string, std::map<pep440::Version, std::vector<const finder::File*>, std::greater<>>> files_;
  std::map<Key, std::optional<Choice>> choices_;
  /// Each project's files by version, newest first, for prefetch_metadata.
  std::map<std::string, std::map<pep440::Version, std::vector<const finder::File*>, std::greater<>>> likely_;
  std::map<Key, std::string> reasons_;
  std::map<Key, std::vector<std::string>> requires_dist_;
  std::map<Key, std::optional<std::string>> requires_python_;
  const std::map<std::string, std::set<std::string>>* preferred_ = nullptr;
  std::map<std::string, simple::CoreMetadata> metadata_;
};

inline std::set<Key> pinned_versions(const Requirements& requirements) {
  std::set<Key> out;
  for (const auto& r : requirements.roots) {
    for (const auto& s : r.specifier.specifiers()) {
      if (s.op() == pep440::Operator::equal && !s.is_wildcard() && s.version()) {
        out.insert({wheel_name::canonicalize_name(r.name), s.version()->to_string()});
      }
    }
  }
  return out;
}


}  // namespace vwheel::plan::detail
