#pragma once
// The resolver's tests (test_resolver.cpp, test_resolver_search.cpp): an in-memory provider that
// counts and can fail its answers, a default environment, and short ways to run and read a
// resolution.

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "resolver_graphs.hpp"
#include "vwheel/resolve/resolver.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::resolve::test {

using vwheel::Result;
using vwheel::markers::Environment;
using vwheel::markers::Requirement;
using vwheel::pep440::Version;
using vwheel::resolve::Dependencies;
using vwheel::resolve::Options;
using vwheel::resolve::Pin;
using vwheel::resolve::Provider;
using vwheel::resolve::Resolution;

inline Environment default_env(const std::string& python = "3.12") {
  Environment env;
  env.variables = {{"python_version", python},
                   {"python_full_version", python + ".0"},
                   {"os_name", "posix"},
                   {"sys_platform", "linux"},
                   {"platform_machine", "x86_64"},
                   {"platform_python_implementation", "CPython"},
                   {"platform_release", "6.1.0"},
                   {"platform_system", "Linux"},
                   {"platform_version", "#1 SMP"},
                   {"implementation_name", "cpython"},
                   {"implementation_version", python + ".0"}};
  return env;
}

inline Requirement req(const std::string& text) {
  auto r = Requirement::parse(text);
  EXPECT_TRUE(r.has_value()) << text << ": " << (r ? "" : r.error().message);
  return *r;
}

inline std::vector<Requirement> reqs(const std::vector<std::string>& texts) {
  std::vector<Requirement> out;
  for (const auto& t : texts) out.push_back(req(t));
  return out;
}

inline Version ver(const std::string& text) { return *Version::parse(text); }

class FakeProvider : public Provider {
 public:
  struct Release {
    Version version;
    std::vector<std::string> deps;
    Environment env;
    std::vector<std::string> provides_extra;
  };

  FakeProvider& add(const std::string& name, const std::string& version, std::vector<std::string> deps = {},
                    std::vector<std::string> provides_extra = {}, Environment env = default_env()) {
    releases_[name].push_back(Release{ver(version), std::move(deps), std::move(env), std::move(provides_extra)});
    return *this;
  }

  Result<std::vector<Version>> versions(std::string_view name) override {
    const std::string n(name);
    ++version_calls[n];
    if (fail_versions.count(n)) return vwheel::fail(fmt::format("index error for `{}`", n));
    std::vector<Version> out;
    if (auto it = releases_.find(n); it != releases_.end())
      for (const auto& r : it->second) out.push_back(r.version);
    std::sort(out.begin(), out.end(), [](const Version& a, const Version& b) { return b < a; });
    return out;
  }

  Result<Dependencies> dependencies(std::string_view name, const Version& version) override {
    const std::string key = fmt::format("{}=={}", name, version.to_string());
    ++dependency_calls[key];
    if (fail_dependencies.count(key)) return vwheel::fail(fmt::format("bad metadata for {}", key));
    for (const auto& r : releases_.at(std::string(name))) {
      if (r.version != version) continue;
      Dependencies d;
      for (const auto& t : r.deps) {
        auto q = Requirement::parse(t);
        if (!q) return vwheel::fail(q.error());
        d.requires_dist.push_back(*q);
      }
      d.environment = r.env;
      d.provides_extra = r.provides_extra;
      return d;
    }
    return vwheel::fail("unknown version " + key);
  }

  /// Versions left out of `versions`, with why (Provider::unusable), newest first.
  FakeProvider& left_out(const std::string& name, const std::string& version, const std::string& reason) {
    left_out_[name].push_back({ver(version), reason});
    return *this;
  }

  std::vector<vwheel::resolve::Unusable> unusable(std::string_view name) override {
    auto it = left_out_.find(std::string(name));
    return it == left_out_.end() ? std::vector<vwheel::resolve::Unusable>{} : it->second;
  }

  std::map<std::string, int> version_calls;
  std::map<std::string, int> dependency_calls;
  std::set<std::string> fail_versions;
  std::set<std::string> fail_dependencies;

 private:
  std::map<std::string, std::vector<Release>> releases_;
  std::map<std::string, std::vector<vwheel::resolve::Unusable>> left_out_;
};

inline Result<Resolution> run(FakeProvider& p, const std::vector<std::string>& roots,
                              const std::vector<std::string>& constraints = {}, Options options = {},
                              const Environment& env = default_env()) {
  return vwheel::resolve::resolve(p, reqs(roots), reqs(constraints), env, options);
}

// name -> version text
inline std::map<std::string, std::string> pins(const Resolution& r) {
  std::map<std::string, std::string> out;
  for (const auto& p : r.pins) out[p.name] = p.version.to_string();
  return out;
}

inline const Pin* find(const Resolution& r, const std::string& name) {
  for (const auto& p : r.pins)
    if (p.name == name) return &p;
  return nullptr;
}

inline std::string all_text(const vwheel::Error& e) {
  std::string s = e.message;
  for (const auto& d : e.details) s += "\n" + d;
  return s;
}

using Pins = std::map<std::string, std::string>;

}  // namespace vwheel::resolve::test
