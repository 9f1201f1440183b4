#include <fmt/format.h>
#include <gtest/gtest.h>

#include "vwheel/api/mirror.hpp"

namespace vwheel::api {
namespace {

ProjectPattern pattern(std::string_view text) {
  auto p = parse_project_pattern(text);
  EXPECT_TRUE(p) << text << ": " << (p ? "" : p.error().message);
  return p ? *p : ProjectPattern{};
}

TEST(MirrorProjectPattern, NameIsNormalizedAndSpecifierParsed) {
  auto p = pattern("Torch>=2.8,<2.10");
  EXPECT_EQ(p.pattern, "torch");
  EXPECT_FALSE(p.is_glob());
  EXPECT_TRUE(p.specifiers.contains("2.9.1"));
  EXPECT_FALSE(p.specifiers.contains("2.10.0"));
  EXPECT_FALSE(p.specifiers.contains("2.7"));
  EXPECT_EQ(pattern("typing_extensions").pattern, "typing-extensions");
  EXPECT_EQ(pattern("  zope.Interface  ").pattern, "zope-interface");
  EXPECT_EQ(pattern("a ==1.0").specifiers.to_string(), "==1.0");
}

TEST(MirrorProjectPattern, GlobsMatchNormalizedNames) {
  auto p = pattern("NVIDIA_*");
  EXPECT_EQ(p.pattern, "nvidia-*");
  EXPECT_TRUE(p.is_glob());
  EXPECT_TRUE(p.matches("nvidia-cudnn-cu12"));
  EXPECT_FALSE(p.matches("nvidia"));
  EXPECT_FALSE(p.matches("torch-nvidia-x"));
  auto q = pattern("nvidia-cu?a*-cu12");
  EXPECT_TRUE(q.matches("nvidia-cuda-runtime-cu12"));
  EXPECT_FALSE(q.matches("nvidia-cudnn-cu12"));
  EXPECT_TRUE(pattern("*").matches("anything"));
}

TEST(MirrorProjectPattern, BadValuesAreOneLineUsageErrors) {
  for (std::string_view bad : {"", ">=1.0", "no/such", "torch>>2", "torch>=2,", "torch==1.0; os_name"}) {
    auto p = parse_project_pattern(bad);
    if (bad == "torch>=2,") {
      EXPECT_TRUE(p) << bad;  // an empty item is ignored, as in every specifier set
      continue;
    }
    ASSERT_FALSE(p) << bad;
    EXPECT_EQ(p.error().kind, ErrorKind::usage);
    EXPECT_NE(p.error().message.find(fmt::format("--project `{}`", bad)), std::string::npos) << p.error().message;
    EXPECT_EQ(p.error().message.find('\n'), std::string::npos);
  }
}

TEST(MirrorVariantFilter, ParsesAPropertyOrSaysWhatWasExpected) {
  auto f = parse_variant_filter("nvidia :: cuda_version_lower_bound :: 12.8");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->to_string(), "nvidia :: cuda_version_lower_bound :: 12.8");
  for (std::string_view bad : {"nvidia", "nvidia :: sm_arch", "NVIDIA :: x :: 1", "a :: b :: c :: d"}) {
    auto e = parse_variant_filter(bad);
    ASSERT_FALSE(e) << bad;
    EXPECT_EQ(e.error().kind, ErrorKind::usage);
    EXPECT_TRUE(e.error().message.starts_with(fmt::format("--variant-filter `{}`: ", bad))) << e.error().message;
    EXPECT_NE(e.error().message.find("expected NAMESPACE :: FEATURE :: VALUE"), std::string::npos);
    EXPECT_EQ(e.error().message.find('\n'), std::string::npos);
  }
}

TEST(MirrorProjectList, ReadsJsonAndHtml) {
  auto json = parse_project_list(R"({"meta":{"api-version":"1.1"},"projects":[{"name":"Torch"},{"name":"nvidia_cudnn_cu12"}]})",
                                 "application/vnd.pypi.simple.v1+json", "u");
  ASSERT_TRUE(json);
  EXPECT_EQ(*json, (std::vector<std::string>{"nvidia-cudnn-cu12", "torch"}));
  auto html = parse_project_list(
      "<!DOCTYPE html><html><body><a href=\"torch/\">Torch</a>\n<A HREF='nvidia-cudnn-cu12/'> nvidia_cudnn_cu12 </A>"
      "<a href=\"torch/\">torch</a></body></html>",
      "text/html", "u");
  ASSERT_TRUE(html);
  EXPECT_EQ(*html, (std::vector<std::string>{"nvidia-cudnn-cu12", "torch"}));
  auto bad = parse_project_list(R"({"projects": 3})", "application/vnd.pypi.simple.v1+json", "https://x/simple/");
  ASSERT_FALSE(bad);
  EXPECT_TRUE(bad.error().message.starts_with("https://x/simple/: ")) << bad.error().message;
}

TEST(MirrorSelectProjects, GlobsAgainstTheListExactNamesAsGiven) {
  const std::vector<std::string> available{"numpy", "nvidia-cublas-cu12", "nvidia-cudnn-cu12", "torch"};
  auto chosen = select_projects({pattern("torch>=2"), pattern("nvidia-*"), pattern("Torch"), pattern("unlisted")},
                                available);
  ASSERT_TRUE(chosen);
  EXPECT_EQ(*chosen, (std::vector<std::string>{"nvidia-cublas-cu12", "nvidia-cudnn-cu12", "torch", "unlisted"}));
  auto none = select_projects({pattern("cuda-*")}, available);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message, "--project `cuda-*` matches no project of the upstream index");
}

TEST(MirrorSummary, CountsWhatTheRunDid) {
  MirrorReport r;
  r.projects = 2;
  r.versions = 3;
  r.files_downloaded = 4;
  r.bytes_downloaded = 2048;
  r.files_kept = 5;
  r.files_skipped = 6;
  r.build.projects = 2;
  r.build.files = 9;
  r.build.variants_files = 1;
  EXPECT_EQ(format_mirror_summary(r, "site"),
            "vwheel: site: mirrored 2 project(s), 3 version(s): downloaded 4 file(s) (2.0 KiB), kept 5, skipped 6 by "
            "the filters; the index has 2 project(s), 9 file(s), 1 variants.json\n");
}

}  // namespace
}  // namespace vwheel::api
