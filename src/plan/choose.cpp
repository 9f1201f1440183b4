#include "choose.hpp"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "vwheel/pep440/specifier.hpp"

namespace vwheel::plan::detail {

bool python_fits(const finder::File& file, const selection::Selection& target) {
  return !file.requires_python || target.check_requires_python(*file.requires_python, file.filename).has_value();
}

std::string why_unusable(const std::vector<const finder::File*>& files, const selection::Selection& target,
                         bool allow_yanked, bool check_tags) {
  std::vector<const finder::File*> dists;
  for (const auto* f : files) {
    if (f->is_wheel() || f->is_sdist()) dists.push_back(f);
  }
  if (dists.empty()) return "no wheel and no source distribution";
  std::vector<const finder::File*> live;
  std::string yank_reason;
  for (const auto* f : dists) {
    if (!f->yanked || allow_yanked) {
      live.push_back(f);
    } else if (yank_reason.empty()) {
      yank_reason = *f->yanked;
    }
  }
  if (live.empty()) {
    return fmt::format("yanked{}; a yanked version is installed only when pinned with ==",
                       yank_reason.empty() ? std::string() : fmt::format(" ({})", yank_reason));
  }
  std::vector<const finder::File*> fitting;
  std::vector<std::string> excluding;  // the Requires-Python values that rule files out
  for (const auto* f : live) {
    if (python_fits(*f, target)) {
      fitting.push_back(f);
    } else if (std::find(excluding.begin(), excluding.end(), *f->requires_python) == excluding.end()) {
      excluding.push_back(*f->requires_python);
    }
  }
  if (fitting.empty()) {
    return fmt::format("Requires-Python {} excludes Python {} (the target's)", fmt::join(excluding, " / "),
                       target.python_version().value_or("?"));
  }
  std::vector<const finder::File*> wheels;
  for (const auto* f : fitting) {
    if (f->is_wheel()) wheels.push_back(f);
  }
  if (wheels.empty()) return "only a source distribution (vwheel installs wheels from indexes)";
  if (!check_tags || std::any_of(wheels.begin(), wheels.end(), [&](const auto* f) { return target.tag_rank(*f->wheel); }))
    return {};
  std::vector<std::string> tags;
  for (const auto* f : wheels) {
    auto tag = fmt::format("{}-{}-{}", f->wheel->python_tag, f->wheel->abi_tag, f->wheel->platform_tag);
    if (std::find(tags.begin(), tags.end(), tag) == tags.end()) tags.push_back(std::move(tag));
  }
  constexpr std::size_t shown = 5;
  if (tags.size() > shown) {
    const auto more = tags.size() - (shown - 1);
    tags.resize(shown - 1);
    tags.push_back(fmt::format("{} more", more));
  }
  return fmt::format("no wheel for the target's tags: the wheels are {}; the target's best tag is {}",
                     fmt::join(tags, ", "), target.tags().empty() ? std::string("unknown") : target.tags().front());
}

std::vector<std::string> property_strings(const variant::PropertySet& properties) {
  std::vector<std::string> out;
  out.reserve(properties.size());
  for (const auto& p : properties) out.push_back(p.to_string());
  return out;
}

markers::Environment label_environment(const markers::Environment& base, const std::string& label,
                                       const variant::PropertySet& properties) {
  markers::Environment env = base;
  variant::SupportedProperties all;
  for (const auto& p : properties) {
    auto& features = all[p.ns];
    auto it = std::find_if(features.begin(), features.end(), [&](const auto& f) { return f.name == p.feature; });
    if (it == features.end()) {
      features.push_back({p.feature, {}, true});
      it = features.end() - 1;
    }
    it->values.push_back(p.value);
  }
  return selection::variant_environment(env, label, properties, all);
}

namespace {

struct Fitting {
  const finder::File* file;
  std::size_t tag;
};

/// The best wheel (by tag, then build tag) among `wheels`. PEP 825: build numbers only break ties
/// between otherwise equal wheels; they never group them (the label is chosen over all builds).
const Fitting* best_by_tag(const std::vector<Fitting>& wheels) {
  const Fitting* best = nullptr;
  for (const auto& w : wheels) {
    if (!best || w.tag < best->tag ||
        (w.tag == best->tag && w.file->wheel->build.value_or(wheel_name::BuildTag{"0"}) >
                                   best->file->wheel->build.value_or(wheel_name::BuildTag{"0"}))) {
      best = &w;
    }
  }
  return best;
}

std::string describe_variant(const std::string& label, const variant::PropertySet& props) {
  if (props.empty()) return "the null variant";
  return fmt::format("variant {}: {}", label, fmt::join(property_strings(props), ", "));
}

}  // namespace

Result<std::optional<Choice>> choose(const ChooseRequest& request, const selection::Selection& target, const MetadataLoader& load,
                                     std::string& reason) {
  const auto base = target.marker_environment();
  std::vector<Fitting> plain;
  std::vector<std::vector<Fitting>> variants(request.source_count);
  std::vector<const finder::File*> variants_json(request.source_count, nullptr);
  std::size_t wheels = 0, wrong_tag = 0, wrong_python = 0, yanked = 0;
  std::vector<std::string> explain;
  for (const auto* f : request.files) {
    if (!f->is_wheel()) {
      if (f->source < variants_json.size()) variants_json[f->source] = f;
      continue;
    }
    ++wheels;
    if (f->yanked && !request.allow_yanked) {
      ++yanked;
      continue;
    }
    auto tag = target.tag_rank(*f->wheel);
    if (!tag) {
      ++wrong_tag;
      continue;
    }
    if (!python_fits(*f, target)) {
      ++wrong_python;
      continue;
    }
    if (f->wheel->is_variant()) {
      if (!request.no_variants) variants[f->source].push_back({f, *tag});
    } else {
      plain.push_back({f, *tag});
    }
  }
  auto no_wheel_reason = [&] {
    std::vector<std::string> parts;
    if (wrong_tag) parts.push_back(fmt::format("{} with unsupported tags", wrong_tag));
    if (wrong_python) parts.push_back(fmt::format("{} whose Requires-Python excludes Python {}", wrong_python,
                                                  target.python_version().value_or("?")));
    if (yanked) parts.push_back(fmt::format("{} yanked", yanked));
    return fmt::format("{} wheels: {}", wheels, parts.empty() ? std::string("none fits") : fmt::format("{}", fmt::join(parts, ", ")));
  };

  Choice choice;
  std::vector<std::string> skipped_sources;
  for (std::size_t s = 0; s < variants.size(); ++s) {
    if (variants[s].empty()) continue;
    if (choice.wheel) {
      skipped_sources.push_back(fmt::format("source {} (variants of one source only: index priority)", s + 1));
      continue;
    }
    std::vector<const finder::File*> vw;
    for (const auto& f : variants[s]) vw.push_back(f.file);
    std::vector<std::string> notes;
    auto md = load(variants_json[s], vw, notes);
    if (!md) return fail(md.error());
    for (const auto& n : notes) explain.push_back(fmt::format("  {}", n));
    for (const auto& [label, props] : md->variants) {
      for (const auto& p : props) {
        if (p.ns == variant::kAbiDependencyNamespace) choice.uses_abi_dependency = true;
      }
    }
    auto ranking = target.rank(*md, &base);
    if (!ranking) return fail(ranking.error().with_context(fmt::format("{} {}", request.name, request.version)));
    std::unordered_map<std::string, std::size_t> position;
    for (std::size_t i = 0; i < ranking->order.size(); ++i) position.emplace(ranking->order[i], i);
    std::map<std::string, std::vector<Fitting>> by_label;
    for (const auto& f : variants[s]) by_label[*f.file->wheel->label].push_back(f);
    // The chosen label: forced, else the best-ranked one that has a wheel.
    std::optional<std::string> chosen;
    if (request.forced_label && *request.forced_label != "") {
      const auto& want = *request.forced_label;
      if (!by_label.contains(want)) {
        std::vector<std::string> labels;
        for (const auto& [l, _] : by_label) labels.push_back(l);
        if (plain.empty() || want != "none") {
          return fail(fmt::format("--variant {}={}: {} {} has no wheel with label `{}` for this target (labels: {})",
                                  request.name, want, request.name, request.version, want, fmt::join(labels, ", ")));
        }
      } else if (!position.contains(want)) {
        std::string why = "not supported";
        for (const auto& r : ranking->reports) {
          if (r.label == want) why = r.reason;
        }
        return fail(fmt::format("--variant {}={}: variant `{}` of {} {} is not compatible with {}: {}", request.name, want,
                                want, request.name, request.version, target.description, why));
      } else {
        chosen = want;
      }
    } else {
      for (const auto& label : ranking->order) {
        if (by_label.contains(label)) {
          chosen = label;
          break;
        }
      }
    }
    for (const auto& r : ranking->reports) {
      if (!by_label.contains(r.label)) continue;
      if (chosen && r.label == *chosen) continue;
      std::string why;
      if (!r.compatible) {
        why = fmt::format("incompatible: {}", r.reason);
      } else if (chosen) {
        why = fmt::format("compatible, ranked {} after `{}`", *r.position + 1, *chosen);
      } else {
        why = "compatible";
      }
      choice.others.push_back({r.label, why});
      explain.push_back(fmt::format("  {}: {}", r.label, why));
    }
    for (const auto& [label, _] : by_label) {
      if (!md->variants.contains(label)) {
        choice.others.push_back({label, "not in the variant metadata: incompatible"});
        explain.push_back(fmt::format("  {}: not in the variant metadata: incompatible", label));
      }
    }
    // Where the target's answer for each namespace came from (a profile file, or detection).
    for (const auto& n : ranking->namespaces) {
      auto origin = target.property_sources.find(n.ns);
      if (n.source == "target" && origin != target.property_sources.end()) {
        explain.push_back(fmt::format("  namespace {}: from {}", n.ns, origin->second));
      }
    }
    if (!chosen) continue;
    const auto* best = best_by_tag(by_label[*chosen]);
    choice.wheel = best->file;
    choice.label = *chosen;
    choice.properties = md->variants.at(*chosen);
    choice.why = describe_variant(*chosen, choice.properties);
    choice.environment =
        selection::variant_environment(base, *chosen, choice.properties, selection::supported_of(*ranking));
    choice.metadata = std::move(*md);
    explain.insert(explain.begin(), fmt::format("  {}: chosen ({})", *chosen, choice.why));
  }
  if (request.forced_label && !choice.wheel && *request.forced_label != "none" && !request.forced_label->empty()) {
    return fail(fmt::format("--variant {}={}: {} {} has no variant wheels for this target", request.name,
                            *request.forced_label, request.name, request.version));
  }
  if (!choice.wheel) {
    if (plain.empty()) {
      reason = variants.empty() || std::all_of(variants.begin(), variants.end(), [](const auto& v) { return v.empty(); })
                   ? no_wheel_reason()
                   : "no compatible variant and no non-variant wheel";
      return std::optional<Choice>{};
    }
    const auto* best = best_by_tag(plain);
    choice.wheel = best->file;
    choice.why = request.no_variants ? "non-variant (--no-variants)" : "non-variant";
    choice.environment = base;
    explain.insert(explain.begin(), fmt::format("  non-variant wheel chosen{}", choice.others.empty() ? "" : " (no compatible variant)"));
  }
  for (const auto& s : skipped_sources) explain.push_back(fmt::format("  variants of {} not considered", s));
  choice.explain = std::move(explain);
  return std::optional<Choice>(std::move(choice));
}

}  // namespace vwheel::plan::detail
