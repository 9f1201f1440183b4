#include <gtest/gtest.h>

#include <algorithm>

#include "vwheel/tags/tags.hpp"

using namespace vwheel::tags;

namespace {
InterpreterInfo cp312_glibc236() {
  InterpreterInfo info;
  info.minor = 12;
  info.abis = {"cp312"};
  info.platform = "linux_x86_64";
  info.glibc = std::make_pair(2, 36);
  return info;
}
std::ptrdiff_t pos(const std::vector<std::string>& v, const std::string& s) {
  auto it = std::find(v.begin(), v.end(), s);
  return it == v.end() ? -1 : it - v.begin();
}
}  // namespace

TEST(Tags, ManylinuxPlatformsDescendWithLegacyAliases) {
  auto p = platform_tags(cp312_glibc236());
  EXPECT_EQ(p.front(), "manylinux_2_36_x86_64");
  EXPECT_EQ(p.back(), "linux_x86_64");
  EXPECT_EQ(p[pos(p, "manylinux_2_17_x86_64") + 1], "manylinux2014_x86_64");
  EXPECT_EQ(p[pos(p, "manylinux_2_12_x86_64") + 1], "manylinux2010_x86_64");
  EXPECT_EQ(p[pos(p, "manylinux_2_5_x86_64") + 1], "manylinux1_x86_64");
  EXPECT_EQ(pos(p, "manylinux_2_4_x86_64"), -1);
}

TEST(Tags, Aarch64StopsAt217) {
  auto info = cp312_glibc236();
  info.platform = "linux_aarch64";
  auto p = platform_tags(info);
  EXPECT_NE(pos(p, "manylinux2014_aarch64"), -1);
  EXPECT_EQ(pos(p, "manylinux_2_16_aarch64"), -1);
  EXPECT_EQ(pos(p, "manylinux1_aarch64"), -1);
}

TEST(Tags, OrderMatchesPackaging) {
  auto t = supported_tags(cp312_glibc236());
  EXPECT_EQ(t.front(), "cp312-cp312-manylinux_2_36_x86_64");
  EXPECT_EQ(t.back(), "py30-none-any");
  EXPECT_LT(pos(t, "cp312-cp312-linux_x86_64"), pos(t, "cp312-abi3-manylinux_2_36_x86_64"));
  EXPECT_LT(pos(t, "cp312-abi3-linux_x86_64"), pos(t, "cp312-none-manylinux_2_36_x86_64"));
  EXPECT_LT(pos(t, "cp312-none-linux_x86_64"), pos(t, "cp311-abi3-manylinux_2_36_x86_64"));
  EXPECT_LT(pos(t, "cp32-abi3-linux_x86_64"), pos(t, "py312-none-manylinux_2_36_x86_64"));
  EXPECT_LT(pos(t, "py30-none-linux_x86_64"), pos(t, "cp312-none-any"));
  EXPECT_EQ(t[pos(t, "cp312-none-any") + 1], "py312-none-any");
  EXPECT_EQ(t[pos(t, "py312-none-any") + 1], "py3-none-any");
  EXPECT_EQ(pos(t, "cp31-abi3-linux_x86_64"), -1);
}

TEST(Tags, FreeThreadedHasNoAbi3) {
  auto info = cp312_glibc236();
  info.minor = 13;
  info.abis = {"cp313t"};
  info.free_threaded = true;
  auto t = supported_tags(info);
  EXPECT_EQ(t.front(), "cp313-cp313t-manylinux_2_36_x86_64");
  for (const auto& tag : t) EXPECT_EQ(tag.find("abi3"), std::string::npos) << tag;
}

TEST(Tags, Musllinux) {
  InterpreterInfo info;
  info.minor = 11;
  info.abis = {"cp311"};
  info.platform = "linux_x86_64";
  info.musl = std::make_pair(1, 2);
  auto p = platform_tags(info);
  EXPECT_EQ(p, (std::vector<std::string>{"musllinux_1_2_x86_64", "musllinux_1_1_x86_64", "musllinux_1_0_x86_64",
                                         "linux_x86_64"}));
}

// macOS: the expected lists are what packaging 23.0's `mac_platforms` returns (Debian 12's
// python3-packaging), recorded.
TEST(Tags, MacosArm64FromPackaging) {
  const std::vector<std::string> expected{
      "macosx_14_0_arm64",       "macosx_14_0_universal2",  "macosx_13_0_arm64",       "macosx_13_0_universal2",
      "macosx_12_0_arm64",       "macosx_12_0_universal2",  "macosx_11_0_arm64",       "macosx_11_0_universal2",
      "macosx_10_16_universal2", "macosx_10_15_universal2", "macosx_10_14_universal2", "macosx_10_13_universal2",
      "macosx_10_12_universal2", "macosx_10_11_universal2", "macosx_10_10_universal2", "macosx_10_9_universal2",
      "macosx_10_8_universal2",  "macosx_10_7_universal2",  "macosx_10_6_universal2",  "macosx_10_5_universal2",
      "macosx_10_4_universal2"};
  EXPECT_EQ(mac_platforms({14, 2}, "arm64"), expected);
  // The running version wins over the deployment target in sysconfig's platform.
  InterpreterInfo info;
  info.minor = 12;
  info.abis = {"cp312"};
  info.platform = "macosx_11_0_arm64";
  info.macos = std::make_pair(14, 2);
  EXPECT_EQ(platform_tags(info), expected);
  info.macos.reset();
  EXPECT_EQ(platform_tags(info).front(), "macosx_11_0_arm64");
  const auto tags = supported_tags(info);
  EXPECT_EQ(tags.front(), "cp312-cp312-macosx_11_0_arm64");
  EXPECT_NE(pos(tags, "cp312-abi3-macosx_10_9_universal2"), -1);
  EXPECT_EQ(pos(tags, "cp312-cp312-macosx_10_9_x86_64"), -1);
}

TEST(Tags, MacosX86_64FromPackaging) {
  const auto old = mac_platforms({10, 9}, "x86_64");
  ASSERT_EQ(old.size(), 36u);
  EXPECT_EQ(std::vector<std::string>(old.begin(), old.begin() + 6),
            (std::vector<std::string>{"macosx_10_9_x86_64", "macosx_10_9_intel", "macosx_10_9_fat64",
                                      "macosx_10_9_fat32", "macosx_10_9_universal2", "macosx_10_9_universal"}));
  EXPECT_EQ(old.back(), "macosx_10_4_universal");
  const auto big_sur = mac_platforms({11, 0}, "x86_64");
  ASSERT_EQ(big_sur.size(), 84u);
  EXPECT_EQ(big_sur[6], "macosx_10_16_x86_64");
  EXPECT_EQ(big_sur.back(), "macosx_10_4_universal");
  EXPECT_EQ(mac_platforms({10, 5}, "ppc64"),
            (std::vector<std::string>{"macosx_10_5_ppc64", "macosx_10_5_fat64", "macosx_10_5_universal",
                                      "macosx_10_4_ppc64", "macosx_10_4_fat64", "macosx_10_4_universal"}));
  // A platform that is not macosx_X_Y_ARCH is kept as it is, as Windows' are.
  InterpreterInfo info;
  info.platform = "win_amd64";
  EXPECT_EQ(platform_tags(info), std::vector<std::string>{"win_amd64"});
  info.platform = "macosx_bad";
  EXPECT_EQ(platform_tags(info), std::vector<std::string>{"macosx_bad"});
}
