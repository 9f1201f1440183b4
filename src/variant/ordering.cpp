#include "vwheel/variant/ordering.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "vwheel/core/text.hpp"
#include "vwheel/pep440/version.hpp"

namespace vwheel::variant {
namespace {

constexpr std::size_t kUnlisted = std::numeric_limits<std::size_t>::max();

template <class Range, class T>
std::size_t index_of(const Range& range, const T& item) {
  auto it = std::find(range.begin(), range.end(), item);
  return it == range.end() ? kUnlisted : static_cast<std::size_t>(it - range.begin());
}

// User list first, then the package's items not yet present. Like the reference, the first list
// is copied verbatim and later lists only contribute new items.
std::vector<std::string> aggregate(const std::vector<std::string>* user, const std::vector<std::string>* package) {
  std::vector<std::string> out;
  if (user != nullptr) out = *user;
  if (package != nullptr) {
    for (const auto& item : *package) {
      if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
    }
  }
  return out;
}

template <class Map>
const typename Map::mapped_type* find_in(const Map& map, std::string_view key) {
  auto it = map.find(std::string(key));
  return it == map.end() ? nullptr : &it->second;
}

// One feature of the ranking table: its values in supported order, with first-occurrence indices.
struct FeatureSlot {
  std::size_t position = 0;  // significance of the feature (0 = most significant)
  std::vector<std::string> values;
  std::map<std::string, std::size_t, std::less<>> index;
};

// Orders (namespace, feature) keys; transparent so lookups need no string copies.
struct FeatureKeyLess {
  using is_transparent = void;
  template <class A, class B>
  bool operator()(const A& a, const B& b) const {
    const std::string_view a1 = a.first, a2 = a.second, b1 = b.first, b2 = b.second;
    return a1 != b1 ? a1 < b1 : a2 < b2;
  }
};

using FeatureTable = std::map<std::pair<std::string, std::string>, FeatureSlot, FeatureKeyLess>;

// "a, b, c", shortened to the first few values of a long list (explanations stay one line).
std::string join_values(const std::vector<std::string>& values) {
  constexpr std::size_t kShown = 6;
  if (values.empty()) return "nothing";
  if (values.size() <= kShown + 2) return fmt::format("{}", fmt::join(values, ", "));
  return fmt::format("{}, ... ({} values)", fmt::join(values.begin(), values.begin() + kShown, ", "), values.size());
}

std::string wanted_text(const std::vector<std::string>& wanted) {
  return (wanted.size() > 1 ? "one of " : "") + join_values(wanted);
}

struct NamespaceSupport {
  std::vector<FeatureConfig> features;
  NamespaceReport report;
};

class Engine {
 public:
  Engine(const VariantMetadata& md, const SupportOracle& oracle, const UserPriorities& user,
         const SelectionOptions& options)
      : md_(md), oracle_(oracle), user_(user), options_(options) {}

  Result<Ranking> run() {
    Ranking out;
    if (auto ok = collect_supported(out); !ok) return fail(ok.error());
    sort_supported(out);
    build_table(out.sorted_supported);
    rank(out);
    return out;
  }

 private:
  // The namespaces that matter: declared, prioritized, static, or used by a variant.
  std::vector<std::string> namespaces_of_interest() const {
    std::set<std::string> all(md_.namespace_priorities.begin(), md_.namespace_priorities.end());
    for (const auto& [ns, _] : md_.providers) all.insert(ns);
    for (const auto& [ns, _] : md_.static_properties) all.insert(ns);
    for (const auto& [_, props] : md_.variants) {
      for (const auto& p : props) all.insert(p.ns);
    }
    all.insert(std::string(kAbiDependencyNamespace));
    return {all.begin(), all.end()};
  }

  static std::vector<FeatureConfig> static_features(const std::map<std::string, std::vector<std::string>>& table) {
    std::vector<FeatureConfig> out;
    for (const auto& [feature, values] : table) out.push_back(FeatureConfig{feature, values, false});
    return out;
  }

  bool optional_enabled(const std::string& ns) const {
    return options_.enable_all_optional || options_.enabled_optional.count(ns) > 0;
  }

