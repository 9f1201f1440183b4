// `vwheel build`'s pure part: the tables read from pyproject.toml, the builds chosen from them and
// the command line, and each build's config_settings.

#include <gtest/gtest.h>

#include "vwheel/build/plan.hpp"

namespace vwheel::build {
namespace {

constexpr const char* kProject = R"(
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "demo"
version = "1.0"

[variant.default-priorities]
namespace = ["x86_64"]

[variant.providers.x86_64]
requires = ["provider-variant-x86-64"]

[variant.variants.null]

[variant.variants.v3]
x86_64.level = ["v3"]

[variant.variants.v1]
x86_64.level = ["v1"]

[tool.vwheel.build.variants.v3]
config-settings = { "cmake.define.OPT" = "3" }
environment = { CFLAGS = "-march=x86-64-v3" }
)";

BuildProject project() {
  auto p = parse_build_project(kProject, "pyproject.toml");
  EXPECT_TRUE(p) << p.error().message;
  return *p;
}

std::string error_of(std::string_view text) {
  auto p = parse_build_project(text, "pyproject.toml");
  return p ? std::string("(no error)") : p.error().message;
}

std::string plan_error(const BuildProject& p, const BuildSelection& s) {
  auto jobs = plan_builds(p, s);
  return jobs ? std::string("(no error)") : jobs.error().message;
}

TEST(BuildProject, ReadsBuildSystemVariantsAndSettings) {
  const auto p = project();
  EXPECT_EQ(p.build_system.backend, "setuptools.build_meta");
  EXPECT_EQ(p.build_system.requires_, std::vector<std::string>{"setuptools>=61"});
  EXPECT_TRUE(p.has_variant_table);
  ASSERT_EQ(p.variants.size(), 3U);
  EXPECT_EQ(p.variants[0].label, "null");
  EXPECT_TRUE(p.variants[0].properties.empty());
  EXPECT_EQ(p.variants[1].label, "v1");  // labels sorted, whatever the file's order
  EXPECT_TRUE(p.variants[1].environment.empty());
  EXPECT_EQ(p.variants[2].label, "v3");
  ASSERT_EQ(p.variants[2].properties.size(), 1U);
  EXPECT_EQ(p.variants[2].properties.begin()->to_string(), "x86_64 :: level :: v3");
  EXPECT_EQ(p.variants[2].config_settings.at("cmake.define.OPT"), "3");
  EXPECT_EQ(p.variants[2].environment.at("CFLAGS"), "-march=x86-64-v3");
  EXPECT_EQ(p.name, "demo");
  EXPECT_EQ(p.version, "1.0");
}

TEST(BuildProject, WithoutBuildSystemUsesTheLegacyBackend) {
  auto p = parse_build_project("[project]\nname = \"x\"\n", "pyproject.toml");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->build_system.backend, "setuptools.build_meta:__legacy__");
  EXPECT_EQ(p->build_system.requires_, (std::vector<std::string>{"setuptools>=40.8.0", "wheel"}));
  EXPECT_FALSE(p->has_variant_table);
  EXPECT_TRUE(p->variants.empty());
}

