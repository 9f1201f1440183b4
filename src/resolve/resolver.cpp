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

#include "vwheel/resolve/resolver.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "resolve/candidates.hpp"
#include "resolve/version_set.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::resolve {
namespace {

using detail::Cache;
using detail::contradicts;
using detail::Dep;
using detail::intersect;
using detail::negate;
using detail::Project;
using detail::satisfies;
using detail::Term;
using detail::to_dep;
using detail::VersionSet;
using pep440::Version;

// ---------------------------------------------------------------------------------------------
// The solver state of one run.

enum class Cause : std::uint8_t { root, dependency, constraint, no_versions, derived };

struct Incompat {
  std::vector<Term> terms;
  Cause cause = Cause::root;
  int left = -1, right = -1;  // derived: the two incompatibilities it came from
  // dependency / constraint / no_versions:
  std::string source;      // "root" or "pkg==ver" (dependency)
  std::string target;      // canonical base name of the required project
  std::string text;        // the requirement as written
  bool empty_set = false;  // dependency: no candidate matches
  bool link = false;       // dependency of `foo[extra]==v` on `foo==v`
};

struct Assignment {
  Term term;
  Term acc;  // intersection of the package's assignments up to this one
  int level = 0;
  int cause = -1;  // -1 for a decision
};

struct Package {
  std::string name;   // canonical base name ("" for the root)
  std::string extra;  // "" unless virtual
  int base = -1;
  bool root = false;
  Project* project = nullptr;
  std::size_t n = 0;
  VersionSet gate;         // (base packages) versions that may be chosen
  bool gate_used = false;  // a no_versions fact depends on the gate
  std::vector<int> incompats;
  std::vector<int> assignments;
  std::optional<std::size_t> decided;
  std::map<std::size_t, std::vector<int>> dep_incompats;
  Term none;  // the empty partial solution: "anything"
};

struct Shared {
  Cache cache;
  const Options& options;
  std::set<std::string> prerelease_ok;  // projects whose gate is open by a specifier
  std::vector<Dep> roots;
  std::map<std::string, std::vector<Dep>> constraints;
  std::map<std::string, std::set<std::size_t>> tried;  // canonical name -> indices considered at some point
  std::size_t rounds = 0;
};

struct Failure {
  Error error;
};

class Solver {
 public:
  explicit Solver(Shared& shared) : s_(shared) {}

