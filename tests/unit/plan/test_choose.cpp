// Choosing the wheel of one version for a target: tags, Requires-Python, yanked files, variant
// ranking (null before non-variant), index priority between sources, --variant and --no-variants.

#include <gtest/gtest.h>

#include <algorithm>

#include "plan/choose.hpp"

namespace vwheel::plan::detail {
namespace {

finder::File wheel(const std::string& filename, std::size_t source = 0) {
  finder::File f;
  f.filename = filename;
  f.url = "http://127.0.0.1/files/" + filename;
  f.source = source;
  f.wheel = *wheel_name::parse_wheel_name(filename);
  f.version = *pep440::Version::parse(f.wheel->version);
  return f;
}

variant::PropertySet props(std::initializer_list<variant::Property> list) { return variant::PropertySet(list); }

variant::VariantMetadata torch_metadata() {
  variant::VariantMetadata md;
  md.namespace_priorities = {"nvidia", "x86_64"};
  md.variants["cu130"] = props({{"nvidia", "cuda_version_lower_bound", "13.0"}});
  md.variants["cu128"] = props({{"nvidia", "cuda_version_lower_bound", "12.8"}, {"nvidia", "sm_arch", "120_real"},
                                {"nvidia", "sm_arch", "90_real"}});
  md.variants["x86_64_v3"] = props({{"x86_64", "level", "v3"}});
  md.variants["null"] = {};
  return md;
}

selection::Selection make_target(variant::SupportedProperties supported) {
  selection::Selection t;
  t.description = "test target";
  t.environment = {{"python_version", "3.12"}, {"python_full_version", "3.12.1"}, {"sys_platform", "linux"}};
  t.set_tags({"cp312-cp312-manylinux_2_36_x86_64", "cp312-abi3-manylinux_2_36_x86_64", "py3-none-any"});
  t.oracle = std::make_shared<variant::TableOracle>(std::move(supported));
  return t;
}

selection::Selection cuda_target() {
  return make_target({{"nvidia",
                       {{"cuda_version_lower_bound", {"12.8", "12.7", "12"}, false},
                        {"sm_arch", {"90_real", "90_virtual"}, true}}}});
}

struct Fixture {
  std::vector<finder::File> files;
  variant::VariantMetadata md = torch_metadata();
  int loads = 0;
  MetadataLoader loader() {
    return [this](const finder::File*, const std::vector<const finder::File*>&,
                  std::vector<std::string>&) -> Result<variant::VariantMetadata> {
      ++loads;
      return md;
    };
  }
  ChooseRequest request() {
    ChooseRequest r;
    r.name = "torch";
    r.version = "2.13.0";
    for (const auto& f : files) r.files.push_back(&f);
    r.source_count = 2;
    return r;
  }
};

Fixture torch_files() {
  Fixture fx;
  for (const auto* label : {"cu130", "cu128", "x86_64_v3", "null"}) {
    fx.files.push_back(wheel(std::string("torch-2.13.0-py3-none-any-") + label + ".whl"));
  }
  fx.files.push_back(wheel("torch-2.13.0-py3-none-any.whl"));
  return fx;
}

TEST(Choose, CudaTargetGetsTheBestCompatibleVariantAndNarrowedMarkers) {
  auto fx = torch_files();
  std::string reason;
  auto c = choose(fx.request(), cuda_target(), fx.loader(), reason);
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_TRUE(*c);
  EXPECT_EQ((*c)->label, "cu128");
  EXPECT_EQ((*c)->wheel->filename, "torch-2.13.0-py3-none-any-cu128.whl");
  // PEP 825 step 7: 120_real is a property of the wheel but not supported by the target.
  EXPECT_TRUE((*c)->environment.variant_properties.contains("nvidia :: sm_arch :: 90_real"));
  EXPECT_FALSE((*c)->environment.variant_properties.contains("nvidia :: sm_arch :: 120_real"));
  EXPECT_EQ((*c)->environment.variant_label, "cu128");
  bool saw_cu130 = false;
  for (const auto& o : (*c)->others) {
    if (o.label == "cu130") {
      saw_cu130 = true;
      EXPECT_NE(o.reason.find("incompatible"), std::string::npos) << o.reason;
    }
  }
  EXPECT_TRUE(saw_cu130);
  EXPECT_EQ(fx.loads, 1);
}

TEST(Choose, NoGpuGetsTheNullVariantBeforeTheNonVariantWheel) {
  auto fx = torch_files();
  std::string reason;
  auto c = choose(fx.request(), make_target({}), fx.loader(), reason);
  ASSERT_TRUE(c && *c);
  EXPECT_EQ((*c)->label, "null");
  EXPECT_EQ((*c)->why, "the null variant");
  EXPECT_TRUE((*c)->environment.variant_properties.empty());
}

TEST(Choose, NoVariantsUsesTheNonVariantWheelWithoutReadingMetadata) {
  auto fx = torch_files();
  auto r = fx.request();
  r.no_variants = true;
  std::string reason;
  auto c = choose(r, cuda_target(), fx.loader(), reason);
  ASSERT_TRUE(c && *c);
  EXPECT_FALSE((*c)->label);
  EXPECT_EQ((*c)->wheel->filename, "torch-2.13.0-py3-none-any.whl");
  EXPECT_EQ(fx.loads, 0);
}

TEST(Choose, ForcedLabelMustBeCompatible) {
  auto fx = torch_files();
  auto r = fx.request();
  r.forced_label = "null";
  std::string reason;
  auto c = choose(r, cuda_target(), fx.loader(), reason);
  ASSERT_TRUE(c && *c);
  EXPECT_EQ((*c)->label, "null");

  r.forced_label = "cu130";
  auto bad = choose(r, cuda_target(), fx.loader(), reason);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("not compatible"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("cuda_version_lower_bound"), std::string::npos) << bad.error().message;

  r.forced_label = "nope";
  auto unknown = choose(r, cuda_target(), fx.loader(), reason);
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("no wheel with label `nope`"), std::string::npos) << unknown.error().message;
}

TEST(Choose, TagsRequiresPythonAndYankedFilter) {
  Fixture fx;
  fx.files.push_back(wheel("pkg-1.0-cp311-cp311-manylinux_2_17_x86_64.whl"));
  auto old_python = wheel("pkg-1.0-py3-none-any.whl");
  old_python.requires_python = "<3.10";
  fx.files.push_back(old_python);
  std::string reason;
  auto c = choose(fx.request(), make_target({}), fx.loader(), reason);
  ASSERT_TRUE(c);
  EXPECT_FALSE(*c);
  EXPECT_NE(reason.find("unsupported tags"), std::string::npos) << reason;
  EXPECT_NE(reason.find("Requires-Python"), std::string::npos) << reason;

  Fixture y;
  auto yanked = wheel("pkg-1.0-py3-none-any.whl");
  yanked.yanked = "broken";
  y.files.push_back(yanked);
  auto r = y.request();
  auto none = choose(r, make_target({}), y.loader(), reason);
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  r.allow_yanked = true;
  auto pinned = choose(r, make_target({}), y.loader(), reason);
  ASSERT_TRUE(pinned && *pinned);
}

// The label (empty for a non-variant wheel) and file name chosen among `filenames` for `target`;
// both empty when nothing is chosen.
std::pair<std::string, std::string> chosen_among(std::initializer_list<const char*> filenames,
                                                 const selection::Selection& target) {
  Fixture fx;
  for (const auto* f : filenames) fx.files.push_back(wheel(f));
  std::string reason;
  auto c = choose(fx.request(), target, fx.loader(), reason);
  EXPECT_TRUE(c && *c) << (c ? reason : c.error().message);
  if (!c || !*c) return {};
  return {(*c)->label.value_or(""), (*c)->wheel->filename};
}

TEST(Choose, BestTagWinsWithinALabel) {
  // Build numbers break ties between equal tags only: a high build of a worse tag loses.
  EXPECT_EQ(chosen_among({"pkg-1.0-py3-none-any.whl", "pkg-1.0-cp312-abi3-manylinux_2_36_x86_64.whl",
                          "pkg-1.0-9-py3-none-any.whl", "pkg-1.0-1-cp312-abi3-manylinux_2_36_x86_64.whl"},
                         make_target({})),
            std::make_pair(std::string(), std::string("pkg-1.0-1-cp312-abi3-manylinux_2_36_x86_64.whl")));
}

// PEP 825 (after August 2026): build numbers only break ties between otherwise equal wheels; they
// never group wheels, so a higher build of a worse-ranked label does not hide the best label.
TEST(Choose, BuildNumbersOnlyBreakTiesAndNeverGroupVariants) {
  EXPECT_EQ(chosen_among({"torch-2.13.0-1-py3-none-any-cu128.whl", "torch-2.13.0-2-py3-none-any-cu128.whl",
                          "torch-2.13.0-5-py3-none-any-null.whl", "torch-2.13.0-9-py3-none-any.whl"},
                         cuda_target()),
            std::make_pair(std::string("cu128"), std::string("torch-2.13.0-2-py3-none-any-cu128.whl")));
}

TEST(Choose, VariantsOfTheFirstSourceWinAndAreNeverMerged) {
  Fixture fx;
  fx.files.push_back(wheel("torch-2.13.0-py3-none-any-null.whl", 0));
  fx.files.push_back(wheel("torch-2.13.0-py3-none-any-cu128.whl", 1));
  std::vector<std::size_t> sources_loaded;
  auto loader = [&](const finder::File*, const std::vector<const finder::File*>& wheels,
                    std::vector<std::string>&) -> Result<variant::VariantMetadata> {
    sources_loaded.push_back(wheels.front()->source);
    return fx.md;
  };
  std::string reason;
  auto c = choose(fx.request(), cuda_target(), loader, reason);
  ASSERT_TRUE(c && *c);
  EXPECT_EQ((*c)->label, "null");
  EXPECT_EQ(sources_loaded, std::vector<std::size_t>{0});
}

TEST(Choose, LabelMissingFromTheMetadataIsIncompatible) {
  Fixture fx;
  fx.files.push_back(wheel("torch-2.13.0-py3-none-any-mystery.whl"));
  fx.files.push_back(wheel("torch-2.13.0-py3-none-any.whl"));
  std::string reason;
  auto c = choose(fx.request(), cuda_target(), fx.loader(), reason);
  ASSERT_TRUE(c && *c);
  EXPECT_FALSE((*c)->label);
  ASSERT_EQ((*c)->others.size(), 1U);
  EXPECT_EQ((*c)->others[0].label, "mystery");
}

TEST(Choose, LabelEnvironmentCountsEveryPropertyOfTheLabel) {
  markers::Environment base;
  auto env = label_environment(base, "cu128", torch_metadata().variants.at("cu128"));
  EXPECT_TRUE(env.variant_properties.contains("nvidia :: sm_arch :: 120_real"));
  EXPECT_TRUE(env.variant_namespaces.contains("nvidia"));
  EXPECT_EQ(env.variant_label, "cu128");
}

}  // namespace
TEST(Choose, ExplainsTheLoadersNotesAndWhereEachNamespaceCameFrom) {
  auto fx = torch_files();
  auto target = cuda_target();
  target.property_sources["nvidia"] = "target profile cuda.json";
  auto loader = [&](const finder::File*, const std::vector<const finder::File*>&,
                    std::vector<std::string>& notes) -> Result<variant::VariantMetadata> {
    notes.push_back("label cu128: properties read from the wheel's variant.json, not in torch-2.13.0-variants.json");
    return fx.md;
  };
  std::string reason;
  auto c = choose(fx.request(), target, loader, reason);
  ASSERT_TRUE(c && *c);
  const auto& lines = (*c)->explain;
  auto has = [&](const std::string& line) { return std::find(lines.begin(), lines.end(), line) != lines.end(); };
  EXPECT_TRUE(has("  label cu128: properties read from the wheel's variant.json, not in torch-2.13.0-variants.json"));
  EXPECT_TRUE(has("  namespace nvidia: from target profile cuda.json"));
  // x86_64 is unsupported by this target: no source to name.
  for (const auto& l : lines) EXPECT_EQ(l.find("namespace x86_64"), std::string::npos) << l;
}

