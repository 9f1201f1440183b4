#include <algorithm>
#include <filesystem>
#include <random>

#include <unistd.h>

#include <gtest/gtest.h>

#include "vwheel/core/fs.hpp"
#include "vwheel/variant/label.hpp"
#include "vwheel/wheel/index_json.hpp"
#include "vwheel/wheel/record.hpp"
#include "vwheel/wheel/wheel.hpp"

namespace vwheel::wheel {
namespace {
namespace fs = std::filesystem;

class WheelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("vwheel-wheel-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "out");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A wheel with a few members and a correct RECORD; `variant_json` adds one.
  fs::path write_wheel(const std::string& filename, const std::string& variant_json = {}) {
    const std::string di = "pkg-1.0.dist-info";
    std::vector<std::pair<std::string, std::string>> files = {
        {"pkg/__init__.py", "VALUE = 1\n"},
        {"pkg/data.txt", std::string(5000, 'x') + "tail"},
        {di + "/METADATA", "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n"},
        {di + "/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"},
    };
    if (!variant_json.empty()) files.emplace_back(di + "/variant.json", variant_json);
    zip::WritePlan plan;
    std::string record;
    for (auto& [name, data] : files) {
      record += record_line(name, data);
      zip::NewMember m;
      m.name = name;
      m.data = data;
      m.dos_date = (44 << 9) | (5 << 5) | 6;
      plan.members.emplace_back(std::move(m));
    }
    record += di + "/RECORD,,\n";
    zip::NewMember r;
    r.name = di + "/RECORD";
    r.data = record;
    plan.members.emplace_back(std::move(r));
    auto path = dir_ / filename;
    auto ok = zip::write_archive(nullptr, plan, path);
    EXPECT_TRUE(ok) << (ok ? "" : ok.error().message);
    return path;
  }

  static variant::PropertySet props(std::initializer_list<const char*> texts) {
    std::vector<variant::Property> out;
    for (const char* t : texts) out.push_back(*variant::parse_property(t));
    return *variant::make_property_set(std::move(out));
  }

  static variant::VariantMetadata priorities(std::vector<std::string> namespaces) {
    variant::VariantMetadata md;
    md.namespace_priorities = std::move(namespaces);
    return md;
  }

  fs::path dir_;
};

TEST_F(WheelTest, OpenFindsDistInfoAndRecord) {
  auto w = open_wheel(write_wheel("pkg-1.0-py3-none-any.whl"));
  ASSERT_TRUE(w) << w.error().message;
  EXPECT_EQ(w->dist_info, "pkg-1.0.dist-info");
  EXPECT_EQ(w->archive.entries()[w->record_index].name, "pkg-1.0.dist-info/RECORD");
  EXPECT_FALSE(w->variant_json_index);
  auto doc = read_variant_json(*w);
  ASSERT_TRUE(doc);
  EXPECT_FALSE(*doc);
}

TEST_F(WheelTest, MakeVariantCopiesMembersRawAndRecordsVariantJson) {
  const auto input = write_wheel("pkg-1.0-py3-none-any.whl");
  MakeVariantRequest req{input, dir_ / "out", props({"x86_64 :: level :: v3"}), std::nullopt,
                         priorities({"x86_64"}), VariantJsonFormat::Draft003};
  auto made = make_variant(req);
  ASSERT_TRUE(made) << made.error().message;
  EXPECT_EQ(made->label, variant::variant_hash(req.properties));
  EXPECT_EQ(made->output.filename(), "pkg-1.0-py3-none-any-" + made->label + ".whl");

  auto in = zip::Archive::open(input);
  auto out = open_wheel(made->output);
  ASSERT_TRUE(in && out);
  const auto& a = in->entries();
  const auto& b = out->archive.entries();
  ASSERT_EQ(b.size(), a.size() + 1);
  EXPECT_EQ(b[b.size() - 2].name, "pkg-1.0.dist-info/variant.json");
  for (std::size_t i = 0; i + 1 < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(*in->read_raw(a[i]), *out->archive.read_raw(b[i])) << a[i].name;
    EXPECT_EQ(a[i].dos_date, b[i].dos_date);
  }
  auto record = out->archive.read(b.back());
  ASSERT_TRUE(record);
  auto rows = parse_record(*record);
  ASSERT_TRUE(rows);
  auto vj = out->archive.read(b[b.size() - 2]);
  ASSERT_TRUE(vj);
  auto row = std::find_if(rows->begin(), rows->end(), [](const RecordRow& r) { return r.path.ends_with("variant.json"); });
  ASSERT_NE(row, rows->end());
  EXPECT_EQ(row->hash, record_hash(*vj));
  EXPECT_EQ(row->size, std::to_string(vj->size()));
  auto doc = read_variant_json(*out);
  ASSERT_TRUE(doc && *doc);
  EXPECT_EQ((*doc)->metadata.variants.at(made->label), req.properties);

  // ... and back: the same members, RECORD's text as before.
  auto back = unmake_variant(made->output, dir_);
  ASSERT_TRUE(back && *back) << (back ? "" : back.error().message);
  auto restored = zip::Archive::open(**back);
  ASSERT_TRUE(restored);
  ASSERT_EQ(restored->entries().size(), a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(*in->read(a[i]), *restored->read(restored->entries()[i])) << a[i].name;
  }
}

TEST_F(WheelTest, MakeVariantReplacesAnExistingLabel) {
  const std::string old_json =
      R"({"default-priorities": {"namespace": ["x86_64"]}, "variants": {"old": {"x86_64": {"level": ["v2"]}}}})";
  const auto input = write_wheel("pkg-1.0-py3-none-any-old.whl", old_json);
  MakeVariantRequest req{input, dir_ / "out", props({"x86_64 :: level :: v4"}), std::string("new"),
                         priorities({"x86_64"}), VariantJsonFormat::Pep825};
  auto made = make_variant(req);
  ASSERT_TRUE(made) << made.error().message;
  EXPECT_EQ(made->replaced_label, "old");
  auto out = open_wheel(made->output);
  ASSERT_TRUE(out);
  EXPECT_EQ(std::count_if(out->archive.entries().begin(), out->archive.entries().end(),
                          [](const zip::Entry& e) { return e.name.ends_with("variant.json"); }),
            1);
  auto record = out->archive.read(out->archive.entries()[out->record_index]);
  EXPECT_EQ(record->find("sha256=old"), std::string::npos);
}

TEST_F(WheelTest, RefusesUndeclaredNamespaceAndLeavesNothing) {
  const auto input = write_wheel("pkg-1.0-py3-none-any.whl");
  MakeVariantRequest req{input, dir_ / "out", props({"nvidia :: sm_arch :: 90_real"}), std::nullopt,
                         priorities({"x86_64"}), VariantJsonFormat::Draft003};
  auto made = make_variant(req);
  ASSERT_FALSE(made);
  EXPECT_NE(made.error().message.find("nvidia"), std::string::npos) << made.error().message;
  EXPECT_TRUE(fs::is_empty(dir_ / "out"));
}

TEST_F(WheelTest, IndexJsonDoesNotDependOnInputOrderAndReadsLittle) {
  std::vector<fs::path> wheels;
  for (const char* level : {"v1", "v2", "v3", "v4"}) {
    const std::string property = std::string("x86_64 :: level :: ") + level;
    MakeVariantRequest req{write_wheel("pkg-1.0-py3-none-any.whl"), dir_ / "out", props({property.c_str()}), std::string(level), priorities({"x86_64"}),
                           VariantJsonFormat::Pep825};
    auto made = make_variant(req);
    ASSERT_TRUE(made) << made.error().message;
    wheels.push_back(made->output);
  }
  wheels.push_back(dir_ / "pkg-1.0-py3-none-any.whl");
  auto first = build_index_json(wheels);
  ASSERT_TRUE(first) << first.error().message;
  ASSERT_EQ(first->files.size(), 1U);
  EXPECT_EQ(first->files[0].filename, "pkg-1.0-variants.json");
  EXPECT_EQ(first->variant_wheels, 4U);
  EXPECT_EQ(first->notes.size(), 1U);  // the plain wheel
  std::mt19937 rng(825);
  for (int round = 0; round < 5; ++round) {
    std::shuffle(wheels.begin(), wheels.end(), rng);
    auto again = build_index_json(wheels, IndexJsonOptions{std::nullopt, false, 3});
    ASSERT_TRUE(again);
    EXPECT_EQ(again->files[0].text, first->files[0].text);
  }
  // PEP 825 inputs give PEP 825 output.
  EXPECT_NE(first->files[0].text.find("peps/825/v0.1.1.json"), std::string::npos);
}

TEST_F(WheelTest, IndexJsonConflictNamesBothWheels) {
  const auto a = write_wheel("pkg-1.0-py3-none-any-x.whl",
                             R"({"default-priorities": {"namespace": ["a"]}, "variants": {"x": {"a": {"f": ["1"]}}}})");
  fs::create_directories(dir_ / "b");
  const auto b_src = write_wheel("pkg-1.0-cp312-none-any-x.whl",
                                 R"({"default-priorities": {"namespace": ["a"]}, "variants": {"x": {"a": {"f": ["2"]}}}})");
  auto result = build_index_json(std::vector<fs::path>{a, b_src});
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("pkg-1.0-py3-none-any-x.whl"), std::string::npos) << result.error().message;
  EXPECT_NE(result.error().message.find("pkg-1.0-cp312-none-any-x.whl"), std::string::npos) << result.error().message;
}

}  // namespace
}  // namespace vwheel::wheel
