// plan_from_lock follows PEP 751's installation steps on in-memory locks: `marker` with the
// `extras` / `dependency_groups` asked, a package's `requires-python`, the ambiguity error, the
// narrowing of several entries of a name by the chosen wheels' own Requires-Dist (a fake reader),
// and unknown extras/groups.

#include <gtest/gtest.h>

#include <map>

#include "vwheel/plan/plan.hpp"

namespace vwheel::plan {
namespace {

const std::string kSha(64, 'a');

lock::LockedPackage entry(const std::string& name, const std::string& version, std::optional<std::string> marker = {},
                          const std::string& label = "") {
  lock::LockedPackage p;
  p.name = name;
  p.version = version;
  p.marker = std::move(marker);
  lock::LockedWheel w;
  w.name = name + "-" + version + "-py3-none-any" + (label.empty() ? "" : "-" + label) + ".whl";
  w.url = "http://127.0.0.1/" + w.name;
  w.hashes = {{"sha256", kSha}};
  p.wheels.push_back(w);
  return p;
}

selection::Selection target() {
  selection::Selection t;
  t.description = "test target";
  t.environment = {{"python_version", "3.12"}, {"python_full_version", "3.12.1"}, {"sys_platform", "linux"}};
  t.set_tags({"py3-none-any"});
  t.oracle = std::make_shared<variant::TableOracle>(variant::SupportedProperties{
      {"nvidia", {{"cuda_version_lower_bound", {"12.8", "12"}, false}}}});
  return t;
}

std::vector<std::string> names(const Plan& p) {
  std::vector<std::string> out;
  for (const auto& s : p.packages) out.push_back(s.name + " " + s.version);
  return out;
}

/// A reader that answers from a table by file name and counts its calls.
struct FakeReader {
  std::map<std::string, std::vector<std::string>> requires_dist;
  int calls = 0;
  RequiresDistReader reader() {
    return [this](const finder::File& f) -> Result<std::vector<std::string>> {
      ++calls;
      auto it = requires_dist.find(f.filename);
      return it == requires_dist.end() ? std::vector<std::string>{} : it->second;
    };
  }
};

lock::Lock grouped() {
  lock::Lock l;
  l.extras = {"cpu"};
  l.dependency_groups = {"dev"};
  l.default_groups = {"default"};
  l.packages = {entry("app", "1.0", "'default' in dependency_groups"), entry("cpulib", "1.0", "'cpu' in extras"),
                entry("devtool", "1.0", "'dev' in dependency_groups")};
  return l;
}

TEST(PlanFromLock, MarkersSeeTheExtrasAndGroupsAsked) {
  const auto l = grouped();
  auto plain = plan_from_lock(l, "/x/pylock.toml", target());
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_EQ(names(*plain), (std::vector<std::string>{"app 1.0"}));
  LockSelection asked;
  asked.extras = {"CPU"};
  asked.groups = {"dev"};
  auto more = plan_from_lock(l, "/x/pylock.toml", target(), asked);
  ASSERT_TRUE(more) << more.error().message;
  EXPECT_EQ(names(*more), (std::vector<std::string>{"app 1.0", "cpulib 1.0", "devtool 1.0"}));
  LockSelection only;
  only.only_groups = {"dev"};
  auto dev = plan_from_lock(l, "/x/pylock.toml", target(), only);
  ASSERT_TRUE(dev) << dev.error().message;
  EXPECT_EQ(names(*dev), (std::vector<std::string>{"devtool 1.0"}));
  LockSelection none;
  none.no_default_groups = true;
  none.all_extras = true;
  auto cpu = plan_from_lock(l, "/x/pylock.toml", target(), none);
  ASSERT_TRUE(cpu) << cpu.error().message;
  EXPECT_EQ(names(*cpu), (std::vector<std::string>{"cpulib 1.0"}));
}

TEST(PlanFromLock, AnExtraOrGroupTheLockDoesNotOfferIsAnError) {
  LockSelection asked;
  asked.extras = {"gpu"};
  auto p = plan_from_lock(grouped(), "/x/pylock.toml", target(), asked);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().message, "pylock.toml: extra `gpu` is not among the lock's `extras` (cpu)");
  LockSelection group;
  group.groups = {"docs"};
  p = plan_from_lock(grouped(), "/x/pylock.toml", target(), group);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().message, "pylock.toml: dependency group `docs` is not among the lock's `dependency-groups` (dev, default)");
}

