// `packages.directory` (a locked project's source tree) and `[tool.vwheel] project-inputs`.

#include <string>

#include <gtest/gtest.h>

#include "vwheel/lock/pylock.hpp"

namespace vwheel::lock {
namespace {

Lock project_lock() {
  Lock lock;
  lock.extras = {"cli", "fast"};
  lock.dependency_groups = {"dev", "test"};
  lock.default_groups = {"default"};
  lock.project_inputs = "sha256:" + std::string(64, 'a');
  LockedPackage project;
  project.name = "my-proj";
  project.marker = "'default' in dependency_groups";
  project.directory = LockedDirectory{".", std::nullopt, std::nullopt};
  lock.packages.push_back(project);
  LockedPackage editable;
  editable.name = "sub";
  editable.version = "0.1";
  editable.directory = LockedDirectory{"../sub", true, std::nullopt};
  lock.packages.push_back(editable);
  return lock;
}

TEST(PylockDirectory, RoundTripsThroughWriteAndParse) {
  const Lock lock = project_lock();
  const std::string text = write_pylock(lock);
  EXPECT_NE(text.find("directory = { path = \".\" }\n"), std::string::npos) << text;
  EXPECT_NE(text.find("directory = { path = \"../sub\", editable = true }\n"), std::string::npos) << text;
  EXPECT_NE(text.find("[tool.vwheel]\nproject-inputs = \"sha256:aaaa"), std::string::npos) << text;
  EXPECT_NE(text.find("default-groups = [\"default\"]\n"), std::string::npos) << text;
  auto parsed = parse_pylock(text, "pylock.toml");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(*parsed, lock);
  EXPECT_EQ(write_pylock(*parsed), text);
}

TEST(PylockDirectory, VersionIsLeftOutWhenUnknown) {
  const std::string text = write_pylock(project_lock());
  const auto entry = text.find("name = \"my-proj\"\n");
  ASSERT_NE(entry, std::string::npos);
  EXPECT_EQ(text.compare(entry + 17, 8, "marker ="), 0) << text;  // no `version` line
}

TEST(PylockDirectory, VersionMayBeMissingOnlyForSourceTrees) {
  auto ok = parse_pylock("lock-version = \"1.0\"\n[[packages]]\nname = \"p\"\ndirectory = { path = \"p\" }\n", "L");
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(ok->packages.at(0).version, "");
  ASSERT_TRUE(ok->packages.at(0).directory);
  EXPECT_EQ(ok->packages.at(0).directory->path, "p");
  EXPECT_FALSE(ok->packages.at(0).directory->editable);
  auto missing = parse_pylock("lock-version = \"1.0\"\n[[packages]]\nname = \"p\"\n", "L");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "L: packages[0] `p`: `version` is missing");
}

TEST(PylockDirectory, BadDirectoryTablesAreErrors) {
  const std::string head = "lock-version = \"1.0\"\n[[packages]]\nname = \"p\"\n";
  auto no_path = parse_pylock(head + "directory = { editable = true }\n", "L");
  ASSERT_FALSE(no_path);
  EXPECT_EQ(no_path.error().message, "L: package `p` ``: directory: `path` is missing (PEP 751 requires it)");
  auto bad_editable = parse_pylock(head + "directory = { path = \".\", editable = \"yes\" }\n", "L");
  ASSERT_FALSE(bad_editable);
  EXPECT_EQ(bad_editable.error().message, "L: package `p` ``: directory.editable: expected a boolean, got a string");
  auto not_table = parse_pylock(head + "directory = \".\"\n", "L");
  ASSERT_FALSE(not_table);
  EXPECT_EQ(not_table.error().message, "L: package `p` ``: directory: expected a table, got a string");
  auto bad_inputs = parse_pylock("lock-version = \"1.0\"\n[tool.vwheel]\nproject-inputs = 1\n", "L");
  ASSERT_FALSE(bad_inputs);
  EXPECT_EQ(bad_inputs.error().message, "L: tool.vwheel.project-inputs: expected a string, got an integer");
}

}  // namespace
}  // namespace vwheel::lock
