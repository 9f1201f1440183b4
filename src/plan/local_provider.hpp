#pragma once
// Private to the plan component: the resolver's provider with local sources' wheels in front of
// another provider (the indexes'): a project with a LocalWheel has that one version, whose
// dependencies are its METADATA's, and the other provider is never asked about it.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/plan/plan.hpp"
#include "vwheel/resolve/resolver.hpp"

namespace vwheel::plan::detail {

class LocalProvider final : public resolve::Provider {
 public:
  /// `wheels` must outlive the provider; their requirements are evaluated in `environment` (the
  /// target's).
  LocalProvider(resolve::Provider& inner, const std::vector<LocalWheel>& wheels, markers::Environment environment);
  Result<std::vector<pep440::Version>> versions(std::string_view name) override;
  Result<resolve::Dependencies> dependencies(std::string_view name, const pep440::Version& version) override;
  std::vector<resolve::Unusable> unusable(std::string_view name) override;
  /// The local wheel of a project (canonical name), or nullptr.
  [[nodiscard]] const LocalWheel* local(std::string_view name) const;

 private:
  resolve::Provider& inner_;
  std::map<std::string, const LocalWheel*, std::less<>> wheels_;  ///< by canonical name
  markers::Environment environment_;
};

/// `requirements` without those on projects that a local wheel stands for (nothing to look up).
[[nodiscard]] std::vector<markers::Requirement> without_local(const std::vector<markers::Requirement>& requirements,
                                                              const std::vector<LocalWheel>& wheels);

}  // namespace vwheel::plan::detail