TEST(PlanFromLock, APackagesRequiresPythonIsAnError) {
  lock::Lock l;
  l.packages = {entry("app", "1.0")};
  l.packages[0].requires_python = ">=3.13";
  auto p = plan_from_lock(l, "/x/pylock.toml", target());
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("package `app` 1.0"), std::string::npos) << p.error().message;
}

TEST(PlanFromLock, TwoApplicableEntriesAreAmbiguous) {
  lock::Lock l;
  l.packages = {entry("app", "1.0"), entry("dep", "1.0"), entry("dep", "2.0")};
  FakeReader fake;
  auto p = plan_from_lock(l, "/x/pylock.toml", target(), {}, fake.reader());
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().message,
            "pylock.toml: package `dep` has 2 entries that apply to test target (versions 1.0, 2.0) and nothing tells "
            "them apart; a lock must leave at most one per name (PEP 751)");
  // The lock's own edges decide nothing.
  l.packages[0].dependencies = {{{"name", "dep"}, {"version", "1.0"}}};
  l.packages[0].requires_dist = {"dep==1.0"};
  EXPECT_FALSE(plan_from_lock(l, "/x/pylock.toml", target(), {}, fake.reader()));
}

TEST(PlanFromLock, SeveralEntriesAreNarrowedByTheChosenWheelsRequiresDist) {
  lock::Lock l;
  auto torch = entry("torch", "2.9.0", std::nullopt, "cu128");
  variant::VariantMetadata md;
  md.namespace_priorities = {"nvidia"};
  md.variants["cu128"] = variant::PropertySet({{"nvidia", "cuda_version_lower_bound", "12.8"}});
  torch.variants_json = md;
  l.packages = {torch, entry("nvlib", "12.6.0"), entry("nvlib", "12.8.0"), entry("nvdep", "1.0"),
                entry("nvdep", "2.0")};
  FakeReader fake;
  fake.requires_dist["torch-2.9.0-py3-none-any-cu128.whl"] = {"nvlib==12.6.0; variant_label == 'cu126'",
                                                              "nvlib==12.8.0; variant_label == 'cu128'"};
  fake.requires_dist["nvlib-12.8.0-py3-none-any.whl"] = {"nvdep>=2"};
  auto p = plan_from_lock(l, "/x/pylock.toml", target(), {}, fake.reader());
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(names(*p), (std::vector<std::string>{"nvdep 2.0", "nvlib 12.8.0", "torch 2.9.0"}));
  // A requirement that no entry satisfies.
  fake.requires_dist["nvlib-12.8.0-py3-none-any.whl"] = {"nvdep>=3"};
  p = plan_from_lock(l, "/x/pylock.toml", target(), {}, fake.reader());
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().message, "nvlib 12.8.0 requires nvdep>=3, which the lock does not contain: run vwheel lock again");
}

TEST(PlanFromLock, AnUnambiguousLockReadsNoMetadata) {
  lock::Lock l;
  l.packages = {entry("app", "1.0"), entry("dep", "1.0", "sys_platform == 'win32'"), entry("dep", "2.0")};
  FakeReader fake;
  auto p = plan_from_lock(l, "/x/pylock.toml", target(), {}, fake.reader());
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(names(*p), (std::vector<std::string>{"app 1.0", "dep 2.0"}));
  EXPECT_EQ(fake.calls, 0);
}

TEST(PlanFromLock, ADirectoryEntryIsSkippedWithAWarning) {
  lock::Lock l;
  lock::LockedPackage project;
  project.name = "proj";
  project.version = "0.1";
  project.marker = "'default' in dependency_groups";
  project.directory = lock::LockedDirectory{".", std::nullopt, std::nullopt};
  l.default_groups = {"default"};
  l.project_inputs = "sha256:" + std::string(64, 'a');
  l.packages = {entry("app", "1.0"), project};
  auto p = plan_from_lock(l, "/x/pylock.toml", target());
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(names(*p), (std::vector<std::string>{"app 1.0"}));
  ASSERT_EQ(p->warnings.size(), 1U);
  EXPECT_NE(p->warnings[0].find("directory entry"), std::string::npos);
}

