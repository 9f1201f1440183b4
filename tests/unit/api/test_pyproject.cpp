#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "temp_dir_test.hpp"
#include "vwheel/api/pyproject.hpp"
#include "vwheel/core/fs.hpp"

namespace vwheel::api {
namespace {
namespace fs = std::filesystem;

constexpr const char* kBefore = "[project]\nname = \"demo\"  # kept\n";
constexpr const char* kAfter =
    "[project]\nname = \"demo\"  # kept\n\n[variant.default-priorities]\nnamespace = [\"x86_64\"]\n\n"
    "[variant.providers.x86_64]\nrequires = [\"provider-variant-x86-64>=0.1\"]\n"
    "plugin-api = \"provider_variant_x86_64.plugin:X8664Plugin\"\n";

class PyprojectTest : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    file_ = dir_ / "pyproject.toml";
    std::ofstream(file_, std::ios::binary) << kBefore;
  }
  AddProviderRequest add_x86_64(bool dry_run) const {
    AddProviderRequest req;
    req.edit.file = file_;
    req.edit.dry_run = dry_run;
    req.spec.ns = "x86_64";
    req.spec.requires_ = {"provider-variant-x86-64>=0.1"};
    req.spec.plugin_api = "provider_variant_x86_64.plugin:X8664Plugin";
    return req;
  }

  fs::path file_;
};

TEST_F(PyprojectTest, DryRunPrintsTheNewTextAndWritesNothing) {
  auto report = add_provider(add_x86_64(true));
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_TRUE(report->changed);
  EXPECT_FALSE(report->write_error);
  EXPECT_EQ(format_pyproject_edit(*report), kAfter);
  EXPECT_EQ(*read_file(file_), kBefore);
}

TEST_F(PyprojectTest, WritesOnceThenReportsNoChanges) {
  auto first = add_provider(add_x86_64(false));
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(format_pyproject_edit(*first), "Wrote changes to " + file_.string() + "\n");
  EXPECT_EQ(*read_file(file_), kAfter);
  auto second = add_provider(add_x86_64(false));
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_FALSE(second->changed);
  EXPECT_EQ(format_pyproject_edit(*second), "No changes to " + file_.string() + "\n");
}

TEST_F(PyprojectTest, WritesThroughASymbolicLinkKeepingPermissions) {
  fs::permissions(file_, fs::perms::owner_read | fs::perms::owner_write);
  const auto link = dir_ / "link.toml";
  fs::create_symlink(file_, link);
  auto req = add_x86_64(false);
  req.edit.file = link;
  auto report = add_provider(req);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(*read_file(file_), kAfter);
  EXPECT_EQ(fs::status(file_).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
}

TEST_F(PyprojectTest, RemoveUndoesAdd) {
  ASSERT_TRUE(add_provider(add_x86_64(false)));
  RemoveProviderRequest req;
  req.edit.file = file_;
  req.ns = "x86_64";
  auto report = remove_provider(req);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_TRUE(report->changed);
  EXPECT_EQ(*read_file(file_), report->text);
  EXPECT_EQ(report->text.find("x86_64"), std::string::npos) << report->text;
}

TEST_F(PyprojectTest, AFailedEditNamesTheFileAndWritesNothing) {
  auto req = add_x86_64(false);
  req.spec.ns = "Not-A-Namespace";
  auto report = add_provider(req);
  ASSERT_FALSE(report);
  EXPECT_EQ(report.error().message.rfind(file_.string() + ": ", 0), 0U) << report.error().message;
  EXPECT_EQ(*read_file(file_), kBefore);
}

TEST_F(PyprojectTest, AMissingFileIsAnError) {
  auto req = add_x86_64(true);
  req.edit.file = dir_ / "absent.toml";
  EXPECT_FALSE(add_provider(req));
}

}  // namespace
}  // namespace vwheel::api
