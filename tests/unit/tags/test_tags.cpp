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
