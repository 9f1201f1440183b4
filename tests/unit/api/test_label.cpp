#include <gtest/gtest.h>

#include "vwheel/api/label.hpp"

namespace vwheel::api {
namespace {

TEST(Label, NoPropertiesIsTheNullVariant) {
  auto report = make_label(LabelRequest{});
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->label, "null");
  EXPECT_TRUE(report->warnings.empty());
}

TEST(Label, TheHashDoesNotDependOnTheOrderOfTheProperties) {
  auto a = make_label(LabelRequest{{"x86_64 :: level :: v3", "nvidia :: cuda :: 12"}, std::nullopt});
  auto b = make_label(LabelRequest{{"nvidia :: cuda :: 12", "x86_64 :: level :: v3"}, std::nullopt});
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->label, b->label);
  EXPECT_EQ(a->label.size(), 8U);
}

TEST(Label, ErrorsNameTheOption) {
  auto bad_property = make_label(LabelRequest{{"no separators"}, std::nullopt});
  ASSERT_FALSE(bad_property);
  EXPECT_EQ(bad_property.error().message.rfind("--property: ", 0), 0U) << bad_property.error().message;
  auto bad_label = make_label(LabelRequest{{}, std::string("Not A Label!")});
  ASSERT_FALSE(bad_label);
  EXPECT_EQ(bad_label.error().message.rfind("--label: ", 0), 0U) << bad_label.error().message;
}

TEST(Label, ALongCustomLabelIsKeptWithAWarning) {
  auto report = make_label(LabelRequest{{"x86_64 :: level :: v3"}, std::string("averyverylonglabel")});
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->label, "averyverylonglabel");
  ASSERT_EQ(report->warnings.size(), 1U);
  EXPECT_EQ(report->warnings[0],
            "label `averyverylonglabel` is longer than 16 characters; today's variant-enabled installers reject such "
            "wheels");
}

}  // namespace
}  // namespace vwheel::api