TEST(BuildProject, BadTablesAreOneLineErrorsNamingTheKey) {
  EXPECT_EQ(error_of("[build-system]\nrequires = \"setuptools\"\n"),
            "pyproject.toml: build-system.requires: expected an array of strings, got a string");
  EXPECT_EQ(error_of("[build-system]\nrequires = [1]\n"),
            "pyproject.toml: build-system.requires[0]: expected a string, got a number");
  EXPECT_EQ(error_of("[build-system]\nbuild-backend = \"\"\n"),
            "pyproject.toml: build-system.build-backend: expected a `module:object` string, got an empty string");
  EXPECT_EQ(error_of("[build-system]\nbackend-path = [\"../x\"]\n"),
            "pyproject.toml: build-system.backend-path: `../x` must be a relative path inside the source tree");
  EXPECT_EQ(error_of("[variant]\nvariants = 3\n"),
            "pyproject.toml: variant.variants: expected a table of labels, got a number");
  EXPECT_EQ(error_of("[variant.variants.Bad]\nx.y = [\"1\"]\n"),
            "pyproject.toml: variant.variants.Bad: invalid label `Bad`: expected lowercase letters, digits, `_` and `.`");
  EXPECT_EQ(error_of("[variant.variants.a]\nx = 1\n"),
            "pyproject.toml: variant.variants.a.x: expected a table of feature = [values], got a number");
  EXPECT_EQ(error_of("[variant.variants.a]\nx.y = \"1\"\n"),
            "pyproject.toml: variant.variants.a.x.y: expected an array of strings, got a string");
  EXPECT_EQ(error_of("[variant.variants.a]\nx.y = []\n"),
            "pyproject.toml: variant.variants.a.x.y: expected at least one value");
  EXPECT_EQ(error_of("[variant.variants.a]\n"),
            "pyproject.toml: variant.variants.a: no properties; only the label `null` may have none");
  EXPECT_EQ(error_of("[variant.variants.null]\nx.y = [\"1\"]\n"),
            "pyproject.toml: variant.variants.null: the label `null` is reserved for the variant without properties");
  EXPECT_EQ(error_of("[variant.variants.a]\nx.y = [\"1\"]\n[tool.vwheel.build.variants.b]\n"),
            "pyproject.toml: tool.vwheel.build.variants.b: there is no [variant.variants.b] table for these settings");
  EXPECT_EQ(error_of("[variant.variants.a]\nx.y = [\"1\"]\n[tool.vwheel.build.variants.a]\nenv = {}\n"),
            "pyproject.toml: tool.vwheel.build.variants.a.env: unknown key; expected `config-settings` or `environment`");
  EXPECT_EQ(error_of("[variant.variants.a]\nx.y = [\"1\"]\n[tool.vwheel.build.variants.a]\nenvironment = { A = 1 }\n"),
            "pyproject.toml: tool.vwheel.build.variants.a.environment.A: expected a string, got a number");
  EXPECT_EQ(error_of("[variant\n").substr(0, 40), "pyproject.toml: invalid TOML at line 1, ");
}

TEST(PlanBuilds, NothingAskedBuildsThePlainWheelWithTheCommandLineSettings) {
  BuildSelection s;
  s.config_settings = {"a=1", "a=2", "b=x=y"};
  auto jobs = plan_builds(project(), s);
  ASSERT_TRUE(jobs);
  ASSERT_EQ(jobs->size(), 1U);
  EXPECT_FALSE(jobs->front().is_variant());
  EXPECT_EQ(jobs->front().describe(), "the plain wheel");
  EXPECT_EQ(config_settings_json(jobs->front().config_settings), R"({"a":["1","2"],"b":"x=y"})");
}

TEST(PlanBuilds, AllVariantsBuildsNullFirstThenTheLabelsSorted) {
  BuildSelection s;
  s.all_variants = true;
  auto jobs = plan_builds(project(), s);
  ASSERT_TRUE(jobs);
  ASSERT_EQ(jobs->size(), 3U);
  EXPECT_EQ((*jobs)[0].label, "null");
  EXPECT_EQ((*jobs)[0].describe(), "the null variant");
  EXPECT_EQ(config_settings_json((*jobs)[0].config_settings), R"({"null-variant":"true","variant-label":"null"})");
  EXPECT_EQ((*jobs)[1].label, "v1");
  EXPECT_TRUE((*jobs)[1].environment.empty());
  EXPECT_EQ((*jobs)[2].label, "v3");
  EXPECT_EQ((*jobs)[2].describe(), "variant `v3`");
  EXPECT_EQ(config_settings_json((*jobs)[2].config_settings),
            R"({"cmake.define.OPT":"3","variant":"x86_64 :: level :: v3","variant-label":"v3"})");
  EXPECT_EQ((*jobs)[2].environment.at("CFLAGS"), "-march=x86-64-v3");
}

TEST(PlanBuilds, ChosenLabelsInTheOrderGivenAndCommandLineSettingsWin) {
  BuildSelection s;
  s.labels = {"v1", "v3"};
  s.null_variant = true;
  s.config_settings = {"cmake.define.OPT=9"};
  auto jobs = plan_builds(project(), s);
  ASSERT_TRUE(jobs);
  ASSERT_EQ(jobs->size(), 3U);
  EXPECT_EQ((*jobs)[0].label, "null");
  EXPECT_EQ((*jobs)[1].label, "v1");
  EXPECT_EQ((*jobs)[2].label, "v3");
  EXPECT_EQ((*jobs)[2].config_settings.at("cmake.define.OPT"), std::vector<std::string>{"9"});
}

