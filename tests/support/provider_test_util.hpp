#pragma once
// Helpers shared by the provider tests: scoped environment variables and JSON forms of answers.

#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vwheel/variant/property.hpp"

namespace vwheel::testing {

/// Sets or unsets environment variables for one test and restores them on destruction.
class ScopedEnv {
 public:
  ScopedEnv() = default;
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() {
    for (const auto& [name, old] : saved_) {
      if (old) {
        setenv(name.c_str(), old->c_str(), 1);
      } else {
        unsetenv(name.c_str());
      }
    }
  }
  void set(const std::string& name, const std::string& value) {
    remember(name);
    setenv(name.c_str(), value.c_str(), 1);
  }
  void unset(const std::string& name) {
    remember(name);
    unsetenv(name.c_str());
  }

 private:
  void remember(const std::string& name) {
    if (saved_.count(name) != 0) return;
    const char* v = std::getenv(name.c_str());
    saved_[name] = v ? std::optional<std::string>(v) : std::nullopt;
  }
  std::map<std::string, std::optional<std::string>> saved_;
};

/// A provider answer in the reference's JSON form (`[{"name", "values", "multi_value"}]`).
inline nlohmann::json configs_json(const std::vector<variant::FeatureConfig>& configs) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : configs) out.push_back({{"name", c.name}, {"values", c.values}, {"multi_value", c.multi_value}});
  return out;
}

/// `j[key]` when present, else `fallback` (a named copy: GCC 12 misreads loops over temporaries).
inline nlohmann::json field(const nlohmann::json& j, const char* key, nlohmann::json fallback) {
  return j.contains(key) ? j.at(key) : std::move(fallback);
}

}  // namespace vwheel::testing
