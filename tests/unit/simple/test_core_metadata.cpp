// Core metadata files (METADATA / FILE.metadata) and their Requires-Dist.

#include <gtest/gtest.h>

#include <string>

#include "vwheel/simple/core_metadata.hpp"

namespace {

using namespace vwheel::simple;

TEST(CoreMetadata, RealisticFile) {
  const std::string_view text =
      "Metadata-Version: 2.4\r\n"
      "Name: Torch\r\n"
      "Version: 2.9.0+cu128\r\n"
      "Summary: Tensors and Dynamic neural networks in Python with strong GPU acceleration\r\n"
      "Description: first line of an old-style description\r\n"
      "        |   Name: not-a-header\r\n"
      "        |   Requires-Dist: not-a-requirement\r\n"
      "requires-python: >=3.10\r\n"
      "License-Expression: BSD-3-Clause\r\n"
      "Requires-Dist: filelock\r\n"
      "Requires-Dist: typing-extensions>=4.10.0\r\n"
      "Requires-Dist: nvidia-cuda-runtime-cu12==12.8.90; platform_system == \"Linux\" and\r\n"
      "\tplatform_machine == \"x86_64\"\r\n"
      "Requires-Dist: fast-gemm; \"nvidia :: sm_arch :: 120_real\" in variant_properties\r\n"
      "REQUIRES-DIST: opt-einsum>=3.3; extra == \"opt-einsum\"\r\n"
      "Requires-Dist:\r\n"
      "Provides-Extra: opt-einsum\r\n"
      "Provides-Extra: optree\r\n"
      "Name: second-name-is-ignored\r\n"
      "\r\n"
      "Requires-Dist: body-text-is-not-a-header\r\n"
      "# PyTorch\r\n";
  auto md = parse_core_metadata(text, "torch-2.9.0.whl.metadata");
  ASSERT_TRUE(md.has_value()) << md.error().message;
  EXPECT_EQ(md->metadata_version, "2.4");
  EXPECT_EQ(md->name, "Torch");
  EXPECT_EQ(md->version, "2.9.0+cu128");
  EXPECT_EQ(md->requires_python, ">=3.10");
  EXPECT_EQ(md->requires_dist,
            (std::vector<std::string>{
                "filelock", "typing-extensions>=4.10.0",
                "nvidia-cuda-runtime-cu12==12.8.90; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
                "fast-gemm; \"nvidia :: sm_arch :: 120_real\" in variant_properties",
                "opt-einsum>=3.3; extra == \"opt-einsum\""}));
  EXPECT_EQ(md->provides_extra, (std::vector<std::string>{"opt-einsum", "optree"}));

  auto reqs = parse_requires_dist(*md, "torch-2.9.0.whl.metadata");
  ASSERT_TRUE(reqs.has_value()) << reqs.error().message;
  ASSERT_EQ(reqs->size(), 5U);
  EXPECT_EQ((*reqs)[0].name, "filelock");
  EXPECT_FALSE((*reqs)[0].marker.has_value());
  EXPECT_EQ((*reqs)[1].specifier.to_string(), ">=4.10.0");
  EXPECT_TRUE((*reqs)[2].marker.has_value());
  EXPECT_EQ((*reqs)[3].name, "fast-gemm");
  ASSERT_TRUE((*reqs)[3].marker.has_value());
  EXPECT_NE((*reqs)[3].to_string().find("variant_properties"), std::string::npos);
  EXPECT_EQ((*reqs)[4].name, "opt-einsum");
}

TEST(CoreMetadata, MultiLineDescriptionInBodyAndContinuations) {
  const std::string_view text =
      "Metadata-Version: 2.1\n"
      "Name:\n"
      "  my-package\n"
      "Version:  1.0  \n"
      "Requires-Python:\n"
      "Description-Content-Type: text/markdown\n"
      "\n"
      "# my-package\n"
      "\n"
      "Name: not-a-header\n";
  auto md = parse_core_metadata(text, "METADATA");
  ASSERT_TRUE(md.has_value()) << md.error().message;
  EXPECT_EQ(md->name, "my-package");
  EXPECT_EQ(md->version, "1.0");
  EXPECT_FALSE(md->requires_python.has_value());  // empty
  EXPECT_TRUE(md->requires_dist.empty());
}

TEST(CoreMetadata, BomNoTrailingNewlineAndNonHeaderLine) {
  auto md = parse_core_metadata("\xEF\xBB\xBFName: a\nVersion: 1", "x");
  ASSERT_TRUE(md.has_value()) << md.error().message;
  EXPECT_EQ(md->name, "a");
  EXPECT_EQ(md->version, "1");
  // A line that is not a header ends the headers (as in Python's email parser).
  auto cut = parse_core_metadata("Name: a\nthis is body text\nVersion: 1\n", "x");
  ASSERT_FALSE(cut.has_value());
  EXPECT_EQ(cut.error().message, "x: core metadata has no `Version` (project `a`)");
}

TEST(CoreMetadata, MissingNameOrVersion) {
  auto r = parse_core_metadata("Metadata-Version: 2.1\nVersion: 1.0\n", "pkg-1.0-py3-none-any.whl.metadata");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message, "pkg-1.0-py3-none-any.whl.metadata: core metadata has no `Name`");
  EXPECT_FALSE(parse_core_metadata("Name:   \nVersion: 1\n", "x").has_value());
  EXPECT_FALSE(parse_core_metadata("", "x").has_value());
  EXPECT_FALSE(parse_core_metadata("\nName: a\nVersion: 1\n", "x").has_value());  // all body
}

TEST(CoreMetadata, BadRequiresDistNamesSourceAndLine) {
  auto md = parse_core_metadata("Name: a\nVersion: 1\nRequires-Dist: ok\nRequires-Dist: bad name!!; x\n", "a.metadata");
  ASSERT_TRUE(md.has_value());
  auto reqs = parse_requires_dist(*md, "a.metadata");
  ASSERT_FALSE(reqs.has_value());
  EXPECT_TRUE(reqs.error().message.starts_with("a.metadata: `Requires-Dist: bad name!!; x`: ")) << reqs.error().message;
}

TEST(CoreMetadata, LargeInputIsLinear) {
  std::string text = "Name: a\nVersion: 1\n";
  while (text.size() < 5'000'000) text += "Requires-Dist: b\n continued\n\tmore\n";
  auto md = parse_core_metadata(text, "x");
  ASSERT_TRUE(md.has_value());
  EXPECT_EQ(md->requires_dist.front(), "b continued more");
  std::string cont = "Name: a\nVersion: 1\nRequires-Dist: x\n";
  while (cont.size() < 5'000'000) cont += " y\n";
  auto md2 = parse_core_metadata(cont, "x");
  ASSERT_TRUE(md2.has_value());
  EXPECT_EQ(md2->requires_dist.size(), 1U);
}

}  // namespace