TEST(PlanBuilds, PropertiesFromTheCommandLineWhenThereIsNoTable) {
  auto p = parse_build_project("[variant.default-priorities]\nnamespace = [\"x86_64\"]\n", "pyproject.toml");
  ASSERT_TRUE(p);
  BuildSelection s;
  s.labels = {"fast"};
  s.properties = {"x86_64 :: level :: v3", "x86_64::level::v2"};
  auto jobs = plan_builds(*p, s);
  ASSERT_TRUE(jobs) << jobs.error().message;
  ASSERT_EQ(jobs->size(), 1U);
  EXPECT_EQ(config_settings_json(jobs->front().config_settings),
            R"({"variant":["x86_64 :: level :: v2","x86_64 :: level :: v3"],"variant-label":"fast"})");
}

TEST(PlanBuilds, BadSelectionsAreOneLineErrors) {
  const auto p = project();
  const auto bare = *parse_build_project("[project]\nname = \"x\"\n", "pyproject.toml");
  BuildSelection s;
  s.labels = {"v9"};
  EXPECT_EQ(plan_error(p, s), "--variant `v9`: no such label in [variant.variants] (known: `null`, `v1`, `v3`)");
  s.labels = {"v1", "v1"};
  EXPECT_EQ(plan_error(p, s), "--variant `v1` is given twice");
  s.labels = {"V1"};
  EXPECT_EQ(plan_error(p, s), "--variant `V1`: invalid label: expected lowercase letters, digits, `_` and `.`");
  s.labels = {"null"};
  EXPECT_EQ(plan_error(p, s), "--variant null: use --null for the null variant");
  s.labels = {"v1"};
  s.all_variants = true;
  EXPECT_EQ(plan_error(p, s), "--all-variants cannot be combined with --variant");
  s = {};
  s.all_variants = true;
  EXPECT_EQ(plan_error(bare, s), "--all-variants: the project's pyproject.toml has no [variant.variants] table");
  s = {};
  s.labels = {"v1"};
  s.properties = {"x86_64 :: level :: v1"};
  EXPECT_EQ(plan_error(p, s), "-p/--property: the variants' properties come from [variant.variants]; use --variant LABEL");
  s = {};
  s.labels = {"fast"};
  EXPECT_EQ(plan_error(bare, s),
            "--variant `fast`: the project has no [variant.variants] table; give the variant's properties with "
            "-p/--property");
  s.labels = {"a", "b"};
  s.properties = {"x86_64 :: level :: v1"};
  EXPECT_EQ(plan_error(bare, s), "-p/--property needs exactly one --variant LABEL");
  s = {};
  s.null_variant = true;
  EXPECT_EQ(plan_error(bare, s),
            "--null: the null variant's variant.json lists the project's namespaces, but its pyproject.toml has no "
            "[variant] table");
  s = {};
  s.config_settings = {"novalue"};
  EXPECT_EQ(plan_error(p, s), "-C `novalue`: expected KEY=VALUE");
}

TEST(BuildRequirements, MissingAndTooOldAreListedMarkersApply) {
  const std::map<std::string, std::string> installed = {{"setuptools", "66.1.1"}, {"wheel", "0.38.4"}};
  const std::map<std::string, std::string> markers = {{"python_version", "3.11"}, {"sys_platform", "linux"}};
  EXPECT_TRUE(check_build_requirements({"setuptools>=61", "Wheel", "other; sys_platform == 'win32'"}, installed, markers));
  auto r = check_build_requirements({"setuptools>=70", "hatchling", "wheel"}, installed, markers);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "build requirements missing from the interpreter's environment (--no-isolation): `setuptools>=70` "
            "(installed: 66.1.1), `hatchling` (not installed)");
}

variant::PropertySet props(std::vector<std::string> texts) {
  std::vector<variant::Property> out;
  for (const auto& t : texts) out.push_back(*variant::parse_property(t));
  return *variant::make_property_set(std::move(out));
}

variant::VariantMetadata blas_metadata() {
  variant::VariantMetadata md;
  md.namespace_priorities = {"blas_lapack"};
  variant::ProviderInfo info;
  info.build_requires = {"blas-plugin"};
  info.plugin_api = "blas_plugin:Plugin";
  info.install_time = false;
  md.providers["blas_lapack"] = info;
  md.feature_priorities["blas_lapack"] = {"threading"};
  return md;
}

provider::PluginAnswer blas_answer(bool compatible = true) {
  provider::PluginAnswer a;
  a.configs = {{"library", {"openblas", "mkl"}, false}, {"threading", {"openmp", "serial"}, false}};
  a.all_properties_compatible = compatible;
  return a;
}

