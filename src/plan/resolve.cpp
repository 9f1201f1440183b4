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

namespace vwheel::plan {
namespace fs = std::filesystem;
using detail::Choice;

namespace {

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
        load_(detail::finder_loader(finder)) {}

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
    std::vector<pep440::Version> out;
    for (auto& [version, list] : by_version) {
      const bool pinned = pinned_.contains({std::string(name), version.to_string()});
      bool any_plain = false, any_variant = false;
      for (const auto* f : list) {
        if (!f->is_wheel() || (f->yanked && !pinned) || !detail::python_fits(*f, target_)) continue;
        if (!universal_ && !target_.tag_rank(*f->wheel)) continue;
        (f->wheel->is_variant() ? any_variant : any_plain) = true;
      }
      if (universal_ && (any_plain || any_variant)) {
        out.push_back(version);
        continue;
      }
      if (any_plain && !target_.forced_label(name)) {
        out.push_back(version);
        continue;
      }
      if (!any_variant || target_.no_variants) continue;
      // Only variant wheels fit the tags: the version is a candidate only with a compatible variant.
      auto choice = choose(name, version, list);
      if (!choice) return fail(choice.error());
      if (**choice) out.push_back(version);
    }
    files_[std::string(name)] = std::move(by_version);
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
    // The resolver asks for these projects next: fetch their pages (and likely metadata) together.
    std::vector<std::string> next;
    for (const auto& r : deps.requires_dist) {
      if (r.name != kPython) next.push_back(r.name);
    }
    finder_.prefetch(next);
    return deps;
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
  /// The non-variant wheels' Requires-Dist where it differs from the variant wheels' (universal).
  const std::vector<std::string>* plain_requires_dist_of(const std::string& name, const std::string& version) const {
    auto it = plain_requires_dist_.find({name, version});
    return it == plain_requires_dist_.end() ? nullptr : &it->second;
  }
  const std::vector<const finder::File*>& files_of(const std::string& name, const pep440::Version& version) {
    return files_[name][version];
  }

