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
           {R"({"properties": {"a": [{"name": "f", "values": ["x"]}, {"name": "f", "values": ["y"]}]}})", "twice"},
           {R"({"properties": {"a": [{"name": "f", "values": [1]}]}})", "values[0]"},
           {R"({"properties": {"a": [{"name": "f", "values": ["x"], "multi_value": 1}]}})", "multi_value"},
           {R"({"properties": {"a": [{"name": "f", "values": ["x"], "extra": 1}]}})", "extra"},
           {R"({"properties": {}, "environment": {"python_version": 3}})", "environment.python_version"},
           {R"({"properties": {}, "tags": ["py3"]})", "py3"},
           {R"({"properties": {}, "colour": "red"})", "colour"},
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
