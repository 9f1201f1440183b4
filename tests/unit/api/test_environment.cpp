#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "temp_dir_test.hpp"
#include "vwheel/api/environment.hpp"

namespace vwheel::api {
namespace {
namespace fs = std::filesystem;

install::Distribution dist(std::string name, std::string version, std::string installer,
                           std::optional<std::string> label = std::nullopt, std::vector<std::string> props = {}) {
  install::Distribution d;
  d.name = std::move(name);
  d.version = std::move(version);
  d.installer = std::move(installer);
  d.dist_info = "/env/site-packages/" + d.name + "-" + d.version + ".dist-info";
  d.variant_label = std::move(label);
  d.variant_properties = std::move(props);
  return d;
}

ListReport sample_list() {
  return ListReport{{dist("numpy", "2.1.0", "vwheel", "a1b2c3d4", {"x86_64 :: level :: v3", "x86_64 :: level :: v4"}),
                     dist("six", "1.16.0", "pip"), dist("torch-extras", "0.1", "", "null")}};
}

TEST(ListFormat, JsonHasEveryFieldInOrderAndNullForNoVariant) {
  EXPECT_EQ(format_list_json(sample_list()), R"([
  {
    "name": "numpy",
    "version": "2.1.0",
    "installer": "vwheel",
    "variant": "a1b2c3d4",
    "variant_properties": [
      "x86_64 :: level :: v3",
      "x86_64 :: level :: v4"
    ],
    "direct_url": null
  },
  {
    "name": "six",
    "version": "1.16.0",
    "installer": "pip",
    "variant": null,
    "variant_properties": [],
    "direct_url": null
  },
  {
    "name": "torch-extras",
    "version": "0.1",
    "installer": "",
    "variant": "null",
    "variant_properties": [],
    "direct_url": null
  }
]
)");
  EXPECT_EQ(format_list_json(ListReport{}), "[]\n");
}

TEST(ListFormat, TextColumnsAreAsWideAsTheirWidestCell) {
  EXPECT_EQ(format_list_text(sample_list()),
            "Package       Version  Installer  Variant\n"
            "numpy         2.1.0    vwheel     a1b2c3d4 (x86_64 :: level :: v3, x86_64 :: level :: v4)\n"
            "six           1.16.0   pip        \n"
            "torch-extras  0.1                 null (null variant)\n");
  EXPECT_EQ(format_list_text(ListReport{}), "Package  Version  Installer  Variant\n");
}

class ShowTest : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    env_.prefix = dir_;
    env_.scheme.purelib = dir_ / "site-packages";
    env_.scheme.platlib = env_.scheme.purelib;
    env_.lock_dir = env_.scheme.purelib;
    fs::create_directories(env_.scheme.purelib);
  }
  void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
  }

  install::Environment env_;
};

TEST_F(ShowTest, DescribesAFabricatedDistInfo) {
  const auto di = env_.scheme.purelib / "Demo_Pkg-1.0.dist-info";
  write(di / "METADATA",
        "Metadata-Version: 2.1\nName: Demo_Pkg\nVersion: 1.0\nSummary: A demo\nAuthor: \nLicense: MIT\n"
        "Requires-Dist: six>=1.0\nRequires-Dist:  attrs ; extra == \"x\"\n\nRequires-Dist: not-a-header\n");
  write(di / "INSTALLER", "vwheel\n");
  write(di / "RECORD", "demo/__init__.py,,\ndemo/x.py,,\nDemo_Pkg-1.0.dist-info/RECORD,,\n");

  const auto report = show_distributions(env_, {"demo-pkg", "missing"});
  ASSERT_EQ(report.entries.size(), 2U);
  ASSERT_TRUE(report.entries[0]) << report.entries[0].error().message;
  ASSERT_FALSE(report.entries[1]);
  EXPECT_EQ(report.entries[1].error().message, "missing: not installed in " + env_.scheme.purelib.string());
  EXPECT_EQ(format_show(report), "Name: Demo_Pkg\nVersion: 1.0\nSummary: A demo\nLicense: MIT\n"
                                 "Requires: six>=1.0, attrs ; extra == \"x\"\n"
                                 "Location: " + env_.scheme.purelib.string() + "\nInstaller: vwheel\nFiles: 3\n");
}

TEST_F(ShowTest, LeavesOutWhatIsMissingAndSeparatesDistributions) {
  write(env_.scheme.purelib / "a-1.dist-info" / "INSTALLER", "pip\n");
  write(env_.scheme.purelib / "b-2.dist-info" / "METADATA", "Name: b\nVersion: 2\n");
  const auto report = show_distributions(env_, {"a", "b"});
  EXPECT_EQ(format_show(report), "Name: a\nVersion: 1\nLocation: " + env_.scheme.purelib.string() +
                                     "\nInstaller: pip\n---\nName: b\nVersion: 2\nRequires: \nLocation: " +
                                     env_.scheme.purelib.string() + "\nInstaller: \n");
}

TEST(ShowFormat, PrintsTheVariantAndItsProperties) {
  ShowReport report;
  ShownDistribution shown;
  shown.distribution = dist("numpy", "2.1.0", "vwheel", "a1b2c3d4", {"x86_64 :: level :: v3"});
  shown.files = 0;
  report.entries.emplace_back(fail("gone: not installed in /env"));
  report.entries.emplace_back(shown);
  shown.distribution = dist("nv", "1", "vwheel", "null");
  shown.files.reset();
  report.entries.emplace_back(shown);
  EXPECT_EQ(format_show(report),
            "Name: numpy\nVersion: 2.1.0\nLocation: /env/site-packages\nInstaller: vwheel\nFiles: 0\n"
            "Variant: a1b2c3d4\n  x86_64 :: level :: v3\n"
            "---\nName: nv\nVersion: 1\nLocation: /env/site-packages\nInstaller: vwheel\nVariant: null (null variant)\n");
}

TEST(UninstallFormat, OneLinePerDistribution) {
  install::Uninstalled u;
  u.name = "six";
  u.version = "1.16.0";
  u.files = 12;
  EXPECT_EQ(format_uninstalled(u), "uninstalled six 1.16.0 (12 files)\n");
}

TEST(Venv, FormatsThePathAndTheBaseInterpreter) {
  EXPECT_EQ(format_venv(VenvReport{"venvs/a b", "/usr/bin/python3.12"}),
            "created virtual environment venvs/a b (/usr/bin/python3.12)\n");
}

TEST(Venv, AnInterpreterThatFailsIsTheInputsFault) {
  // `false` exits 1 whatever its arguments: the venv module "failed".
  VenvRequest req;
  req.path = "never-created";
  req.python = "/bin/false";
  auto made = create_venv(req);
  ASSERT_FALSE(made);
  EXPECT_EQ(made.error().kind, ErrorKind::input);
  EXPECT_EQ(made.error().message, "/bin/false -m venv never-created: failed (exit 1): ");
  EXPECT_FALSE(fs::exists("never-created"));
}

}  // namespace
}  // namespace vwheel::api