  Result<NamespaceSupport> support_of(const std::string& ns) {
    NamespaceSupport s;
    s.report.ns = ns;
    s.report.source = "none";
    const bool draft = md_.schema < SchemaVersion{0, 1, 0};
    const ProviderInfo* provider = find_in(md_.providers, ns);
    const bool is_abi = ns == kAbiDependencyNamespace;
    if (provider != nullptr) {
      if (provider->optional && !optional_enabled(ns)) {
        s.report.note = fmt::format("provider `{}` is optional and not enabled (use --enable-optional-provider {})",
                                    ns, ns);
        return s;
      }
      if (provider->enable_if) {
        auto marker = markers::Marker::parse(*provider->enable_if);
        if (!marker) {
          return fail(fmt::format("providers.{}.enable-if: {}", ns, marker.error().message));
        }
        if (options_.environment == nullptr) {
          return fail(fmt::format("providers.{}.enable-if `{}` needs the target's marker environment; give a "
                                  "--target profile with an `environment`",
                                  ns, *provider->enable_if));
        }
        auto value = marker->evaluate(*options_.environment);
        if (!value) return fail(fmt::format("providers.{}.enable-if: {}", ns, value.error().message));
        if (!*value) {
          s.report.note = fmt::format("provider `{}` is disabled: enable-if `{}` is false for the target", ns,
                                      *provider->enable_if);
          return s;
        }
      }
      if (!provider->install_time) {
        if (const auto* table = find_in(md_.static_properties, ns)) s.features = static_features(*table);
        s.report.source = "static-properties";
      } else if (!is_abi) {
        auto answer = oracle_.supported(ns, provider, s.report.note);
        if (!answer) return fail(answer.error());
        if (*answer) {
          s.features = std::move(**answer);
          s.report.source = "target";
        }
      }
    } else if (!is_abi) {
      if (draft) {
        s.report.note = fmt::format("namespace `{}` has no provider in the package's metadata", ns);
        return s;
      }
      auto answer = oracle_.supported(ns, nullptr, s.report.note);
      if (!answer) return fail(answer.error());
      if (*answer) {
        s.features = std::move(**answer);
        s.report.source = "target";
      }
    }
    if (is_abi) {
      if (auto ok = add_abi_dependencies(s); !ok) return fail(ok.error());
    }
    for (auto& fc : s.features) {
      const bool name_ok = is_valid_feature_name(fc.name);
      for (const auto& v : fc.values) {
        if (!name_ok || !is_valid_feature_value(v)) {
          return fail(fmt::format("provider `{}` answered an invalid property `{} :: {} :: {}`", ns, ns, fc.name, v));
        }
      }
    }
    return s;
  }

  Result<void> add_abi_dependencies(NamespaceSupport& s) const {
    std::map<std::string, std::string> versions;  // later entries override earlier ones
    for (const auto& [name, version] : options_.abi_dependencies) versions[abi_dependency_feature(name)] = version;
    for (const auto& [feature, version] : versions) {
      auto values = abi_dependency_values(version);
      if (!values) return fail(values.error().with_context(fmt::format("abi_dependency `{}`", feature)));
      s.features.push_back(FeatureConfig{feature, std::move(*values), false});
    }
    if (!versions.empty() && s.report.source == "none") s.report.source = "installed distributions";
    return {};
  }

  Result<void> collect_supported(Ranking& out) {
    for (const auto& ns : namespaces_of_interest()) {
      auto s = support_of(ns);
      if (!s) return fail(s.error());
      for (const auto& fc : s->features) {
        for (const auto& v : fc.values) supported_.push_back(Property{ns, fc.name, v});
      }
      out.namespaces.push_back(std::move(s->report));
    }
    return {};
  }

  // Three stable passes, as the reference does: by namespace priority; then, within a run of one
  // namespace, by feature priority (unlisted features keep provider order); then, within a run of
  // one feature, by value priority. A single composite key would interleave unlisted features.
  void sort_supported(Ranking& out) {
    auto ns_order = aggregate(&user_.namespace_priorities, &md_.namespace_priorities);
    if (std::find(ns_order.begin(), ns_order.end(), kAbiDependencyNamespace) == ns_order.end()) {
      ns_order.emplace_back(kAbiDependencyNamespace);
    }
    // Namespaces the package forgot to prioritize rank after the listed ones, by name.
    std::set<std::string> missing;
    for (const auto& p : supported_) {
      if (std::find(ns_order.begin(), ns_order.end(), p.ns) == ns_order.end()) missing.insert(p.ns);
    }
    ns_order.insert(ns_order.end(), missing.begin(), missing.end());

    // The passes sort a permutation by keys computed once per property, not the properties with
    // comparators that search the priority lists: callgrind counted 386 k instructions for the
    // 115 properties of a CUDA profile against torch's file (13% of `vwheel rank`), 113 k now.
    auto& props = supported_;
    std::vector<std::size_t> perm(props.size());
    std::vector<std::size_t> key(props.size());
    for (std::size_t i = 0; i < props.size(); ++i) {
      perm[i] = i;
      key[i] = index_of(ns_order, props[i].ns);
    }
    const auto by_key = [&](std::size_t a, std::size_t b) { return key[a] < key[b]; };
    std::stable_sort(perm.begin(), perm.end(), by_key);
    for (auto run = perm.begin(); run != perm.end();) {
      const auto& ns = props[*run].ns;
      auto end = std::find_if(run, perm.end(), [&](std::size_t i) { return props[i].ns != ns; });
      auto order = aggregate(find_in(user_.feature_priorities, ns), find_in(md_.feature_priorities, ns));
      for (auto it = run; it != end; ++it) key[*it] = index_of(order, props[*it].feature);
      std::stable_sort(run, end, by_key);
      run = end;
    }
    for (auto run = perm.begin(); run != perm.end();) {
      const auto& first = props[*run];
      auto end = std::find_if(run, perm.end(),
                              [&](std::size_t i) { return props[i].ns != first.ns || props[i].feature != first.feature; });
      const auto* user_ns = find_in(user_.property_priorities, first.ns);
      const auto* pkg_ns = find_in(md_.property_priorities, first.ns);
      auto order = aggregate(user_ns ? find_in(*user_ns, first.feature) : nullptr,
                             pkg_ns ? find_in(*pkg_ns, first.feature) : nullptr);
      if (!order.empty()) {
        for (auto it = run; it != end; ++it) key[*it] = index_of(order, props[*it].value);
        std::stable_sort(run, end, by_key);
      }
      run = end;
    }
    std::vector<Property> sorted;
    sorted.reserve(props.size());
    for (const auto i : perm) sorted.push_back(std::move(props[i]));
    props = std::move(sorted);
    out.sorted_supported = props;
    out.namespace_order = std::move(ns_order);
  }

