#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "shared_data.hpp"
#include "vwheel/variant/label.hpp"
#include "vwheel/variant/property.hpp"

using namespace vwheel::variant;

TEST(Property, ParsesCanonicalAndSpacedForms) {
  for (const char* text : {"a::b::c", "a :: b :: c", "  a::b::c  ", "a\t::\tb::c", "a\n::b::c", "a\xc2\xa0::b::c",
                           "a::b::c\xe2\x80\x83", "a ::b ::c", "a::b::c\n"}) {
    auto p = parse_property(text);
    ASSERT_TRUE(p) << text;
    EXPECT_EQ(p->to_string(), "a :: b :: c") << text;
  }
}

TEST(Property, RejectsMalformed) {
  for (const char* text : {"a::b", "a::b::c::d", "::b::c", "a::::c", "a::b::", "A::b::c", "a::B::c", "a::b::C",
                           "a-b::c::d", "a.b::c::d", "a::b.c::d", "a::b::c d", "a :b::c", "a: :b::c", "", "   ",
                           "\xc3\xa4::b::c", "a::b::\xc2\xb2"}) {
    auto p = parse_property(text);
    EXPECT_FALSE(p) << text;
    if (!p) {
      EXPECT_NE(p.error().message.find("invalid variant property"), std::string::npos);
    }
  }
}

TEST(Property, ValuesMayContainDots) {
  auto p = parse_property("nvidia :: cuda_version_lower_bound :: 12.8");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->ns, "nvidia");
  EXPECT_EQ(p->feature, "cuda_version_lower_bound");
  EXPECT_EQ(p->value, "12.8");
  EXPECT_EQ(p->feature_string(), "nvidia :: cuda_version_lower_bound");
}

TEST(Property, ParsesFeatures) {
  EXPECT_TRUE(parse_feature("a::b"));
  EXPECT_TRUE(parse_feature(" a :: b "));
  EXPECT_FALSE(parse_feature("a::b::c"));
  EXPECT_FALSE(parse_feature("a::B"));
}

TEST(Property, MakePropertyNamesTheBadField) {
  auto bad_ns = make_property("a b", "c", "d");
  ASSERT_FALSE(bad_ns);
  EXPECT_NE(bad_ns.error().message.find("namespace `a b`"), std::string::npos);
  auto bad_value = make_property("a", "b", "-");
  ASSERT_FALSE(bad_value);
  EXPECT_NE(bad_value.error().message.find("value `-`"), std::string::npos);
  EXPECT_TRUE(make_property("a", "b", "c.d"));
}

TEST(Property, CharacterClassesOverEveryByte) {
  // The checks use a table indexed by byte: every one of the 256 against the grammar.
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    const bool name = (b >= 'a' && b <= 'z') || (b >= '0' && b <= '9') || b == '_';
    const std::string one(1, c);
    EXPECT_EQ(is_valid_namespace(one), name) << b;
    EXPECT_EQ(is_valid_feature_name("x" + one), name) << b;
    EXPECT_EQ(is_valid_feature_value(one + "1"), name || b == '.') << b;
    EXPECT_EQ(is_valid_label(one), name || b == '.') << b;
  }
  EXPECT_FALSE(is_valid_namespace(""));
  EXPECT_FALSE(is_valid_feature_value(""));
}

TEST(Property, SetNamesTheBadField) {
  auto bad = make_property_set({{"a", "b", "c"}, {"a", "B", "c"}});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("feature name `B`"), std::string::npos) << bad.error().message;
}

TEST(Property, SetIsSortedAndRejectsDuplicates) {
  auto set = make_property_set({{"b", "x", "1"}, {"a", "y", "2"}, {"a", "b", "d"}, {"a", "b", "c"}});
  ASSERT_TRUE(set);
  EXPECT_EQ((*set)[0].to_string(), "a :: b :: c");
  EXPECT_EQ((*set)[1].to_string(), "a :: b :: d");
  EXPECT_EQ((*set)[3].to_string(), "b :: x :: 1");
  auto dup = make_property_set({{"a", "b", "c"}, {"a", "b", "c"}});
  ASSERT_FALSE(dup);
  EXPECT_NE(dup.error().message.find("a :: b :: c"), std::string::npos);
}

