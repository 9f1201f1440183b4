// The Python provider's pure parts: the loader's answer, the environment's key and name. No I/O.

#include <algorithm>
#include <cstdint>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "provider/python_detail.hpp"
#include "vwheel/core/text.hpp"

namespace vwheel::provider {
using nlohmann::json;

std::string_view method_name(ProviderMethod method) noexcept {
  return method == ProviderMethod::all_configs ? "get_all_configs" : "get_supported_configs";
}

namespace python_detail {
namespace {

/// A JSON value inside an error line.
std::string shown(const json& value) {
  if (value.is_string()) return "`" + excerpt(value.get_ref<const std::string&>(), 80) + "`";
  return excerpt(value.dump(), 80);
}

std::uint64_t fnv1a(std::string_view text, std::uint64_t seed) {
  std::uint64_t h = seed;
  for (const char ch : text) {
    h ^= static_cast<unsigned char>(ch);
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace

Result<std::vector<variant::FeatureConfig>> parse_answer(std::string_view ns, ProviderMethod method,
                                                         std::string_view json_text) {
  const std::string where = fmt::format("python provider `{}`: {}()", ns, method_name(method));
  const json doc = json::parse(json_text.begin(), json_text.end(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    return fail(fmt::format("{}: the answer is not the loader's JSON object: {}", where, excerpt(json_text, 80)));
  }
  const auto reported = doc.find("namespace");
  if (reported == doc.end() || !reported->is_string()) {
    return fail(fmt::format("{}: the plugin's `namespace` is {}, expected the string `{}`", where,
                            reported == doc.end() ? std::string("missing") : shown(*reported), ns));
  }
  if (reported->get_ref<const std::string&>() != ns) {
    return fail(fmt::format("{}: the plugin's `namespace` is {}, expected `{}`", where, shown(*reported), ns));
  }
  const auto configs = doc.find("configs");
  if (configs == doc.end() || !configs->is_array()) {
    return fail(fmt::format("{}: returned {} instead of a list of feature configs", where,
                            configs == doc.end() ? std::string("nothing") : shown(*configs)));
  }

  std::vector<variant::FeatureConfig> out;
  out.reserve(configs->size());
  for (std::size_t i = 0; i < configs->size(); ++i) {
    const json& item = (*configs)[i];
    const std::string nth = fmt::format("{}: config #{}", where, i + 1);
    if (!item.is_object()) return fail(fmt::format("{}: {} is not a feature config", nth, shown(item)));
    const auto name = item.find("name");
    if (name == item.end()) return fail(fmt::format("{}: no `name`", nth));
    if (!name->is_string()) return fail(fmt::format("{}: `name` is {}, expected a string", nth, shown(*name)));
    variant::FeatureConfig config;
    config.name = name->get<std::string>();
    if (!variant::is_valid_feature_name(config.name)) {
      return fail(fmt::format("{}: feature name {} is invalid (expected [a-z0-9_]+)", nth, shown(*name)));
    }
    const std::string feature = fmt::format("{}: feature `{}`", where, config.name);
    if (std::any_of(out.begin(), out.end(), [&](const auto& c) { return c.name == config.name; })) {
      return fail(fmt::format("{} is listed twice", feature));
    }
    const auto values = item.find("values");
    if (values == item.end()) return fail(fmt::format("{}: no `values`", feature));
    if (!values->is_array()) {
      return fail(fmt::format("{}: `values` is {}, expected a list of strings", feature, shown(*values)));
    }
    if (values->empty()) return fail(fmt::format("{}: `values` is empty", feature));
    for (const json& value : *values) {
      if (!value.is_string()) {
        return fail(fmt::format("{}: value {} is not a string", feature, shown(value)));
      }
      const auto& text = value.get_ref<const std::string&>();
      if (!variant::is_valid_feature_value(text)) {
        return fail(fmt::format("{}: value {} is invalid (expected [a-z0-9_.]+)", feature, shown(value)));
      }
      if (std::find(config.values.begin(), config.values.end(), text) != config.values.end()) {
        return fail(fmt::format("{}: value `{}` is listed twice", feature, text));
      }
      config.values.push_back(text);
    }
    if (const auto multi = item.find("multi_value"); multi != item.end()) {
      if (!multi->is_boolean()) {
        return fail(fmt::format("{}: `multi_value` is {}, expected true or false", feature, shown(*multi)));
      }
      config.multi_value = multi->get<bool>();
    }
    out.push_back(std::move(config));
  }
  if (out.empty() && method == ProviderMethod::all_configs) {
    return fail(fmt::format("{}: returned no feature configs", where));
  }
  return out;
}

std::string interpreter_identity(const python::Interpreter& interpreter) {
  const auto name = interpreter.environment.find("implementation_name");
  return fmt::format("{} {}.{}.{} {} {} {}", name == interpreter.environment.end() ? std::string() : name->second,
                     interpreter.tag_info.major, interpreter.tag_info.minor, interpreter.micro,
                     interpreter.release_level, interpreter.abiflags, interpreter.real_executable.string());
}

std::string venv_key(std::string_view interpreter_identity, std::vector<std::string> requirements) {
  std::sort(requirements.begin(), requirements.end());
  requirements.erase(std::unique(requirements.begin(), requirements.end()), requirements.end());
  std::string key = "vwheel python-provider venv 1\n";
  key += interpreter_identity;
  key += '\n';
  for (const auto& r : requirements) {
    key += r;
    key += '\n';
  }
  return key;
}

std::string venv_dir_name(std::string_view key) {
  return fmt::format("venv-{:016x}", fnv1a(key, 0xcbf29ce484222325ULL));
}

}  // namespace python_detail

}  // namespace vwheel::provider
