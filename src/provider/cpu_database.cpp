#include "provider/cpu_database.hpp"

#include <algorithm>
#include <utility>

#include "provider/cpu_cpuinfo.hpp"
#include "provider/cpu_tables.hpp"

namespace vwheel::provider::cpu {
namespace {

// The family root of every record (empty when a record mixes families), in table order.
std::vector<std::string_view> record_roots(std::span<const UarchRecord> records) {
  std::vector<std::string_view> roots(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto parents = split_words(records[i].parents);
    if (parents.empty()) {
      roots[i] = records[i].name;
      continue;
    }
    std::string_view root;
    bool consistent = true;
    for (const auto parent : parents) {
      std::string_view parent_root;
      for (std::size_t j = 0; j < i; ++j) {
        if (records[j].name == parent) parent_root = roots[j];
      }
      if (parent_root.empty() || (!root.empty() && root != parent_root)) consistent = false;
      root = parent_root;
    }
    roots[i] = consistent ? root : std::string_view{};
  }
  return roots;
}

}  // namespace

Family::Family(std::string_view root) : root_(root) {
  const auto records = uarch_records();
  const auto roots = record_roots(records);

  std::vector<const UarchRecord*> members;
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (roots[i] == root) members.push_back(&records[i]);
  }
  members.resize(std::min(members.size(), kMaxUarchs));

  // Feature universe: every name an entry or an alias mentions.
  std::vector<std::pair<std::string_view, std::vector<std::string_view>>> alias_words;
  for (const auto& alias : alias_records()) {
    alias_words.emplace_back(alias.feature, split_words(alias.implied_by));
    feature_names_.push_back(alias.feature);
    for (const auto word : alias_words.back().second) feature_names_.push_back(word);
  }
  for (const auto* record : members) {
    for (const auto word : split_words(record->features)) feature_names_.push_back(word);
  }
  std::sort(feature_names_.begin(), feature_names_.end());
  feature_names_.erase(std::unique(feature_names_.begin(), feature_names_.end()), feature_names_.end());
  feature_names_.resize(std::min(feature_names_.size(), kMaxFeatures));

  for (const auto& [feature, sources] : alias_words) {
    Alias alias{};
    const auto id = feature_id(feature);
    if (!id) continue;
    alias.feature = *id;
    for (const auto source : sources) {
      if (const auto sid = feature_id(source)) alias.implied_by.push_back(*sid);
    }
    aliases_.push_back(std::move(alias));
  }

  uarchs_.reserve(members.size());
  for (const auto* record : members) {
    Uarch u;
    u.name = record->name;
    u.vendor = record->vendor;
    u.cpu_part = record->cpu_part;
    for (const auto parent : split_words(record->parents)) {
      if (const auto index = find(parent)) u.parents.push_back(*index);
    }
    u.ancestors = u.parents;
    for (const auto parent : u.parents) {
      for (const auto ancestor : uarchs_[parent].ancestors) {
        if (std::find(u.ancestors.begin(), u.ancestors.end(), ancestor) == u.ancestors.end()) {
          u.ancestors.push_back(ancestor);
        }
      }
    }
    for (const auto ancestor : u.ancestors) u.ancestor_set.set(ancestor);
    for (const auto word : split_words(record->features)) {
      if (const auto id = feature_id(word)) u.features.set(*id);
    }
    apply_aliases(u.features);
    u.feature_count = u.features.count();
    uarchs_.push_back(std::move(u));
  }
}

std::optional<std::size_t> Family::find(std::string_view name) const noexcept {
  for (std::size_t i = 0; i < uarchs_.size(); ++i) {
    if (uarchs_[i].name == name) return i;
  }
  return std::nullopt;
}

std::optional<std::size_t> Family::feature_id(std::string_view feature) const noexcept {
  const auto it = std::lower_bound(feature_names_.begin(), feature_names_.end(), feature);
  if (it == feature_names_.end() || *it != feature) return std::nullopt;
  return static_cast<std::size_t>(it - feature_names_.begin());
}

bool Family::has_feature(std::size_t uarch, std::string_view feature) const noexcept {
  const auto id = feature_id(feature);
  return id && uarch < uarchs_.size() && uarchs_[uarch].features.test(*id);
}

void Family::apply_aliases(FeatureSet& set) const noexcept {
  for (const auto& alias : aliases_) {
    for (const auto source : alias.implied_by) {
      if (set.test(source)) {
        set.set(alias.feature);
        break;
      }
    }
  }
}

FeatureSet Family::feature_set(std::span<const std::string_view> words) const {
  FeatureSet set;
  for (const auto word : words) {
    if (const auto id = feature_id(word)) set.set(*id);
  }
  apply_aliases(set);
  return set;
}

std::size_t Family::generic_of(std::size_t uarch) const noexcept {
  std::optional<std::size_t> best;
  const auto consider = [&](std::size_t i) {
    if (!uarchs_[i].is_generic()) return;
    if (!best || uarchs_[i].ancestors.size() > uarchs_[*best].ancestors.size()) best = i;
  };
  consider(uarch);
  for (const auto ancestor : uarchs_[uarch].ancestors) consider(ancestor);
  return best.value_or(uarch);
}

const Family& x86_64_family() {
  static const Family family("x86_64");
  return family;
}

const Family& aarch64_family() {
  static const Family family("aarch64");
  return family;
}

std::string_view arm_vendor_name(std::string_view code) noexcept {
  for (const auto& record : arm_vendor_records()) {
    if (record.code == code) return record.vendor;
  }
  return code;
}

std::size_t match_host(const Family& family, const HostCpu& host, MatchRules rules) {
  const auto uarchs = family.uarchs();
  const auto key = [&](std::size_t i) {
    return std::pair(uarchs[i].ancestors.size(), uarchs[i].feature_count);
  };
  // Python's max(): the first of the highest keys, in database order.
  const auto best_of = [&](const std::vector<std::size_t>& indices) {
    std::size_t best = indices.front();
    for (const auto i : indices) {
      if (key(i) > key(best)) best = i;
    }
    return best;
  };

  std::vector<std::size_t> candidates;
  for (std::size_t i = 0; i < uarchs.size(); ++i) {
    const Uarch& u = uarchs[i];
    if (rules == MatchRules::aarch64 && u.is_generic() && u.name != family.root()) continue;
    if (!u.is_generic() && u.vendor != host.vendor) continue;
    if ((u.features & ~host.features).any()) continue;
    candidates.push_back(i);
  }

  std::vector<std::size_t> generics;
  for (const auto i : candidates) {
    if (uarchs[i].is_generic()) generics.push_back(i);
  }
  if (generics.empty()) return family.find(family.root()).value_or(0);  // no root: cannot happen
  const std::size_t best_generic = best_of(generics);

  if (!host.cpu_part.empty()) {
    std::vector<std::size_t> same_part;
    for (const auto i : candidates) {
      if (uarchs[i].cpu_part == host.cpu_part) same_part.push_back(i);
    }
    if (!same_part.empty()) candidates = std::move(same_part);
  }

  std::vector<std::size_t> descendants;
  for (const auto i : candidates) {
    if (uarchs[i].ancestor_set.test(best_generic)) descendants.push_back(i);
  }
  return descendants.empty() ? best_generic : best_of(descendants);
}

}  // namespace vwheel::provider::cpu