TEST(Label, KnownHashes) {
  auto label = [](std::vector<Property> props) { return make_label(*make_property_set(std::move(props))).value(); };
  EXPECT_EQ(label({{"a", "b", "c"}}), "01a9783a");
  EXPECT_EQ(label({{"d", "e", "f"}}), "41665eee");
  EXPECT_EQ(label({{"a", "b", "c"}, {"d", "e", "f"}}), "eb9a66a7");
  EXPECT_EQ(label({{"a", "b", "c"}, {"d", "e", "f"}, {"a", "c", "b"}}), "1e9328d5");
  EXPECT_EQ(label({{"installable_plugin", "feat1", "val1c"}}), "60567bd9");
  EXPECT_EQ(label({{"installable_plugin", "feat1", "val1c"}, {"installable_plugin", "feat2", "val2b"}}), "5d8be4b9");
  EXPECT_EQ(label({{"ns1", "f1", "p1"}, {"ns1", "f2", "p2"}, {"ns2", "f1", "p1"}}), "67fcaf38");
  EXPECT_EQ(label({}), "null");
  EXPECT_EQ(variant_hash({}), "e3b0c442");
}

TEST(Label, CustomLabels) {
  const PropertySet one{{"a", "b", "c"}};
  EXPECT_EQ(make_label(one, "x86_64_v3").value(), "x86_64_v3");
  EXPECT_EQ(make_label(one, "..").value(), "..");
  EXPECT_EQ(make_label(one, "1234567890abcdefg").value(), "1234567890abcdefg");  // PEP 825: no length limit
  for (const char* bad : {"", "Foo", "foo-bar", "foo/bar", " foo", "foo\n", "NULL", "caf\xc3\xa9"}) {
    auto r = make_label(one, std::string(bad));
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message.find("invalid variant label"), std::string::npos);
  }
  EXPECT_FALSE(make_label(one, "null"));
  EXPECT_EQ(make_label({}, "null").value(), "null");
  EXPECT_FALSE(make_label({}, "foo"));
  EXPECT_FALSE(make_label({}, ""));
}

TEST(LabelVectors, EveryHashLabelCase) {
  VWHEEL_REQUIRE_SHARED("vectors/hash_labels.json");
  const auto doc = nlohmann::json::parse(vwheel::testing::read_file(shared_path));
  std::size_t checked = 0;
  for (const auto& c : doc.at("cases")) {
    std::vector<Property> props;
    for (const auto& text : c.at("properties")) {
      auto p = parse_property(text.get<std::string>());
      ASSERT_TRUE(p) << text;
      props.push_back(*p);
    }
    auto set = make_property_set(std::move(props));
    ASSERT_TRUE(set);
    EXPECT_EQ(canonical_text(*set), c.at("hashed_text").get<std::string>());
    EXPECT_EQ(make_label(*set).value(), c.at("label").get<std::string>());
    EXPECT_EQ(variant_hash(*set), c.at("hexdigest").get<std::string>());
    ++checked;
  }
  EXPECT_EQ(checked, doc.at("cases").size());
  EXPECT_GE(checked, 300U);
}

// The value a reference error message quotes (`Value `x` must ...`).
std::string quoted_in_reference(const std::string& error) {
  const auto open = error.find('`');
  const auto close = open == std::string::npos ? std::string::npos : error.find('`', open + 1);
  return close == std::string::npos ? std::string() : error.substr(open + 1, close - open - 1);
}

