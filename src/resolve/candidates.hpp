#pragma once
// Private to the resolve component: the provider's answers (candidate versions, dependencies, and
// the dependencies that apply per extra), asked once and kept across restarts of the search.

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "vwheel/resolve/resolver.hpp"

namespace vwheel::resolve::detail {

struct Dep {
  std::string name;                 // canonical
  std::vector<std::string> extras;  // canonical, sorted, unique
  pep440::SpecifierSet spec;
  std::string text;  // `name[extras]spec` as written
};

struct Project {
  std::vector<pep440::Version> versions;
  bool has_final = false;
  std::map<std::size_t, Dependencies> deps;
  std::map<std::pair<std::size_t, std::string>, std::vector<Dep>> parsed;
};

/// A requirement as the solver uses it: names canonical, extras sorted and unique.
[[nodiscard]] Dep to_dep(const markers::Requirement& r);

/// The provider's answers for one resolution, by canonical project name.
class Cache {
 public:
  explicit Cache(Provider& provider) : provider_(provider) {}

  /// The candidates of project `name` (asked once).
  Result<Project*> project(const std::string& name);

  /// The declared dependencies of `name==p.versions[idx]` (asked once).
  Result<const Dependencies*> dependencies(const std::string& name, Project& p, std::size_t idx);

  // The dependencies of `name==versions[idx]` that apply: for extra "" those true with extra=="",
  // for an extra those true with it and not without it.
  Result<const std::vector<Dep>*> parsed(const std::string& name, std::size_t idx, const std::string& extra);

  // Whether `name==versions[idx]` declares `extra`: listed in Provides-Extra, or (without one) some
  // requirement applies with the extra and not without it.
  Result<bool> declares_extra(const std::string& name, std::size_t idx, const std::string& extra);

  /// The provider's left-out versions of `name` (Provider::unusable), for an explanation.
  [[nodiscard]] std::vector<Unusable> unusable(const std::string& name) const { return provider_.unusable(name); }

 private:
  Provider& provider_;
  std::map<std::string, std::unique_ptr<Project>, std::less<>> projects_;
};

}  // namespace vwheel::resolve::detail
