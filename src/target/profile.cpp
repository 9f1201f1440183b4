#include "vwheel/target/profile.hpp"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/json.hpp"

namespace vwheel::target {
namespace {

using nlohmann::json;

std::string type_name(const json& j) {
  switch (j.type()) {
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::null: return "null";
    default: return "a number";
  }
}

std::string shown(const json& j) {
  std::string s = j.dump(-1, ' ', true, json::error_handler_t::replace);
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

Result<variant::FeatureConfig> parse_feature(const json& j, const std::string& where) {
  if (!j.is_object()) return fail(fmt::format("{}: expected an object, got {}", where, type_name(j)));
  variant::FeatureConfig fc;
  for (const auto& [key, value] : j.items()) {
    if (key == "name") {
      if (!value.is_string()) return fail(fmt::format("{}.name: expected a string, got {}", where, type_name(value)));
      fc.name = value.get<std::string>();
    } else if (key == "values") {
      if (!value.is_array()) {
        return fail(fmt::format("{}.values: expected an array of strings, got {}", where, type_name(value)));
      }
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (!value[i].is_string()) {
          return fail(fmt::format("{}.values[{}]: expected a string, got {}", where, i, shown(value[i])));
        }
        fc.values.push_back(value[i].get<std::string>());
      }
    } else if (key == "multi_value") {
      if (!value.is_boolean()) {
        return fail(fmt::format("{}.multi_value: expected true or false, got {}", where, shown(value)));
      }
      fc.multi_value = value.get<bool>();
    } else {
      return fail(fmt::format("{}: unknown key `{}` (expected name, values, multi_value)", where, key));
    }
  }
  if (!j.contains("name")) return fail(fmt::format("{}: missing key `name`", where));
  if (!j.contains("values")) return fail(fmt::format("{}: missing key `values`", where));
  return fc;
}

}  // namespace

Result<void> validate_features(const std::string& ns, const std::vector<variant::FeatureConfig>& features,
                               std::string_view where) {
  if (!variant::is_valid_namespace(ns)) {
    return fail(fmt::format("{}: invalid namespace `{}`: expected one or more of [a-z0-9_]", where, ns));
  }
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < features.size(); ++i) {
    const auto& fc = features[i];
    const auto at = [&] { return fmt::format("{}.{}[{}]", where, ns, i); };  // made for a message only
    if (!variant::is_valid_feature_name(fc.name)) {
      return fail(fmt::format("{}.name: invalid feature name `{}`: expected one or more of [a-z0-9_]", at(), fc.name));
    }
    if (!names.insert(fc.name).second) {
      return fail(fmt::format("{}.name: feature `{}` is listed twice in namespace `{}`", at(), fc.name, ns));
    }
    if (fc.values.empty()) return fail(fmt::format("{}.values: feature `{}` has no values", at(), fc.name));
    for (std::size_t k = 0; k < fc.values.size(); ++k) {
      if (!variant::is_valid_feature_value(fc.values[k])) {
        return fail(fmt::format("{}.values[{}]: invalid value `{}`: expected one or more of [a-z0-9_.]", at(), k,
                                fc.values[k]));
      }
    }
    // Repeated values: a sorted copy of views finds them without a tree node per value (a CUDA
    // profile lists dozens of architectures; the set cost `rank` 67 k instructions, callgrind).
    std::vector<std::string_view> sorted(fc.values.begin(), fc.values.end());
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
      std::set<std::string_view> seen;  // the first repeat, by position, for the message
      for (std::size_t k = 0; k < fc.values.size(); ++k) {
        if (!seen.insert(fc.values[k]).second) {
          return fail(fmt::format("{}.values[{}]: value `{}` is listed twice", at(), k, fc.values[k]));
        }
      }
    }
  }
  return {};
}

