#pragma once
// Helpers shared by the metadata tests.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace vwheel::metadata::test {

/// TOML text for a JSON object (tables as inline tables), enough for the pyproject vectors.
inline std::string toml_value(const nlohmann::json& v);

inline std::string toml_key(const std::string& key) {
  const bool bare = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
  return bare ? key : toml_value(nlohmann::json(key));
}

inline std::string toml_value(const nlohmann::json& v) {
  if (v.is_string()) {
    std::string out = "\"";
    for (unsigned char c : v.get<std::string>()) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += static_cast<char>(c);
      } else if (c < 0x20 || c == 0x7f) {
        out += fmt::format("\\u{:04X}", c);
      } else {
        out += static_cast<char>(c);
      }
    }
    return out + "\"";
  }
  if (v.is_array()) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + toml_value(v[i]);
    return out + "]";
  }
  if (v.is_object()) {
    std::string out = "{";
    bool first = true;
    for (const auto& [k, item] : v.items()) {
      out += (first ? " " : ", ") + toml_key(k) + " = " + toml_value(item);
      first = false;
    }
    return out + (first ? "}" : " }");
  }
  return v.dump();  // numbers, booleans
}

/// A TOML document whose top-level keys are those of `doc`.
inline std::string to_toml(const nlohmann::json& doc) {
  std::string out;
  for (const auto& [k, item] : doc.items()) out += toml_key(k) + " = " + toml_value(item) + "\n";
  return out;
}

/// True when some line in `lines` contains every one of `needles`.
inline bool any_line_mentions(const std::vector<std::string>& lines, const std::vector<std::string>& needles) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& line) {
    return std::all_of(needles.begin(), needles.end(),
                       [&](const std::string& n) { return line.find(n) != std::string::npos; });
  });
}

inline std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += "\n  " + l;
  return out;
}

}  // namespace vwheel::metadata::test