TEST(LabelVectors, InvalidJsonLabelCases) {
  VWHEEL_REQUIRE_SHARED("vectors/invalid.json");
  const auto doc = nlohmann::json::parse(vwheel::testing::read_file(shared_path));
  std::size_t accepted = 0;
  std::size_t rejected = 0;
  for (const auto& c : doc.at("label")) {
    const bool null_variant = c.at("vdesc").get<std::string>() == "null";
    const PropertySet props = null_variant ? PropertySet{} : PropertySet{{"a", "b", "c"}};
    std::optional<std::string> custom;
    if (!c.at("label").is_null()) custom = c.at("label").get<std::string>();
    auto r = make_label(props, custom);
    bool expect_ok = c.at("ok").get<bool>();
    // PEP 825 lifts the reference's 16-character limit.
    if (custom && custom->size() > 16 && is_valid_label(*custom)) expect_ok = true;
    ASSERT_EQ(r.has_value(), expect_ok) << c.dump();
    if (r) {
      ++accepted;
      if (c.contains("result") && custom && custom->size() <= 16) {
        EXPECT_EQ(*r, c.at("result").get<std::string>());
      }
      continue;
    }
    ++rejected;
    // The message names the refused label (as given: `foo\n` is echoed with its newline) and says why.
    ASSERT_TRUE(custom.has_value()) << c.dump();
    const std::string& m = r.error().message;
    EXPECT_EQ(m.rfind("invalid variant label `" + *custom + "`: ", 0), 0U) << m;
    if (null_variant) {
      EXPECT_NE(m.find("a variant without properties must use the label `null`"), std::string::npos) << m;
    } else if (*custom == "null") {
      EXPECT_NE(m.find("reserved for the variant without properties"), std::string::npos) << m;
    } else {
      EXPECT_NE(m.find("expected one or more of [0-9a-z_.]"), std::string::npos) << m;
    }
  }
  // Every case of the file was seen: 28 in all, 12 accepted by the reference plus the
  // 17-character label PEP 825 allows.
  EXPECT_EQ(accepted + rejected, doc.at("label").size());
  EXPECT_EQ(accepted, 13U);
  EXPECT_EQ(rejected, 15U);
}

TEST(PropertyVectors, InvalidJsonPropertyCases) {
  VWHEEL_REQUIRE_SHARED("vectors/invalid.json");
  const auto doc = nlohmann::json::parse(vwheel::testing::read_file(shared_path));
  std::size_t rejected = 0;
  std::size_t accepted = 0;
  for (const auto& c : doc.at("property_str")) {
    const auto input = c.at("input").get<std::string>();
    auto r = parse_property(input);
    ASSERT_EQ(r.has_value(), c.at("ok").get<bool>()) << c.dump();
    if (r) {
      ++accepted;
      EXPECT_EQ(r->to_string(), c.at("result").get<std::string>());
    } else {
      ++rejected;
      EXPECT_EQ(r.error().message, "invalid variant property `" + input +
                                       "`: expected `<namespace> :: <feature> :: <value>` "
                                       "(namespace and feature of [a-z0-9_], value of [a-z0-9_.])");
    }
  }
  for (const auto& c : doc.at("feature_str")) {
    const auto input = c.at("input").get<std::string>();
    auto r = parse_feature(input);
    ASSERT_EQ(r.has_value(), c.at("ok").get<bool>()) << c.dump();
    if (r) {
      ++accepted;
    } else {
      ++rejected;
      EXPECT_EQ(r.error().message,
                "invalid variant feature `" + input + "`: expected `<namespace> :: <feature>` (both of [a-z0-9_])");
    }
  }
  std::size_t type_errors = 0;
  for (const auto& c : doc.at("property_fields")) {
    const auto& in = c.at("input");
    if (!in[2].is_string()) {  // a type error, handled by the JSON readers
      ++type_errors;
      continue;
    }
    auto r = make_property(in[0].get<std::string>(), in[1].get<std::string>(), in[2].get<std::string>());
    ASSERT_EQ(r.has_value(), c.at("ok").get<bool>()) << c.dump();
    if (r) {
      ++accepted;
      EXPECT_EQ(r->to_string(), c.at("result").get<std::string>());
      continue;
    }
    ++rejected;
    // The same offending field as the reference names, with what that field allows.
    const auto bad = quoted_in_reference(c.at("error").get<std::string>());
    const std::string what = bad == in[0].get<std::string>()   ? "namespace"
                             : bad == in[1].get<std::string>() ? "feature name"
                                                               : "feature value";
    const std::string allowed = what == "feature value" ? "[a-z0-9_.]" : "[a-z0-9_]";
    EXPECT_EQ(r.error().message, "invalid variant " + what + " `" + bad + "`: expected one or more of " + allowed)
        << c.dump();
  }
  // Every case was seen: property_str 31 (11 accepted), feature_str 5 (3 accepted), property_fields
  // 11 (2 accepted, 1 type error).
  EXPECT_EQ(accepted + rejected + type_errors,
            doc.at("property_str").size() + doc.at("feature_str").size() + doc.at("property_fields").size());
  EXPECT_EQ(accepted, 11U + 3U + 2U);
  EXPECT_EQ(rejected, 20U + 2U + 8U);
  EXPECT_EQ(type_errors, 1U);
}
