// The resolver's provider for local sources' wheels (local_provider.hpp says what it answers).

#include "local_provider.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "vwheel/wheel_name/names.hpp"

namespace vwheel::plan::detail {

LocalProvider::LocalProvider(resolve::Provider& inner, const std::vector<LocalWheel>& wheels,
                             markers::Environment environment)
    : inner_(inner), environment_(std::move(environment)) {
  for (const auto& w : wheels) wheels_.emplace(wheel_name::canonicalize_name(w.metadata.name), &w);
}

const LocalWheel* LocalProvider::local(std::string_view name) const {
  auto it = wheels_.find(name);
  return it == wheels_.end() ? nullptr : it->second;
}

Result<std::vector<pep440::Version>> LocalProvider::versions(std::string_view name) {
  const auto* w = local(name);
  if (w == nullptr) return inner_.versions(name);
  auto version = pep440::Version::parse(w->metadata.version);
  if (!version) return fail(version.error().with_context(fmt::format("{}: Version", w->path.string())));
  return std::vector<pep440::Version>{*version};
}

Result<resolve::Dependencies> LocalProvider::dependencies(std::string_view name, const pep440::Version& version) {
  const auto* w = local(name);
  if (w == nullptr) return inner_.dependencies(name, version);
  // (Its Requires-Python was checked against the target with the wheel: install::check_wheel.)
  resolve::Dependencies deps;
  auto reqs = simple::parse_requires_dist(w->metadata, w->path.filename().string());
  if (!reqs) return fail(reqs.error());
  deps.requires_dist = std::move(*reqs);
  deps.environment = environment_;
  deps.provides_extra = w->metadata.provides_extra;
  return deps;
}

std::vector<resolve::Unusable> LocalProvider::unusable(std::string_view name) {
  return local(name) != nullptr ? std::vector<resolve::Unusable>{} : inner_.unusable(name);
}

std::vector<markers::Requirement> without_local(const std::vector<markers::Requirement>& requirements,
                                                const std::vector<LocalWheel>& wheels) {
  std::vector<markers::Requirement> out;
  for (const auto& r : requirements) {
    const auto name = wheel_name::canonicalize_name(r.name);
    if (std::none_of(wheels.begin(), wheels.end(),
                     [&](const LocalWheel& w) { return wheel_name::canonicalize_name(w.metadata.name) == name; })) {
      out.push_back(r);
    }
  }
  return out;
}

}  // namespace vwheel::plan::detail
