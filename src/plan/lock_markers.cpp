// The environments of a universal lock and the markers of its entries (lock_markers.hpp).

#include "lock_markers.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "vwheel/pep440/version.hpp"

namespace vwheel::plan::detail {
namespace {

std::string variable(const markers::Environment& env, const char* name) {
  auto it = env.variables.find(name);
  return it == env.variables.end() ? std::string() : it->second;
}

/// `3.12.0` -> `3.12` (the same version to PEP 440, and what a reader expects); `3.12.3` as is.
std::string short_version(const pep440::Version& v) {
  auto text = v.to_string();
  while (text.size() > 4 && text.ends_with(".0") && std::count(text.begin(), text.end(), '.') > 1) {
    text.resize(text.size() - 2);
  }
  return text;
}

using Platform = std::pair<std::string, std::string>;  // sys_platform, platform_machine
using Pair = std::pair<Platform, std::string>;          // platform, implementation_name

/// Holds for exactly the platforms `chosen` of `all` (evaluated on platforms of `all` only).
std::string platform_condition(const std::set<Platform>& chosen, const std::set<Platform>& all) {
  if (chosen == all) return "";
  std::map<std::string, std::set<std::string>> machines_all, machines_chosen;
  for (const auto& [sys, machine] : all) machines_all[sys].insert(machine);
  for (const auto& [sys, machine] : chosen) machines_chosen[sys].insert(machine);
  std::vector<std::string> terms;
  std::vector<std::string> absent;  // systems none of whose machines are chosen
  bool partial = false;
  for (const auto& [sys, machines] : machines_all) {
    auto it = machines_chosen.find(sys);
    if (it == machines_chosen.end()) {
      absent.push_back(sys);
      continue;
    }
    const auto system = fmt::format("sys_platform == \"{}\"", sys);
    if (it->second == machines) {
      terms.push_back(system);
      continue;
    }
    partial = true;
    std::vector<std::string> which;
    for (const auto& m : it->second) which.push_back(fmt::format("platform_machine == \"{}\"", m));
    terms.push_back(marker_and(system, marker_or(which)));
  }
  // Every system but one or two: say which are left out (a Windows-less dependency reads as such).
  if (!partial && absent.size() < terms.size()) {
    std::vector<std::string> not_these;
    for (const auto& sys : absent) not_these.push_back(fmt::format("sys_platform != \"{}\"", sys));
    return fmt::format("{}", fmt::join(not_these, " and "));
  }
  return marker_or(terms);
}

/// Holds for exactly the (platform, implementation) pairs `chosen` of `all`.
std::string pair_condition(const std::set<Pair>& chosen, const std::set<Pair>& all) {
  std::map<Platform, std::set<std::string>> impls_all, impls_chosen;
  for (const auto& [platform, impl] : all) impls_all[platform].insert(impl);
  for (const auto& [platform, impl] : chosen) impls_chosen[platform].insert(impl);
  const bool whole_platforms = std::all_of(impls_chosen.begin(), impls_chosen.end(), [&](const auto& entry) {
    return entry.second == impls_all[entry.first];
  });
  if (whole_platforms) {
    std::set<Platform> platforms, every;
    for (const auto& entry : impls_chosen) platforms.insert(entry.first);
    for (const auto& entry : impls_all) every.insert(entry.first);
    return platform_condition(platforms, every);
  }
  std::map<std::string, std::pair<std::set<Platform>, std::set<Platform>>> by_impl;  // chosen, all
  for (const auto& [platform, impl] : all) by_impl[impl].second.insert(platform);
  for (const auto& [platform, impl] : chosen) by_impl[impl].first.insert(platform);
  std::vector<std::string> terms;
  for (const auto& [impl, platforms] : by_impl) {
    if (platforms.first.empty()) continue;
    terms.push_back(marker_and(fmt::format("implementation_name == \"{}\"", impl),
                               platform_condition(platforms.first, platforms.second)));
  }
  return marker_or(terms);
}

/// Holds for exactly the versions `chosen` of the sorted `all` (evaluated on `all` only): maximal
/// runs, open at the ends of `all`; a run that is one whole minor version is `python_version == `.
std::string version_condition(const std::vector<std::pair<pep440::Version, bool>>& all) {
  auto minor = [](const pep440::Version& v) {
    const auto& r = v.release();
    return std::make_pair(r.empty() ? 0 : r[0].to_u64().value_or(0), r.size() < 2 ? 0 : r[1].to_u64().value_or(0));
  };
  std::vector<std::string> runs;
  for (std::size_t i = 0; i < all.size();) {
    if (!all[i].second) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j + 1 < all.size() && all[j + 1].second) ++j;
    const bool from_start = i == 0, to_end = j + 1 == all.size();
    if (from_start && to_end) return "";
    const bool one_minor = minor(all[i].first) == minor(all[j].first) &&
                           (from_start || minor(all[i - 1].first) != minor(all[i].first)) &&
                           (to_end || minor(all[j + 1].first) != minor(all[j].first));
    if (one_minor && !from_start && !to_end) {
      const auto [major, m] = minor(all[i].first);
      runs.push_back(fmt::format("python_version == \"{}.{}\"", major, m));
    } else {
      std::string lower, upper;
      if (!from_start) lower = fmt::format("python_full_version >= \"{}\"", short_version(all[i].first));
      if (!to_end) upper = fmt::format("python_full_version < \"{}\"", short_version(all[j + 1].first));
      runs.push_back(marker_and(lower, upper));
    }
    i = j + 1;
  }
  return marker_or(runs);
}

}  // namespace

