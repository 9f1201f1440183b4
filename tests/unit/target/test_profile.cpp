#include <gtest/gtest.h>

#include "vwheel/target/profile.hpp"

using namespace vwheel::target;

TEST(Profile, ParsesTheDocumentedExample) {
  auto p = parse_target_profile(R"({"properties": {"nvidia": [
      {"name": "cuda_version_lower_bound", "values": ["12.8", "12.7"], "multi_value": false},
      {"name": "sm_arch", "values": ["90_real", "90_virtual"], "multi_value": true}]},
    "environment": {"python_version": "3.12", "platform_machine": "x86_64", "sys_platform": "linux"},
    "tags": ["cp312-cp312-manylinux_2_36_x86_64", "py3-none-any"]})");
  ASSERT_TRUE(p) << p.error().message;
  const auto& nv = p->properties.at("nvidia");
  ASSERT_EQ(nv.size(), 2U);
  EXPECT_EQ(nv[0].name, "cuda_version_lower_bound");
  EXPECT_EQ(nv[0].values, (std::vector<std::string>{"12.8", "12.7"}));
  EXPECT_TRUE(nv[1].multi_value);
  EXPECT_EQ(p->environment->at("sys_platform"), "linux");
  EXPECT_EQ(p->tags->size(), 2U);
}

TEST(Profile, EnvironmentAndTagsAreOptional) {
  auto p = parse_target_profile(R"({"properties": {}})");
  ASSERT_TRUE(p);
  EXPECT_FALSE(p->environment);
  EXPECT_FALSE(p->tags);
}

TEST(Profile, RoundTrips) {
  TargetProfile p;
  p.properties["x86_64"] = {{"level", {"v3", "v2", "v1"}, false}, {"avx2", {"on"}, false}};
  p.tags = std::vector<std::string>{"py3-none-any"};
  auto back = parse_target_profile(to_json(p));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, p);
}

TEST(Profile, RejectsInvalidInputNamingTheKey) {
  struct Case {
    const char* json;
    const char* needle;
  };
  for (const auto& c : std::initializer_list<Case>{
           {"[]", "object"},
           {"{", "JSON"},
           {R"({})", "properties"},
           {R"({"properties": {"Bad": []}})", "Bad"},
           {R"({"properties": {"a": {}}})", "properties.a"},
           {R"({"properties": {"a": [{"values": ["x"]}]}})", "name"},
           {R"({"properties": {"a": [{"name": "f", "values": []}]}})", "no values"},
           {R"({"properties": {"a": [{"name": "f", "values": ["X"]}]}})", "`X`"},
           {R"({"properties": {"a": [{"name": "f", "values": ["x", "x"]}]}})", "twice"},
           // The first repeat by position, though the check sorts the values.
           {R"({"properties": {"a": [{"name": "f", "values": ["z", "y", "x", "y", "z"]}]}})",
            "properties.a[0].values[3]: value `y` is listed twice"},
           {R"({"properties": {"a": [{"name": "f", "values": ["x"]}, {"name": "f", "values": ["y"]}]}})", "twice"},
           {R"({"properties": {"a": [{"name": "f", "values": [1]}]}})", "values[0]"},
           {R"({"properties": {"a": [{"name": "f", "values": ["x"], "multi_value": 1}]}})", "multi_value"},
           {R"({"properties": {"a": [{"name": "f", "values": ["x"], "extra": 1}]}})", "extra"},
           {R"({"properties": {}, "environment": {"python_version": 3}})", "environment.python_version"},
           {R"({"properties": {}, "tags": ["py3"]})", "py3"},
           {R"({"properties": {}, "colour": "red"})", "colour"},
           {R"({"properties": {}, "detect": "yes"})", "detect: expected true or false, got \"yes\""},
           {R"({"properties": {}, "detect": 1})", "detect: expected true or false, got 1"},
       }) {
    auto p = parse_target_profile(c.json);
    ASSERT_FALSE(p) << c.json;
    EXPECT_NE(p.error().message.find(c.needle), std::string::npos) << c.json << " -> " << p.error().message;
    EXPECT_EQ(p.error().message.find('\n'), std::string::npos);
  }
}

TEST(Profile, UntrustedJsonErrorsArePlaced) {
  auto dup = parse_target_profile(R"({"properties": {"a": [], "a": []}})");
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().message,
            "not valid JSON (expected a target profile object): key \"a\" appears twice in the same object at "
            "/properties/a (line 1, column 28)");
  auto deep = parse_target_profile(std::string(100'000, '[') + std::string(100'000, ']'));
  ASSERT_FALSE(deep);
  EXPECT_TRUE(deep.error().message.starts_with(
      "not valid JSON (expected a target profile object): nested more than 64 levels deep at /0/0/"))
      << deep.error().message.substr(0, 300);
  auto broken = parse_target_profile("{");
  ASSERT_FALSE(broken);
  EXPECT_TRUE(
      broken.error().message.starts_with("not valid JSON (expected a target profile object): parse error at line 1, column 2"))
      << broken.error().message;
}

TEST(Profile, DetectIsOptionalAndRoundTrips) {
  auto p = parse_target_profile(R"({"detect": true, "properties": {"nvidia": []}})");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->detect, true);
  auto back = parse_target_profile(to_json(*p));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, *p);
  auto q = parse_target_profile(R"({"properties": {}, "detect": false})");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->detect, false);
  EXPECT_FALSE(parse_target_profile(R"({"properties": {}})")->detect.has_value());
  EXPECT_EQ(to_json(TargetProfile{}).find("detect"), std::string::npos);
}

TEST(Profile, OverlayReplacesPerNamespaceAndWholeValues) {
  TargetProfile base;
  base.properties["nvidia"] = {{"cuda_version_lower_bound", {"12.6"}, false}};
  base.properties["x86_64"] = {{"level", {"v3", "v2", "v1"}, false}};
  base.environment = std::map<std::string, std::string, std::less<>>{{"python_version", "3.11"}, {"sys_platform", "linux"}};
  base.tags = std::vector<std::string>{"cp311-cp311-linux_x86_64"};
  base.detect = true;

  TargetProfile later;
  later.properties["nvidia"] = {{"cuda_version_lower_bound", {"12.8", "12.7"}, false}, {"sm_arch", {"90_real"}, true}};
  later.properties["amd"] = {};
  later.environment = std::map<std::string, std::string, std::less<>>{{"python_version", "3.12"}};

  overlay(base, later);
  // The later file's namespaces replace the earlier ones'; the others stay.
  EXPECT_EQ(base.properties.at("nvidia"), later.properties.at("nvidia"));
  EXPECT_EQ(base.properties.at("x86_64").front().values, (std::vector<std::string>{"v3", "v2", "v1"}));
  EXPECT_TRUE(base.properties.at("amd").empty());
  // `environment` is one value: replaced, never merged key by key.
  EXPECT_EQ(*base.environment, (std::map<std::string, std::string, std::less<>>{{"python_version", "3.12"}}));
  // Absent in the later file: kept.
  EXPECT_EQ(base.tags->front(), "cp311-cp311-linux_x86_64");
  EXPECT_EQ(base.detect, true);

  TargetProfile last;
  last.detect = false;
  overlay(base, last);
  EXPECT_EQ(base.detect, false);
  EXPECT_EQ(base.properties.size(), 3U);
}
