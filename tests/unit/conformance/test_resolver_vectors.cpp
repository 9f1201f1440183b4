// Conformance: every scenario of ../shared/vectors/resolver.json, ranked by the engine, must give
// `expected_order` (the PEP 825 ordering of the labels present in the file), or be rejected.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "shared_data.hpp"
#include "vwheel/metadata/document.hpp"
#include "vwheel/variant/ordering.hpp"

using nlohmann::json;
using namespace vwheel;
using namespace vwheel::variant;

namespace {

// Plays the install-time providers of one scenario: the "plugin" of a namespace answers only when
// the package's object reference for it matches the plugin's (else loading it fails).
class ScenarioOracle final : public SupportOracle {
 public:
  explicit ScenarioOracle(const json& plugins) : plugins_(plugins) {}

  Result<std::optional<std::vector<FeatureConfig>>> supported(const std::string& ns, const ProviderInfo* declared,
                                                              std::string& note) const override {
    if (!plugins_.contains(ns)) {
      note = "no plugin";
      return std::optional<std::vector<FeatureConfig>>{};
    }
    const auto& plugin = plugins_.at(ns);
    if (declared != nullptr) {
      std::string reference;
      if (declared->plugin_api) {
        reference = *declared->plugin_api;
      } else if (!declared->requires_.empty()) {
        const auto& req = declared->requires_.front();
        auto end = req.find_first_of(" <>=!~;[(@");
        reference = req.substr(0, end);
        for (auto& c : reference) c = c == '-' ? '_' : c;
        reference += ":";
      }
      if (reference != plugin.at("plugin_api").get<std::string>()) {
        return fail("provider `" + ns + "` could not be loaded from `" + reference + "`");
      }
    }
    std::vector<FeatureConfig> out;
    for (const auto& fc : plugin.at("supported_configs")) {
      out.push_back(FeatureConfig{fc.at("name").get<std::string>(), fc.at("values").get<std::vector<std::string>>(),
                                  fc.value("multi_value", false)});
    }
    return std::optional<std::vector<FeatureConfig>>{std::move(out)};
  }

 private:
  json plugins_;
};

}  // namespace

TEST(ResolverVectors, EveryScenario) {
  VWHEEL_REQUIRE_SHARED("vectors/resolver.json");
  const auto doc = json::parse(vwheel::testing::read_file(shared_path));
  markers::Environment env;
  for (const auto& [k, v] : doc.at("meta").at("marker_environment").items()) env.variables[k] = v.get<std::string>();

  std::size_t passed = 0;
  std::size_t rejected = 0;
  for (const auto& c : doc.at("cases")) {
    const auto id = c.at("id").get<std::string>();
    const auto& in = c.at("input");
    const bool expect_ok = c.at("expected").at("ok").get<bool>();

    auto parsed = metadata::parse_json_document(in.at("variants_json").dump(), metadata::DocumentKind::VariantsJson);
    if (!parsed) {
      EXPECT_FALSE(expect_ok) << id << ": " << parsed.error().message;
      ++rejected;
      continue;
    }

    UserPriorities user;
    if (in.contains("user_config") && !in.at("user_config").is_null()) {
      const auto& uc = in.at("user_config");
      if (uc.contains("namespace_priorities")) {
        user.namespace_priorities = uc.at("namespace_priorities").get<std::vector<std::string>>();
      }
      if (uc.contains("feature_priorities")) {
        user.feature_priorities = uc.at("feature_priorities").get<std::map<std::string, std::vector<std::string>>>();
      }
      if (uc.contains("property_priorities")) {
        user.property_priorities = uc.at("property_priorities").get<PropertyMap>();
      }
    }
    SelectionOptions options;
    options.environment = &env;
    const auto& eop = in.at("enable_optional_plugins");
    if (eop.is_boolean()) {
      options.enable_all_optional = eop.get<bool>();
    } else {
      for (const auto& ns : eop) options.enabled_optional.insert(ns.get<std::string>());
    }
    const auto& abi = in.at("abi_dependency");
    for (const auto& d : abi.at("installed_distributions")) {
      options.abi_dependencies.emplace_back(d.at(0).get<std::string>(), d.at(1).get<std::string>());
    }
    if (!abi.at("env").is_null()) {
      auto parsed_env = parse_abi_dependency_env(abi.at("env").get<std::string>());
      options.abi_dependencies.insert(options.abi_dependencies.end(), parsed_env.items.begin(),
                                      parsed_env.items.end());
    }

    ScenarioOracle oracle(in.at("plugins"));
    auto ranking = rank_variants(parsed->metadata, oracle, user, options);
    if (!expect_ok) {
      EXPECT_FALSE(ranking) << id << " should be rejected: " << c.at("expected").dump();
      ++rejected;
      continue;
    }
    ASSERT_TRUE(ranking) << id << ": " << ranking.error().message;
    EXPECT_EQ(ranking->order, c.at("expected_order").get<std::vector<std::string>>()) << id << ": "
                                                                                      << c.at("description");
    ++passed;
  }
  EXPECT_EQ(passed + rejected, doc.at("cases").size());
  EXPECT_GE(passed, 170U);
}
