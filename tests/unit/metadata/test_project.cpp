// A project's locking inputs read from pyproject.toml: [project] and PEP 735 [dependency-groups].

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "vwheel/metadata/project.hpp"

namespace vwheel::metadata {
namespace {

Project read(const std::string& text) {
  auto parsed = parse_project(text, "pyproject.toml");
  EXPECT_TRUE(parsed) << (parsed ? "" : parsed.error().message);
  if (!parsed || !*parsed) return {};
  return **parsed;
}

std::string error_of(const std::string& text) {
  auto parsed = parse_project(text, "pyproject.toml");
  EXPECT_FALSE(parsed) << "accepted:\n" << text;
  return parsed ? "" : parsed.error().message;
}

std::vector<std::string> texts(const std::vector<markers::Requirement>& requirements) {
  std::vector<std::string> out;
  for (const auto& r : requirements) out.push_back(r.to_string());
  return out;
}

const char* const kProject = R"(
[project]
name = "My_Proj"
version = "1.0"
requires-python = ">=3.10"
dependencies = ["requests>=2", "attrs"]

[project.optional-dependencies]
Fast = ["ujson"]
all = ["my-proj[fast,cli]"]
cli = ["click; os_name == 'posix'"]

[dependency-groups]
Dev = ["ruff"]
test = ["pytest", {include-group = "dev"}, "my.proj[cli] ; python_version >= '3.11'"]
)";

TEST(Project, ReadsDependenciesExtrasGroupsAndRequiresPython) {
  const Project p = read(kProject);
  EXPECT_EQ(p.name, "my-proj");
  EXPECT_EQ(p.version, "1.0");
  ASSERT_TRUE(p.requires_python);
  EXPECT_EQ(p.requires_python->to_string(), ">=3.10");
  EXPECT_EQ(texts(p.dependencies), (std::vector<std::string>{"requests>=2", "attrs"}));
  ASSERT_EQ(p.optional_dependencies.size(), 3U);
  EXPECT_EQ(texts(p.optional_dependencies.at("fast")), std::vector<std::string>{"ujson"});
  // Self-references become the referenced extras' requirements, markers kept.
  EXPECT_EQ(texts(p.optional_dependencies.at("all")),
            (std::vector<std::string>{"click; os_name == \"posix\"", "ujson"}));
  ASSERT_EQ(p.dependency_groups.size(), 2U);
  EXPECT_EQ(texts(p.dependency_groups.at("dev")), std::vector<std::string>{"ruff"});
  const auto test = texts(p.dependency_groups.at("test"));
  ASSERT_EQ(test.size(), 3U);
  EXPECT_EQ(test[0], "pytest");
  EXPECT_EQ(test[1], "ruff");  // include-group expanded in place
  // The self-reference's marker is joined with the extra's requirement's.
  EXPECT_NE(test[2].find("click"), std::string::npos);
  EXPECT_NE(test[2].find("os_name == \"posix\""), std::string::npos);
  EXPECT_NE(test[2].find("python_version >= \"3.11\""), std::string::npos);
  EXPECT_NE(test[2].find(" and "), std::string::npos);
}

TEST(Project, NoProjectTableIsNothing) {
  auto parsed = parse_project("[build-system]\nrequires = [\"setuptools\"]\n", "pyproject.toml");
  ASSERT_TRUE(parsed);
  EXPECT_FALSE(*parsed);
}

TEST(Project, DynamicVersionIsNoVersion) {
  const Project p = read("[project]\nname = \"a\"\ndynamic = [\"version\"]\n");
  EXPECT_FALSE(p.version);
  EXPECT_TRUE(p.dependencies.empty());
  EXPECT_FALSE(p.requires_python);
}

TEST(Project, ExtrasReferringToEachOtherHoldTheUnion) {
  const Project p = read(R"([project]
name = "p"
version = "1"
[project.optional-dependencies]
a = ["x", "p[b]"]
b = ["y", "p[a]"]
)");
  EXPECT_EQ(texts(p.optional_dependencies.at("a")), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(texts(p.optional_dependencies.at("b")), (std::vector<std::string>{"y", "x"}));
}

TEST(Project, IncludeGroupCycleIsAnErrorNamingTheGroups) {
  const auto e = error_of(R"([project]
name = "p"
version = "1"
[dependency-groups]
a = [{include-group = "b"}]
b = ["x", {include-group = "A"}]
)");
  EXPECT_EQ(e.find('\n'), std::string::npos);
  EXPECT_NE(e.find("pyproject.toml: dependency-groups."), std::string::npos) << e;
  EXPECT_NE(e.find("cycle: a -> b -> a"), std::string::npos) << e;
}

TEST(Project, IncludeOfItselfIsACycle) {
  const auto e = error_of("[project]\nname = \"p\"\nversion = \"1\"\n[dependency-groups]\na = [{include-group = \"a\"}]\n");
  EXPECT_NE(e.find("pyproject.toml: dependency-groups.a[0]: include-group `a` makes a cycle: a -> a"), std::string::npos)
      << e;
}

TEST(Project, UnknownIncludeIsAnError) {
  const auto e = error_of("[project]\nname = \"p\"\nversion = \"1\"\n[dependency-groups]\ntest = [{include-group = \"lint\"}]\n");
  EXPECT_EQ(e, "pyproject.toml: dependency-groups.test[0]: include-group `lint` names no group of dependency-groups");
}

TEST(Project, SelfReferenceToAnUnknownExtraIsAnError) {
  const auto e = error_of(
      "[project]\nname = \"p\"\nversion = \"1\"\n[project.optional-dependencies]\na = [\"P[nope]\"]\n");
  EXPECT_NE(e.find("pyproject.toml: project.optional-dependencies.a[0]: `P[nope]` names extra `nope`"),
            std::string::npos)
      << e;
}

TEST(Project, DefaultGroupNameIsRefused) {
  const auto e = error_of("[project]\nname = \"p\"\nversion = \"1\"\n[dependency-groups]\nDEFAULT = [\"x\"]\n");
  EXPECT_NE(e.find("pyproject.toml: dependency-groups.DEFAULT: the group name `default` is reserved"),
            std::string::npos)
      << e;
}

TEST(Project, DuplicateNormalizedGroupIsAnError) {
  const auto e = error_of("[project]\nname = \"p\"\nversion = \"1\"\n[dependency-groups]\nmy_g = [\"x\"]\nMy-G = [\"y\"]\n");
  EXPECT_NE(e.find("group `my-g` is defined twice"), std::string::npos) << e;
}

TEST(Project, BadTypesAreOneLineErrorsNamingTheKey) {
  const std::string head = "[project]\nname = \"p\"\nversion = \"1\"\n";
  EXPECT_EQ(error_of(head + "dependencies = \"x\"\n"),
            "pyproject.toml: project.dependencies: expected an array of strings, got a string");
  EXPECT_EQ(error_of(head + "dependencies = [\"x\", 3]\n"),
            "pyproject.toml: project.dependencies[1]: expected a string, got an integer");
  EXPECT_EQ(error_of(head + "optional-dependencies = [\"x\"]\n"),
            "pyproject.toml: project.optional-dependencies: expected a table, got an array");
  EXPECT_EQ(error_of(head + "requires-python = 3.10\n"),
            "pyproject.toml: project.requires-python: expected a string, got a float");
  EXPECT_EQ(error_of(head + "[dependency-groups]\ndev = [{include = \"x\"}]\n"),
            "pyproject.toml: dependency-groups.dev[0]: expected a requirement string or {include-group = \"NAME\"}, "
            "got another table");
  EXPECT_EQ(error_of(head + "[dependency-groups]\ndev = \"ruff\"\n"),
            "pyproject.toml: dependency-groups.dev: expected an array of strings and include-group tables, got a string");
  EXPECT_EQ(error_of("project = 1\n"), "pyproject.toml: project: expected a table, got an integer");
  EXPECT_EQ(error_of("[project]\nversion = \"1\"\n"),
            "pyproject.toml: project.name: missing (PEP 621 requires the project's name)");
  EXPECT_EQ(error_of("[project]\nname = \"p\"\n"),
            "pyproject.toml: project.version: missing, and `dynamic` does not list it (PEP 621)");
  EXPECT_EQ(error_of(head + "dynamic = [\"dependencies\"]\n"),
            "pyproject.toml: project.dynamic: lists `dependencies`: a lock needs them written in pyproject.toml");
}

TEST(Project, BadRequirementNamesTheValue) {
  const auto e = error_of("[project]\nname = \"p\"\nversion = \"1\"\ndependencies = [\"foo >=\"]\n");
  EXPECT_EQ(e.find('\n'), std::string::npos);
  EXPECT_NE(e.find("pyproject.toml: project.dependencies[0]: `foo >=` is not a PEP 508 requirement: "), std::string::npos)
      << e;
}

TEST(Project, RequiresPythonParseError) {
  const auto e = error_of("[project]\nname = \"p\"\nversion = \"1\"\nrequires-python = \">=3.x\"\n");
  EXPECT_EQ(e.find('\n'), std::string::npos);
  EXPECT_NE(e.find("pyproject.toml: project.requires-python: `>=3.x` is not a PEP 440 version specifier set"),
            std::string::npos)
      << e;
}

TEST(Project, TomlSyntaxErrorNamesTheFile) {
  const auto e = error_of("[project\n");
  EXPECT_EQ(e.rfind("pyproject.toml: invalid TOML at line 1", 0), 0U) << e;
}

TEST(ProjectInputs, FormattingCommentsAndOrderDoNotChangeTheDigest) {
  const std::string digest = project_inputs_digest(read(kProject));
  EXPECT_EQ(digest.rfind("sha256:", 0), 0U);
  EXPECT_EQ(digest.size(), 7U + 64U);
  const Project reformatted = read(R"(
# a comment
[dependency-groups]
test = [ "pytest" , { include-group = "Dev" }, "my-proj[cli]; python_version>='3.11'" ]
dev = [
  "ruff",  # the linter
]

[project]
dependencies = ["attrs", "requests >= 2"]
name = "my-proj"
requires-python = ">= 3.10"
version = "1.0"
description = "not an input"
[project.optional-dependencies]
cli = ["click ; os_name=='posix'"]
all = ["My_Proj[cli, fast]"]
fast = ["ujson"]
)");
  EXPECT_EQ(project_inputs_digest(reformatted), digest);
}

TEST(ProjectInputs, EachInputChangesTheDigest) {
  const std::string base = project_inputs_digest(read(kProject));
  const std::string text = kProject;
  const auto changed = [&](const std::string& from, const std::string& to) {
    std::string edited = text;
    edited.replace(edited.find(from), from.size(), to);
    return project_inputs_digest(read(edited));
  };
  EXPECT_NE(changed("requests>=2", "requests>=3"), base);
  EXPECT_NE(changed("\"ujson\"", "\"orjson\""), base);
  EXPECT_NE(changed("\"ruff\"", "\"ruff<1\""), base);
  EXPECT_NE(changed(">=3.10", ">=3.11"), base);
  EXPECT_NE(changed("version = \"1.0\"", "version = \"1.1\""), base);
  EXPECT_NE(changed("name = \"My_Proj\"", "name = \"other\""), base);
}

}  // namespace
}  // namespace vwheel::metadata