Result<TargetProfile> parse_target_profile(std::string_view json_text) {
  // Profiles come from users and from machines' probes: read as untrusted (64 levels, 10,000
  // namespaces, features or values per container, no repeated keys).
  auto parsed = parse_untrusted_json(json_text);
  if (!parsed) {
    return fail(fmt::format("not valid JSON (expected a target profile object): {}", parsed.error().message()));
  }
  json root = std::move(*parsed);
  if (!root.is_object()) return fail(fmt::format("expected a JSON object, got {}", type_name(root)));
  TargetProfile profile;
  bool has_properties = false;
  for (const auto& [key, value] : root.items()) {
    if (key == "properties") {
      has_properties = true;
      if (!value.is_object()) {
        return fail(fmt::format("properties: expected an object of namespaces, got {}", type_name(value)));
      }
      for (const auto& [ns, features] : value.items()) {
        const auto where = fmt::format("properties.{}", ns);
        if (!features.is_array()) {
          return fail(fmt::format("{}: expected an array of features, got {}", where, type_name(features)));
        }
        std::vector<variant::FeatureConfig> list;
        for (std::size_t i = 0; i < features.size(); ++i) {
          auto fc = parse_feature(features[i], fmt::format("{}[{}]", where, i));
          if (!fc) return fail(fc.error());
          list.push_back(std::move(*fc));
        }
        if (auto ok = validate_features(ns, list, "properties"); !ok) return fail(ok.error());
        profile.properties.emplace(ns, std::move(list));
      }
    } else if (key == "environment") {
      if (!value.is_object()) {
        return fail(fmt::format("environment: expected an object of marker variables, got {}", type_name(value)));
      }
      std::map<std::string, std::string, std::less<>> env;
      for (const auto& [name, v] : value.items()) {
        if (!v.is_string()) {
          return fail(fmt::format("environment.{}: expected a string, got {}", name, shown(v)));
        }
        env.emplace(name, v.get<std::string>());
      }
      profile.environment = std::move(env);
    } else if (key == "tags") {
      if (!value.is_array()) return fail(fmt::format("tags: expected an array of strings, got {}", type_name(value)));
      std::vector<std::string> tags;
      for (std::size_t i = 0; i < value.size(); ++i) {
        const auto& t = value[i];
        if (!t.is_string()) return fail(fmt::format("tags[{}]: expected a string, got {}", i, shown(t)));
        auto s = t.get<std::string>();
        if (std::count(s.begin(), s.end(), '-') != 2) {
          return fail(fmt::format("tags[{}]: `{}` is not a wheel tag (expected python-abi-platform)", i, s));
        }
        tags.push_back(std::move(s));
      }
      profile.tags = std::move(tags);
    } else if (key == "detect") {
      if (!value.is_boolean()) return fail(fmt::format("detect: expected true or false, got {}", shown(value)));
      profile.detect = value.get<bool>();
    } else {
      return fail(fmt::format("unknown key `{}` (expected properties, environment, tags, detect)", key));
    }
  }
  if (!has_properties) return fail("missing key `properties` (use {} for a machine that supports nothing)");
  return profile;
}

void overlay(TargetProfile& base, TargetProfile later) {
  for (auto& [ns, features] : later.properties) base.properties.insert_or_assign(ns, std::move(features));
  if (later.environment) base.environment = std::move(later.environment);
  if (later.tags) base.tags = std::move(later.tags);
  if (later.detect) base.detect = later.detect;
}

std::string to_json(const TargetProfile& profile) {
  json root = json::object();
  if (profile.detect) root["detect"] = *profile.detect;
  json props = json::object();
  for (const auto& [ns, features] : profile.properties) {
    json list = json::array();
    for (const auto& fc : features) {
      list.push_back(json{{"name", fc.name}, {"values", fc.values}, {"multi_value", fc.multi_value}});
    }
    props[ns] = std::move(list);
  }
  root["properties"] = std::move(props);
  if (profile.environment) {
    json env = json::object();
    for (const auto& [k, v] : *profile.environment) env[k] = v;
    root["environment"] = std::move(env);
  }
  if (profile.tags) root["tags"] = *profile.tags;
  return root.dump(2) + "\n";
}

}  // namespace vwheel::target