  void build_table(const std::vector<Property>& sorted) {
    for (const auto& p : sorted) {
      auto [it, inserted] = table_.try_emplace(std::make_pair(p.ns, p.feature));
      if (inserted) it->second.position = table_.size() - 1;
      auto& slot = it->second;
      slot.index.try_emplace(p.value, slot.values.size());
      slot.values.push_back(p.value);
    }
  }

  std::string unsupported_namespace_note(const std::string& ns, const Ranking& out) const {
    for (const auto& r : out.namespaces) {
      if (r.ns == ns && !r.note.empty()) return r.note;
    }
    return fmt::format("the target supports nothing in namespace `{}`", ns);
  }

  void rank(Ranking& out) {
    struct Candidate {
      const std::string* label;
      std::vector<std::size_t> key;
      std::vector<Property> best;
    };
    std::vector<Candidate> compatible;
    std::vector<LabelReport> incompatible;
    compatible.reserve(md_.variants.size());
    const std::size_t width = table_.size();

    for (const auto& [label, props] : md_.variants) {
      Candidate c{&label, std::vector<std::size_t>(width, kUnlisted), {}};
      std::string reason;
      for (auto it = props.begin(); it != props.end() && reason.empty();) {
        auto end = std::find_if(it, props.end(),
                                [&](const Property& p) { return p.ns != it->ns || p.feature != it->feature; });
        auto slot_it = table_.find(std::make_pair(std::string_view(it->ns), std::string_view(it->feature)));
        if (slot_it == table_.end()) {
          std::vector<std::string> wanted;
          for (auto v = it; v != end; ++v) wanted.push_back(v->value);
          reason = fmt::format("`{}` needs {}; {}", it->feature_string(), wanted_text(wanted),
                               unsupported_namespace_note(it->ns, out));
          break;
        }
        const auto& slot = slot_it->second;
        std::size_t best = kUnlisted;
        for (auto v = it; v != end; ++v) {
          if (auto f = slot.index.find(v->value); f != slot.index.end()) best = std::min(best, f->second);
        }
        if (best == kUnlisted) {
          std::vector<std::string> wanted;
          for (auto v = it; v != end; ++v) wanted.push_back(v->value);
          std::vector<std::string> have;
          for (const auto& v : slot.values) {
            if (std::find(have.begin(), have.end(), v) == have.end()) have.push_back(v);
          }
          reason = fmt::format("`{}` needs {}; the target supports {}", it->feature_string(), wanted_text(wanted),
                               join_values(have));
          break;
        }
        c.key[slot.position] = best;
        it = end;
      }
      if (!reason.empty()) {
        incompatible.push_back(LabelReport{label, false, std::nullopt, {}, std::move(reason)});
        continue;
      }
      compatible.push_back(std::move(c));
    }

    std::sort(compatible.begin(), compatible.end(), [](const Candidate& a, const Candidate& b) {
      if (a.key != b.key) return a.key < b.key;
      return *a.label < *b.label;
    });

    std::vector<const FeatureSlot*> slots(width);
    std::vector<const std::pair<const std::pair<std::string, std::string>, FeatureSlot>*> entries(width);
    for (const auto& entry : table_) entries[entry.second.position] = &entry;

    for (std::size_t i = 0; i < compatible.size(); ++i) {
      const auto& c = compatible[i];
      out.order.push_back(*c.label);
      LabelReport r{*c.label, true, i, {}, {}};
      for (std::size_t k = 0; k < width; ++k) {
        if (c.key[k] == kUnlisted) continue;
        const auto& [key, slot] = *entries[k];
        r.best_properties.push_back(Property{key.first, key.second, slot.values[c.key[k]]});
      }
      out.reports.push_back(std::move(r));
    }
    for (auto& r : incompatible) out.reports.push_back(std::move(r));
  }

