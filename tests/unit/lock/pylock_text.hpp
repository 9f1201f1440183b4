#pragma once
// pylock.toml texts for the lock tests (test_pylock.cpp, test_pylock_errors.cpp): a one-package
// lock around given keys, a wheels line, a variants table, and the error a text is refused with.

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include <fmt/format.h>

#include "vwheel/lock/pylock.hpp"

namespace vwheel::lock::test {

inline const std::string kSha256(64, 'a');

inline std::string error_of(std::string_view text, const std::string& source = "pylock.toml") {
  auto parsed = parse_pylock(text, source);
  EXPECT_FALSE(parsed) << "expected an error for:\n" << text;
  return parsed ? std::string() : parsed.error().message;
}

inline std::string all_errors(std::string_view text) {
  auto parsed = parse_pylock(text, "pylock.toml");
  if (parsed) return {};
  std::string out = parsed.error().message;
  for (const auto& more : parsed.error().details) out += "\n" + more;
  return out;
}

// A one-package lock around the given package keys (after name/version) and extra tables.
inline std::string lock_with(std::string_view package_body, std::string_view after = "", std::string_view name = "demo",
                             std::string_view version = "1.0") {
  return fmt::format(
      "lock-version = \"1.0\"\ncreated-by = \"test\"\n\n[[packages]]\nname = \"{}\"\nversion = \"{}\"\n{}\n{}", name,
      version, package_body, after);
}

inline std::string wheels_line(std::string_view file, std::string_view hashes = "") {
  const std::string h = hashes.empty() ? fmt::format("{{ sha256 = \"{}\" }}", kSha256) : std::string(hashes);
  return fmt::format("wheels = [ {{ url = \"https://x.example/{}\", hashes = {} }} ]\n", file, h);
}

inline constexpr std::string_view kDemoVariants = R"(
[packages.variants-json]
"$schema" = "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json"
[packages.variants-json.default-priorities]
namespace = ["x86_64"]
[packages.variants-json.variants]
x86_64_v3 = { x86_64 = { level = ["v3"] } }
)";

}  // namespace vwheel::lock::test