bool wheel_may_fit(const wheel_name::WheelName& wheel, const markers::Environment& env) {
  const auto sys = variable(env, "sys_platform"), machine = variable(env, "platform_machine");
  auto platform_fits = [&](const std::string& tag) {
    if (tag.starts_with("manylinux") || tag.starts_with("musllinux") || tag.starts_with("linux_")) {
      if (sys != "linux") return false;
      for (const char* arch : {"x86_64", "aarch64", "i686"}) {
        if (tag.ends_with(std::string("_") + arch)) return machine == arch;
      }
      return true;
    }
    if (tag == "win_amd64") return sys == "win32" && machine == "AMD64";
    if (tag == "win32") return sys == "win32";  // a 32-bit Python runs on 64-bit Windows too
    if (tag.starts_with("macosx_")) {
      if (sys != "darwin") return false;
      if (tag.ends_with("_arm64")) return machine == "arm64";
      if (tag.ends_with("_x86_64") || tag.ends_with("_intel")) return machine == "x86_64";
      return true;
    }
    return true;
  };
  const auto abis = wheel.abi_tags();
  const bool stable_abi = std::any_of(abis.begin(), abis.end(), [](const auto& a) { return a == "abi3" || a == "none"; });
  auto python_fits = [&](const std::string& tag) {
    const auto impl = variable(env, "implementation_name");
    if (tag.starts_with("pp")) return impl == "pypy";
    if (tag.starts_with("cp3") && tag.size() > 3) {
      if (impl != "cpython") return false;
      auto wanted = pep440::Version::parse("3." + tag.substr(3));
      auto have = pep440::Version::parse(variable(env, "python_version"));
      if (!wanted || !have) return true;
      return stable_abi ? *have >= *wanted : *have == *wanted;
    }
    return true;
  };
  const auto platforms = wheel.platform_tags();
  const auto pythons = wheel.python_tags();
  return std::any_of(platforms.begin(), platforms.end(), platform_fits) &&
         std::any_of(pythons.begin(), pythons.end(), python_fits);
}

std::string marker_and(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  auto wrap = [](const std::string& s) { return s.find(" or ") == std::string::npos ? s : "(" + s + ")"; };
  return wrap(a) + " and " + wrap(b);
}

std::string marker_or(const std::vector<std::string>& terms) {
  if (terms.size() == 1) return terms.front();
  std::vector<std::string> wrapped;
  for (const auto& t : terms) wrapped.push_back(t.find(" or ") == std::string::npos ? t : "(" + t + ")");
  return fmt::format("{}", fmt::join(wrapped, " or "));
}

std::vector<markers::Environment> lock_universe(const markers::Environment& base,
                                                const std::optional<pep440::SpecifierSet>& requires_python) {
  auto covered = [&](const markers::Environment& env) {
    return !requires_python || requires_python->contains(variable(env, "python_full_version"), true);
  };
  std::vector<markers::Environment> out;
  if (covered(base)) out.push_back(base);
  // An interpreter older than 3.9 takes its own minor and those up to 3.9 with it.
  int oldest = 9;
  if (auto v = pep440::Version::parse(variable(base, "python_version")); v && v->release().size() >= 2 &&
                                                                           v->release()[0] == 3) {
    oldest = static_cast<int>(std::min<std::uint64_t>(v->release()[1].to_u64().value_or(9), 9));
  }
  struct Platform {
    const char* sys_platform;
    const char* platform_system;
    const char* os_name;
    const char* machine;
  };
  constexpr Platform platforms[] = {{"linux", "Linux", "posix", "x86_64"},   {"linux", "Linux", "posix", "aarch64"},
                                    {"linux", "Linux", "posix", "i686"},     {"win32", "Windows", "nt", "AMD64"},
                                    {"darwin", "Darwin", "posix", "arm64"},  {"darwin", "Darwin", "posix", "x86_64"}};
  struct Implementation {
    const char* name;
    const char* python_implementation;
    int newest;
  };
  constexpr Implementation implementations[] = {{"cpython", "CPython", 15}, {"pypy", "PyPy", 11}};
  for (const auto& impl : implementations) {
    for (const auto& p : platforms) {
      for (int m = oldest; m <= impl.newest; ++m) {
        auto env = base;
        env.variables.insert_or_assign("sys_platform", p.sys_platform);
        env.variables.insert_or_assign("platform_system", p.platform_system);
        env.variables.insert_or_assign("os_name", p.os_name);
        env.variables.insert_or_assign("platform_machine", p.machine);
        env.variables.insert_or_assign("python_version", fmt::format("3.{}", m));
        env.variables.insert_or_assign("python_full_version", fmt::format("3.{}.0", m));
        env.variables.insert_or_assign("implementation_name", impl.name);
        env.variables.insert_or_assign("platform_python_implementation", impl.python_implementation);
        // PyPy's own version, not the Python it implements (PEP 508 `implementation_version`).
        env.variables.insert_or_assign("implementation_version",
                                       impl.newest == 15 ? fmt::format("3.{}.0", m) : std::string("7.3.0"));
        if (covered(env)) out.push_back(std::move(env));
      }
    }
  }
  return out;
}