 private:
  Result<std::optional<Choice>*> choose(std::string_view name, const pep440::Version& version,
                                        const std::vector<const finder::File*>& list) {
    Key key{std::string(name), version.to_string()};
    if (auto it = choices_.find(key); it != choices_.end()) return &it->second;
    detail::ChooseRequest request;
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

  /// Every label counts: dependencies whose variant markers hold for some label are kept (their
  /// marker dropped, as no single wheel is chosen here), and so are the non-variant wheel's own.
  Result<resolve::Dependencies> universal_dependencies(std::string_view name, const pep440::Version& version,
                                                       const std::vector<const finder::File*>& list) {
    const Key key{std::string(name), version.to_string()};
    const finder::File* plain = nullptr;
    std::vector<const finder::File*> variant_wheels;
    const finder::File* variants_json = nullptr;
    for (const auto* f : list) {
      if (!f->is_wheel()) {
        if (!variants_json || f->source < variants_json->source) variants_json = f;
        continue;
      }
      if (f->yanked || !detail::python_fits(*f, target_)) continue;
      if (!f->wheel->is_variant()) {
        if (!plain) plain = f;
      } else if (!target_.no_variants) {
        variant_wheels.push_back(f);
      }
    }
    if (!plain && variant_wheels.empty()) return fail(fmt::format("{} {}: no usable wheel", name, key.version));
    const auto base = target_.marker_environment();
    resolve::Dependencies deps;
    deps.environment = base;
    auto add = [&](const finder::File& wheel, const std::vector<markers::Environment>& envs,
                   std::vector<std::string>& raw) -> Result<void> {
      auto md = metadata_of(wheel);
      if (!md) return fail(md.error());
      raw = md->requires_dist;
      auto reqs = simple::parse_requires_dist(*md, wheel.filename);
      if (!reqs) return fail(reqs.error());
      for (const auto& e : md->provides_extra) {
        if (std::find(deps.provides_extra.begin(), deps.provides_extra.end(), e) == deps.provides_extra.end()) {
          deps.provides_extra.push_back(e);
        }
      }
      std::vector<std::string> extras{""};
      extras.insert(extras.end(), md->provides_extra.begin(), md->provides_extra.end());
      for (auto& r : *reqs) {
        if (!r.marker || !r.marker->uses_variant_variables()) {
          deps.requires_dist.push_back(std::move(r));
          continue;
        }
        bool any = false;
        for (const auto& env : envs) {
          for (const auto& extra : extras) {
            auto e = env;
            e.variables.insert_or_assign("extra", extra);
            auto v = r.marker->evaluate(e);
            any = any || (v && *v);
          }
        }
        if (any) {
          r.marker.reset();
          deps.requires_dist.push_back(std::move(r));
        }
      }
      return {};
    };
    std::vector<std::string> plain_raw, variant_raw;
    if (auto md = metadata_of(plain ? *plain : *variant_wheels.front()); md) {
      if (auto python = python_requirement(*md)) deps.requires_dist.push_back(std::move(*python));
    }
    if (plain) {
      if (auto ok = add(*plain, {base}, plain_raw); !ok) return fail(ok.error());
    }
    if (!variant_wheels.empty()) {
      if (variants_json && variants_json->source != variant_wheels.front()->source) variants_json = nullptr;
      const auto source = variant_wheels.front()->source;
      std::erase_if(variant_wheels, [&](const auto* f) { return f->source != source; });
      std::vector<std::string> notes;  // --explain shows them for installs; a lock has no explanation
      auto vmd = load_(variants_json, variant_wheels, notes);
      if (!vmd) return fail(vmd.error());
      std::vector<markers::Environment> envs;
      for (const auto& [label, props] : vmd->variants) envs.push_back(detail::label_environment(base, label, props));
      if (auto ok = add(*variant_wheels.front(), envs, variant_raw); !ok) return fail(ok.error());
      requires_dist_[key] = variant_raw;
      if (plain && plain_raw != variant_raw) plain_requires_dist_[key] = plain_raw;
    } else {
      requires_dist_[key] = plain_raw;
    }
    return deps;
  }

  finder::Finder& finder_;
  const selection::Selection& target_;
  const std::set<Key>& pinned_;
  bool universal_;
  detail::MetadataLoader load_;
  std::map<std::string, std::map<pep440::Version, std::vector<const finder::File*>, std::greater<>>> files_;
  std::map<Key, std::optional<Choice>> choices_;
  std::map<Key, std::string> reasons_;
  std::map<Key, std::vector<std::string>> requires_dist_;
  std::map<Key, std::vector<std::string>> plain_requires_dist_;
  std::map<std::string, simple::CoreMetadata> metadata_;
};

std::set<Key> pinned_versions(const Requirements& requirements) {
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

std::vector<std::string> allowed_hashes(const Requirements& requirements, const std::string& name) {
  std::vector<std::string> out;
  if (auto it = requirements.hashes.find(name); it != requirements.hashes.end()) {
    for (const auto& h : it->second) {
      if (h.starts_with("sha256:")) out.push_back(h.substr(7));
    }
  }
  return out;
}

Result<Plan> resolve_once(const Requirements& requirements, const Settings& settings, const selection::Selection& target,
                          http::Client& client) {
  finder::Finder finder(client, settings.sources, {settings.cache_dir});
  const auto pinned = pinned_versions(requirements);
  IndexProvider provider(finder, target, pinned, false);
  std::vector<std::string> names;
  for (const auto& r : requirements.roots) names.push_back(r.name);
  finder.prefetch(names);
  resolve::Options options;
  options.pre = settings.pre;
  options.no_deps = settings.no_deps;
  auto resolution = resolve::resolve(provider, requirements.roots, requirements.constraints,
                                     target.marker_environment(), options);
  if (!resolution) return fail(resolution.error());
  Plan plan;
  plan.target = target.description;
  plan.warnings = resolution->warnings;
  plan.warnings.insert(plan.warnings.end(), finder.warnings().begin(), finder.warnings().end());
  for (const auto& pin : resolution->pins) {
    if (pin.name == kPython) continue;
    const auto version = pin.version.to_string();
    const auto* c = provider.choice_of(pin.name, version);
    if (!c) {
      // --no-deps roots are never asked for dependencies: choose now.
      auto deps = provider.dependencies(pin.name, pin.version);
      if (!deps) return fail(deps.error());
      c = provider.choice_of(pin.name, version);
      if (!c) return fail(fmt::format("{} {}: no wheel chosen", pin.name, version));
    }
    plan.uses_abi_dependency = plan.uses_abi_dependency || c->uses_abi_dependency;
    Selected s;
    s.name = pin.name;
    s.version = c->wheel->wheel->version;
    s.wheel = *c->wheel;
    s.label = c->label;
    s.properties = detail::property_strings(c->properties);
    s.why = c->why;
    s.other_variants = c->others;
    s.requested = pin.requested;
    s.required_by = pin.required_by;
    s.extras = pin.extras;
    s.variants_json = c->metadata;
    s.requires_dist = provider.requires_dist_of(pin.name, version);
    s.explain = c->explain;
    if (c->label) s.compatible_labels.push_back(*c->label);
    for (const auto& o : c->others) {
      if (o.reason.starts_with("compatible")) s.compatible_labels.push_back(o.label);
    }
    for (const auto* f : provider.files_of(pin.name, pin.version)) {
      if (f->is_wheel() && f->source == c->wheel->source) s.all_wheels.push_back(*f);
    }
    s.allowed_sha256 = allowed_hashes(requirements, pin.name);
    if (settings.require_hashes) {
      if (s.allowed_sha256.empty()) {
        return fail(fmt::format("--require-hashes: no sha256 --hash given for {} {} ({})", pin.name, version,
                                s.wheel.filename));
      }
    }
    if (!s.allowed_sha256.empty()) {
      if (auto sha = s.wheel.sha256(); sha && std::find(s.allowed_sha256.begin(), s.allowed_sha256.end(), *sha) ==
                                                  s.allowed_sha256.end()) {
        return fail(fmt::format("{}: the index's sha256 {} is not among the --hash values given for {}", s.wheel.filename,
                                *sha, pin.name));
      }
    }
    plan.packages.push_back(std::move(s));
  }
  plan.requests = finder.requests();
  return plan;
}

}  // namespace

Result<Plan> resolve_plan(const Requirements& requirements, const Settings& settings, const selection::Selection& target) {
  auto client = http::Client::create(settings.http);
  if (!client) return fail(client.error());
  auto plan = resolve_once(requirements, settings, target, *client);
  if (!plan) return plan;
  // The abi_dependency namespace matches the versions being installed: when a chosen variant uses
  // it, rank again with the resolved versions in place of the installed ones.
  if (!plan->uses_abi_dependency) return plan;
  selection::Selection again = target;
  std::map<std::string, std::string> versions;
  for (const auto& [n, v] : target.abi_dependencies) versions[wheel_name::canonicalize_name(n)] = v;
  for (const auto& p : plan->packages) versions[p.name] = p.version;
  again.abi_dependencies.assign(versions.begin(), versions.end());
  return resolve_once(requirements, settings, again, *client);
}

Result<lock::Lock> make_lock(const Requirements& requirements, const Settings& settings,
                             const selection::Selection& universal, const std::vector<selection::Selection>& targets) {
  auto client = http::Client::create(settings.http);
  if (!client) return fail(client.error());
  lock::Lock out;
  for (const auto& r : requirements.roots) out.requirements.push_back(r.to_string());

  auto locked_file = [&](const finder::File& f) -> Result<lock::LockedWheel> {
    lock::LockedWheel w;
    w.name = f.filename;
    if (f.path) {
      w.path = fs::absolute(*f.path).string();
      auto data = read_file(*f.path);
      if (!data) return fail(data.error());
      w.hashes["sha256"] = sha256_hex(*data);
      w.size = data->size();
    } else {
      w.url = f.url;
      w.hashes = f.hashes;
      w.size = f.size;
      w.upload_time = f.upload_time;
      if (!f.sha256()) return fail(fmt::format("{}: the index gives no sha256 for it; a lock needs one", f.url));
    }
    return w;
  };
  auto add_package = [&](const std::string& name, const std::string& version, const std::vector<const finder::File*>& wheels,
                         const std::optional<variant::VariantMetadata>& md, const std::vector<std::string>& requires_dist,
                         const std::vector<std::string>& extras, const finder::Source& source,
                         const std::map<std::string, std::vector<std::string>>& per_wheel) -> Result<void> {
    lock::LockedPackage p;
    p.name = name;
    p.version = version;
    if (source.kind == finder::Source::Kind::index) p.index = source.location;
    std::vector<std::string> labels;
    for (const auto* f : wheels) {
      auto w = locked_file(*f);
      if (!w) return fail(w.error());
      p.wheels.push_back(std::move(*w));
      if (f->wheel->label) labels.push_back(*f->wheel->label);
    }
    std::sort(p.wheels.begin(), p.wheels.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
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

  if (targets.empty()) {
    finder::Finder finder(*client, settings.sources, {settings.cache_dir});
    const auto pinned = pinned_versions(requirements);
    IndexProvider provider(finder, universal, pinned, true);
    resolve::Options options;
    options.pre = settings.pre;
    options.no_deps = settings.no_deps;
    auto resolution = resolve::resolve(provider, requirements.roots, requirements.constraints,
                                       universal.marker_environment(), options);
    if (!resolution) return fail(resolution.error());
    auto load = detail::finder_loader(finder);
    for (const auto& pin : resolution->pins) {
      if (pin.name == kPython) continue;
      const auto& files = provider.files_of(pin.name, pin.version);
      // One source per package: the first that has wheels of the version.
      std::optional<std::size_t> source;
      for (const auto* f : files) {
        if (f->is_wheel() && (!source || f->source < *source)) source = f->source;
      }
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
      std::optional<variant::VariantMetadata> md;
      if (!variant_wheels.empty()) {
        std::vector<std::string> notes;
        auto m = load(variants_json, variant_wheels, notes);
        if (!m) return fail(m.error());
        md = std::move(*m);
      }
      std::string version = wheels.empty() ? pin.version.to_string() : wheels.front()->wheel->version;
      std::map<std::string, std::vector<std::string>> per_wheel;
      if (const auto* plain = provider.plain_requires_dist_of(pin.name, pin.version.to_string())) {
        for (const auto* f : wheels) {
          if (!f->wheel->is_variant()) per_wheel[f->filename] = *plain;
        }
      }
      if (auto ok = add_package(pin.name, version, wheels, md, provider.requires_dist_of(pin.name, pin.version.to_string()),
                                pin.extras, settings.sources[*source], per_wheel);
          !ok) {
        return fail(ok.error());
      }
    }
    return out;
  }

  // One plan per target; the lock lists the union.
  std::map<std::string, Selected> merged;
  std::map<std::string, std::map<std::string, std::vector<std::string>>> chosen_deps;  // package -> wheel -> deps
  std::map<std::string, std::set<std::string>> wanted;  // package -> wheel file names some target can use
  for (const auto& t : targets) {
    auto plan = resolve_plan(requirements, settings, t);
    if (!plan) return fail(plan.error().with_context(t.description));
    for (auto& s : plan->packages) {
      auto& files = wanted[s.name];
      for (const auto& w : s.all_wheels) {
        if (!t.tag_rank(*w.wheel) || !detail::python_fits(w, t)) continue;
        if (w.wheel->label && std::find(s.compatible_labels.begin(), s.compatible_labels.end(), *w.wheel->label) ==
                                  s.compatible_labels.end()) {
          continue;
        }
        files.insert(w.filename);
      }
      chosen_deps[s.name][s.wheel.filename] = s.requires_dist;
      auto [it, inserted] = merged.emplace(s.name, s);
      if (!inserted && !it->second.label && s.label) {
        // The default Requires-Dist of the lock entry is a variant wheel's when one was chosen.
        it->second.requires_dist = s.requires_dist;
        it->second.label = s.label;
      }
      if (!inserted && !it->second.variants_json && s.variants_json) it->second.variants_json = s.variants_json;
      if (!inserted && it->second.version != s.version) {
        return fail(fmt::format("the targets resolve {} to different versions ({} and {}); lock them separately", s.name,
                                it->second.version, s.version));
      }
      if (!inserted) {
        for (const auto& e : s.extras) {
          if (std::find(it->second.extras.begin(), it->second.extras.end(), e) == it->second.extras.end()) {
            it->second.extras.push_back(e);
          }
        }
      }
    }
  }
  for (const auto& [name, s] : merged) {
    std::vector<const finder::File*> wheels;
    for (const auto& w : s.all_wheels) {
      if (wanted[name].contains(w.filename)) wheels.push_back(&w);
    }
    if (auto ok = add_package(name, s.version, wheels, s.variants_json, s.requires_dist, s.extras,
                              settings.sources[s.wheel.source], chosen_deps[name]);
        !ok) {
      return fail(ok.error());
    }
  }
  return out;
}

}  // namespace vwheel::plan
