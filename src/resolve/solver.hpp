#pragma once
// Private to the resolve component: the PubGrub search of one run (solver.cpp) and the report of
// why it failed (explain.cpp), over one state. resolver.cpp runs it, again after a restart.

#include <cstdint>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "resolve/candidates.hpp"
#include "resolve/version_set.hpp"
#include "vwheel/resolve/resolver.hpp"

namespace vwheel::resolve::detail {

/// Where an incompatibility came from.
enum class Cause : std::uint8_t { root, dependency, constraint, no_versions, derived };

/// A set of terms that cannot all hold at once.
struct Incompat {
  std::vector<Term> terms;
  Cause cause = Cause::root;
  int left = -1, right = -1;  // derived: the two incompatibilities it came from
  // dependency / constraint / no_versions:
  std::string source;      // "root" or "pkg==ver" (dependency)
  std::string target;      // canonical base name of the required project
  std::string text;        // the requirement as written
  pep440::SpecifierSet spec;  // dependency: its specifier (which left-out versions it asked for)
  bool empty_set = false;  // dependency: no candidate matches
  bool link = false;       // dependency of `foo[extra]==v` on `foo==v`
};

/// One step of the partial solution: a decision (cause -1) or a derivation.
struct Assignment {
  Term term;
  Term acc;  // intersection of the package's assignments up to this one
  int level = 0;
  int cause = -1;  // -1 for a decision
};

/// A project (or the virtual `project[extra]`, or the root) as the search sees it.
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

/// What outlives a restart of the search: the provider's answers, the requirements, the gates.
struct Shared {
  Cache cache;
  const Options& options;
  std::set<std::string> prerelease_ok;  // projects whose gate is open by a specifier
  std::vector<Dep> roots;
  std::map<std::string, std::vector<Dep>> constraints;
  std::map<std::string, std::set<std::size_t>> tried;  // canonical name -> indices considered at some point
  std::size_t rounds = 0;
};

/// The state of one run of the search.
class Solver {
 public:
  explicit Solver(Shared& shared) : s_(shared) {}

  /// Runs the search: a value when solved, std::nullopt when a restart is needed.
  Result<std::optional<Resolution>> run();

 private:
  // --- packages (solver.cpp) -----------------------------------------------------------------

  void open_gate_if_needed(const Dep& d);
  void enable_prereleases(const std::string& name);
  Result<int> package(const std::string& name);
  Result<int> virtual_package(const std::string& name, const std::string& extra);

  Package& pkg(int id) { return packages_[static_cast<std::size_t>(id)]; }
  const Package& pkg(int id) const { return packages_[static_cast<std::size_t>(id)]; }
  const VersionSet& gate(int id) const { return pkg(pkg(id).base).gate; }

  // The candidates of `id` that `spec` admits (pre-releases included: the gate decides on them).
  const VersionSet& matching(int id, const pep440::SpecifierSet& spec);

  std::string label(int id) const;
  // `name==version` (what Pin::required_by holds).
  std::string version_label(int id, std::size_t idx) const;
  // `name[extra]==version` (what explanations show).
  std::string full_label(int id, std::size_t idx) const;

  // --- incompatibilities ---------------------------------------------------------------------

  // Normalizes (merges terms per package, drops always-true terms, drops the root from derived
  // ones) and records; returns -1 when the incompatibility can never be satisfied.
  int add_incompat(Incompat inc);
  bool is_failure(const Incompat& inc) const;

  // --- partial solution ----------------------------------------------------------------------

  const Term& acc(int id) const;
  void assign(Term term, int cause);
  void decide(int id, std::size_t idx);
  void backtrack(int level);
  int satisfier(const Term& t) const;

  // --- propagation ---------------------------------------------------------------------------

  enum class Rel : std::uint8_t { satisfied, almost, contradicted, inconclusive };

  Rel relation(const Incompat& inc, std::size_t& unsatisfied) const;
  Result<void> propagate(int start);
  Result<int> resolve_conflict(int id);

  // --- decisions -----------------------------------------------------------------------------

  Result<const std::vector<int>*> dependency_incompats(int id, std::size_t idx);
  // Picks the next package and version; -1 when every required package is decided.
  Result<int> choose();
  // Queues `id` for choose() when it is undecided and required, keyed by its current count.
  void offer(int id);
  // How many versions `id` may still take (its term within the pre-release gate).
  std::size_t candidate_count(int id) const;

  // --- results -------------------------------------------------------------------------------

  Result<Resolution> solution();

  // --- explanations (explain.cpp) ------------------------------------------------------------

  std::string describe_set(int id, const VersionSet& set, bool positive) const;
  // Whether a no_versions incompatibility is due to the pre-release gate.
  bool gated(int id) const;
  std::string describe(int id) const;
  // The provider's left-out versions of `id` (a base package) worth naming: those newer than its
  // newest candidate (all when it has none) unless not `newer`, and those `asked` admits (a
  // requirement that no candidate meets), grouped: `x` 2.0, 1.9: REASON.
  std::vector<std::string> unusable_lines(int id, const std::vector<const pep440::SpecifierSet*>& asked,
                                          bool newer = true) const;
  // The specifiers of the requirements in `externals` on `name` that no candidate meets.
  std::vector<const pep440::SpecifierSet*> unmet_specs(const std::vector<int>& externals, const std::string& name) const;
  // The error for the failure `failure`: a summary line, the derivation, the versions tried.
  Error explain(int failure) const;

  Shared& s_;
  std::vector<Package> packages_;
  std::map<std::string, int> by_name_;
  std::map<std::pair<int, std::string>, VersionSet> matching_;
  std::vector<Incompat> incompats_;
  std::vector<Assignment> assignments_;
  // The undecided required packages in choose()'s order (fewest candidates first, then the lowest
  // id), as a lazy heap: offer() pushes a package whenever its term changes (assign, backtrack),
  // and choose() checks each entry it pops against the package's state now. A count only falls
  // through an assignment, which pushes the new one, so no key is above its package's count and
  // the first entry that checks out is what a scan of every package would pick. The scan was
  // quadratic in the packages: 15% of a 10,000-package sync (bench/sync_many.sh).
  std::priority_queue<std::pair<std::size_t, int>, std::vector<std::pair<std::size_t, int>>, std::greater<>>
      candidates_;
  int level_ = 0;
  bool restart_ = false;
};

}  // namespace vwheel::resolve::detail
