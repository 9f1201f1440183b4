#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "plan/local_provider.hpp"

namespace {

using vwheel::pep440::Version;
using vwheel::plan::LocalWheel;
using vwheel::plan::detail::LocalProvider;

Version v(const char* text) { return *Version::parse(text); }

/// An index with `dep` 1.0 and 2.0, and `proj` 9.0 (which the local wheel must hide).
class FakeIndex final : public vwheel::resolve::Provider {
 public:
  vwheel::Result<std::vector<Version>> versions(std::string_view name) override {
    asked.emplace_back(name);
    if (name == "dep") return std::vector<Version>{v("2.0"), v("1.0")};
    if (name == "proj") return std::vector<Version>{v("9.0")};
    return std::vector<Version>{};
  }
  vwheel::Result<vwheel::resolve::Dependencies> dependencies(std::string_view, const Version&) override {
    return vwheel::resolve::Dependencies{};
  }
  std::vector<std::string> asked;
};

LocalWheel local_proj() {
  LocalWheel w;
  w.path = "/tmp/work/dist/proj-0.1-py3-none-any.whl";
  w.metadata.name = "Proj";
  w.metadata.version = "0.1";
  w.metadata.requires_dist = {"dep<2", "extra-only; extra == 'x'"};
  w.metadata.provides_extra = {"x"};
  w.origin.url = "file:///src/proj";
  return w;
}

}  // namespace

TEST(LocalProvider, ALocalProjectResolvesToItsWheelAndItsDependenciesFromTheIndex) {
  FakeIndex index;
  const std::vector<LocalWheel> wheels{local_proj()};
  LocalProvider provider(index, wheels, {});
  auto root = vwheel::markers::Requirement::parse("proj==0.1");
  ASSERT_TRUE(root);
  auto resolution = vwheel::resolve::resolve(provider, {*root}, {}, {}, {});
  ASSERT_TRUE(resolution) << resolution.error().message;
  std::map<std::string, std::string> pins;
  for (const auto& p : resolution->pins) pins[p.name] = p.version.to_string();
  EXPECT_EQ(pins, (std::map<std::string, std::string>{{"dep", "1.0"}, {"proj", "0.1"}}));
  // The index was never asked about the local project (its 9.0 would not be 0.1).
  EXPECT_EQ(index.asked, std::vector<std::string>{"dep"});
  ASSERT_NE(provider.local("proj"), nullptr);
  EXPECT_EQ(provider.local("dep"), nullptr);
}

TEST(LocalProvider, RequirementsOnLocalProjectsAreLeftOutOfLookUps) {
  const std::vector<LocalWheel> wheels{local_proj()};
  std::vector<vwheel::markers::Requirement> reqs;
  for (const char* text : {"proj==0.1", "requests", "PROJ[x]"})
    reqs.push_back(*vwheel::markers::Requirement::parse(text));
  const auto left = vwheel::plan::detail::without_local(reqs, wheels);
  ASSERT_EQ(left.size(), 1U);
  EXPECT_EQ(left.front().name, "requests");
}
