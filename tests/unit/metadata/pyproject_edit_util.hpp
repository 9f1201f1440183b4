#pragma once
// Shared by the pyproject.toml edit tests (test_pyproject_add.cpp, test_pyproject_edit.cpp): a
// provider to add, and add/remove calls that expect success (and a usable result) or a one-line
// error.

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vwheel/metadata/document.hpp"
#include "vwheel/metadata/pyproject_edit.hpp"

namespace vwheel::metadata::test {

inline ProviderSpec provider(std::string ns, std::vector<std::string> requires_list) {
  ProviderSpec spec;
  spec.ns = std::move(ns);
  spec.requires_ = std::move(requires_list);
  return spec;
}

inline std::string add_ok(std::string_view text, const ProviderSpec& spec) {
  auto r = add_provider(text, spec);
  EXPECT_TRUE(r) << (r ? "" : r.error().message);
  if (!r) return "";
  const auto report = check_pyproject(*r);
  EXPECT_TRUE(report.usable()) << *r;
  return *r;
}

inline std::string remove_ok(std::string_view text, std::string_view ns) {
  auto r = remove_provider(text, ns);
  EXPECT_TRUE(r) << (r ? "" : r.error().message);
  if (!r) return "";
  EXPECT_TRUE(check_pyproject(*r).usable()) << *r;
  return *r;
}

inline std::string add_error(std::string_view text, const ProviderSpec& spec) {
  auto r = add_provider(text, spec);
  EXPECT_FALSE(r) << *r;
  if (r) return "";
  EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
  return r.error().message;
}

inline std::string remove_error(std::string_view text, std::string_view ns) {
  auto r = remove_provider(text, ns);
  EXPECT_FALSE(r) << *r;
  if (r) return "";
  EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
  return r.error().message;
}

inline bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

/// A pyproject.toml in the usual layout, with comments to keep.
inline const std::string kStandard =
    "[build-system]\n"
    "requires = [\"setuptools\"]\n"
    "\n"
    "[variant.default-priorities]\n"
    "# most important first\n"
    "namespace = [\"x86_64\", \"aarch64\"]  # keep\n"
    "\n"
    "[variant.providers.x86_64]\n"
    "requires = [\"provider-x86 >=0.0.1\"]\n"
    "enable-if = \"platform_machine == 'x86_64'\"  # only there\n"
    "\n"
    "[variant.providers.aarch64]\n"
    "requires = [\n"
    "   \"provider-aarch64 >=0.0.1; python_version >= '3.12'\",\n"
    "]\n"
    "# trailing comment of the section\n"
    "\n"
    "[tool.other]\n"
    "key = 'value'\n";

}  // namespace vwheel::metadata::test