  // Runs the search: a value when solved, std::nullopt when a restart is needed.
  Result<std::optional<Resolution>> run() {
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

 private:
  // --- packages ------------------------------------------------------------------------------

  void open_gate_if_needed(const Dep& d) {
    if (d.spec.prereleases().value_or(false)) enable_prereleases(d.name);
  }

  void enable_prereleases(const std::string& name) {
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

  Result<int> package(const std::string& name) {
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

  Result<int> virtual_package(const std::string& name, const std::string& extra) {
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

  Package& pkg(int id) { return packages_[static_cast<std::size_t>(id)]; }
  const Package& pkg(int id) const { return packages_[static_cast<std::size_t>(id)]; }
  const VersionSet& gate(int id) const { return pkg(pkg(id).base).gate; }

  // The candidates of `id` that `spec` admits (pre-releases included: the gate decides on them).
  const VersionSet& matching(int id, const pep440::SpecifierSet& spec) {
    auto key = std::make_pair(pkg(id).base, spec.to_string());
    if (auto it = matching_.find(key); it != matching_.end()) return it->second;
    const Package& p = pkg(id);
    VersionSet s(p.n);
    for (std::size_t i = 0; i < p.n; ++i)
      if (spec.contains(p.project->versions[i], true)) s.set(i);
    return matching_.emplace(std::move(key), std::move(s)).first->second;
  }

  std::string label(int id) const {
    const Package& p = pkg(id);
    if (p.root) return "root";
    return p.extra.empty() ? p.name : fmt::format("{}[{}]", p.name, p.extra);
  }
  // `name==version` (what Pin::required_by holds).
  std::string version_label(int id, std::size_t idx) const {
    const Package& p = pkg(id);
    if (p.root) return "root";
    return fmt::format("{}=={}", p.name, p.project->versions[idx].to_string());
  }
  // `name[extra]==version` (what explanations show).
  std::string full_label(int id, std::size_t idx) const {
    const Package& p = pkg(id);
    if (p.root) return "root";
    return fmt::format("{}=={}", label(id), p.project->versions[idx].to_string());
  }

  // --- incompatibilities ---------------------------------------------------------------------

  // Normalizes (merges terms per package, drops always-true terms, drops the root from derived
  // ones) and records; returns -1 when the incompatibility can never be satisfied.
  int add_incompat(Incompat inc) {
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

  bool is_failure(const Incompat& inc) const {
    return inc.terms.empty() || (inc.terms.size() == 1 && inc.terms[0].positive && pkg(inc.terms[0].pkg).root);
  }

  // --- partial solution ----------------------------------------------------------------------

  const Term& acc(int id) const {
    const Package& p = pkg(id);
    if (p.assignments.empty()) return p.none;
    return assignments_[static_cast<std::size_t>(p.assignments.back())].acc;
  }

  void assign(Term term, int cause) {
    Assignment a;
    a.acc = intersect(acc(term.pkg), term);
    a.term = std::move(term);
    a.level = level_;
    a.cause = cause;
    pkg(a.term.pkg).assignments.push_back(static_cast<int>(assignments_.size()));
    assignments_.push_back(std::move(a));
  }

  void decide(int id, std::size_t idx) {
    ++level_;
    pkg(id).decided = idx;
    assign(Term{id, true, VersionSet::single(pkg(id).n, idx)}, -1);
  }

  void backtrack(int level) {
    while (!assignments_.empty() && assignments_.back().level > level) {
      const Assignment& a = assignments_.back();
      Package& p = pkg(a.term.pkg);
      p.assignments.pop_back();
      if (a.cause < 0) p.decided.reset();
      assignments_.pop_back();
    }
    level_ = level;
  }

  int satisfier(const Term& t) const {
    for (int a : pkg(t.pkg).assignments)
      if (satisfies(assignments_[static_cast<std::size_t>(a)].acc, t)) return a;
    return pkg(t.pkg).assignments.empty() ? 0 : pkg(t.pkg).assignments.back();  // not reached
  }

  // --- propagation ---------------------------------------------------------------------------

  enum class Rel : std::uint8_t { satisfied, almost, contradicted, inconclusive };

  Rel relation(const Incompat& inc, std::size_t& unsatisfied) const {
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

  Result<void> propagate(int start) {
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

  Result<int> resolve_conflict(int id) {
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

  // --- decisions -----------------------------------------------------------------------------

  Result<const std::vector<int>*> dependency_incompats(int id, std::size_t idx) {
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

  // Picks the next package and version; -1 when every required package is decided.
  Result<int> choose() {
    int best = -1;
    std::size_t best_count = 0;
    for (int id = 0; id < static_cast<int>(packages_.size()); ++id) {
      if (pkg(id).decided) continue;
      const Term& a = acc(id);
      if (!a.positive) continue;
      const std::size_t c = (a.set & gate(id)).count();
      if (best < 0 || c < best_count) {
        best = id;
        best_count = c;
      }
      if (c == 0) break;
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

  // --- results -------------------------------------------------------------------------------

  Result<Resolution> solution() {
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

  // --- explanations --------------------------------------------------------------------------

  std::string describe_set(int id, const VersionSet& set, bool positive) const {
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

  // Whether a no_versions incompatibility is due to the pre-release gate.
  bool gated(int id) const {
    const Incompat& inc = incompats_[static_cast<std::size_t>(id)];
    if (inc.cause != Cause::no_versions) return false;
    const Term& t = inc.terms.at(0);
    return !t.set.subset_of(gate(t.pkg)) && (t.set & gate(t.pkg)).empty();
  }

  std::string describe(int id) const {
    const Incompat& inc = incompats_[static_cast<std::size_t>(id)];
    switch (inc.cause) {
      case Cause::root:
        return "the root requirements";
      case Cause::dependency:
        if (inc.empty_set) {
          const Package& t = pkg(by_name_.at(inc.target));
          if (t.n == 0)
            return fmt::format("{} requires `{}` but no versions of `{}` exist", inc.source, inc.text, inc.target);
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

  Error explain(int failure) const {
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
        summary =
            fmt::format("cannot resolve: no versions of `{}` found (required by {})", inc.target, fmt::join(by, ", "));
        break;
      }
    }
    if (summary.empty()) {
      std::map<std::string, std::vector<std::string>> groups;
      std::vector<std::string> group_order;
      std::vector<int> sources = externals;  // requirements first, constraints last
      std::stable_partition(sources.begin(), sources.end(), [&](int id) {
        return incompats_[static_cast<std::size_t>(id)].cause != Cause::constraint;
      });
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
      if (best)
        summary = fmt::format("cannot resolve: no version of `{}` satisfies {}", *best, join_and(groups[*best]));
    }
    if (summary.empty()) {
      for (int id : externals) {
        const Incompat& inc = incompats_[static_cast<std::size_t>(id)];
        if (inc.cause == Cause::dependency && inc.empty_set) {
          summary = fmt::format("cannot resolve: no version of `{}` satisfies {}", inc.target, entry(inc));
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
          summary =
              fmt::format("cannot resolve: only pre-releases of `{}` satisfy {}, and pre-releases are not allowed",
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

  Shared& s_;
  std::vector<Package> packages_;
  std::map<std::string, int> by_name_;
  std::map<std::pair<int, std::string>, VersionSet> matching_;
  std::vector<Incompat> incompats_;
  std::vector<Assignment> assignments_;
  int level_ = 0;
  bool restart_ = false;
};

}  // namespace

Result<Resolution> resolve(Provider& provider, const std::vector<markers::Requirement>& requirements,
                           const std::vector<markers::Requirement>& constraints,
                           const markers::Environment& root_environment, const Options& options) {
  Shared shared{Cache(provider), options, {}, {}, {}, {}, 0};
  markers::Environment env = root_environment;
  env.variables["extra"] = "";
  for (const auto& r : requirements) {
    if (!r.url.empty()) return fail(fmt::format("direct URL requirements are not supported: `{}`", r.to_string()));
    auto applies = r.applies_to(env);
    if (!applies)
      return fail(fmt::format("cannot evaluate the marker of the requirement `{}`: {}", r.to_string(),
                              applies.error().message));
    if (!*applies) continue;
    Dep d = to_dep(r);
    if (d.spec.prereleases().value_or(false)) shared.prerelease_ok.insert(d.name);
    shared.roots.push_back(std::move(d));
  }
  for (const auto& r : constraints) {
    if (!r.url.empty()) return fail(fmt::format("constraints cannot be direct URL requirements: `{}`", r.to_string()));
    if (!r.extras.empty()) return fail(fmt::format("constraints cannot have extras: `{}`", r.to_string()));
    auto applies = r.applies_to(env);
    if (!applies)
      return fail(
          fmt::format("cannot evaluate the marker of the constraint `{}`: {}", r.to_string(), applies.error().message));
    if (!*applies) continue;
    Dep d = to_dep(r);
    if (d.spec.prereleases().value_or(false)) shared.prerelease_ok.insert(d.name);
    shared.constraints[d.name].push_back(std::move(d));
  }
  while (true) {
    Solver solver(shared);
    auto r = solver.run();
    if (!r) return fail(r.error());
    if (*r) return std::move(**r);
  }
}

}  // namespace vwheel::resolve
