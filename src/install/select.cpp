#include "vwheel/install/select.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "vwheel/api/maintain.hpp"
#include "vwheel/api/target.hpp"
#include "vwheel/pep440/version.hpp"
#include "vwheel/wheel_name/names.hpp"
#include "vwheel/wheel_name/wheel_name.hpp"

namespace vwheel::install {
namespace fs = std::filesystem;

namespace {

/// The best (lowest) priority index among the wheel's tags, or nullopt when none is supported.
std::optional<std::size_t> tag_priority(const wheel_name::WheelName& name, const Compatibility& compat) {
  std::unordered_map<std::string, std::size_t> index;
  index.reserve(compat.tags.size());
  for (std::size_t i = 0; i < compat.tags.size(); ++i) index.emplace(compat.tags[i], i);
  std::optional<std::size_t> best;
  for (const auto& t : name.tags()) {
    auto it = index.find(fmt::format("{}-{}-{}", t.python, t.abi, t.platform));
    if (it != index.end() && (!best || it->second < *best)) best = it->second;
  }
  return best;
}

std::string variant_why(const api::WheelAnalysis& a) {
  if (!a.name.is_variant()) return "non-variant";
  if (a.properties.empty()) return fmt::format("variant {}: the null variant", *a.name.label);
  std::vector<std::string> props;
  for (const auto& p : a.properties) props.push_back(p.to_string());
  return fmt::format("variant {}: {}", *a.name.label, fmt::join(props, ", "));
}

}  // namespace

Result<Compatibility> make_compatibility(std::vector<std::string> interpreter_tags,
                                         const std::optional<fs::path>& target, bool no_cache) {
  Compatibility c;
  c.tags = std::move(interpreter_tags);
  c.target = target;
  c.no_cache = no_cache;
  if (target) {
    auto resolved = api::resolve_target(api::TargetRequest{target, no_cache});
    if (!resolved) return fail(resolved.error());
    if (resolved->tags) c.tags = *resolved->tags;
  }
  return c;
}

Result<void> check_wheel(const fs::path& wheel, const Compatibility& compat, bool ignore_variant) {
  const auto file = wheel.filename().string();
  auto name = wheel_name::parse_wheel_name(file);
  if (!name) return fail(name.error());
  if (!tag_priority(*name, compat)) {
    return fail(fmt::format("{}: none of its tags ({}-{}-{}) is supported by the {}", file, name->python_tag,
                            name->abi_tag, name->platform_tag, compat.target ? "target profile" : "interpreter"));
  }
  if (!name->is_variant() || ignore_variant) return {};
  api::AnalyzeRequest req;
  req.wheels = {wheel};
  req.target = compat.target;
  req.no_cache = compat.no_cache;
  auto report = api::analyze_wheels(req);
  if (!report) return fail(report.error());
  const auto& a = report->wheels.front();
  if (!a.supported) {
    return fail(fmt::format("{}: variant `{}` is not supported by {}: {} (--ignore-variant installs it anyway)", file,
                            *name->label, report->target_description, a.reason));
  }
  return {};
}

Result<Choice> choose_wheel(const fs::path& dir, const std::string& requirement, const Compatibility& compat, bool pre) {
  std::string wanted_name = requirement;
  std::optional<pep440::Version> pinned;
  if (auto eq = requirement.find("=="); eq != std::string::npos) {
    wanted_name = requirement.substr(0, eq);
    auto v = pep440::Version::parse(requirement.substr(eq + 2));
    if (!v) return fail(fmt::format("`{}`: {}", requirement, v.error().message));
    pinned = *v;
  }
  while (!wanted_name.empty() && wanted_name.back() == ' ') wanted_name.pop_back();
  const auto canonical = wheel_name::canonicalize_name(wanted_name);
  struct Candidate {
    fs::path path;
    wheel_name::WheelName name;
    pep440::Version version;
  };
  std::vector<Candidate> candidates;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto file = it->path().filename().string();
    if (!file.ends_with(".whl")) continue;
    auto n = wheel_name::parse_wheel_name(file);
    if (!n || wheel_name::canonicalize_name(n->name) != canonical) continue;
    auto v = pep440::Version::parse(n->version);
    if (!v) continue;
    candidates.push_back({it->path(), std::move(*n), std::move(*v)});
  }
  if (ec) return fail(fmt::format("{}: cannot list: {}", dir.string(), ec.message()));
  if (candidates.empty()) return fail(fmt::format("{}: no wheel of `{}` in {}", requirement, wanted_name, dir.string()));
  std::vector<pep440::Version> versions;
  for (const auto& c : candidates) {
    if (pinned && c.version != *pinned) continue;
    if (!pre && !pinned && c.version.is_prerelease()) continue;
    if (std::find(versions.begin(), versions.end(), c.version) == versions.end()) versions.push_back(c.version);
  }
  std::sort(versions.begin(), versions.end(), std::greater<>());
  std::vector<std::string> rejected;
  for (const auto& version : versions) {
    std::vector<const Candidate*> fitting;
    std::vector<std::size_t> priorities;
    for (const auto& c : candidates) {
      if (c.version != version) continue;
      if (auto prio = tag_priority(c.name, compat)) {
        fitting.push_back(&c);
        priorities.push_back(*prio);
      }
    }
    if (fitting.empty()) {
      rejected.push_back(fmt::format("{}: no wheel with a supported tag", version.to_string()));
      continue;
    }
    api::AnalyzeRequest req;
    for (const auto* c : fitting) req.wheels.push_back(c->path);
    req.target = compat.target;
    req.no_cache = compat.no_cache;
    const bool any_variant = std::any_of(fitting.begin(), fitting.end(), [](const Candidate* c) { return c->name.is_variant(); });
    std::optional<api::AnalyzeReport> report;
    if (any_variant) {
      auto r = api::analyze_wheels(req);
      if (!r) return fail(r.error());
      report = std::move(*r);
    }
    std::optional<std::size_t> best;
    std::pair<std::size_t, std::size_t> best_key{SIZE_MAX, SIZE_MAX};
    for (std::size_t i = 0; i < fitting.size(); ++i) {
      std::size_t rank = 1;
      if (report) {
        const auto& a = report->wheels[i];
        if (!a.supported || !a.rank) continue;
        rank = *a.rank;
      }
      std::pair<std::size_t, std::size_t> key{rank, priorities[i]};
      if (key < best_key) {
        best_key = key;
        best = i;
      }
    }
    if (!best) {
      rejected.push_back(fmt::format("{}: no supported variant among {} wheels", version.to_string(), fitting.size()));
      continue;
    }
    Choice choice;
    choice.wheel = fitting[*best]->path;
    choice.name = fitting[*best]->name.name;
    choice.version = fitting[*best]->name.version;
    std::size_t same_project = 0;
    for (const auto& c : candidates) same_project += c.version == version ? 1 : 0;
    choice.candidates = same_project;
    if (report) {
      choice.why = variant_why(report->wheels[*best]);
    } else {
      choice.why = "non-variant";
    }
    return choice;
  }
  if (versions.empty()) {
    return fail(fmt::format("{}: no matching version in {} ({} pre-releases skipped; --pre allows them)", requirement,
                            dir.string(), candidates.size()));
  }
  return fail(fmt::format("{}: no installable wheel in {}: {}", requirement, dir.string(), fmt::join(rejected, "; ")));
}

std::string describe_choice(const Choice& c) {
  return fmt::format("{} {}: {} ({}; {} candidate{})", c.name, c.version, c.wheel.filename().string(), c.why, c.candidates,
                     c.candidates == 1 ? "" : "s");
}

}  // namespace vwheel::install
