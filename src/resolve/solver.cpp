// The resolver: PubGrub (conflict-driven clause learning over version sets, as in Dart's pub and
// uv) where a version set is a bitset over the provider's finite candidate list of a project.
// Extras are virtual packages `foo[bar]` with foo's candidate list; deciding `foo[bar]==v`
// requires `foo==v` and adds the dependencies that apply only with `extra == "bar"`.
//
// Pre-releases: a requirement's version set admits pre-releases (range semantics); whether a
// pre-release may be *chosen* is a per-project gate: open with Options::pre, when the project has
// no final release, or once any specifier seen on it admits pre-releases. The gate only grows; if
// it grows after a "no allowed version" fact was learned from it, the search restarts (at most once
// per project) with the provider answers kept.

#include "resolve/solver.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

namespace vwheel::resolve::detail {

Result<std::optional<Resolution>> Solver::run() {
  Package root;
  root.root = true;
  root.n = 1;
  root.gate = VersionSet(1, true);
  root.base = 0;
  root.none = Term{0, false, VersionSet(1)};
  packages_.push_back(std::move(root));
  Incompat start;
  start.terms.push_back(Term{0, false, VersionSet(1, true)});
  start.cause = Cause::root;
  add_incompat(std::move(start));
  int next = 0;
  while (true) {
    if (auto r = propagate(next); !r) return fail(r.error());
    if (restart_) return std::optional<Resolution>();
    auto chosen = choose();
    if (!chosen) return fail(chosen.error());
    if (restart_) return std::optional<Resolution>();
    if (*chosen < 0) break;
    next = *chosen;
    if (++s_.rounds > s_.options.max_rounds) {
      return fail(
          Error(fmt::format("cannot resolve: gave up after {} rounds (Options::max_rounds)", s_.options.max_rounds)));
    }
  }
  auto res = solution();
  if (!res) return fail(res.error());
  return std::optional<Resolution>(std::move(*res));
}

void Solver::open_gate_if_needed(const Dep& d) {
  if (d.spec.prereleases().value_or(false)) enable_prereleases(d.name);
}

void Solver::enable_prereleases(const std::string& name) {
  if (!s_.prerelease_ok.insert(name).second) return;
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return;
  Package& p = packages_[static_cast<std::size_t>(it->second)];
  if (p.gate.full()) return;
  if (p.gate_used) {
    restart_ = true;
  } else {
    p.gate = VersionSet(p.n, true);
  }
}

Result<int> Solver::package(const std::string& name) {
  if (auto it = by_name_.find(name); it != by_name_.end()) return it->second;
  auto proj = s_.cache.project(name);
  if (!proj) return fail(proj.error());
  Package p;
  p.name = name;
  p.project = *proj;
  p.n = p.project->versions.size();
  p.base = static_cast<int>(packages_.size());
  const bool open = s_.options.pre || !p.project->has_final || s_.prerelease_ok.count(name) > 0;
  p.gate = VersionSet(p.n, open);
  if (!open)
    for (std::size_t i = 0; i < p.n; ++i)
      if (!p.project->versions[i].is_prerelease()) p.gate.set(i);
  const int id = p.base;
  p.none = Term{id, false, VersionSet(p.n)};
  packages_.push_back(std::move(p));
  by_name_.emplace(name, id);
  // Constraints on this project apply from now on.
  if (auto c = s_.constraints.find(name); c != s_.constraints.end()) {
    for (const auto& d : c->second) {
      VersionSet allowed = matching(id, d.spec);
      if (allowed.full()) continue;
      Incompat inc;
      inc.terms.push_back(Term{0, true, VersionSet(1, true)});
      inc.terms.push_back(Term{id, true, allowed.complement()});
      inc.cause = Cause::constraint;
      inc.source = "constraints";
      inc.target = name;
      inc.text = d.text;
      add_incompat(std::move(inc));
    }
  }
  return id;
}

Result<int> Solver::virtual_package(const std::string& name, const std::string& extra) {
  const std::string key = name + "[" + extra + "]";
  if (auto it = by_name_.find(key); it != by_name_.end()) return it->second;
  auto base = package(name);
  if (!base) return fail(base.error());
  Package p;
  p.name = name;
  p.extra = extra;
  p.base = *base;
  p.project = pkg(*base).project;
  p.n = pkg(*base).n;
  const int id = static_cast<int>(packages_.size());
  p.none = Term{id, false, VersionSet(p.n)};
  packages_.push_back(std::move(p));
  by_name_.emplace(key, id);
  return id;
}

const VersionSet& Solver::matching(int id, const pep440::SpecifierSet& spec) {
  auto key = std::make_pair(pkg(id).base, spec.to_string());
  if (auto it = matching_.find(key); it != matching_.end()) return it->second;
  const Package& p = pkg(id);
  VersionSet s(p.n);
  for (std::size_t i = 0; i < p.n; ++i)
    if (spec.contains(p.project->versions[i], true)) s.set(i);
  return matching_.emplace(std::move(key), std::move(s)).first->second;
}

std::string Solver::label(int id) const {
  const Package& p = pkg(id);
  if (p.root) return "root";
  return p.extra.empty() ? p.name : fmt::format("{}[{}]", p.name, p.extra);
}

std::string Solver::version_label(int id, std::size_t idx) const {
  const Package& p = pkg(id);
  if (p.root) return "root";
  return fmt::format("{}=={}", p.name, p.project->versions[idx].to_string());
}

std::string Solver::full_label(int id, std::size_t idx) const {
  const Package& p = pkg(id);
  if (p.root) return "root";
  return fmt::format("{}=={}", label(id), p.project->versions[idx].to_string());
}

int Solver::add_incompat(Incompat inc) {
  std::vector<Term> merged;
  for (auto& t : inc.terms) {
    auto it = std::find_if(merged.begin(), merged.end(), [&](const Term& m) { return m.pkg == t.pkg; });
    if (it == merged.end()) {
      merged.push_back(std::move(t));
    } else {
      *it = intersect(*it, t);
    }
  }
  std::vector<Term> terms;
  for (auto& t : merged) {
    if (!t.positive && t.set.empty()) continue;  // always true
    if (t.positive && t.set.empty()) return -1;  // never true
    terms.push_back(std::move(t));
  }
  if (inc.cause == Cause::derived && terms.size() > 1) {
    std::erase_if(terms, [&](const Term& t) { return t.positive && pkg(t.pkg).root; });
  }
  inc.terms = std::move(terms);
  const int id = static_cast<int>(incompats_.size());
  for (const auto& t : inc.terms) pkg(t.pkg).incompats.push_back(id);
  incompats_.push_back(std::move(inc));
  return id;
}

bool Solver::is_failure(const Incompat& inc) const {
  return inc.terms.empty() || (inc.terms.size() == 1 && inc.terms[0].positive && pkg(inc.terms[0].pkg).root);
}

const Term& Solver::acc(int id) const {
  const Package& p = pkg(id);
  if (p.assignments.empty()) return p.none;
  return assignments_[static_cast<std::size_t>(p.assignments.back())].acc;
}

void Solver::assign(Term term, int cause) {
  Assignment a;
  a.acc = intersect(acc(term.pkg), term);
  a.term = std::move(term);
  a.level = level_;
  a.cause = cause;
  const int id = a.term.pkg;
  pkg(id).assignments.push_back(static_cast<int>(assignments_.size()));
  assignments_.push_back(std::move(a));
  offer(id);
}

void Solver::decide(int id, std::size_t idx) {
  ++level_;
  pkg(id).decided = idx;
  assign(Term{id, true, VersionSet::single(pkg(id).n, idx)}, -1);
}

void Solver::backtrack(int level) {
  while (!assignments_.empty() && assignments_.back().level > level) {
    const Assignment& a = assignments_.back();
    const int id = a.term.pkg;
    Package& p = pkg(id);
    p.assignments.pop_back();
    if (a.cause < 0) p.decided.reset();
    assignments_.pop_back();
    offer(id);
  }
  level_ = level;
}

int Solver::satisfier(const Term& t) const {
  for (int a : pkg(t.pkg).assignments)
    if (satisfies(assignments_[static_cast<std::size_t>(a)].acc, t)) return a;
  return pkg(t.pkg).assignments.empty() ? 0 : pkg(t.pkg).assignments.back();  // not reached
}

Solver::Rel Solver::relation(const Incompat& inc, std::size_t& unsatisfied) const {
  bool found = false;
  for (std::size_t k = 0; k < inc.terms.size(); ++k) {
    const Term& t = inc.terms[k];
    const Term& a = acc(t.pkg);
    if (satisfies(a, t)) continue;
    if (contradicts(a, t)) return Rel::contradicted;
    if (found) return Rel::inconclusive;
    found = true;
    unsatisfied = k;
  }
  return found ? Rel::almost : Rel::satisfied;
}

Result<void> Solver::propagate(int start) {
  std::vector<int> changed{start};
  while (!changed.empty()) {
    const int p = changed.back();
    changed.pop_back();
    const auto& list = pkg(p).incompats;
    for (std::size_t k = list.size(); k-- > 0;) {
      const int id = pkg(p).incompats[k];
      std::size_t unsat = 0;
      const Rel rel = relation(incompats_[static_cast<std::size_t>(id)], unsat);
      if (rel == Rel::satisfied) {
        auto cause = resolve_conflict(id);
        if (!cause) return fail(cause.error());
        std::size_t u = 0;
        const Rel r2 = relation(incompats_[static_cast<std::size_t>(*cause)], u);
        changed.clear();
        if (r2 == Rel::almost) {
          Term t = negate(incompats_[static_cast<std::size_t>(*cause)].terms[u]);
          changed.push_back(t.pkg);
          assign(std::move(t), *cause);
        }
        break;
      }
      if (rel == Rel::almost) {
        Term t = negate(incompats_[static_cast<std::size_t>(id)].terms[unsat]);
        const int target = t.pkg;
        assign(std::move(t), id);
        if (std::find(changed.begin(), changed.end(), target) == changed.end()) changed.push_back(target);
      }
    }
  }
  return {};
}

Result<int> Solver::resolve_conflict(int id) {
  while (true) {
    if (++s_.rounds > s_.options.max_rounds) {
      return fail(
          Error(fmt::format("cannot resolve: gave up after {} rounds (Options::max_rounds)", s_.options.max_rounds)));
    }
    const Incompat inc = incompats_[static_cast<std::size_t>(id)];
    if (is_failure(inc)) return fail(explain(id));
    int most_recent = -1;
    std::size_t most_recent_term = 0;
    std::optional<Term> difference;
    int previous_level = 1;
    for (std::size_t k = 0; k < inc.terms.size(); ++k) {
      const Term& t = inc.terms[k];
      const int sat = satisfier(t);
      const int sat_level = assignments_[static_cast<std::size_t>(sat)].level;
      if (most_recent < 0) {
        most_recent = sat;
        most_recent_term = k;
      } else if (most_recent < sat) {
        previous_level = std::max(previous_level, assignments_[static_cast<std::size_t>(most_recent)].level);
        most_recent = sat;
        most_recent_term = k;
        difference.reset();
      } else {
        previous_level = std::max(previous_level, sat_level);
      }
      if (most_recent_term == k) {
        Term diff = intersect(assignments_[static_cast<std::size_t>(most_recent)].term, negate(t));
        if (diff.positive && diff.set.empty()) {
          difference.reset();
        } else {
          const int s2 = satisfier(negate(diff));
          previous_level = std::max(previous_level, assignments_[static_cast<std::size_t>(s2)].level);
          difference = std::move(diff);
        }
      }
    }
    const Assignment& sat = assignments_[static_cast<std::size_t>(most_recent)];
    if (sat.cause < 0 || previous_level != sat.level) {
      backtrack(previous_level);
      return id;
    }
    Incompat next;
    next.cause = Cause::derived;
    next.left = id;
    next.right = sat.cause;
    for (std::size_t k = 0; k < inc.terms.size(); ++k)
      if (k != most_recent_term) next.terms.push_back(inc.terms[k]);
    for (const auto& t : incompats_[static_cast<std::size_t>(sat.cause)].terms)
      if (t.pkg != sat.term.pkg) next.terms.push_back(t);
    if (difference) next.terms.push_back(negate(*difference));
    const int added = add_incompat(std::move(next));
    if (added < 0) return fail(Error("cannot resolve: internal error in conflict resolution"));
    id = added;
  }
}

Result<const std::vector<int>*> Solver::dependency_incompats(int id, std::size_t idx) {
  if (auto it = pkg(id).dep_incompats.find(idx); it != pkg(id).dep_incompats.end()) return &it->second;
  std::vector<int> ids;
  const std::string source = full_label(id, idx);
  auto add_dep = [&](int target, const VersionSet& set, const Dep& d, bool link = false) {
    Incompat inc;
    inc.terms.push_back(Term{id, true, VersionSet::single(pkg(id).n, idx)});
    if (!set.empty()) inc.terms.push_back(Term{target, false, set});
    inc.cause = Cause::dependency;
    inc.source = source;
    inc.target = pkg(target).name;
    inc.text = d.text;
    inc.spec = d.spec;
    inc.empty_set = set.empty();
    inc.link = link;
    const int added = add_incompat(std::move(inc));
    if (added >= 0) ids.push_back(added);
  };

  const std::vector<Dep>* deps = nullptr;
  std::vector<Dep> none;
  if (pkg(id).root) {
    deps = &s_.roots;
  } else {
    const std::string name = pkg(id).name;
    const std::string extra = pkg(id).extra;
    if (!extra.empty()) {
      Dep self;
      self.name = name;
      self.text = fmt::format("{}=={}", name, pkg(id).project->versions[idx].to_string());
      add_dep(pkg(id).base, VersionSet::single(pkg(id).n, idx), self, true);
    }
    if (s_.options.no_deps) {
      deps = &none;
    } else {
      auto parsed = s_.cache.parsed(name, idx, extra);
      if (!parsed) return fail(parsed.error());
      deps = *parsed;
    }
  }
  for (const Dep& d : *deps) {
    open_gate_if_needed(d);
    if (!pkg(id).root && d.name == pkg(id).name) {  // self-dependency: only its extras matter
      for (const auto& e : d.extras) {
        if (e == pkg(id).extra) continue;
        auto target = virtual_package(d.name, e);
        if (!target) return fail(target.error());
        add_dep(*target, VersionSet::single(pkg(id).n, idx) & matching(*target, d.spec), d);
      }
      continue;
    }
    auto base = package(d.name);
    if (!base) return fail(base.error());
    const VersionSet& set = matching(*base, d.spec);
    add_dep(*base, set, d);
    for (const auto& e : d.extras) {
      auto target = virtual_package(d.name, e);
      if (!target) return fail(target.error());
      add_dep(*target, set, d);
    }
  }
  return &pkg(id).dep_incompats.emplace(idx, std::move(ids)).first->second;
}

std::size_t Solver::candidate_count(int id) const { return (acc(id).set & gate(id)).count(); }

void Solver::offer(int id) {
  if (!pkg(id).decided && acc(id).positive) candidates_.emplace(candidate_count(id), id);
}

Result<int> Solver::choose() {
  int best = -1;
  while (!candidates_.empty()) {
    const auto [key, id] = candidates_.top();
    if (pkg(id).decided || !acc(id).positive) {
      candidates_.pop();
      continue;
    }
    if (const auto now = candidate_count(id); now != key) {
      candidates_.pop();  // its count grew (a backtrack, a wider pre-release gate): queued again
      candidates_.emplace(now, id);
      continue;
    }
    best = id;  // it stays queued: decided now, it is dropped when next seen
    break;
  }
  if (best < 0) return -1;
  const Term a = acc(best);
  const auto idx = (a.set & gate(best)).first();
  if (!idx) {
    if (!a.set.subset_of(gate(best))) pkg(pkg(best).base).gate_used = true;
    Incompat inc;
    inc.terms.push_back(Term{best, true, a.set});
    inc.cause = Cause::no_versions;
    inc.target = pkg(best).name;
    add_incompat(std::move(inc));
    return best;
  }
  if (!pkg(best).root) s_.tried[pkg(best).name].insert(*idx);
  auto ids = dependency_incompats(best, *idx);
  if (!ids) return fail(ids.error());
  if (restart_) return best;
  bool conflict = false;
  for (int i : **ids) {
    const Incompat& inc = incompats_[static_cast<std::size_t>(i)];
    bool all = true;
    for (const auto& t : inc.terms)
      if (t.pkg != best && !satisfies(acc(t.pkg), t)) all = false;
    conflict = conflict || all;
  }
  if (!conflict) decide(best, *idx);
  return best;
}

Result<Resolution> Solver::solution() {
  Resolution res;
  res.rounds = s_.rounds;
  std::map<std::string, Pin> pins;
  for (int id = 1; id < static_cast<int>(packages_.size()); ++id) {
    const Package& p = pkg(id);
    if (!p.decided || !p.extra.empty()) continue;
    Pin pin;
    pin.name = p.name;
    pin.version = p.project->versions[*p.decided];
    pins.emplace(p.name, std::move(pin));
  }
  for (int id = 0; id < static_cast<int>(packages_.size()); ++id) {
    const Package& p = pkg(id);
    if (!p.decided) continue;
    if (!p.extra.empty()) {
      auto& pin = pins.at(p.name);
      pin.extras.push_back(p.extra);
      auto declared = s_.cache.declares_extra(p.name, *p.decided, p.extra);
      if (!declared) return fail(declared.error());
      if (!*declared) {
        res.warnings.push_back(
            fmt::format("{} does not provide the extra `{}`", version_label(id, *p.decided), p.extra));
      }
    }
    const std::string source = version_label(id, *p.decided);
    for (int i : p.dep_incompats.at(*p.decided)) {
      const Incompat& inc = incompats_[static_cast<std::size_t>(i)];
      if (inc.target == p.name && !p.root) continue;
      auto it = pins.find(inc.target);
      if (it == pins.end()) continue;
      it->second.required_by.push_back(source);
      if (p.root) it->second.requested = true;
    }
  }
  for (auto& [name, pin] : pins) {
    for (auto* v : {&pin.extras, &pin.required_by}) {
      std::sort(v->begin(), v->end());
      v->erase(std::unique(v->begin(), v->end()), v->end());
    }
    res.pins.push_back(std::move(pin));
  }
  return res;
}

}  // namespace vwheel::resolve::detail