TEST(BuildRequires, FillStaticPropertiesFromThePluginAnswer) {
  auto md = blas_metadata();
  ASSERT_TRUE(fill_static_properties(md, "blas_lapack", blas_answer(), props({"blas_lapack :: library :: mkl"})));
  const auto& p = md.providers.at("blas_lapack");
  EXPECT_TRUE(p.build_requires.empty());
  EXPECT_FALSE(p.plugin_api);
  EXPECT_FALSE(p.install_time);
  EXPECT_EQ(md.static_properties.at("blas_lapack"),
            (std::map<std::string, std::vector<std::string>>{{"library", {"openblas", "mkl"}},
                                                             {"threading", {"openmp", "serial"}}}));
  // Missing features are appended in the plugin's order after those the project ordered.
  EXPECT_EQ(md.feature_priorities.at("blas_lapack"), (std::vector<std::string>{"threading", "library"}));
}

TEST(BuildRequires, RefusesIncompatiblePluginsAndUnsupportedProperties) {
  auto md = blas_metadata();
  auto r = fill_static_properties(md, "blas_lapack", blas_answer(false), {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "variant.providers.blas_lapack.build-requires: its plugin does not set `all_properties_compatible = True`, "
            "so it cannot fill static-properties at build time (Building draft)");
  r = fill_static_properties(md, "blas_lapack", blas_answer(), props({"blas_lapack :: library :: accelerate"}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "`blas_lapack :: library :: accelerate`: `accelerate` is not among the values the `blas_lapack` plugin "
            "(variant.providers.blas_lapack.build-requires) supports: openblas, mkl");
  r = fill_static_properties(md, "blas_lapack", blas_answer(), props({"blas_lapack :: int :: ilp64"}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "`blas_lapack :: int :: ilp64`: the `blas_lapack` plugin (variant.providers.blas_lapack.build-requires) "
            "supports no feature `int`");
  r = fill_static_properties(md, "blas_lapack", blas_answer(),
                             props({"blas_lapack :: library :: mkl", "blas_lapack :: library :: openblas"}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "`blas_lapack :: library` is a single-value feature of the `blas_lapack` plugin "
            "(variant.providers.blas_lapack.build-requires) but is given mkl and openblas");
  EXPECT_FALSE(fill_static_properties(md, "x86_64", blas_answer(), {}));
  EXPECT_FALSE(md.providers.at("blas_lapack").build_requires.empty()) << "nothing changes on failure";
}

BuiltVariant built(std::string label, std::vector<std::string> properties) {
  BuiltVariant b;
  b.label = label;
  b.metadata.namespace_priorities = {"x86_64"};
  variant::ProviderInfo info;
  info.requires_ = {"provider-variant-x86-64"};
  b.metadata.providers["x86_64"] = info;
  b.metadata.variants[label] = props(std::move(properties));
  return b;
}

TEST(Matrix, AgreeingWheelsPassDisagreeingOnesNameTheField) {
  std::vector<BuiltVariant> m = {built("null", {}), built("v1", {"x86_64 :: level :: v1"}),
                                 built("v3", {"x86_64 :: level :: v3"})};
  EXPECT_TRUE(check_matrix(m));
  auto other = m;
  other[2].metadata.namespace_priorities = {"x86_64", "aarch64"};
  EXPECT_EQ(check_matrix(other).error().message,
            "the variants `null` and `v3` disagree on default-priorities.namespace ([x86_64] vs [x86_64, aarch64])");
  other = m;
  other[1].metadata.providers["x86_64"].plugin_api = "p:P";
  EXPECT_EQ(check_matrix(other).error().message,
            "the variants `null` and `v1` disagree on providers.x86_64 ({requires = [provider-variant-x86-64]} vs "
            "{requires = [provider-variant-x86-64], plugin-api = p:P})");
  other = m;
  other[2].metadata.static_properties["x86_64"]["level"] = {"v1"};
  EXPECT_EQ(check_matrix(other).error().message,
            "the variants `null` and `v3` disagree on static-properties.x86_64 (none vs {level = [v1]})");
  other = m;
  other[2].metadata.feature_priorities["x86_64"] = {"level"};
  EXPECT_EQ(check_matrix(other).error().message,
            "the variants `null` and `v3` disagree on default-priorities.feature.x86_64 (none vs [level])");
  other = m;
  other.push_back(built("v1b", {"x86_64 :: level :: v1"}));
  EXPECT_EQ(check_matrix(other).error().message,
            "the variants `v1` and `v1b` have the same properties (x86_64 :: level :: v1); an installer could not "
            "choose between them");
}

}  // namespace
}  // namespace vwheel::build