TEST(PlanFromLock, ADirectoryEntryOfAnotherProjectIsBuilt) {
  lock::Lock l;
  lock::LockedPackage local;
  local.name = "Local_Lib";
  local.directory = lock::LockedDirectory{"../src/lib", true, "pkg"};
  l.packages = {entry("app", "1.0"), local};
  auto p = plan_from_lock(l, "/x/y/pylock.toml", target());
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_TRUE(p->warnings.empty());
  ASSERT_EQ(names(*p), (std::vector<std::string>{"app 1.0", "local-lib "}));
  const auto& source = p->packages[1].source;
  ASSERT_TRUE(source);
  EXPECT_EQ(source->kind, LockedSource::Kind::directory);
  EXPECT_EQ(source->path, std::filesystem::path("/x/src/lib"));  // the lock's directory's
  EXPECT_EQ(source->subdirectory, "pkg");
  EXPECT_TRUE(source->editable);
  EXPECT_EQ(source->entry, "/x/y/pylock.toml packages[1].directory (Local_Lib)");
  EXPECT_FALSE(p->packages[0].source);
}

TEST(PlanFromLock, TheSdistIsBuiltWhenNoListedWheelFits) {
  lock::Lock l;
  auto s = entry("s", "1.0");
  s.wheels.front().name = "s-1.0-cp399-cp399-win_amd64.whl";
  s.sdist = lock::LockedSdist{"s-1.0.tar.gz", std::nullopt, "dist/s-1.0.tar.gz", std::nullopt, 12, {{"sha256", kSha}}};
  l.packages = {s};
  auto p = plan_from_lock(l, "/x/pylock.toml", target());
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->packages.size(), 1U);
  const auto& source = p->packages[0].source;
  ASSERT_TRUE(source);
  EXPECT_EQ(source->kind, LockedSource::Kind::sdist);
  EXPECT_EQ(source->path, std::filesystem::path("/x/dist/s-1.0.tar.gz"));
  EXPECT_EQ(source->size, 12U);
  EXPECT_EQ(p->packages[0].wheel.filename, "s-1.0.tar.gz");
  EXPECT_EQ(p->packages[0].why, "no listed wheel fits: the sdist, built");
  // Without the sdist, the same entry is refused naming what does not fit.
  l.packages.front().sdist.reset();
  auto refused = plan_from_lock(l, "/x/pylock.toml", target());
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("no listed wheel fits"), std::string::npos) << refused.error().message;
}

TEST(PlanFromLock, ArchiveAndVcsEntriesAreInstalledFromTheirSource) {
  lock::Lock l;
  lock::LockedPackage archive;
  archive.name = "a";
  archive.version = "2.0";
  archive.archive =
      lock::LockedArchive{"https://h/a-2.0.tar.gz", std::nullopt, std::nullopt, 7, {{"sha256", kSha}}, std::nullopt};
  lock::LockedPackage vcs;
  vcs.name = "v";
  vcs.vcs = lock::LockedVcs{"git", std::nullopt, "repo", "main", "0123abcd", std::nullopt};
  l.packages = {archive, vcs};
  auto p = plan_from_lock(l, "/x/pylock.toml", target());
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->packages.size(), 2U);
  EXPECT_EQ(p->packages[0].source->kind, LockedSource::Kind::archive);
  EXPECT_EQ(p->packages[0].source->url, "https://h/a-2.0.tar.gz");
  EXPECT_EQ(p->packages[0].source->hashes.at("sha256"), kSha);
  EXPECT_EQ(p->packages[1].source->kind, LockedSource::Kind::vcs);
  EXPECT_EQ(p->packages[1].source->path, std::filesystem::path("/x/repo"));
  EXPECT_EQ(p->packages[1].source->commit_id, "0123abcd");
  EXPECT_EQ(p->packages[1].source->requested_revision, "main");
  EXPECT_EQ(p->packages[1].wheel.filename, "git+/x/repo@0123abcd");
  const auto text = requirements_txt(*p);
  EXPECT_NE(text.find("a @ https://h/a-2.0.tar.gz \\\n    --hash=sha256:" + kSha), std::string::npos) << text;
  EXPECT_NE(text.find("v @ git+file:///x/repo@0123abcd\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace vwheel::plan
