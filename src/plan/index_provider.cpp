// The resolver's provider over package indexes (index_provider.hpp says what it answers).

#include "index_provider.hpp"

#include <algorithm>
#include <functional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "vwheel/wheel_name/names.hpp"

namespace vwheel::plan::detail {

Result<std::vector<pep440::Version>> IndexProvider::versions(std::string_view name) {
  if (name == kPython) {
    // The target's Python is a package with one version, so Requires-Python constrains it. A
    // fork of a universal lock stands for several Pythons: its oldest, so that what it locks
    // installs on each (a newest version that needs 3.12 is not locked for 3.9).
    if (universal_ && fork_ && environments_ && !fork_->environments.empty()) {
      std::optional<pep440::Version> oldest;
      for (auto e : fork_->environments) {
        const auto& vars = (*environments_)[e].variables;
        auto it = vars.find("python_full_version");
        auto v = it == vars.end() ? std::nullopt : std::optional(pep440::Version::parse(it->second));
        if (v && *v && (!oldest || **v < *oldest)) oldest = **v;
      }
      if (oldest) return std::vector<pep440::Version>{*oldest};
    }
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
  // Versions that only sdists give are candidates through them (set_sdists).
  if (read_sdist_) {
    for (const auto& f : finder_.sdists(name)) by_version[f.version];
  }
  const bool wheels = wheels_allowed(name);
  std::set<pep440::Version> from_sdist;
  // Which versions are candidates: `yes`, `no`, or `choose` (only variant wheels fit the tags:
  // a candidate only with a compatible variant, which ranking their variant metadata tells).
  enum class Candidate { yes, no, choose };
  std::vector<Candidate> candidate;
  std::vector<const finder::File*> variants_jsons;
  for (auto& [version, list] : by_version) {
    const bool pinned = pinned_.contains({std::string(name), version.to_string()});
    bool any_plain = false, any_variant = false;
    for (const auto* f : list) {
      if (!wheels) break;
      if (!f->is_wheel() || (f->yanked && !pinned) || !python_fits(*f, target_)) continue;
      if (!universal_ && !target_.tag_rank(*f->wheel)) continue;
      (f->wheel->is_variant() ? any_variant : any_plain) = true;
    }
    if ((universal_ && (any_plain || any_variant)) || (any_plain && !target_.forced_label(name))) {
      candidate.push_back(Candidate::yes);
    } else if (!any_variant || target_.no_variants) {
      const bool sdist = usable_sdist(name, version);
      candidate.push_back(sdist ? Candidate::yes : Candidate::no);
      if (sdist) from_sdist.insert(version);
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
      if ((**choice)->wheel->is_sdist()) from_sdist.insert(version);
    }
    out.push_back(version);
  }
  // pip's --prefer-binary: an older version's wheel before a newer version's sdist.
  if (formats_ && formats_->prefer_binary) {
    std::stable_partition(out.begin(), out.end(), [&](const pep440::Version& v) { return !from_sdist.contains(v); });
  }
  files_[std::string(name)] = std::move(by_version);
  offered_[std::string(name)] = {out.begin(), out.end()};
  if (preferred_) {
    if (auto it = preferred_->find(std::string(name)); it != preferred_->end()) {
      std::stable_partition(out.begin(), out.end(), [&](const pep440::Version& v) { return it->second.contains(v.to_string()); });
    }
  }
  // The version the resolution will most likely take: its sdist's metadata can be read already.
  if (prefetch_sdist_ && !out.empty() && from_sdist.contains(out.front())) {
    if (const auto* sdist = usable_sdist(name, out.front())) (*prefetch_sdist_)(*sdist);
  }
  return out;
}

std::vector<resolve::Unusable> IndexProvider::unusable(std::string_view name) {
  if (name == kPython) return {};
  const std::string project(name);
  // Versions with only sdists are not among files_: the finder keeps those apart.
  auto all = files_[project];
  for (const auto& f : finder_.sdists(name)) all[f.version].push_back(&f);
  const auto& offered = offered_[project];
  std::vector<resolve::Unusable> out;
  constexpr std::size_t kNamed = 3;  // the closest candidates; older ones rarely matter
  for (const auto& [version, list] : all) {
    if (out.size() == kNamed) break;
    if (offered.contains(version)) continue;
    const Key key{project, version.to_string()};
    auto reason = why_unusable(list, target_, pinned_.contains(key), !universal_);
    if (read_sdist_ && reason.starts_with("only a source distribution")) {
      reason = formats_ && !formats_->allows_sdist(project) ? "only a source distribution, and --only-binary is set"
                                                            : "only a source distribution";
    } else if (reason.empty() && !wheels_allowed(project)) {
      // (A usable sdist would have been offered.)
      reason = "only wheels, and --no-binary is set";
    }
    if (reason.empty()) {
      auto it = reasons_.find(key);
      if (it != reasons_.end() && !it->second.empty()) {
        reason = it->second;
      } else {
        reason = target_.no_variants ? "only variant wheels, and --no-variants is set" : "no wheel fits the target";
      }
    }
    out.push_back({version, std::move(reason)});
  }
  return out;
}

Result<resolve::Dependencies> IndexProvider::dependencies(std::string_view name, const pep440::Version& version) {
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

void IndexProvider::prefetch_metadata(const std::vector<markers::Requirement>& requirements, markers::Environment environment) {
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
    if (choice && **choice && (***choice).wheel->is_wheel()) wheels.push_back((***choice).wheel);
  }
  finder_.prefetch_metadata(wheels);
}

Result<std::optional<Choice>*> IndexProvider::choose(std::string_view name, const pep440::Version& version,
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
  std::optional<Choice> chosen;
  if (wheels_allowed(key.name)) {
    auto c = detail::choose(request, target_, load_, reason);
    if (!c) return fail(c.error());
    chosen = std::move(*c);
  } else {
    reason = "--no-binary is set";
  }
  // pip's order: the version's compatible wheel, else its sdist.
  if (!chosen && !universal_) {
    if (const auto* sdist = usable_sdist(key.name, version)) chosen = sdist_choice(*sdist);
  }
  reasons_[key] = reason;
  return &choices_.emplace(key, std::move(chosen)).first->second;
}

const finder::File* IndexProvider::usable_sdist(std::string_view name, const pep440::Version& version) const {
  if (!read_sdist_ || (formats_ && !formats_->allows_sdist(name))) return nullptr;
  const bool pinned = pinned_.contains({std::string(name), version.to_string()});
  for (const auto& f : finder_.sdists(name)) {
    if (f.version == version && (!f.yanked || pinned) && python_fits(f, target_)) return &f;
  }
  return nullptr;
}

Choice IndexProvider::sdist_choice(const finder::File& sdist) const {
  Choice c;
  c.wheel = &sdist;
  c.why = "sdist, built into a wheel";
  c.environment = target_.marker_environment();
  c.explain.push_back(fmt::format("  no compatible wheel: {} is built", sdist.filename));
  return c;
}

const IndexProvider::Versions* IndexProvider::newest_satisfying(const markers::Requirement& r) {
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

std::optional<markers::Requirement> IndexProvider::python_requirement(const simple::CoreMetadata& md) {
  if (!md.requires_python) return std::nullopt;
  auto r = markers::Requirement::parse(fmt::format("{} {}", kPython, *md.requires_python));
  if (!r) return std::nullopt;
  return std::move(*r);
}

Result<simple::CoreMetadata> IndexProvider::metadata_of(const finder::File& wheel) {
  const auto key = wheel.location();
  if (auto it = metadata_.find(key); it != metadata_.end()) return it->second;
  auto text = wheel.is_sdist() && read_sdist_ ? (*read_sdist_)(wheel) : finder_.core_metadata(wheel);
  if (!text) return fail(text.error());
  auto md = simple::parse_core_metadata(*text, wheel.filename);
  if (!md) return fail(md.error());
  return metadata_.emplace(key, std::move(*md)).first->second;
}

Result<std::string> IndexProvider::signature(const WheelKind& kind, std::size_t environment,
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

IndexProvider::UniversalFiles IndexProvider::universal_files(const std::vector<const finder::File*>& list) const {
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

void IndexProvider::prefetch_universal(const std::vector<std::vector<markers::Requirement>>& requirements) {
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

Result<resolve::Dependencies> IndexProvider::universal_dependencies(std::string_view name, const pep440::Version& version,
                                                     const std::vector<const finder::File*>& list) {
  const Key key{std::string(name), version.to_string()};
  const auto files = universal_files(list);
  const auto* plain = files.plain;
  auto variant_wheels = files.variant_wheels;
  const auto* variants_json = files.variants_json;
  // A version without usable wheels was offered through its sdist (versions): the wheel it builds
  // is one plain kind, whose requirements the sdist's metadata gives.
  const auto* sdist = !plain && variant_wheels.empty() ? usable_sdist(name, version) : nullptr;
  if (!plain && variant_wheels.empty() && !sdist) return fail(fmt::format("{} {}: no usable wheel", name, key.version));
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
  if (sdist) {
    if (auto ok = add_kind({"", sdist, {}, {}}, {sdist}); !ok) return fail(ok.error());
    requires_dist_[key] = raw[sdist->filename];
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

}  // namespace vwheel::plan::detail
