#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "vwheel/config/user_config.hpp"

using namespace vwheel::config;

TEST(UserConfig, ParsesTheReferenceFormat) {
  auto cfg = parse_user_config(R"(
namespace_priorities = ["demo_gpu"]
feature_priorities.demo_cpu = ["level"]
property_priorities.demo_cpu.level = ["v2"]
allow_python_providers = ["blas_lapack"]
)");
  ASSERT_TRUE(cfg) << cfg.error().message;
  EXPECT_EQ(cfg->priorities.namespace_priorities, std::vector<std::string>{"demo_gpu"});
  EXPECT_EQ(cfg->priorities.feature_priorities.at("demo_cpu"), std::vector<std::string>{"level"});
  EXPECT_EQ(cfg->priorities.property_priorities.at("demo_cpu").at("level"), std::vector<std::string>{"v2"});
  EXPECT_EQ(cfg->allow_python_providers, std::vector<std::string>{"blas_lapack"});
}

TEST(UserConfig, EmptyIsValid) {
  auto cfg = parse_user_config("");
  ASSERT_TRUE(cfg);
  EXPECT_TRUE(cfg->priorities.namespace_priorities.empty());
}

TEST(UserConfig, ErrorsNameTheKey) {
  struct Case {
    const char* toml;
    const char* needle;
  };
  for (const auto& c : std::initializer_list<Case>{
           {"namespace_priorities = \"x\"", "namespace_priorities"},
           {"namespace_priorities = [1]", "namespace_priorities[0]"},
           {"namespace_priorities = [\"Bad\"]", "Bad"},
           {"feature_priorities = 1", "feature_priorities"},
           {"feature_priorities.X = [\"a\"]", "X"},
           {"property_priorities.a = [\"x\"]", "property_priorities.a"},
           {"unknown = 1", "unknown"},
           {"namespace_priorities = [", "line 1"},
       }) {
    auto cfg = parse_user_config(c.toml);
    ASSERT_FALSE(cfg) << c.toml;
    EXPECT_NE(cfg.error().message.find(c.needle), std::string::npos) << c.toml << " -> " << cfg.error().message;
  }
}

TEST(UserConfig, LoadsExplicitFileAndPrefixesErrorsWithItsName) {
  const auto dir = std::filesystem::temp_directory_path() / "vwheel-config-test";
  std::filesystem::create_directories(dir);
  const auto good = dir / "good.toml";
  std::ofstream(good) << "namespace_priorities = [\"a\"]\n";
  auto cfg = load_user_config(good);
  ASSERT_TRUE(cfg);
  EXPECT_EQ(cfg->source, good);
  const auto bad = dir / "bad.toml";
  std::ofstream(bad) << "namespace_priorities = 1\n";
  auto err = load_user_config(bad);
  ASSERT_FALSE(err);
  EXPECT_NE(err.error().message.find("bad.toml"), std::string::npos);
  EXPECT_FALSE(load_user_config(dir / "missing.toml"));
  std::filesystem::remove_all(dir);
}

TEST(UserConfig, SearchPathHonoursEnvironment) {
  ::setenv("VWHEEL_CONFIG", "/tmp/explicit.toml", 1);
  ::setenv("XDG_CONFIG_HOME", "/tmp/xdg", 1);
  auto paths = config_search_path();
  ::unsetenv("VWHEEL_CONFIG");
  ASSERT_FALSE(paths.empty());
  EXPECT_EQ(paths.front(), "/tmp/explicit.toml");
  EXPECT_NE(std::find(paths.begin(), paths.end(), std::filesystem::path("/tmp/xdg/vwheel/variants.toml")), paths.end());
}

TEST(UserConfig, NonAsciiOutsideStringsIsRejectedBeforeTheTomlReader) {
  // toml++ 3.3.0 has undefined behaviour on such input; TOML itself forbids it.
  auto bad = parse_user_config("[feature_priorities]\nnamespace_\xc3\xb8 = [\"a\"]\n");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("line 2"), std::string::npos) << bad.error().message;
  auto ok = parse_user_config("# caf\xc3\xa9\nnamespace_priorities = [] # \xc3\xb8\n");
  EXPECT_TRUE(ok) << ok.error().message;
}
