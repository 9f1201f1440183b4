// Unit tests of editing pyproject.toml's [variant] table: remove-provider, round trips and errors.

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "pyproject_edit_util.hpp"

namespace vwheel::metadata {
namespace {

using namespace test;  // NOLINT(google-build-using-namespace): the helpers of pyproject_edit_util.hpp

// ---- remove-provider ----

TEST(PyprojectRemove, StandardLayout) {
  EXPECT_EQ(remove_ok(kStandard, "x86_64"),
            "[build-system]\n"
            "requires = [\"setuptools\"]\n"
            "\n"
            "[variant.default-priorities]\n"
            "# most important first\n"
            "namespace = [\"aarch64\"]  # keep\n"
            "\n"
            "[variant.providers.aarch64]\n"
            "requires = [\n"
            "   \"provider-aarch64 >=0.0.1; python_version >= '3.12'\",\n"
            "]\n"
            "# trailing comment of the section\n"
            "\n"
            "[tool.other]\n"
            "key = 'value'\n");
  EXPECT_EQ(remove_ok(kStandard, "aarch64"),
            "[build-system]\n"
            "requires = [\"setuptools\"]\n"
            "\n"
            "[variant.default-priorities]\n"
            "# most important first\n"
            "namespace = [\"x86_64\"]  # keep\n"
            "\n"
            "[variant.providers.x86_64]\n"
            "requires = [\"provider-x86 >=0.0.1\"]\n"
            "enable-if = \"platform_machine == 'x86_64'\"  # only there\n"
            "# trailing comment of the section\n"
            "\n"
            "[tool.other]\n"
            "key = 'value'\n");
}

TEST(PyprojectRemove, PrioritiesAndStaticPropertiesGoToo) {
  const std::string text =
      "[variant.default-priorities]\n"
      "namespace = [\"a\", \"s\"]\n"
      "feature.a = [\"f\"]\n"
      "property.a.f = [\"v1\"]\n"
      "property.s.g = [\"w\"]\n"
      "\n"
      "[variant.default-priorities.feature]\n"
      "s = [\"g\", \"h\"]\n"
      "\n"
      "[variant.providers.a]\n"
      "requires = [\"pa\"]\n"
      "\n"
      "[variant.providers.s]\n"
      "install-time = false\n"
      "\n"
      "[variant.static-properties.s]\n"
      "g = [\"w\"]\n"
      "h = [\"x\"]\n";
  auto bad = add_provider(text, provider("z", {"pz"}));  // `feature` is defined twice: not TOML
  ASSERT_FALSE(bad);
  const std::string valid =
      "[variant.default-priorities]\n"
      "namespace = [\"a\", \"s\"]\n"
      "property.a.f = [\"v1\"]\n"
      "property.s.g = [\"w\"]\n"
      "\n"
      "[variant.default-priorities.feature]\n"
      "a = [\"f\"]\n"
      "s = [\"g\", \"h\"]\n"
      "\n"
      "[variant.providers.a]\n"
      "requires = [\"pa\"]\n"
      "\n"
      "[variant.providers.s]\n"
      "install-time = false\n"
      "\n"
      "[variant.static-properties.s]\n"
      "g = [\"w\"]\n"
      "h = [\"x\"]\n";
  EXPECT_EQ(remove_ok(valid, "s"),
            "[variant.default-priorities]\n"
            "namespace = [\"a\"]\n"
            "property.a.f = [\"v1\"]\n"
            "\n"
            "[variant.default-priorities.feature]\n"
            "a = [\"f\"]\n"
            "\n"
            "[variant.providers.a]\n"
            "requires = [\"pa\"]\n");
  EXPECT_EQ(remove_ok(valid, "a"),
            "[variant.default-priorities]\n"
            "namespace = [\"s\"]\n"
            "property.s.g = [\"w\"]\n"
            "\n"
            "[variant.default-priorities.feature]\n"
            "s = [\"g\", \"h\"]\n"
            "\n"
            "[variant.providers.s]\n"
            "install-time = false\n"
            "\n"
            "[variant.static-properties.s]\n"
            "g = [\"w\"]\n"
            "h = [\"x\"]\n");
}

TEST(PyprojectRemove, DottedKeysAndWholeInlineTables) {
  EXPECT_EQ(remove_ok("[variant]\ndefault-priorities.namespace = [\"a\", \"b\"]\nproviders.a.requires = [\"pa\"]\n"
                      "providers.a.optional = true  # c\n# keep me\nproviders.b.requires = [\"pb\"]\n",
                      "a"),
            "[variant]\ndefault-priorities.namespace = [\"b\"]\n# keep me\nproviders.b.requires = [\"pb\"]\n");
  EXPECT_EQ(remove_ok("[variant.default-priorities]\nnamespace = [\"a\", \"b\"]\n[variant.providers]\n"
                      "a = { requires = [\"pa\"] }\nb = { requires = [\"pb\"] }\n",
                      "a"),
            "[variant.default-priorities]\nnamespace = [\"b\"]\n[variant.providers]\nb = { requires = [\"pb\"] }\n");
  // The last provider: every table it leaves empty goes.
  EXPECT_EQ(remove_ok("[project]\nname = \"x\"\n\n[variant.default-priorities]\nnamespace = [\"a\"]\n\n"
                      "[variant.providers]\na = { requires = [\"pa\"] }\n",
                      "a"),
            "[project]\nname = \"x\"\n");
}

TEST(PyprojectRemove, MultiLineNamespaceLists) {
  const std::string text =
      "[variant.default-priorities]\n"
      "namespace = [\n"
      "    \"a\",  # first\n"
      "    \"b\"\n"
      "]\n"
      "[variant.providers.a]\nrequires = [\"pa\"]\n"
      "[variant.providers.b]\nrequires = [\"pb\"]\n";
  EXPECT_EQ(remove_ok(text, "b"),
            "[variant.default-priorities]\nnamespace = [\n    \"a\"  # first\n]\n[variant.providers.a]\nrequires = "
            "[\"pa\"]\n");
  EXPECT_EQ(remove_ok(text, "a"),
            "[variant.default-priorities]\nnamespace = [\n    \"b\"\n]\n[variant.providers.b]\nrequires = [\"pb\"]\n");
}

// ---- round trips ----

TEST(PyprojectRoundTrip, AddThenRemoveGivesBackTheOriginal) {
  const std::vector<std::string> files{
      "",
      "[project]\nname = \"x\"\n",
      "# only a comment\n",
      kStandard,
      "[variant]\ndefault-priorities.namespace = [\"a\"]\nproviders.a.requires = [\"pa\"]\n\n[tool.x]\ny = 1\n",
      "variant.default-priorities.namespace = ['a']\nvariant.providers.a.requires = ['pa']\n",
      "[variant.default-priorities]\nnamespace = [\n  \"a\",\n]\n\n[variant.providers.a]\nrequires = [\"pa\"]\n",
      "[variant.default-priorities]\nnamespace = [\n  \"a\"\n]\n\n[variant.providers.a]\nrequires = [\"pa\"]\n",
      "[variant.default-priorities]\nnamespace = [\"a\",]\n[variant.providers.a]\nrequires = [\"pa\"]\n",
      "[variant.default-priorities]\nnamespace = [\"a\"]\nfeature.a = [\"f\"]\n[variant.providers.a]\nrequires = "
      "[\"pa\"]\n"
      "[tool.poetry]\nname = \"x\"\n",
      "[project]\r\nname = \"x\"\r\n[variant.default-priorities]\r\nnamespace = [\r\n  \"a\",\r\n]\r\n"
      "[variant.providers.a]\r\nrequires = [\"pa\"]\r\n",
  };
  std::vector<ProviderSpec> specs;
  specs.push_back(provider("new_ns", {"new-provider >=1; python_version >= \"3.9\""}));
  auto full = provider("new_ns", {"p1", "p2[x]>=2"});
  full.plugin_api = "p1.plugin:P";
  full.enable_if = "platform_machine == 'x86_64'";
  full.optional = true;
  full.install_time = false;
  specs.push_back(full);
  ProviderSpec aot;
  aot.ns = "new_ns";
  aot.static_properties = {{"f1", {"a", "b.c"}}, {"f2", {"z"}}};
  specs.push_back(aot);
  auto first = provider("new_ns", {"p"});
  first.priority = 0;
  specs.push_back(first);
  for (const auto& text : files) {
    for (const auto& spec : specs) {
      const auto added = add_ok(text, spec);
      EXPECT_TRUE(contains(added, "new_ns")) << text;
      EXPECT_EQ(remove_ok(added, "new_ns"), text) << "added:\n" << added;
    }
  }
}

// ---- errors ----

TEST(PyprojectEditErrors, InvalidInput) {
  EXPECT_TRUE(contains(add_error(kStandard, provider("Bad-NS", {"p"})), "Bad-NS"));
  EXPECT_TRUE(contains(add_error(kStandard, provider("ok", {"not a requirement !"})), "PEP 508"));
  auto marker = provider("ok", {"p"});
  marker.enable_if = "platform_machine == ";
  EXPECT_TRUE(contains(add_error(kStandard, marker), "enable-if"));
  auto api = provider("ok", {"p"});
  api.plugin_api = "a b:c";
  EXPECT_TRUE(contains(add_error(kStandard, api), "plugin-api"));
  ProviderSpec bad_static;
  bad_static.ns = "ok";
  bad_static.static_properties = {{"Feature", {"v"}}};
  EXPECT_TRUE(contains(add_error(kStandard, bad_static), "Feature"));
  bad_static.static_properties = {{"f", {"V!"}}};
  EXPECT_TRUE(contains(add_error(kStandard, bad_static), "V!"));
  bad_static.static_properties = {{"f", {}}};
  EXPECT_TRUE(contains(add_error(kStandard, bad_static), "at least one value"));
  // Not TOML.
  EXPECT_TRUE(contains(add_error("[project\n", provider("a", {"p"})), "invalid TOML"));
  EXPECT_TRUE(contains(remove_error("a = = 1\n", "a"), "invalid TOML"));
  // A new provider without anything to write.
  ProviderSpec empty;
  empty.ns = "fresh";
  EXPECT_TRUE(contains(add_error(kStandard, empty), "needs `requires`"));
  auto no_requires = provider("fresh", {});
  no_requires.install_time = true;
  EXPECT_TRUE(contains(add_error(kStandard, no_requires), "needs `requires`"));
  // The result would have hard errors: an install-time provider without requires.
  no_requires.ns = "x86_64";
  no_requires.requires_ = {};
  EXPECT_TRUE(contains(add_error("[variant.default-priorities]\nnamespace = [\"x86_64\"]\n[variant.providers.x86_64]\n"
                                 "install-time = false\n[variant.static-properties.x86_64]\nf = [\"v\"]\n",
                                 no_requires),
                       "would not be valid"));
  // Priority out of range.
  auto far = provider("fresh", {"p"});
  far.priority = 3;
  EXPECT_TRUE(contains(add_error(kStandard, far), "out of range"));
  EXPECT_TRUE(contains(add_error("", far), "out of range"));
}

TEST(PyprojectEditErrors, FormsThatCannotBeEditedInPlace) {
  const std::string inline_providers =
      "[variant]\n"
      "default-priorities = { namespace = [\"a\"] }\n";
  auto msg = add_error(inline_providers, provider("b", {"pb"}));
  EXPECT_TRUE(contains(msg, "line 2")) << msg;
  EXPECT_TRUE(contains(msg, "inline table")) << msg;
  EXPECT_TRUE(contains(msg, "`[variant.default-priorities]` table")) << msg;

  const std::string nested =
      "[variant.default-priorities]\nnamespace = [\"a\"]\n"
      "\n[variant]\nproviders = { a = { requires = [\"pa\"] } }\n";
  msg = add_error(nested, provider("b", {"pb"}));
  EXPECT_TRUE(contains(msg, "line 5") && contains(msg, "`[variant.providers.b]` table")) << msg;
  msg = add_error(nested, provider("a", {"pa2"}));
  EXPECT_TRUE(contains(msg, "line 5")) << msg;
  msg = remove_error(nested, "a");
  EXPECT_TRUE(contains(msg, "line 5") && contains(msg, "`[variant.providers.a]` table")) << msg;
  msg = remove_error("[variant.default-priorities]\nnamespace = [\"a\"]\nfeature = { a = [\"f\"] }\n", "a");
  EXPECT_TRUE(contains(msg, "line 3") && contains(msg, "`[variant.default-priorities.feature]` table")) << msg;

  msg = add_error("[[variant.providers]]\nx = 1\n", provider("b", {"pb"}));
  EXPECT_TRUE(contains(msg, "line 1") && contains(msg, "array of tables")) << msg;
  msg = add_error("[variant.default-priorities]\nnamespace = \"a\"\n", provider("b", {"pb"}));
  EXPECT_TRUE(contains(msg, "line 2") && contains(msg, "array")) << msg;
}

TEST(PyprojectEditErrors, RemovingAnAbsentNamespace) {
  auto msg = remove_error(kStandard, "nope");
  EXPECT_TRUE(contains(msg, "\"nope\"")) << msg;
  EXPECT_TRUE(contains(remove_error("", "nope"), "nope"));
}

TEST(PyprojectRemove, ANamespaceOnlyListed) {
  // Listed but without provider: just leaves the list.
  EXPECT_EQ(
      remove_ok("[variant.default-priorities]\nnamespace = [\"a\", \"b\"]\n[variant.providers.a]\nrequires = [\"p\"]\n",
                "b"),
      "[variant.default-priorities]\nnamespace = [\"a\"]\n[variant.providers.a]\nrequires = [\"p\"]\n");
}

}  // namespace
}  // namespace vwheel::metadata
