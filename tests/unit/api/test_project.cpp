// `vwheel lock` of a project: its roots and origins, what the lock records, and check_locked.

#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "temp_dir_test.hpp"
#include "vwheel/api/project.hpp"

namespace vwheel::api {
namespace {

const char* const kPyproject = R"([project]
name = "app"
version = "1.0"
requires-python = ">=3.10"
dependencies = ["base"]
[project.optional-dependencies]
fast = ["fast-json"]
[dependency-groups]
dev = ["ruff"]
test = ["pytest", {include-group = "dev"}]
)";

class ProjectTest : public TempDirTest {
 protected:
  void write(const std::string& text) { std::ofstream(dir_ / "pyproject.toml") << text; }

  ProjectToLock project() {
    auto found = find_project(dir_);
    EXPECT_TRUE(found && *found) << (found ? "no project" : found.error().message);
    return found && *found ? **found : ProjectToLock{};
  }

  lock::Lock locked() {
    lock::Lock lock;
    add_project(lock, project(), dir_ / "pylock.toml");
    return lock;
  }
};

TEST_F(ProjectTest, RootsCarryTheirOrigins) {
  write(kPyproject);
  plan::Settings settings;
  auto requirements = project_requirements(project().project, {}, settings);
  ASSERT_TRUE(requirements) << requirements.error().message;
  ASSERT_EQ(requirements->roots.size(), 5U);
  ASSERT_EQ(requirements->origins.size(), 5U);
  using Kind = plan::RootOrigin::Kind;
  const std::vector<std::pair<std::string, plan::RootOrigin>> expected = {
      {"base", {Kind::dependencies, ""}}, {"fast-json", {Kind::extra, "fast"}}, {"ruff", {Kind::group, "dev"}},
      {"pytest", {Kind::group, "test"}},  {"ruff", {Kind::group, "test"}}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(requirements->roots[i].name, expected[i].first) << i;
    EXPECT_EQ(requirements->origins[i], expected[i].second) << i;
  }
  ASSERT_TRUE(requirements->requires_python);
  EXPECT_EQ(requirements->requires_python->to_string(), ">=3.10");
}

TEST_F(ProjectTest, LockRecordsTheProject) {
  write(kPyproject);
  const lock::Lock lock = locked();
  EXPECT_EQ(lock.extras, std::vector<std::string>{"fast"});
  EXPECT_EQ(lock.dependency_groups, (std::vector<std::string>{"dev", "test"}));
  EXPECT_EQ(lock.default_groups, std::vector<std::string>{"default"});
  ASSERT_EQ(lock.packages.size(), 1U);
  EXPECT_EQ(lock.packages[0].name, "app");
  EXPECT_EQ(lock.packages[0].version, "1.0");
  EXPECT_EQ(lock.packages[0].marker, "\"default\" in dependency_groups");
  ASSERT_TRUE(lock.packages[0].directory);
  EXPECT_EQ(lock.packages[0].directory->path, ".");
  ASSERT_TRUE(lock.project_inputs);
}

TEST_F(ProjectTest, CheckLockedFailsOnlyWhenAnInputChanged) {
  write(kPyproject);
  const lock::Lock lock = locked();
  const auto lock_path = dir_ / "pylock.toml";
  EXPECT_TRUE(check_locked(lock, lock_path));
  write(std::string("# reformatted\n") + kPyproject + "\n[tool.other]\nx = 1\n");
  EXPECT_TRUE(check_locked(lock, lock_path));
  std::string edited = kPyproject;
  edited.replace(edited.find("\"base\""), 6, "\"base>=2\"");
  write(edited);
  auto changed = check_locked(lock, lock_path);
  ASSERT_FALSE(changed);
  EXPECT_EQ(changed.error().message,
            (dir_ / "pyproject.toml").string() + " changed since " + lock_path.string() + " was written: run vwheel lock");
}

TEST_F(ProjectTest, CheckLockedOfALockWithoutProjectInputsPasses) {
  EXPECT_TRUE(check_locked(lock::Lock{}, dir_ / "pylock.toml"));
}

TEST_F(ProjectTest, NoPyprojectIsNoProject) {
  auto found = find_project(dir_);
  ASSERT_TRUE(found);
  EXPECT_FALSE(*found);
}

}  // namespace
}  // namespace vwheel::api
