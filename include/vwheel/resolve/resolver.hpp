#pragma once
/// \file
/// A dependency resolver over PEP 440 versions and PEP 508 requirements (with PEP 825 variant
/// markers). Pure: every fact about the projects comes from a `Provider`, which the caller
/// implements on top of an index, a cache or (in tests) memory.
///
/// The algorithm is PubGrub (conflict-driven clause learning over sets of versions, as in Dart's
/// pub and uv): it decides the most constrained undecided project first (fewest allowed candidate
/// versions left), choosing its most preferred allowed version in the provider's order; when the
/// facts learned so far (incompatibilities) rule out every version of a project, it derives the
/// root cause as a new incompatibility and backjumps to the decision level where that cause no
/// longer holds, so the same conflict is never explored twice. It is complete: when a solution
/// exists among the provider's versions it is found (within `Options::max_rounds`), and the
/// solution found is the first one in the provider's preference order for the projects as they
/// are decided.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/markers/marker.hpp"
#include "vwheel/markers/requirement.hpp"
#include "vwheel/pep440/version.hpp"

namespace vwheel::resolve {

/// What the provider says about one version of a project: its dependencies as written
/// (`Requires-Dist`), the marker environment to evaluate them in (the provider fills the variant
/// fields for the wheel it selected for this version; the resolver sets `extra`), and the extras
/// the version declares (`Provides-Extra`; when empty, the extras named in `requires_dist`
/// markers count as declared).
struct Dependencies {
  std::vector<markers::Requirement> requires_dist;
  markers::Environment environment;
  std::vector<std::string> provides_extra;
};

/// A version of a project that the provider left out of its candidates, and why: one phrase that
/// reads after `name version: `, e.g. `only a source distribution (vwheel installs wheels from
/// indexes)`.
struct Unusable {
  pep440::Version version;
  std::string reason;
};

/// The source of candidate versions and their dependencies.
class Provider {
 public:
  virtual ~Provider() = default;
  /// Candidate versions of a project (canonical name), most preferred first (normally newest
  /// first; the provider already dropped versions without an installable wheel, yanked ones and
  /// requires-python misfits). An error (network, bad metadata) aborts resolution with that error.
  /// Called at most once per name during one `resolve`.
  virtual Result<std::vector<pep440::Version>> versions(std::string_view name) = 0;
  /// The dependencies of one version returned by `versions(name)`. An error aborts resolution.
  /// Called at most once per (name, version) during one `resolve`.
  virtual Result<Dependencies> dependencies(std::string_view name, const pep440::Version& version) = 0;
  /// The newest few versions of a project (canonical name, after `versions(name)`) that
  /// `versions` left out, newest first, each with why; asked only to explain a failure, which
  /// names those newer than every candidate (all of them when there is none) and those a failing
  /// requirement asks for. Default: none known.
  virtual std::vector<Unusable> unusable(std::string_view name) {
    static_cast<void>(name);
    return {};
  }
};

/// Resolver options.
struct Options {
  /// Admit pre-releases (and dev releases) of every project. Without it a pre-release of a
  /// project may be chosen only when a specifier on that project admits pre-releases (e.g.
  /// `>=2.0b1`, in a root requirement, a constraint, or a dependency met during the search;
  /// `SpecifierSet::prereleases()`), or when the project has no final release among its
  /// candidates at all. Requirements match pre-releases by their version ranges: with
  /// `x>=2.0b1` at the root, a dependency on plain `x` accepts `2.0b2`.
  bool pre = false;
  /// Upper bound on the search work (versions tried plus backjumps); past it the resolution
  /// fails with a "gave up" error.
  std::size_t max_rounds = 200000;
  /// Resolve only the root requirements (and constraints); dependencies are not followed.
  bool no_deps = false;
};

/// One project in the resolution.
struct Pin {
  std::string name;  ///< canonical (PEP 503) name
  pep440::Version version;
  std::vector<std::string> extras;  ///< canonical extra names requested of it (sorted, unique)
  bool requested = false;           ///< named by a root requirement
  /// Who requires it: `"root"` and/or `"pkg==ver"` (canonical name), sorted, unique.
  std::vector<std::string> required_by;
};

/// A successful resolution.
struct Resolution {
  std::vector<Pin> pins;              ///< sorted by name
  std::vector<std::string> warnings;  ///< e.g. an extra the project does not declare
  std::size_t rounds = 0;             ///< search work done (versions tried plus backjumps)
};

/// Resolves `requirements` (the roots; their markers are evaluated against `root_environment`
/// with `extra` unset, and a root whose marker is false is skipped) under `constraints` (`-c`:
/// they restrict the versions of a project only if it ends up in the resolution; their markers
/// are evaluated like the roots'; a constraint must not carry extras or a URL).
///
/// Errors: a requirement with a URL ("direct URL requirements are not supported: ..."); a marker
/// that fails to evaluate (naming the package and the requirement); a provider error (as is); no
/// solution. For no solution, `Error::message` is a one-line summary, e.g.
/// "cannot resolve: no version of `b` satisfies `b>=2` (from a==1.0) and `b<2` (from root)", or
/// "cannot resolve: no versions of `x` found (required by a==1.0)" (a project without any files),
/// or, when the provider names versions it left out (`Provider::unusable`), "cannot resolve: no
/// usable version of `x` (required by root): `x` 2.0: REASON". `Error::details` holds the chain of
/// requirements involved, the left-out versions with their reasons (`x` 2.0, 1.9: REASON; versions
/// with the same reason together), and the versions tried, one line each.
[[nodiscard]] Result<Resolution> resolve(Provider& provider, const std::vector<markers::Requirement>& requirements,
                                         const std::vector<markers::Requirement>& constraints,
                                         const markers::Environment& root_environment, const Options& options);

}  // namespace vwheel::resolve
