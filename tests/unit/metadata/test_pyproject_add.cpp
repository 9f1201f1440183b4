// Unit tests of editing pyproject.toml's [variant] table: add-provider (exact output, layouts, look-alikes, escaping).

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "pyproject_edit_util.hpp"

namespace vwheel::metadata {
namespace {

using namespace test;  // NOLINT(google-build-using-namespace): the helpers of pyproject_edit_util.hpp

// ---- add-provider: exact output ----

TEST(PyprojectAdd, ToAFileWithoutVariant) {
  const std::string text = "[project]\nname = \"x\"  # the name\n";
  auto spec = provider("cpu", {"cpu-provider >=1"});
  spec.plugin_api = "cpu_provider.plugin:Plugin";
  EXPECT_EQ(
      add_ok(text, spec),
      "[project]\nname = \"x\"  # the name\n"
      "\n[variant.default-priorities]\nnamespace = [\"cpu\"]\n"
      "\n[variant.providers.cpu]\nrequires = [\"cpu-provider >=1\"]\nplugin-api = \"cpu_provider.plugin:Plugin\"\n");
  EXPECT_EQ(add_ok("", provider("a", {"b"})),
            "[variant.default-priorities]\nnamespace = [\"a\"]\n\n[variant.providers.a]\nrequires = [\"b\"]\n");
  // No final line break: one is added.
  EXPECT_EQ(add_ok("[project]\nname = \"x\"", provider("a", {"b"})),
            "[project]\nname = \"x\"\n\n[variant.default-priorities]\nnamespace = [\"a\"]\n\n"
            "[variant.providers.a]\nrequires = [\"b\"]\n");
}

TEST(PyprojectAdd, NewProviderInTheStandardLayout) {
  auto spec = provider("blas", {"blas-provider"});
  spec.install_time = false;
  spec.optional = true;
  EXPECT_EQ(add_ok(kStandard, spec),
            "[build-system]\n"
            "requires = [\"setuptools\"]\n"
            "\n"
            "[variant.default-priorities]\n"
            "# most important first\n"
            "namespace = [\"x86_64\", \"aarch64\", \"blas\"]  # keep\n"
            "\n"
            "[variant.providers.x86_64]\n"
            "requires = [\"provider-x86 >=0.0.1\"]\n"
            "enable-if = \"platform_machine == 'x86_64'\"  # only there\n"
            "\n"
            "[variant.providers.aarch64]\n"
            "requires = [\n"
            "   \"provider-aarch64 >=0.0.1; python_version >= '3.12'\",\n"
            "]\n"
            "\n"
            "[variant.providers.blas]\n"
            "requires = [\"blas-provider\"]\n"
            "optional = true\n"
            "install-time = false\n"
            "# trailing comment of the section\n"
            "\n"
            "[tool.other]\n"
            "key = 'value'\n");
  spec.priority = 0;
  EXPECT_TRUE(contains(add_ok(kStandard, spec), "namespace = [\"blas\", \"x86_64\", \"aarch64\"]  # keep\n"));
  spec.priority = 1;
  EXPECT_TRUE(contains(add_ok(kStandard, spec), "namespace = [\"x86_64\", \"blas\", \"aarch64\"]  # keep\n"));
}

TEST(PyprojectAdd, UpdatesAnExistingProviderInPlace) {
  auto spec = provider("x86_64", {"provider-x86 >=0.0.2", "extra-dep"});
  spec.enable_if = "platform_machine == \"AMD64\"";
  spec.optional = false;
  const auto out = add_ok(kStandard, spec);
  EXPECT_EQ(out,
            "[build-system]\n"
            "requires = [\"setuptools\"]\n"
            "\n"
            "[variant.default-priorities]\n"
            "# most important first\n"
            "namespace = [\"x86_64\", \"aarch64\"]  # keep\n"
            "\n"
            "[variant.providers.x86_64]\n"
            "requires = [\"provider-x86 >=0.0.2\", \"extra-dep\"]\n"
            "enable-if = \"platform_machine == \\\"AMD64\\\"\"  # only there\n"
            "optional = false\n"
            "\n"
            "[variant.providers.aarch64]\n"
            "requires = [\n"
            "   \"provider-aarch64 >=0.0.1; python_version >= '3.12'\",\n"
            "]\n"
            "# trailing comment of the section\n"
            "\n"
            "[tool.other]\n"
            "key = 'value'\n");
  // Same again: nothing changes.
  EXPECT_EQ(add_ok(out, spec), out);
  // Moving an existing namespace with --priority.
  ProviderSpec move;
  move.ns = "aarch64";
  move.priority = 0;
  EXPECT_TRUE(contains(add_ok(kStandard, move), "namespace = [\"aarch64\", \"x86_64\"]  # keep\n"));
  move.priority = 2;
  EXPECT_TRUE(contains(add_error(kStandard, move), "out of range"));
}

TEST(PyprojectAdd, MultiLineNamespaceListsKeepTheirStyle) {
  const std::string with_comma =
      "[variant.default-priorities]\n"
      "namespace = [\n"
      "  \"a\",  # first\n"
      "  # between\n"
      "  \"b\",\n"
      "]\n"
      "[variant.providers.a]\nrequires = [\"pa\"]\n"
      "[variant.providers.b]\nrequires = [\"pb\"]\n";
  const auto appended = add_ok(with_comma, provider("c", {"pc"}));
  EXPECT_TRUE(contains(appended, "namespace = [\n  \"a\",  # first\n  # between\n  \"b\",\n  \"c\",\n]\n")) << appended;
  auto first = provider("c", {"pc"});
  first.priority = 0;
  EXPECT_TRUE(contains(add_ok(with_comma, first), "namespace = [\n  \"c\",\n  \"a\",  # first\n"))
      << add_ok(with_comma, first);
  first.priority = 1;
  EXPECT_TRUE(contains(add_ok(with_comma, first), "  # between\n  \"c\",\n  \"b\",\n"));

  const std::string without_comma =
      "[variant.default-priorities]\n"
      "namespace = [\n"
      "    \"a\",\n"
      "    \"b\"  # last\n"
      "]\n"
      "[variant.providers.a]\nrequires = [\"pa\"]\n"
      "[variant.providers.b]\nrequires = [\"pb\"]\n";
  EXPECT_TRUE(contains(add_ok(without_comma, provider("c", {"pc"})),
                       "namespace = [\n    \"a\",\n    \"b\",  # last\n    \"c\"\n]\n"));
  // Inline separators are copied.
  EXPECT_TRUE(contains(add_ok("[variant.default-priorities]\nnamespace = ['a','b']\n"
                              "[variant.providers.a]\nrequires = [\"pa\"]\n"
                              "[variant.providers.b]\nrequires = [\"pb\"]\n",
                              provider("c", {"pc"})),
                       "namespace = ['a','b',\"c\"]\n"));
  const auto from_empty = add_ok("[variant.default-priorities]\nnamespace = []\n", provider("c", {"pc"}));
  EXPECT_TRUE(contains(from_empty, "namespace = [\"c\"]\n"));
  // A list left empty is removed, and so is the table it leaves empty.
  EXPECT_EQ(remove_ok(from_empty, "c"), "");
  EXPECT_TRUE(contains(add_ok("[variant.default-priorities]\nnamespace = [\n]\n", provider("c", {"pc"})),
                       "namespace = [\n    \"c\",\n]\n"));
}

TEST(PyprojectAdd, DottedKeysUnderVariant) {
  const std::string text =
      "[variant]\n"
      "default-priorities.namespace = [\"a\"]\n"
      "providers.a.requires = [\"pa\"]\n"
      "\n"
      "[tool.x]\n";
  EXPECT_EQ(add_ok(text, provider("b", {"pb"})),
            "[variant]\n"
            "default-priorities.namespace = [\"a\", \"b\"]\n"
            "providers.a.requires = [\"pa\"]\n"
            "providers.b.requires = [\"pb\"]\n"
            "\n"
            "[tool.x]\n");
  auto update = provider("a", {});
  update.optional = true;
  EXPECT_EQ(add_ok(text, update),
            "[variant]\n"
            "default-priorities.namespace = [\"a\"]\n"
            "providers.a.requires = [\"pa\"]\n"
            "providers.a.optional = true\n"
            "\n"
            "[tool.x]\n");
  // Top-level dotted keys.
  EXPECT_EQ(add_ok("variant.default-priorities.namespace = [\"a\"]\nvariant.providers.a.requires = [\"pa\"]\n",
                   provider("b", {"pb"})),
            "variant.default-priorities.namespace = [\"a\", \"b\"]\nvariant.providers.a.requires = [\"pa\"]\n"
            "variant.providers.b.requires = [\"pb\"]\n");
  // [variant.providers] with dotted keys below it.
  EXPECT_EQ(add_ok("[variant.default-priorities]\nnamespace = [\"a\"]\n[variant.providers]\n  a.requires = [\"pa\"]\n",
                   provider("b", {"pb"})),
            "[variant.default-priorities]\nnamespace = [\"a\", \"b\"]\n[variant.providers]\n  a.requires = [\"pa\"]\n"
            "  b.requires = [\"pb\"]\n");
}

TEST(PyprojectAdd, QuotedAndSpacedHeaders) {
  const std::string text =
      "[ variant . \"default-priorities\" ]\n"
      "namespace = [\"a\"]\n"
      "[variant.providers.\"a\"]\n"
      "'requires' = [\"pa\"]\n";
  EXPECT_EQ(
      add_ok(text, provider("a", {"pa2"})),
      "[ variant . \"default-priorities\" ]\nnamespace = [\"a\"]\n[variant.providers.\"a\"]\n'requires' = [\"pa2\"]\n");
  EXPECT_EQ(add_ok(text, provider("b", {"pb"})),
            "[ variant . \"default-priorities\" ]\nnamespace = [\"a\", \"b\"]\n[variant.providers.\"a\"]\n"
            "'requires' = [\"pa\"]\n\n[variant.providers.b]\nrequires = [\"pb\"]\n");
}

TEST(PyprojectAdd, CrlfFilesGetCrlfLines) {
  const std::string text = "[project]\r\nname = \"x\"\r\n";
  const auto out = add_ok(text, provider("a", {"pa"}));
  EXPECT_EQ(out,
            "[project]\r\nname = \"x\"\r\n\r\n[variant.default-priorities]\r\nnamespace = [\"a\"]\r\n\r\n"
            "[variant.providers.a]\r\nrequires = [\"pa\"]\r\n");
  EXPECT_EQ(remove_ok(out, "a"), text);
}

TEST(PyprojectAdd, StaticPropertiesForAheadOfTimeProviders) {
  ProviderSpec spec;
  spec.ns = "arch";
  spec.static_properties = {{"level", {"v3", "v2"}}, {"simd", {"avx2"}}};
  const std::string text =
      "[variant.default-priorities]\nnamespace = [\"a\"]\n\n[variant.providers.a]\nrequires = [\"pa\"]\n";
  const auto out = add_ok(text, spec);
  EXPECT_EQ(out,
            "[variant.default-priorities]\nnamespace = [\"a\", \"arch\"]\nfeature.arch = [\"level\", \"simd\"]\n\n"
            "[variant.providers.a]\nrequires = [\"pa\"]\n"
            "\n[variant.providers.arch]\ninstall-time = false\n"
            "\n[variant.static-properties.arch]\nlevel = [\"v3\", \"v2\"]\nsimd = [\"avx2\"]\n");
  EXPECT_EQ(remove_ok(out, "arch"), text);
  // Updating one feature keeps the other; a new feature is appended to the order.
  ProviderSpec more;
  more.ns = "arch";
  more.static_properties = {{"level", {"v4"}}, {"fma", {"on"}}};
  const auto updated = add_ok(out, more);
  EXPECT_TRUE(contains(updated, "feature.arch = [\"level\", \"simd\", \"fma\"]\n")) << updated;
  EXPECT_TRUE(contains(updated, "level = [\"v4\"]\nsimd = [\"avx2\"]\nfma = [\"on\"]\n")) << updated;
  // Static properties with a plugin or at install time are refused.
  auto with_requires = spec;
  with_requires.requires_ = {"p"};
  EXPECT_TRUE(contains(add_error(text, with_requires), "ahead-of-time"));
  auto install_time = spec;
  install_time.install_time = true;
  EXPECT_TRUE(contains(add_error(text, install_time), "install-time"));
  // The provider in the file has requires: the result would be invalid.
  ProviderSpec on_a;
  on_a.ns = "a";
  on_a.static_properties = {{"f", {"v"}}};
  EXPECT_TRUE(contains(add_error(text, on_a), "would not be valid"));
}

TEST(PyprojectAdd, LookAlikesInStringsAndCommentsAreNotTables) {
  const std::string text =
      "[project]\n"
      "description = \"\"\"\n"
      "[variant.providers.fake]\n"
      "requires = [\"nope\"]\n"
      "\"\"\"\n"
      "readme = '''\n"
      "[variant.default-priorities]\n"
      "namespace = ['fake'] # '''\n"
      "# [variant.providers.fake]\n"
      "# namespace = [\"fake\"]\n";
  const auto out = add_ok(text, provider("fake", {"real"}));
  EXPECT_EQ(out, text +
                     "\n[variant.default-priorities]\nnamespace = [\"fake\"]\n"
                     "\n[variant.providers.fake]\nrequires = [\"real\"]\n");
  EXPECT_EQ(remove_ok(out, "fake"), text);
  EXPECT_TRUE(contains(remove_error(text, "fake"), "\"fake\""));
}

TEST(PyprojectAdd, ATableWithoutKeysGetsThemAfterItsHeader) {
  const std::string text =
      "[variant.default-priorities]\nnamespace = [\"a\"]\n\n[variant.providers.a]\n# to do\n\n[tool.x]\n";
  EXPECT_EQ(add_ok(text, provider("a", {"pa"})),
            "[variant.default-priorities]\nnamespace = [\"a\"]\n\n[variant.providers.a]\nrequires = [\"pa\"]\n# to do\n"
            "\n[tool.x]\n");
}

TEST(PyprojectAdd, IndentedTablesKeepTheirIndentation) {
  const std::string text =
      "[variant.default-priorities]\n\tnamespace = [\"a\"]\n[variant.providers.a]\n    requires = [\"pa\"]\n";
  auto spec = provider("a", {});
  spec.plugin_api = "pa";
  EXPECT_EQ(add_ok(text, spec),
            "[variant.default-priorities]\n\tnamespace = [\"a\"]\n[variant.providers.a]\n    requires = [\"pa\"]\n"
            "    plugin-api = \"pa\"\n");
}

TEST(PyprojectAdd, StringsAreEscaped) {
  auto spec = provider("a", {"pkg @ file:///tmp/a%20b.whl"});
  spec.enable_if = "platform_machine == \"x\\\\y\"";
  const auto out = add_ok("", spec);
  EXPECT_TRUE(contains(out, "enable-if = \"platform_machine == \\\"x\\\\\\\\y\\\"\"\n")) << out;
  auto parsed = parse_pyproject(out);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->metadata.providers.at("a").enable_if, spec.enable_if);
  EXPECT_EQ(parsed->metadata.providers.at("a").requires_, spec.requires_);
}

}  // namespace
}  // namespace vwheel::metadata
