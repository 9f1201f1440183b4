// PEP 440 specifiers and specifier sets. The matrices give, for every specifier, whether each
// version of kVersions is contained ('1') or not ('0'), with the default pre-release handling
// and with prereleases=true; they were produced with packaging 23.0 (one deliberate difference
// is marked).

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "vwheel/pep440/specifier.hpp"

namespace {

using vwheel::pep440::match_specifier;
using vwheel::pep440::Operator;
using vwheel::pep440::Specifier;
using vwheel::pep440::SpecifierSet;
using vwheel::pep440::Version;

const char* const kVersions[] = {"0.9",       "1.0.dev1",    "1.0a1", "1.0rc1",      "1.0",      "1.0.0",  "1.0+local",
                                 "1.0.post1", "1.0.post1+l", "1.0.1", "1.1.dev1",    "1.1a1",    "1.1",    "1.1.post1",
                                 "1.2",       "1.4.5",       "1.5",   "2.0",         "2.0.dev0", "2.0rc1", "2.0.post1",
                                 "2.1",       "1!1.0",       "1!2.0", "3.0+ubuntu.1"};
constexpr std::size_t kNumVersions = std::size(kVersions);

struct SpecCase {
  const char* spec;
  const char* by_default;
  const char* with_prereleases;
};

const SpecCase kSpecifiers[] = {
    {"==1.0", "0000111000000000000000000", "0000111000000000000000000"},
    {"==1.0.0", "0000111000000000000000000", "0000111000000000000000000"},
    {"==1", "0000111000000000000000000", "0000111000000000000000000"},
    {"==1.0+local", "0000001000000000000000000", "0000001000000000000000000"},
    {"==1.0+other", "0000000000000000000000000", "0000000000000000000000000"},
    {"!=1.0", "1000000111001111110011111", "1111000111111111111111111"},
    {"==1.*", "0000111111001111100000000", "0111111111111111100000000"},
    {"==1.0.*", "0000111111000000000000000", "0111111111000000000000000"},
    {"==1.1.*", "0000000000001100000000000", "0000000000111100000000000"},
    {"!=1.1.*", "1000111111000011110011111", "1111111111000011111111111"},
    {"==2.0rc1", "0000000000000000000100000", "0000000000000000000100000"},
    {"==1!1.0", "0000000000000000000000100", "0000000000000000000000100"},
    {"==1!1.*", "0000000000000000000000100", "0000000000000000000000100"},
    // packaging 23 also matches 1!1.0 and 1!2.0 here (it ignores the epoch in wildcard matching);
    // PEP 440 compares the epoch, so they do not match.
    {"==0.*", "1000000000000000000000000", "1000000000000000000000000"},
    {"<1.1", "1000111111000000000000000", "1111111111000000000000000"},
    {"<=1.1", "1000111111001000000000000", "1111111111111000000000000"},
    {">1.0", "0000000001001111110011111", "0000000001111111111111111"},
    {">=1.0", "0000111111001111110011111", "0000111111111111111111111"},
    {">1.0.post1", "0000000001001111110011111", "0000000001111111111111111"},
    {">1.0.dev1", "0000110001001111110011111", "0011110001111111111111111"},
    {"<2.0", "1000111111001111100000000", "1111111111111111100000000"},
    {"<2.0rc1", "1000111111001111100000000", "1111111111111111101000000"},
    {"<2.0.dev0", "1000111111001111100000000", "1111111111111111100000000"},
    {">=2.0rc1", "0000000000000000010111111", "0000000000000000010111111"},
    {"<=2.0rc1", "1111111111111111101100000", "1111111111111111101100000"},
    {"~=1.0", "0000111111001111100000000", "0000111111111111100000000"},
    {"~=1.0.0", "0000111111000000000000000", "0000111111000000000000000"},
    {"~=1.1", "0000000000001111100000000", "0000000000001111100000000"},
    {"~=2.0", "0000000000000000010011000", "0000000000000000010011000"},
    {"~=1.0rc1", "0001111111111111100000000", "0001111111111111100000000"},
    {"~=1.4.5", "0000000000000001000000000", "0000000000000001000000000"},
    {"~=1!1.0", "0000000000000000000000100", "0000000000000000000000100"},
    {"===1.0", "0000100000000000000000000", "0000100000000000000000000"},
    {"===1.0.0", "0000010000000000000000000", "0000010000000000000000000"},
    {"===1.0+local", "0000001000000000000000000", "0000001000000000000000000"},
    {">=1.0a1", "0011111111111111111111111", "0011111111111111111111111"},
    {"!=1.0.post1", "1000111001001111110011111", "1111111001111111111111111"},
    {"== 1.0", "0000111000000000000000000", "0000111000000000000000000"},
    {"~= 1.1", "0000000000001111100000000", "0000000000001111100000000"},
    {">=v1.0", "0000111111001111110011111", "0000111111111111111111111"},
    {"==1.0.post1", "0000000110000000000000000", "0000000110000000000000000"},
};

struct SetCase {
  const char* text;
  const char* normalized;
  const char* by_default;
  const char* with_prereleases;
  const char* without_prereleases;
};

const SetCase kSets[] = {
    {"", "", "1000111111001111110011111", "1111111111111111111111111", "1000111111001111110011111"},
    {">=1.0,<2.0", "<2.0,>=1.0", "0000111111001111100000000", "0000111111111111100000000", "0000111111001111100000000"},
    {">=1.0,!=1.1.*", "!=1.1.*,>=1.0", "0000111111000011110011111", "0000111111000011111111111",
     "0000111111000011110011111"},
    {">=1.0rc1,<2", "<2,>=1.0rc1", "0001111111111111100000000", "0001111111111111100000000",
     "0000111111001111100000000"},
    {"~=1.0,!=1.0.post1", "!=1.0.post1,~=1.0", "0000111001001111100000000", "0000111001111111100000000",
     "0000111001001111100000000"},
    {"==1.*,>=1.0.1", "==1.*,>=1.0.1", "0000000001001111100000000", "0000000001111111100000000",
     "0000000001001111100000000"},
    {">=1.0a1,<1.1", "<1.1,>=1.0a1", "0011111111000000000000000", "0011111111000000000000000",
     "0000111111000000000000000"},
    {"!=1.0", "!=1.0", "1000000111001111110011111", "1111000111111111111111111", "1000000111001111110011111"},
    {"<2 , >=1.0 ,", "<2,>=1.0", "0000111111001111100000000", "0000111111111111100000000", "0000111111001111100000000"},
    {"==1.0,==1.0.0", "==1.0", "0000111000000000000000000", "0000111000000000000000000", "0000111000000000000000000"},
};

const char* const kInvalidSpecifiers[] = {
    "<=1.0+local", "",        "1.0",       "=1.0",      "==",          "~=1",    "~=1.*",  ">=1.*",
    "<1.0+local",  ">1.0+l",  "==1.0.*.1", "==1.0a1.*", "=== foo bar", "==foo",  ">=1.0,", "!=1.0+a.*",
    "~=1.0+l",     "==1.0 1", "=<1.0",     ">>1",       "==1.0.dev.*", "==1.0;", "=== a)", "~=1.0.*",
};

TEST(Pep440Specifier, ContainsMatrix) {
  for (const auto& c : kSpecifiers) {
    auto spec = Specifier::parse(c.spec);
    ASSERT_TRUE(spec.has_value()) << c.spec << ": " << spec.error().message;
    ASSERT_EQ(std::string_view(c.by_default).size(), kNumVersions);
    for (std::size_t i = 0; i < kNumVersions; ++i) {
      const auto v = *Version::parse(kVersions[i]);
      EXPECT_EQ(spec->contains(v), c.by_default[i] == '1') << c.spec << " contains " << kVersions[i];
      EXPECT_EQ(spec->contains(v, true), c.with_prereleases[i] == '1')
          << c.spec << " contains " << kVersions[i] << " (prereleases)";
      EXPECT_EQ(spec->contains(std::string_view(kVersions[i])), c.by_default[i] == '1')
          << c.spec << " contains string " << kVersions[i];
    }
  }
}

TEST(Pep440SpecifierSet, ContainsMatrix) {
  for (const auto& c : kSets) {
    auto set = SpecifierSet::parse(c.text);
    ASSERT_TRUE(set.has_value()) << c.text << ": " << set.error().message;
    EXPECT_EQ(set->to_string(), c.normalized) << c.text;
    for (std::size_t i = 0; i < kNumVersions; ++i) {
      const auto v = *Version::parse(kVersions[i]);
      EXPECT_EQ(set->contains(v), c.by_default[i] == '1') << "'" << c.text << "' contains " << kVersions[i];
      EXPECT_EQ(set->contains(v, true), c.with_prereleases[i] == '1') << "'" << c.text << "' contains " << kVersions[i];
      EXPECT_EQ(set->contains(v, false), c.without_prereleases[i] == '1')
          << "'" << c.text << "' contains " << kVersions[i];
    }
  }
}

TEST(Pep440Specifier, RejectsInvalidSpecifiers) {
  for (const char* text : kInvalidSpecifiers) {
    auto spec = Specifier::parse(text);
    EXPECT_FALSE(spec.has_value()) << "accepted '" << text << "' as " << (spec ? spec->to_string() : "");
    if (!spec) {
      EXPECT_NE(spec.error().message.find(std::string("`") + text + "`"), std::string::npos) << spec.error().message;
    }
  }
}

TEST(Pep440Specifier, ErrorsExplainTheProblem) {
  auto message = [](std::string_view text) { return Specifier::parse(text).error().message; };
  EXPECT_NE(message("~=1").find("at least two release numbers"), std::string::npos) << message("~=1");
  EXPECT_NE(message(">=1.*").find("wildcard"), std::string::npos) << message(">=1.*");
  EXPECT_NE(message("<1.0+local").find("local version"), std::string::npos) << message("<1.0+local");
  EXPECT_NE(message("==foo").find("not a valid PEP 440 version"), std::string::npos) << message("==foo");
  EXPECT_NE(message("1.0").find("operator"), std::string::npos) << message("1.0");
}

TEST(Pep440Specifier, Accessors) {
  auto s = *Specifier::parse("  ==  1.2.*  ");
  EXPECT_EQ(s.op(), Operator::equal);
  EXPECT_TRUE(s.is_wildcard());
  EXPECT_EQ(s.version_text(), "1.2.*");
  ASSERT_TRUE(s.version().has_value());
  EXPECT_EQ(s.version()->to_string(), "1.2");
  EXPECT_EQ(s.to_string(), "==1.2.*");

  auto arbitrary = *Specifier::parse("===foobar");
  EXPECT_EQ(arbitrary.op(), Operator::arbitrary);
  EXPECT_FALSE(arbitrary.version().has_value());
  EXPECT_TRUE(arbitrary.contains(std::string_view("FooBar")));
  EXPECT_FALSE(arbitrary.contains(std::string_view("foobar2")));
  EXPECT_FALSE(arbitrary.contains(*Version::parse("1.0")));

  EXPECT_EQ(to_string(Operator::compatible), "~=");
  EXPECT_EQ(to_string(Operator::arbitrary), "===");
  EXPECT_EQ(to_string(Operator::not_equal), "!=");
}

TEST(Pep440Specifier, ImpliedPrereleases) {
  const std::pair<const char*, bool> cases[] = {
      {">=1.0", false},   {">=1.0.dev1", true}, {"==1.0rc1", true}, {"<=2.0b1", true},
      {"~=1.0a1", true},  {"===1.0a1", true},   {"<2.0a1", false},  {">1.0a1", false},
      {"!=1.0a1", false}, {"==1.0.*", false},   {"===foo", false},
  };
  for (const auto& [text, expected] : cases) EXPECT_EQ(Specifier::parse(text)->prereleases(), expected) << text;
  EXPECT_FALSE(SpecifierSet().prereleases().has_value());
  EXPECT_EQ(SpecifierSet::parse(">=1.0,<2.0b1")->prereleases(), std::optional<bool>(false));
  EXPECT_EQ(SpecifierSet::parse(">=1.0b1,<2.0")->prereleases(), std::optional<bool>(true));
}

TEST(Pep440Specifier, InvalidVersionStringsOnlyMatchArbitraryEquality) {
  EXPECT_FALSE(Specifier::parse(">=1.0")->contains(std::string_view("not a version")));
  EXPECT_FALSE(Specifier::parse("!=1.0")->contains(std::string_view("not-a-version")));
  EXPECT_TRUE(Specifier::parse("===not-a-version")->contains(std::string_view("not-a-version")));
  EXPECT_FALSE(SpecifierSet().contains(std::string_view("nope")));
  EXPECT_TRUE(SpecifierSet::parse("===nope")->contains(std::string_view("nope")));
}

TEST(Pep440Specifier, EqualityIgnoresTrailingZerosExceptForCompatible) {
  EXPECT_EQ(*Specifier::parse("==1.0"), *Specifier::parse("== 1.0.0"));
  EXPECT_EQ(*Specifier::parse(">=v1.0"), *Specifier::parse(">=1"));
  EXPECT_FALSE(*Specifier::parse("==1.0") == *Specifier::parse("==1.0.1"));
  EXPECT_FALSE(*Specifier::parse("==1.0") == *Specifier::parse("!=1.0"));
  EXPECT_FALSE(*Specifier::parse("~=1.0") == *Specifier::parse("~=1.0.0"));
  EXPECT_FALSE(*Specifier::parse("==1.*") == *Specifier::parse("==1.0.*"));
}

TEST(Pep440SpecifierSet, ParsesAndPrints) {
  EXPECT_TRUE(SpecifierSet::parse("")->empty());
  EXPECT_TRUE(SpecifierSet::parse(" , ,")->empty());
  auto set = *SpecifierSet::parse(">=1.0, !=1.3.*, <2");
  EXPECT_EQ(set.size(), 3U);
  EXPECT_EQ(set.to_string(), "!=1.3.*,<2,>=1.0");
  EXPECT_EQ(*SpecifierSet::parse(set.to_string()), set);

  auto bad = SpecifierSet::parse(">=1.0, =<2");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("`=<2`"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("`>=1.0, =<2`"), std::string::npos) << bad.error().message;
}

TEST(Pep440SpecifierSet, Merge) {
  auto a = *SpecifierSet::parse(">=1.0");
  a.merge(*SpecifierSet::parse("<2,>=1.0.0"));
  EXPECT_EQ(a.to_string(), "<2,>=1.0");
  EXPECT_TRUE(a.contains(*Version::parse("1.5")));
  EXPECT_FALSE(a.contains(*Version::parse("2.0")));
}

TEST(Pep440Specifier, HugeVersionNumbers) {
  auto spec = *Specifier::parse(">=18446744073709551616");
  EXPECT_TRUE(spec.contains(*Version::parse("18446744073709551617")));
  EXPECT_FALSE(spec.contains(*Version::parse("18446744073709551615")));
  EXPECT_TRUE(Specifier::parse("==99999999999999999999.*")->contains(*Version::parse("99999999999999999999.5")));
}

TEST(Pep440Specifier, MatchSpecifierPrefix) {
  const std::pair<const char*, std::size_t> cases[] = {
      {">=1.0", 5},  {">=1.0,<2", 5}, {"==1.0.*;", 7},      {"== 1.0 ; x", 6},  {"===foo bar", 6},
      {"===a)b", 4}, {"~=1", 0},      {"~=1.0", 5},         {">=1.0+local", 5}, {"==1.0+local)", 11},
      {"name", 0},   {"", 0},         {">=1.0alpha1x", 11}, {"!=1.0.*.1", 7},   {"<1.0.post1.dev2 ", 15},
  };
  for (const auto& [text, length] : cases) EXPECT_EQ(match_specifier(text), length) << text;
}

}  // namespace
