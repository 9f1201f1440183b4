// Why a resolution failed, from the incompatibility it ended on: a summary line naming the
// requirements that clash, the numbered derivation (at most 40 steps shown), and per project the
// versions available and the ones the search tried.

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "resolve/solver.hpp"

namespace vwheel::resolve::detail {

std::string Solver::describe_set(int id, const VersionSet& set, bool positive) const {
  const Package& p = pkg(id);
  if (p.root) return positive ? "root" : "not root";
  VersionSet shown = set;
  if (positive && !(set & gate(id)).empty()) shown = set & gate(id);
  std::string out;
  if (set.full()) {
    out = fmt::format("`{}`", label(id));
  } else if (shown.count() == 1) {
    out = fmt::format("`{}=={}`", label(id), p.project->versions[*shown.first()].to_string());
  } else {
    std::vector<std::string> vs;
    for (auto i : shown.indices()) vs.push_back(p.project->versions[i].to_string());
    const std::size_t total = vs.size();
    if (total > 6) {
      vs.resize(5);
      vs.push_back(fmt::format("... ({} versions)", total));
    }
    out = fmt::format("`{}` {{{}}}", label(id), fmt::join(vs, ", "));
  }
  return positive ? out : "not " + out;
}

std::vector<std::string> Solver::unusable_lines(int id, const std::vector<const pep440::SpecifierSet*>& asked,
                                                bool newer) const {
  const Package& p = pkg(id);
  const auto& candidates = p.project->versions;
  const auto newest = std::max_element(candidates.begin(), candidates.end());
  std::vector<std::pair<std::vector<std::string>, std::string>> groups;  // versions, reason
  for (auto& u : s_.cache.unusable(p.name)) {
    const bool named = (newer && (newest == candidates.end() || u.version > *newest)) ||
                       std::any_of(asked.begin(), asked.end(), [&](const auto* s) { return s->contains(u.version, true); });
    if (!named) continue;
    if (!groups.empty() && groups.back().second == u.reason) {
      groups.back().first.push_back(u.version.to_string());
    } else {
      groups.push_back({{u.version.to_string()}, std::move(u.reason)});
    }
  }
  std::vector<std::string> out;
  for (const auto& [versions, reason] : groups)
    out.push_back(fmt::format("`{}` {}: {}", p.name, fmt::join(versions, ", "), reason));
  return out;
}

std::vector<const pep440::SpecifierSet*> Solver::unmet_specs(const std::vector<int>& externals,
                                                              const std::string& name) const {
  std::vector<const pep440::SpecifierSet*> out;
  for (int id : externals) {
    const Incompat& inc = incompats_[static_cast<std::size_t>(id)];
    if (inc.cause == Cause::dependency && inc.empty_set && inc.target == name) out.push_back(&inc.spec);
  }
  return out;
}

bool Solver::gated(int id) const {
  const Incompat& inc = incompats_[static_cast<std::size_t>(id)];
  if (inc.cause != Cause::no_versions) return false;
  const Term& t = inc.terms.at(0);
  return !t.set.subset_of(gate(t.pkg)) && (t.set & gate(t.pkg)).empty();
}

std::string Solver::describe(int id) const {
  const Incompat& inc = incompats_[static_cast<std::size_t>(id)];
  switch (inc.cause) {
    case Cause::root:
      return "the root requirements";
    case Cause::dependency:
      if (inc.empty_set) {
        const Package& t = pkg(by_name_.at(inc.target));
        if (t.n == 0 && s_.cache.unusable(inc.target).empty())
          return fmt::format("{} requires `{}` but no versions of `{}` exist", inc.source, inc.text, inc.target);
        if (t.n == 0)
          return fmt::format("{} requires `{}` but no version of `{}` can be used", inc.source, inc.text, inc.target);
        return fmt::format("{} requires `{}` but no version of `{}` matches it", inc.source, inc.text, inc.target);
      }
      return fmt::format("{} requires `{}`", inc.source, inc.text);
    case Cause::constraint:
      return fmt::format("the constraint `{}` applies", inc.text);
    case Cause::no_versions: {
      const Term& t = inc.terms.at(0);
      if (gated(id)) {
        std::vector<std::string> vs;
        for (auto i : t.set.indices()) vs.push_back(pkg(t.pkg).project->versions[i].to_string());
        return fmt::format("`{}` {} {} pre-release{}, which {} not allowed", label(t.pkg), fmt::join(vs, ", "),
                           vs.size() == 1 ? "is a" : "are", vs.size() == 1 ? "" : "s", vs.size() == 1 ? "is" : "are");
      }
      return fmt::format("no version of {} is available", describe_set(t.pkg, t.set, true));
    }
    case Cause::derived:
      break;
  }
  if (is_failure(inc)) return "the requirements cannot be satisfied";
  const auto& ts = inc.terms;
  if (ts.size() == 1) {
    return ts[0].positive ? describe_set(ts[0].pkg, ts[0].set, true) + " cannot be used"
                          : describe_set(ts[0].pkg, ts[0].set, true) + " is required";
  }
  if (ts.size() == 2) {
    const Term* pos = ts[0].positive ? &ts[0] : (ts[1].positive ? &ts[1] : nullptr);
    const Term* neg = !ts[0].positive ? &ts[0] : (!ts[1].positive ? &ts[1] : nullptr);
    if (pos && neg)
      return fmt::format("{} requires {}", describe_set(pos->pkg, pos->set, true),
                         describe_set(neg->pkg, neg->set, true));
    if (pos)
      return fmt::format("{} is incompatible with {}", describe_set(ts[0].pkg, ts[0].set, true),
                         describe_set(ts[1].pkg, ts[1].set, true));
    return fmt::format("either {} or {} is required", describe_set(ts[0].pkg, ts[0].set, true),
                       describe_set(ts[1].pkg, ts[1].set, true));
  }
  std::vector<std::string> parts;
  for (const auto& t : ts) parts.push_back(describe_set(t.pkg, t.set, t.positive));
  return fmt::format("these cannot all hold: {}", fmt::join(parts, ", "));
}

Error Solver::explain(int failure) const {
  std::vector<std::string> lines;
  std::map<int, std::size_t> numbers;
  std::vector<int> externals;
  std::vector<int> order;  // base packages mentioned, in order
  auto mention = [&](int id) {
    const int b = pkg(id).base;
    if (!pkg(b).root && std::find(order.begin(), order.end(), b) == order.end()) order.push_back(b);
  };
  // Post-order walk; each derived incompatibility gets a numbered line.
  auto walk = [&](auto&& self, int id) -> std::string {
    const Incompat& inc = incompats_[static_cast<std::size_t>(id)];
    for (const auto& t : inc.terms) mention(t.pkg);
    if (inc.cause != Cause::derived) {
      if (std::find(externals.begin(), externals.end(), id) == externals.end()) externals.push_back(id);
      if (!inc.target.empty() && by_name_.count(inc.target)) mention(by_name_.at(inc.target));
      return describe(id);
    }
    if (auto it = numbers.find(id); it != numbers.end()) return fmt::format("({})", it->second);
    const std::string a = self(self, inc.left);
    const std::string b = self(self, inc.right);
    const std::size_t n = numbers.size() + 1;
    numbers.emplace(id, n);
    lines.push_back(fmt::format("({}) {}, because {} and {}", n, describe(id), a, b));
    return fmt::format("({})", n);
  };
  const std::string top = walk(walk, failure);
  if (lines.empty()) lines.push_back(top);
  if (lines.size() > 40) {
    const std::size_t dropped = lines.size() - 40;
    lines.erase(lines.begin(), lines.begin() + static_cast<std::ptrdiff_t>(dropped));
    lines.insert(lines.begin(), fmt::format("... ({} earlier steps not shown)", dropped));
  }

  // The summary line.
  std::string summary;
  auto entry = [&](const Incompat& inc) { return fmt::format("`{}` (from {})", inc.text, inc.source); };
  auto join_and = [](const std::vector<std::string>& parts) {
    if (parts.size() <= 1) return parts.empty() ? std::string() : parts[0];
    return fmt::format("{} and {}", fmt::join(parts.begin(), parts.end() - 1, ", "), parts.back());
  };
  for (int id : externals) {
    const Incompat& inc = incompats_[static_cast<std::size_t>(id)];
    if (inc.cause == Cause::dependency && inc.empty_set && pkg(by_name_.at(inc.target)).n == 0) {
      std::vector<std::string> by;
      for (int j : externals) {
        const Incompat& o = incompats_[static_cast<std::size_t>(j)];
        if (o.cause == Cause::dependency && o.target == inc.target &&
            std::find(by.begin(), by.end(), o.source) == by.end())
          by.push_back(o.source);
      }
      const auto why = unusable_lines(by_name_.at(inc.target), {});
      summary = why.empty() ? fmt::format("cannot resolve: no versions of `{}` found (required by {})", inc.target,
                                          fmt::join(by, ", "))
                            : fmt::format("cannot resolve: no usable version of `{}` (required by {}): {}", inc.target,
                                          fmt::join(by, ", "), why.front());
      break;
    }
  }
  if (summary.empty()) {
    std::map<std::string, std::vector<std::string>> groups;
    std::vector<std::string> group_order;
    std::vector<int> sources = externals;  // requirements first, constraints last
    std::stable_partition(sources.begin(), sources.end(),
                          [&](int id) { return incompats_[static_cast<std::size_t>(id)].cause != Cause::constraint; });
    for (int id : sources) {
      const Incompat& inc = incompats_[static_cast<std::size_t>(id)];
      if (inc.cause != Cause::dependency && inc.cause != Cause::constraint) continue;
      if (inc.target.empty()) continue;
      if (inc.link) continue;
      auto& g = groups[inc.target];
      if (g.empty()) group_order.push_back(inc.target);
      const std::string e = entry(inc);
      if (std::find(g.begin(), g.end(), e) == g.end()) g.push_back(e);
    }
    const std::string* best = nullptr;
    for (const auto& name : group_order)
      if (groups[name].size() >= 2 && (!best || groups[name].size() > groups[*best].size())) best = &name;
    if (best) summary = fmt::format("cannot resolve: no version of `{}` satisfies {}", *best, join_and(groups[*best]));
  }
  if (summary.empty()) {
    for (int id : externals) {
      const Incompat& inc = incompats_[static_cast<std::size_t>(id)];
      if (inc.cause == Cause::dependency && inc.empty_set) {
        summary = fmt::format("cannot resolve: no version of `{}` satisfies {}", inc.target, entry(inc));
        // The versions it asks for that the provider left out say why.
        if (const auto why = unusable_lines(by_name_.at(inc.target), {&inc.spec}, false); !why.empty())
          summary += "; " + why.front();
        break;
      }
      if (inc.cause == Cause::no_versions && gated(id)) {
        std::vector<std::string> by;
        for (int j : externals) {
          const Incompat& o = incompats_[static_cast<std::size_t>(j)];
          if ((o.cause == Cause::dependency || o.cause == Cause::constraint) && o.target == inc.target && !o.link &&
              std::find(by.begin(), by.end(), entry(o)) == by.end())
            by.push_back(entry(o));
        }
        summary = fmt::format("cannot resolve: only pre-releases of `{}` satisfy {}, and pre-releases are not allowed",
                              inc.target, join_and(by));
        break;
      }
      if (inc.cause == Cause::no_versions) {
        summary = "cannot resolve: " + describe(id);
        break;
      }
    }
  }
  if (summary.empty())
    summary = "cannot resolve: " + describe(incompats_[static_cast<std::size_t>(failure)].left >= 0
                                                ? incompats_[static_cast<std::size_t>(failure)].left
                                                : failure);

  // Versions tried.
  for (int b : order) {
    const Package& p = pkg(b);
    for (auto& line : unusable_lines(b, unmet_specs(externals, p.name))) lines.push_back(std::move(line));
    std::vector<std::string> avail;
    for (std::size_t i = 0; i < p.n && i < 10; ++i) avail.push_back(p.project->versions[i].to_string());
    if (p.n > 10) avail.push_back(fmt::format("... ({} versions)", p.n));
    std::vector<std::string> tried;
    if (auto it = s_.tried.find(p.name); it != s_.tried.end())
      for (auto i : it->second) tried.push_back(p.project->versions[i].to_string());
    lines.push_back(fmt::format("`{}`: available {}; tried {}", p.name,
                                avail.empty() ? "none" : fmt::format("{}", fmt::join(avail, ", ")),
                                tried.empty() ? "none" : fmt::format("{}", fmt::join(tried, ", "))));
  }
  return Error(std::move(summary), std::move(lines));
}

}  // namespace vwheel::resolve::detail