namespace {

finder::File sdist(const std::string& filename) {
  finder::File f;
  f.filename = filename;
  f.url = "http://127.0.0.1/files/" + filename;
  f.version = *pep440::Version::parse("1.0");
  return f;
}

std::string why(const std::vector<finder::File>& files, bool allow_yanked = false, bool check_tags = true) {
  std::vector<const finder::File*> list;
  for (const auto& f : files) list.push_back(&f);
  return why_unusable(list, make_target({}), allow_yanked, check_tags);
}

TEST(WhyUnusable, OnlyASourceDistribution) {
  EXPECT_EQ(why({sdist("x-1.0.tar.gz")}), "only a source distribution (vwheel installs wheels from indexes)");
  // A `*-variants.json` beside it changes nothing.
  auto json = sdist("x-1.0-variants.json");
  EXPECT_EQ(why({json, sdist("x-1.0.zip")}), "only a source distribution (vwheel installs wheels from indexes)");
}

TEST(WhyUnusable, RequiresPythonNamesTheSpecifierAndTheTargetsPython) {
  auto w = wheel("x-1.0-py3-none-any.whl");
  w.requires_python = ">=3.13";
  auto s = sdist("x-1.0.tar.gz");
  s.requires_python = ">=3.13";
  EXPECT_EQ(why({w, s}), "Requires-Python >=3.13 excludes Python 3.12.1 (the target's)");
  // Different values are each named once; one that admits the target makes it no reason.
  auto old = wheel("x-1.0-cp27-cp27m-manylinux1_x86_64.whl");
  old.requires_python = "<3";
  EXPECT_EQ(why({w, old, w}), "Requires-Python >=3.13 / <3 excludes Python 3.12.1 (the target's)");
  w.requires_python = ">=3.8";
  EXPECT_EQ(why({w, s}), "");
  // Past Requires-Python, only the sdist is left.
  s.requires_python.reset();
  w.requires_python = ">=3.13";
  EXPECT_EQ(why({w, s}), "only a source distribution (vwheel installs wheels from indexes)");
}

TEST(WhyUnusable, YankedWithTheIndexsReasonUnlessPinned) {
  auto w = wheel("x-1.0-py3-none-any.whl");
  w.yanked = "";
  auto s = sdist("x-1.0.tar.gz");
  s.yanked = "broken build";
  EXPECT_EQ(why({w, s}), "yanked (broken build); a yanked version is installed only when pinned with ==");
  EXPECT_EQ(why({w}), "yanked; a yanked version is installed only when pinned with ==");
  // Pinned (`==`), yanked files count: the wheel fits.
  EXPECT_EQ(why({w, s}, true), "");
  // One file not yanked: the next check decides.
  EXPECT_EQ(why({w, sdist("x-1.0.zip")}), "only a source distribution (vwheel installs wheels from indexes)");
}

TEST(WhyUnusable, TagsOfTheFilesAndTheTargetsBest) {
  const auto win = wheel("x-1.0-cp312-cp312-win_amd64.whl");
  const auto mac = wheel("x-1.0-cp312-cp312-macosx_11_0_arm64.whl");
  EXPECT_EQ(why({win, mac, win}),
            "no wheel for the target's tags: the wheels are cp312-cp312-win_amd64, cp312-cp312-macosx_11_0_arm64; "
            "the target's best tag is cp312-cp312-manylinux_2_36_x86_64");
  // Compressed tag sets stay as the file names write them; past five, a count.
  std::vector<finder::File> many;
  for (const auto* p : {"win32", "win_amd64", "win_arm64", "macosx_11_0_arm64", "macosx_10_9_x86_64", "linux_armv7l"}) {
    many.push_back(wheel(std::string("x-1.0-cp311.cp312-abi3-") + p + ".whl"));
  }
  EXPECT_EQ(why(many),
            "no wheel for the target's tags: the wheels are cp311.cp312-abi3-win32, cp311.cp312-abi3-win_amd64, "
            "cp311.cp312-abi3-win_arm64, cp311.cp312-abi3-macosx_11_0_arm64, 2 more; the target's best tag is "
            "cp312-cp312-manylinux_2_36_x86_64");
  // A universal lock has no tags to check; a wheel for the tags is no reason either.
  EXPECT_EQ(why({win}, false, false), "");
  EXPECT_EQ(why({win, wheel("x-1.0-py3-none-any.whl")}), "");
  // Variant wheels that fit the tags: the variant choice says why (not this).
  EXPECT_EQ(why({wheel("x-1.0-py3-none-any-cu128.whl")}), "");
}

}  // namespace
}  // namespace vwheel::plan::detail
