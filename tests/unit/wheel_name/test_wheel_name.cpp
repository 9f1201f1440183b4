// Wheel file names (PEP 825 grammar), including the conformance vectors of
// ../shared/vectors/wheel_names.json (variantlib's parse). PEP 825 governs where they differ; the
// cases where our result differs from the vector's are listed in kPep825Differences below.

#include <gtest/gtest.h>

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "shared_data.hpp"
#include "vwheel/wheel_name/wheel_name.hpp"

namespace {

using vwheel::wheel_name::BuildTag;
using vwheel::wheel_name::parse_wheel_name;
using vwheel::wheel_name::Tag;
using vwheel::wheel_name::WheelName;

WheelName parse_ok(std::string_view filename) {
  auto w = parse_wheel_name(filename);
  EXPECT_TRUE(w.has_value()) << filename << ": " << (w ? "" : w.error().message);
  return w ? *w : WheelName{};
}

std::string parse_error(std::string_view filename) {
  auto w = parse_wheel_name(filename);
  EXPECT_FALSE(w.has_value()) << "accepted " << filename;
  return w ? std::string() : w.error().message;
}

// Where PEP 825 (and our parser) disagrees with variantlib's regex in wheel_names.json:
//  - `pkg-1.0-py3-none-any-abcdefghijklmnopq.whl`: variantlib caps labels at 16 characters (the
//    PEP 817 rule); PEP 825 labels have no length limit, so this is a valid variant wheel.
//  - `pkg--py3-none-any-x.whl`: variantlib's regex allows an empty version; a wheel file name
//    needs a version, so we reject it.
// `pkg-1.0-2-none-any-x.whl` is NOT a difference: with six parts the third decides, and `2`
// cannot be a python tag (PEP 825: python tags must not start with a digit), so it is the build
// tag of a non-variant wheel with python tag `none`, abi tag `any`, platform tag `x` - the
// same reading variantlib gives. (PEP 825 differs from variantlib for python tags starting with
// a digit elsewhere, e.g. `pkg-1.0-2-none-any.whl` or `pkg-1.0-1-2x-none-any-foo.whl`, which
// variantlib accepts and PEP 825 rejects; see PythonTagMustNotStartWithADigit.)
const std::map<std::string, bool> kPep825Differences = {
    {"pkg-1.0-py3-none-any-abcdefghijklmnopq.whl", true},
    {"pkg--py3-none-any-x.whl", false},
};

TEST(WheelName, ConformanceVectors) {
  VWHEEL_REQUIRE_SHARED("vectors/wheel_names.json");
  const auto data = nlohmann::json::parse(vwheel::testing::read_file(shared_path));
  const auto& cases = data.at("cases");
  ASSERT_GE(cases.size(), 20U);
  std::size_t checked = 0;
  for (const auto& c : cases) {
    const std::string filename = c.at("filename").get<std::string>();
    bool expect_ok = c.at("match").get<bool>();
    const auto diff = kPep825Differences.find(filename);
    if (diff != kPep825Differences.end()) {
      ASSERT_NE(expect_ok, diff->second) << filename << ": no longer a difference; update kPep825Differences";
      expect_ok = diff->second;
    }
    auto w = parse_wheel_name(filename);
    ASSERT_EQ(w.has_value(), expect_ok) << filename << (w ? "" : ": " + w.error().message);
    ++checked;
    if (!w) {
      EXPECT_NE(w.error().message.find(filename), std::string::npos) << w.error().message;
      continue;
    }
    EXPECT_EQ(w->to_string(), filename);
    if (diff != kPep825Differences.end()) continue;  // the vector's groups are variantlib's reading
    const auto& g = c.at("groups");
    EXPECT_EQ(w->name, g.at("name").get<std::string>()) << filename;
    EXPECT_EQ(w->version, g.at("ver").get<std::string>()) << filename;
    EXPECT_EQ(w->namever(), g.at("namever").get<std::string>()) << filename;
    EXPECT_EQ(w->base_name(), g.at("base_wheel_name").get<std::string>()) << filename;
    if (g.at("build").is_null()) {
      EXPECT_FALSE(w->build.has_value()) << filename;
    } else {
      ASSERT_TRUE(w->build.has_value()) << filename;
      EXPECT_EQ(w->build->text, g.at("build").get<std::string>()) << filename;
    }
    EXPECT_EQ(w->python_tag, g.at("pyver").get<std::string>()) << filename;
    EXPECT_EQ(w->abi_tag, g.at("abi").get<std::string>()) << filename;
    EXPECT_EQ(w->platform_tag, g.at("plat").get<std::string>()) << filename;
    if (g.at("variant_label").is_null()) {
      EXPECT_FALSE(w->label.has_value()) << filename;
    } else {
      EXPECT_EQ(w->label, g.at("variant_label").get<std::string>()) << filename;
    }
  }
  EXPECT_EQ(checked, cases.size());
}

TEST(WheelName, Fields) {
  const WheelName w = parse_ok("numpy-2.3.2-cp313-cp313t-manylinux_2_27_x86_64.manylinux_2_28_x86_64-x86_64_v3.whl");
  EXPECT_EQ(w.name, "numpy");
  EXPECT_EQ(w.version, "2.3.2");
  EXPECT_FALSE(w.build.has_value());
  EXPECT_EQ(w.python_tag, "cp313");
  EXPECT_EQ(w.abi_tag, "cp313t");
  EXPECT_EQ(w.platform_tag, "manylinux_2_27_x86_64.manylinux_2_28_x86_64");
  EXPECT_EQ(w.label, "x86_64_v3");
  EXPECT_TRUE(w.is_variant());
  EXPECT_EQ(w.platform_tags(), (std::vector<std::string>{"manylinux_2_27_x86_64", "manylinux_2_28_x86_64"}));
  EXPECT_EQ(w.base_name(), "numpy-2.3.2-cp313-cp313t-manylinux_2_27_x86_64.manylinux_2_28_x86_64");
  EXPECT_EQ(w.namever(), "numpy-2.3.2");
  EXPECT_EQ(w.to_string(), "numpy-2.3.2-cp313-cp313t-manylinux_2_27_x86_64.manylinux_2_28_x86_64-x86_64_v3.whl");
}

TEST(WheelName, CompressedTagSetsExpand) {
  const WheelName w = parse_ok("six-1.16.0-py2.py3-none-any.whl");
  EXPECT_FALSE(w.is_variant());
  EXPECT_EQ(w.python_tags(), (std::vector<std::string>{"py2", "py3"}));
  EXPECT_EQ(w.abi_tags(), (std::vector<std::string>{"none"}));
  EXPECT_EQ(w.tags(), (std::vector<Tag>{{"py2", "none", "any"}, {"py3", "none", "any"}}));
  EXPECT_EQ(w.tags()[1].to_string(), "py3-none-any");
  const WheelName m = parse_ok("x-1-cp38.cp39-abi3.none-linux_x86_64.linux_aarch64.whl");
  EXPECT_EQ(m.tags().size(), 8U);
}

TEST(WheelName, SixPartsDecidedByTheThirdPart) {
  const WheelName build = parse_ok("pkg-1.0-2-py3-none-any.whl");
  ASSERT_TRUE(build.build.has_value());
  EXPECT_EQ(build.build->text, "2");
  EXPECT_FALSE(build.is_variant());
  EXPECT_EQ(build.python_tag, "py3");

  const WheelName variant = parse_ok("pkg-1.0-py3-none-any-2.whl");  // labels may start with a digit
  EXPECT_FALSE(variant.build.has_value());
  EXPECT_EQ(variant.label, "2");
  EXPECT_EQ(variant.platform_tag, "any");

  const WheelName odd = parse_ok("pkg-1.0-2-none-any-x.whl");
  ASSERT_TRUE(odd.build.has_value());
  EXPECT_EQ(odd.build->text, "2");
  EXPECT_EQ(odd.python_tag, "none");
  EXPECT_EQ(odd.abi_tag, "any");
  EXPECT_EQ(odd.platform_tag, "x");
  EXPECT_FALSE(odd.is_variant());

  const WheelName seven = parse_ok("numpy-2.3.2-1-cp313-cp313t-musllinux_1_2_x86_64-x86_64_v3.whl");
  EXPECT_EQ(seven.build->text, "1");
  EXPECT_EQ(seven.label, "x86_64_v3");
  EXPECT_EQ(seven.base_name(), "numpy-2.3.2-1-cp313-cp313t-musllinux_1_2_x86_64");
}

TEST(WheelName, PythonTagMustNotStartWithADigit) {
  // Accepted by variantlib's regex, rejected by PEP 825.
  EXPECT_NE(parse_error("pkg-1.0-2-none-any.whl").find("python tag `2` must not start with a digit"),
            std::string::npos);
  EXPECT_NE(parse_error("pkg-1.0-1-2x-none-any-foo.whl").find("python tag `2x`"), std::string::npos);
  EXPECT_NE(parse_error("pkg-1.0-1-2x-none-any.whl").find("python tag `2x`"), std::string::npos);
  EXPECT_NE(parse_error("pkg-1.0-py3.3x-none-any.whl").find("python tag `3x`"), std::string::npos);
}

TEST(WheelName, LabelsHaveNoLengthLimit) {
  const std::string label(100, 'a');
  const WheelName w = parse_ok("pkg-1.0-py3-none-any-" + label + ".whl");
  EXPECT_EQ(w.label, label);
}

TEST(WheelName, Errors) {
  const std::pair<const char*, const char*> cases[] = {
      {"pkg-1.0-py3-none-any.zip", "expected the extension `.whl`"},
      {"pkg-1.0-py3-none-any-x1.WHL", "expected the extension `.whl`"},
      {"pkg-1.0.whl", "found 2"},
      {"pkg-1.0-py3-none.whl", "found 4"},
      {"a-b-c-d-e-f-g-h.whl", "found 8"},
      {"a-b-c-d-e-f-g.whl", "build tag `c` must start with a digit"},
      {"pkg-1.0-py3-none-any-ABC.whl", "invalid variant label `ABC`"},
      {"pkg-1.0-py3-none-any-.whl", "invalid variant label ``"},
      {"pkg-1.0-py3-none-any-x-y.whl", "build tag `py3` must start with a digit"},
      {"pkg 1-1.0-py3-none-any.whl", "unexpected character ' ' at position 4"},
      {"pkg--py3-none-any-x.whl", "empty version"},
      {"-1.0-py3-none-any.whl", "empty distribution name"},
      {"pkg-1.0--none-any.whl", "empty python tag"},
      {"pkg-1.0--py3-none-any.whl", "empty python tag"},
      {"pkg-1.0--py3-none-any-x.whl", "build tag `` must start with a digit"},
      {"pkg-1.0-py3--any.whl", "empty abi tag"},
      {"pkg-1.0-py3-none-.whl", "empty platform tag"},
      {"pkg-1.0-py2..py3-none-any.whl", "invalid python tag `py2..py3`"},
      {"pkg-1.0-py3-none-any.linux+x.whl", "invalid platform tag `any.linux+x`"},
      {"pkg+x-1.0-py3-none-any.whl", "invalid distribution name `pkg+x`"},
      {"dist/pkg-1.0-py3-none-any.whl", "unexpected character '/'"},
      {".whl", "found 1"},
      {"", "expected the extension `.whl`"},
      {"pkg-1.0-py3-none-any\n.whl", "unexpected character '\\n'"},
  };
  for (const auto& [filename, needle] : cases) {
    const std::string message = parse_error(filename);
    EXPECT_NE(message.find(needle), std::string::npos) << filename << " -> " << message;
    std::string quoted = std::string("`") + filename + "`";
    if (const auto nl = quoted.find('\n'); nl != std::string::npos) quoted.replace(nl, 1, "\\n");
    EXPECT_NE(message.find(quoted), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(WheelName, BuildTagOrdering) {
  auto tag = [](const char* text) { return BuildTag{text}; };
  EXPECT_LT(tag("1"), tag("2"));
  EXPECT_LT(tag("2"), tag("10"));
  EXPECT_LT(tag("1"), tag("1a"));
  EXPECT_LT(tag("1a"), tag("1b"));
  EXPECT_EQ(tag("01"), tag("1"));
  EXPECT_LT(tag("99999999999999999999999"), tag("100000000000000000000000"));
  EXPECT_EQ(tag("12abc").number(), "12");
  EXPECT_EQ(tag("12abc").suffix(), "abc");
}

TEST(WheelName, RoundTrip) {
  for (const char* name : {"pkg-1.0-py3-none-any.whl", "Pkg.X-1.0-1x-py3-none-any-a.b.whl",
                           "torch-2.13.0-cp313-cp313-linux_x86_64-cuda12.6.whl", "pkg-1.0-py3-none-any-null.whl",
                           "pkg-1.0_legacy.version-py3-none-any.whl"}) {
    const WheelName w = parse_ok(name);
    EXPECT_EQ(w.to_string(), name);
    EXPECT_EQ(parse_ok(w.to_string()), w);
  }
}

}  // namespace