Result<std::optional<std::string>> environment_marker(const std::vector<markers::Environment>& universe,
                                                      const std::vector<bool>& members) {
  if (std::all_of(members.begin(), members.end(), [](bool b) { return b; })) return std::nullopt;
  // Each (platform, implementation) pair's Python versions, and which of them are members.
  std::map<Pair, std::map<pep440::Version, bool>> versions;
  for (std::size_t i = 0; i < universe.size(); ++i) {
    const auto& env = universe[i];
    const Pair pair{{variable(env, "sys_platform"), variable(env, "platform_machine")},
                    variable(env, "implementation_name")};
    auto v = pep440::Version::parse(variable(env, "python_full_version"));
    if (!v) return fail(fmt::format("python_full_version `{}` is not a version", variable(env, "python_full_version")));
    auto& member = versions[pair].try_emplace(*v, false).first->second;
    member = member || members[i];
  }
  // Each pair's own Python condition, then as few terms as the conditions allow: a condition that
  // is exact on other pairs too takes them (PyPy's `>= "3.10"` is CPython's `>= "3.10" and < "3.12"`
  // on a universe whose PyPy stops at 3.11), the one taking most first.
  std::set<Pair> all, remaining;
  std::vector<std::string> conditions;
  for (const auto& [pair, list] : versions) {
    all.insert(pair);
    if (std::none_of(list.begin(), list.end(), [](const auto& e) { return e.second; })) continue;
    remaining.insert(pair);
    auto c = version_condition({list.begin(), list.end()});
    if (std::find(conditions.begin(), conditions.end(), c) == conditions.end()) conditions.push_back(std::move(c));
  }
  // exact[c]: the pairs on which condition c holds for exactly the members; `never[c]`: those on
  // which it holds for none (pairs without members may join such a term where that reads simpler).
  std::vector<std::set<Pair>> exact(conditions.size()), never(conditions.size());
  for (std::size_t c = 0; c < conditions.size(); ++c) {
    std::optional<markers::Marker> parsed;
    if (!conditions[c].empty()) {
      auto m = markers::Marker::parse(conditions[c]);
      if (!m) return fail(m.error());
      parsed = std::move(*m);
    }
    std::map<Pair, std::pair<bool, bool>> fits;  // exact, never
    for (std::size_t i = 0; i < universe.size(); ++i) {
      const Pair pair{{variable(universe[i], "sys_platform"), variable(universe[i], "platform_machine")},
                      variable(universe[i], "implementation_name")};
      bool holds = true;
      if (parsed) {
        auto v = parsed->evaluate(universe[i]);
        holds = v && *v;
      }
      auto& f = fits.try_emplace(pair, true, true).first->second;
      f.first = f.first && holds == members[i];
      f.second = f.second && !holds;
    }
    for (const auto& [pair, f] : fits) {
      if (f.first && remaining.contains(pair)) exact[c].insert(pair);
      if (f.second && !remaining.contains(pair)) never[c].insert(pair);
    }
  }
  std::vector<std::string> terms;
  while (!remaining.empty()) {
    std::size_t best = 0, most = 0;
    for (std::size_t c = 0; c < conditions.size(); ++c) {
      const auto n = static_cast<std::size_t>(
          std::count_if(exact[c].begin(), exact[c].end(), [&](const Pair& p) { return remaining.contains(p); }));
      if (n > most) best = c, most = n;
    }
    std::set<Pair> pairs;
    for (const auto& p : exact[best]) {
      if (remaining.erase(p)) pairs.insert(p);
    }
    auto plain = pair_condition(pairs, all);
    if (!plain.empty()) {
      auto wider = pairs;
      wider.insert(never[best].begin(), never[best].end());
      if (auto simpler = pair_condition(wider, all); simpler.size() < plain.size()) plain = std::move(simpler);
    }
    terms.push_back(marker_and(plain, conditions[best]));
  }
  auto text = marker_or(terms);
  // The construction is exact on consistent environments; checked, since a lock that says the
  // wrong thing is worse than one that cannot be written.
  auto parsed = markers::Marker::parse(text);
  if (!parsed) return fail(parsed.error().with_context(fmt::format("the marker `{}` written for a lock entry", text)));
  for (std::size_t i = 0; i < universe.size(); ++i) {
    auto value = parsed->evaluate(universe[i]);
    if (!value || *value != members[i]) {
      return fail(fmt::format("the marker `{}` written for a lock entry does not hold in exactly its environments", text));
    }
  }
  return text;
}

}  // namespace vwheel::plan::detail
