#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "temp_dir_test.hpp"
#include "vwheel/api/index.hpp"
#include "vwheel/api/maintain.hpp"
#include "vwheel/core/fs.hpp"

namespace vwheel::api {
namespace {
namespace fs = std::filesystem;

class IndexToolsTest : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    fs::create_directories(dir_ / "wheels");
  }
};

TEST(BuildIndexFormat, SummarisesTheIndexAndTheBuild) {
  BuildIndexReport report;
  report.site = "out/site";
  report.build.projects = 2;
  report.build.files = 5;
  report.build.variants_files = 1;
  report.build.files_hashed = 3;
  report.build.files_placed = 3;
  report.build.files_copied = 1;
  report.build.variants_written = 1;
  report.build.projects_written = 2;
  report.build.files_removed = 4;
  EXPECT_EQ(format_build_summary(report),
            "vwheel: out/site: 2 project(s), 5 file(s), 1 variants.json; hashed 3, placed 3 (1 copied), wrote 1 "
            "variants.json and 2 project page(s), removed 4 file(s)\n");
  report.build.root_written = true;
  EXPECT_NE(format_build_summary(report).find("2 project page(s) and the project list, removed"), std::string::npos);
}

TEST_F(IndexToolsTest, BuildIndexOfAnEmptyFolderMakesAnEmptySite) {
  BuildIndexRequest req;
  req.options.wheel_dir = dir_ / "wheels";
  req.options.site = dir_ / "site";
  auto report = build_index(req);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->site, dir_ / "site");
  EXPECT_EQ(report->build.projects, 0U);
  EXPECT_EQ(report->build.files, 0U);
  EXPECT_TRUE(fs::is_directory(dir_ / "site"));
}

TEST_F(IndexToolsTest, GenerateIndexJsonOfAFolderWithoutWheelsWritesNothing) {
  GenerateIndexJsonRequest req;
  req.dir = dir_ / "wheels";
  auto report = generate_index_json(req);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_TRUE(report->written.empty());
  EXPECT_FALSE(report->write_error);
  EXPECT_EQ(format_generated_files(*report), "");
  EXPECT_EQ(format_generate_summary(*report),
            "vwheel: 0 file(s) from 0 variant wheel(s) of 0 wheel(s); read 0 of 0 bytes (0.000%)\n");
}

TEST_F(IndexToolsTest, GenerateIndexJsonNeedsBothFolders) {
  GenerateIndexJsonRequest req;
  req.dir = dir_ / "absent";
  EXPECT_FALSE(generate_index_json(req));
  req.dir = dir_ / "wheels";
  req.output_dir = dir_ / "absent";
  auto report = generate_index_json(req);
  ASSERT_FALSE(report);
  EXPECT_EQ(report.error().message, "output directory `" + (dir_ / "absent").string() + "` does not exist");
}

TEST(GenerateIndexJsonFormat, ListsTheFilesWrittenAndThePartRead) {
  GenerateIndexJsonReport report;
  report.written = {"out/a-1-variants.json", "out/b-2-variants.json"};
  report.files = 2;
  report.wheels = 7;
  report.variant_wheels = 4;
  report.bytes_read = 1000;
  report.bytes_total = 3000;
  EXPECT_EQ(format_generated_files(report), "out/a-1-variants.json\nout/b-2-variants.json\n");
  EXPECT_EQ(format_generate_summary(report),
            "vwheel: 2 file(s) from 4 variant wheel(s) of 7 wheel(s); read 1000 of 3000 bytes (33.333%)\n");
}

TEST_F(IndexToolsTest, AddWheelToIndexJsonFailuresAreTheInputs) {
  AddWheelToIndexJsonRequest req;
  req.wheel = dir_ / "wheels" / "pkg-1.0-py3-none-any-abcd1234.whl";
  req.output_dir = dir_ / "absent";
  auto out = add_wheel_to_index_json(req);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().kind, ErrorKind::input);
  EXPECT_EQ(out.error().message, "output directory `" + (dir_ / "absent").string() + "` does not exist");
  req.output_dir = dir_;
  out = add_wheel_to_index_json(req);  // the wheel does not exist
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().kind, ErrorKind::input);
  EXPECT_TRUE(fs::is_empty(dir_ / "wheels"));
}

TEST_F(IndexToolsTest, UnmakeVariantsKeepsOneResultPerInputInOrder) {
  // Not a zip archive at all, and a missing file: each is its own error, neither stops the other.
  const auto broken = dir_ / "wheels" / "pkg-1.0-py3-none-any.whl";
  std::ofstream(broken) << "not a zip";
  UnmakeVariantsRequest req;
  req.inputs = {dir_ / "wheels" / "gone-1.0-py3-none-any.whl", broken};
  req.output_dir = dir_;
  req.jobs = 2;
  const auto report = unmake_variants(req);
  ASSERT_EQ(report.results.size(), 2U);
  ASSERT_FALSE(report.results[0]);
  ASSERT_FALSE(report.results[1]);
  EXPECT_NE(report.results[0].error().message.find("gone-1.0-py3-none-any.whl"), std::string::npos)
      << report.results[0].error().message;
  EXPECT_NE(report.results[1].error().message.find("pkg-1.0-py3-none-any.whl"), std::string::npos)
      << report.results[1].error().message;
}

}  // namespace
}  // namespace vwheel::api