  const VariantMetadata& md_;
  const SupportOracle& oracle_;
  const UserPriorities& user_;
  const SelectionOptions& options_;
  std::vector<Property> supported_;
  FeatureTable table_;
};

}  // namespace

Result<std::optional<std::vector<FeatureConfig>>> TableOracle::supported(const std::string& ns,
                                                                         const ProviderInfo* /*declared*/,
                                                                         std::string& note) const {
  auto it = table_.find(ns);
  if (it == table_.end()) {
    note = fmt::format("the target profile lists no properties for namespace `{}`", ns);
    return std::optional<std::vector<FeatureConfig>>{};
  }
  return std::optional<std::vector<FeatureConfig>>{it->second};
}

Result<Ranking> rank_variants(const VariantMetadata& metadata, const SupportOracle& oracle, const UserPriorities& user,
                              const SelectionOptions& options) {
  return Engine(metadata, oracle, user, options).run();
}

bool is_supported(const PropertySet& properties, const SupportedProperties& supported, std::string* reason) {
  for (auto it = properties.begin(); it != properties.end();) {
    auto end = std::find_if(it, properties.end(),
                            [&](const Property& p) { return p.ns != it->ns || p.feature != it->feature; });
    const std::vector<std::string>* values = nullptr;
    if (auto ns = supported.find(it->ns); ns != supported.end()) {
      for (const auto& fc : ns->second) {
        if (fc.name == it->feature) values = &fc.values;
      }
    }
    bool ok = false;
    std::vector<std::string> wanted;
    for (auto v = it; v != end; ++v) {
      wanted.push_back(v->value);
      if (values != nullptr && std::find(values->begin(), values->end(), v->value) != values->end()) ok = true;
    }
    if (!ok) {
      if (reason != nullptr) {
        *reason = fmt::format("`{}` needs {}; the target supports {}", it->feature_string(), wanted_text(wanted),
                              values ? join_values(*values) : std::string("nothing"));
      }
      return false;
    }
    it = end;
  }
  return true;
}

void set_variant_markers(markers::Environment& env, const std::string& label, const PropertySet& properties,
                         const SupportedProperties& supported) {
  env.variant_label = label;
  env.variant_properties.clear();
  env.variant_features.clear();
  env.variant_namespaces.clear();
  for (const auto& p : properties) {
    auto ns = supported.find(p.ns);
    if (ns == supported.end()) continue;
    bool ok = false;
    for (const auto& fc : ns->second) {
      if (fc.name == p.feature && std::find(fc.values.begin(), fc.values.end(), p.value) != fc.values.end()) ok = true;
    }
    if (!ok) continue;
    env.variant_properties.insert(p.to_string());
    env.variant_features.insert(p.feature_string());
    env.variant_namespaces.insert(p.ns);
  }
}

Result<std::vector<std::string>> abi_dependency_values(std::string_view version) {
  auto v = pep440::Version::parse(version);
  if (!v) return fail(fmt::format("`{}` is not a valid PEP 440 version", version));
  const auto& release = v->release();
  auto part = [&](std::size_t i) { return i < release.size() ? release[i].to_string() : std::string("0"); };
  return std::vector<std::string>{part(0), part(0) + "." + part(1), part(0) + "." + part(1) + "." + part(2)};
}

std::string abi_dependency_feature(std::string_view name) {
  // PEP 503 normalization (each run of `-_.` becomes one separator), with `_` as the separator.
  std::string out;
  bool in_separator = false;
  for (char c : name) {
    const bool separator = c == '-' || c == '_' || c == '.';
    if (separator && !in_separator) out.push_back('_');
    if (!separator) out.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
    in_separator = separator;
  }
  return out;
}

AbiDependencyOverrides parse_abi_dependency_env(std::string_view value) {
  AbiDependencyOverrides out;
  std::size_t start = 0;
  while (start <= value.size()) {
    const auto comma = value.find(',', start);
    const auto item =
        python_strip(value.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (!item.empty()) {
      const auto eq = item.find("==");
      if (eq == std::string_view::npos || eq == 0 || eq + 2 >= item.size()) {
        out.ignored.push_back(fmt::format("VARIANT_ABI_DEPENDENCY: ignoring `{}` (expected name==version)", item));
      } else {
        out.items.emplace_back(std::string(python_strip(item.substr(0, eq))),
                               std::string(python_strip(item.substr(eq + 2))));
      }
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace vwheel::variant
