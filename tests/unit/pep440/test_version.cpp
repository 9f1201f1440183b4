// PEP 440 versions: normalization, validity, accessors and ordering. The tables were produced
// with packaging 23.0 (`str(Version(s))`, `Version(a) < Version(b)`) and are the ones of
// packaging's own test suite, extended with separator, case and huge-number cases.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "vwheel/pep440/version.hpp"

namespace {

using vwheel::pep440::is_valid_version;
using vwheel::pep440::normalized_or_verbatim;
using vwheel::pep440::Number;
using vwheel::pep440::PreReleaseKind;
using vwheel::pep440::Version;

Version V(std::string_view s) {
  auto v = Version::parse(s);
  EXPECT_TRUE(v.has_value()) << s << ": " << (v ? "" : v.error().message);
  return v ? *v : Version();
}

struct NormCase {
  const char* input;
  const char* normalized;
};

const NormCase kNormalization[] = {
    {"1.0dev", "1.0.dev0"},
    {"1.0.dev", "1.0.dev0"},
    {"1.0dev1", "1.0.dev1"},
    {"1.0-dev", "1.0.dev0"},
    {"1.0-dev1", "1.0.dev1"},
    {"1.0DEV", "1.0.dev0"},
    {"1.0.DEV", "1.0.dev0"},
    {"1.0DEV1", "1.0.dev1"},
    {"1.0.DEV1", "1.0.dev1"},
    {"1.0-DEV", "1.0.dev0"},
    {"1.0-DEV1", "1.0.dev1"},
    {"1.0_dev1", "1.0.dev1"},
    {"1.0a", "1.0a0"},
    {"1.0.a", "1.0a0"},
    {"1.0.a1", "1.0a1"},
    {"1.0-a", "1.0a0"},
    {"1.0-a1", "1.0a1"},
    {"1.0alpha", "1.0a0"},
    {"1.0.alpha", "1.0a0"},
    {"1.0.alpha1", "1.0a1"},
    {"1.0-alpha", "1.0a0"},
    {"1.0-alpha1", "1.0a1"},
    {"1.0A", "1.0a0"},
    {"1.0.A", "1.0a0"},
    {"1.0.A1", "1.0a1"},
    {"1.0-A", "1.0a0"},
    {"1.0-A1", "1.0a1"},
    {"1.0ALPHA", "1.0a0"},
    {"1.0.ALPHA", "1.0a0"},
    {"1.0.ALPHA1", "1.0a1"},
    {"1.0-ALPHA", "1.0a0"},
    {"1.0-ALPHA1", "1.0a1"},
    {"1.0_a1", "1.0a1"},
    {"1.0b", "1.0b0"},
    {"1.0.b", "1.0b0"},
    {"1.0.b1", "1.0b1"},
    {"1.0-b", "1.0b0"},
    {"1.0-b1", "1.0b1"},
    {"1.0beta", "1.0b0"},
    {"1.0.beta", "1.0b0"},
    {"1.0.beta1", "1.0b1"},
    {"1.0-beta", "1.0b0"},
    {"1.0-beta1", "1.0b1"},
    {"1.0B", "1.0b0"},
    {"1.0.B", "1.0b0"},
    {"1.0.B1", "1.0b1"},
    {"1.0-B", "1.0b0"},
    {"1.0-B1", "1.0b1"},
    {"1.0BETA", "1.0b0"},
    {"1.0.BETA", "1.0b0"},
    {"1.0.BETA1", "1.0b1"},
    {"1.0-BETA", "1.0b0"},
    {"1.0-BETA1", "1.0b1"},
    {"1.0c", "1.0rc0"},
    {"1.0.c", "1.0rc0"},
    {"1.0.c1", "1.0rc1"},
    {"1.0-c", "1.0rc0"},
    {"1.0-c1", "1.0rc1"},
    {"1.0rc", "1.0rc0"},
    {"1.0.rc", "1.0rc0"},
    {"1.0.rc1", "1.0rc1"},
    {"1.0-rc", "1.0rc0"},
    {"1.0-rc1", "1.0rc1"},
    {"1.0C", "1.0rc0"},
    {"1.0.C", "1.0rc0"},
    {"1.0.C1", "1.0rc1"},
    {"1.0-C", "1.0rc0"},
    {"1.0-C1", "1.0rc1"},
    {"1.0RC", "1.0rc0"},
    {"1.0.RC", "1.0rc0"},
    {"1.0.RC1", "1.0rc1"},
    {"1.0-RC", "1.0rc0"},
    {"1.0-RC1", "1.0rc1"},
    {"1.0pre", "1.0rc0"},
    {"1.0preview", "1.0rc0"},
    {"1.0-preview2", "1.0rc2"},
    {"1.0.PRE3", "1.0rc3"},
    {"1.0post", "1.0.post0"},
    {"1.0.post", "1.0.post0"},
    {"1.0post1", "1.0.post1"},
    {"1.0-post", "1.0.post0"},
    {"1.0-post1", "1.0.post1"},
    {"1.0POST", "1.0.post0"},
    {"1.0.POST", "1.0.post0"},
    {"1.0POST1", "1.0.post1"},
    {"1.0.POST1", "1.0.post1"},
    {"1.0-POST", "1.0.post0"},
    {"1.0-POST1", "1.0.post1"},
    {"1.0-5", "1.0.post5"},
    {"1.0r", "1.0.post0"},
    {"1.0rev", "1.0.post0"},
    {"1.0-r4", "1.0.post4"},
    {"1.0.rev5", "1.0.post5"},
    {"1.0_post2", "1.0.post2"},
    {"1.0.post.3", "1.0.post3"},
    {"1.0-post-4", "1.0.post4"},
    {"1.0+AbC", "1.0+abc"},
    {"1.0+abc-123", "1.0+abc.123"},
    {"1.0+abc_123", "1.0+abc.123"},
    {"1.0+ABC.def.1", "1.0+abc.def.1"},
    {"1.0+007", "1.0+7"},
    {"1.0+ubuntu-1", "1.0+ubuntu.1"},
    {"1.0+1.2.3", "1.0+1.2.3"},
    {"1.01", "1.1"},
    {"1.0a05", "1.0a5"},
    {"1.0b07", "1.0b7"},
    {"1.0c056", "1.0rc56"},
    {"1.0rc09", "1.0rc9"},
    {"1.0.post000", "1.0.post0"},
    {"1.1.dev09000", "1.1.dev9000"},
    {"00!1.2", "1.2"},
    {"0100!0.0", "100!0.0"},
    {"1!1.0", "1!1.0"},
    {"v1.0", "1.0"},
    {"V2", "2"},
    {"v1!2.0", "1!2.0"},
    {"1.0a1.post2.dev3", "1.0a1.post2.dev3"},
    {"1.0a.post.dev", "1.0a0.post0.dev0"},
    {"1.0.a-1", "1.0a1"},
    {"1.0a.", "1.0a0"},
    {"1.0a-", "1.0a0"},
    {"1.0a.-1", "1.0a0.post1"},
    {"1.0.dev.1", "1.0.dev1"},
    {"1.0-1.dev2", "1.0.post1.dev2"},
    {"1.0rc1-2", "1.0rc1.post2"},
    {"18446744073709551615.1", "18446744073709551615.1"},
    {"18446744073709551616", "18446744073709551616"},
    {"99999999999999999999999.0", "99999999999999999999999.0"},
    {"1.0.post99999999999999999999999", "1.0.post99999999999999999999999"},
    {"1.0+99999999999999999999999", "1.0+99999999999999999999999"},
    {"   v1.0\t\n", "1.0"},
    {" 1.0 ", "1.0"},
    {"\t1.0a1", "1.0a1"},
    {"1.0-dev-", "1.0.dev0"},
};

const char* const kInvalid[] = {
    "french toast",
    "1.0+a+",
    "1.0++",
    "1.0+_foobar",
    "1.0+foo&asd",
    "1.0+1+1",
    "",
    " ",
    "1.0-",
    "1.0+",
    "1.0+a-",
    "1!",
    "!1",
    "1.",
    ".1",
    "1..0",
    "1.0.",
    "1.0a1a1",
    "1.0dev1dev2",
    "1.0post1post2",
    "1.0-1-1",
    "1.0 a1",
    "v",
    "vv1.0",
    "1.0+a..b",
    "1.0+a-+b",
    "a1.0",
    "1.0.*",
    "1,0",
    "1.0~1",
    "1!2!3",
    "-1.0",
    "1.0+ab c",
    "\u0661.\u0660",
};

// Strictly ascending (packaging's test_version.py VERSIONS list, with and without an epoch).
const char* const kAscending[] = {
    "1.0.dev456",
    "1.0a1",
    "1.0a2.dev456",
    "1.0a12.dev456",
    "1.0a12",
    "1.0b1.dev456",
    "1.0b2",
    "1.0b2.post345.dev456",
    "1.0b2.post345",
    "1.0b2-346",
    "1.0c1.dev456",
    "1.0c1",
    "1.0rc2",
    "1.0c3",
    "1.0",
    "1.0.post456.dev34",
    "1.0.post456",
    "1.1.dev1",
    "1.2+123abc",
    "1.2+123abc456",
    "1.2+abc",
    "1.2+abc123",
    "1.2+abc123def",
    "1.2+1234.abc",
    "1.2+123456",
    "1.2.r32+123456",
    "1.2.rev33+123456",
    "1!1.0.dev456",
    "1!1.0a1",
    "1!1.0a2.dev456",
    "1!1.0a12.dev456",
    "1!1.0a12",
    "1!1.0b1.dev456",
    "1!1.0b2",
    "1!1.0b2.post345.dev456",
    "1!1.0b2.post345",
    "1!1.0b2-346",
    "1!1.0c1.dev456",
    "1!1.0c1",
    "1!1.0rc2",
    "1!1.0c3",
    "1!1.0",
    "1!1.0.post456.dev34",
    "1!1.0.post456",
    "1!1.1.dev1",
    "1!1.2+123abc",
    "1!1.2+123abc456",
    "1!1.2+abc",
    "1!1.2+abc123",
    "1!1.2+abc123def",
    "1!1.2+1234.abc",
    "1!1.2+123456",
    "1!1.2.r32+123456",
    "1!1.2.rev33+123456",
};

TEST(Pep440Version, NormalizesLikePackaging) {
  for (const auto& c : kNormalization) {
    auto v = Version::parse(c.input);
    ASSERT_TRUE(v.has_value()) << c.input << ": " << v.error().message;
    EXPECT_EQ(v->to_string(), c.normalized) << "input: " << c.input;
    // The normalized form is a fixed point and denotes the same version.
    auto again = Version::parse(v->to_string());
    ASSERT_TRUE(again.has_value());
    EXPECT_EQ(again->to_string(), c.normalized);
    EXPECT_EQ(*again, *v);
    EXPECT_TRUE(is_valid_version(c.input));
    EXPECT_EQ(normalized_or_verbatim(c.input), c.normalized) << "input: " << c.input;
  }
}

TEST(Pep440Version, RejectsInvalidVersions) {
  for (const char* s : kInvalid) {
    auto v = Version::parse(s);
    EXPECT_FALSE(v.has_value()) << "accepted: '" << s << "' as " << (v ? v->to_string() : "");
    EXPECT_FALSE(is_valid_version(s)) << s;
    EXPECT_EQ(normalized_or_verbatim(s), s);
  }
}

TEST(Pep440Version, RejectsEmbeddedNul) {
  EXPECT_FALSE(Version::parse(std::string_view("1.0\0", 4)).has_value());
  EXPECT_FALSE(Version::parse(std::string_view("\0"
                                               "1.0",
                                               4))
                   .has_value());
}

TEST(Pep440Version, ErrorIsOneLineEvenForMultiLineInput) {
  auto v = Version::parse("1.0\nfoo\x01");
  ASSERT_FALSE(v.has_value());
  EXPECT_EQ(v.error().message.find('\n'), std::string::npos) << v.error().message;
  EXPECT_NE(v.error().message.find("`1.0\\nfoo\\x01`"), std::string::npos) << v.error().message;
}

TEST(Pep440Version, ErrorNamesTheText) {
  auto v = Version::parse("french toast");
  ASSERT_FALSE(v.has_value());
  EXPECT_NE(v.error().message.find("`french toast`"), std::string::npos) << v.error().message;
  EXPECT_EQ(v.error().message.find('\n'), std::string::npos);
}

TEST(Pep440Version, AscendingListIsStrictlyOrdered) {
  const std::size_t n = std::size(kAscending);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      const Version a = V(kAscending[i]);
      const Version b = V(kAscending[j]);
      EXPECT_EQ(a < b, i < j) << kAscending[i] << " vs " << kAscending[j];
      EXPECT_EQ(a == b, i == j) << kAscending[i] << " vs " << kAscending[j];
      EXPECT_EQ(a > b, i > j) << kAscending[i] << " vs " << kAscending[j];
    }
  }
}

TEST(Pep440Version, SortingAShuffledListRestoresTheOrder) {
  std::vector<Version> versions;
  for (const char* s : kAscending) versions.push_back(V(s));
  std::vector<Version> shuffled = versions;
  std::mt19937 rng(440);
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  std::sort(shuffled.begin(), shuffled.end());
  for (std::size_t i = 0; i < versions.size(); ++i) EXPECT_EQ(shuffled[i].to_string(), versions[i].to_string());
}

TEST(Pep440Version, EqualVersions) {
  const std::pair<const char*, const char*> equal[] = {
      {"1.0", "1.0.0"},       {"1.0", "1.0.0.0"}, {"1.0+abc", "1.0.0+abc"}, {"0!1.0", "1.0"},
      {"1.0.post0", "1.0-0"}, {"1.0a0", "1.0a"},  {"1.0+1", "1.0+01"},      {"1.0+ABC", "1.0+abc"},
      {"1.0+a.1", "1.0+a-1"}, {"v1", "1"},        {"1.0RC1", "1.0c1"},      {"1.0.dev", "1.0-dev0"},
  };
  for (const auto& [a, b] : equal) {
    EXPECT_EQ(V(a), V(b)) << a << " == " << b;
    EXPECT_EQ(V(a) <=> V(b), std::strong_ordering::equal) << a << " <=> " << b;
  }
  // Equal versions can still print differently: trailing zeros are kept.
  EXPECT_EQ(V("1.0").to_string(), "1.0");
  EXPECT_EQ(V("1.0.0").to_string(), "1.0.0");
}

TEST(Pep440Version, LessThanPairs) {
  const std::pair<const char*, const char*> less[] = {
      {"1.0.dev0", "1.0a0"},
      {"1.0a0", "1.0a0.post0"},
      {"1.0rc1", "1.0"},
      {"1.0", "1.0+local"},
      {"1.0+a", "1.0+1"},  // alphanumeric local parts sort before numeric ones
      {"1.0+abc", "1.0+abc.1"},
      {"1.0+1", "1.0+2"},
      {"1.0+9", "1.0+10"},  // numerically, not lexicographically
      {"1.0+a", "1.0+b"},
      {"1.0.post1.dev1", "1.0.post1"},
      {"1.0.dev1", "1.0a1.dev1"},
      {"1.0a1.dev1", "1.0a1"},
      {"1.0", "1.0.post0.dev0"},
      {"1.1", "1.1.0.1"},
      {"1.9", "1.10"},
      {"9", "10"},
      {"1.0", "1!0.1"},
      {"1.0a1", "1.0b1"},
      {"1.0b1", "1.0rc1"},
      {"1.0.post1", "1.1.dev0"},
      {"1.0rc1.post1", "1.0"},
      {"1.0.dev9", "1.0.dev10"},
      {"18446744073709551615", "18446744073709551616"},
      {"99999999999999999999", "100000000000000000000"},
      {"1.0+18446744073709551616", "1.0+100000000000000000000"},
      {"1.0.post18446744073709551615", "1.0.post18446744073709551616"},
  };
  for (const auto& [a, b] : less) {
    EXPECT_LT(V(a), V(b)) << a << " < " << b;
    EXPECT_GT(V(b), V(a)) << b << " > " << a;
    EXPECT_NE(V(a), V(b));
  }
}

TEST(Pep440Version, Accessors) {
  const Version v = V("1!2.3.4rc5.post6.dev7+Ubuntu-1.20");
  EXPECT_EQ(v.epoch(), 1U);
  ASSERT_EQ(v.release().size(), 3U);
  EXPECT_EQ(v.release()[0], 2U);
  EXPECT_EQ(v.release()[1], 3U);
  EXPECT_EQ(v.release()[2], 4U);
  ASSERT_TRUE(v.pre().has_value());
  EXPECT_EQ(v.pre()->kind, PreReleaseKind::rc);
  EXPECT_EQ(v.pre()->number, 5U);
  EXPECT_EQ(v.post(), Number(6));
  EXPECT_EQ(v.dev(), Number(7));
  EXPECT_EQ(v.local_string(), "ubuntu.1.20");
  ASSERT_EQ(v.local().size(), 3U);
  EXPECT_EQ(std::get<std::string>(v.local()[0]), "ubuntu");
  EXPECT_EQ(std::get<Number>(v.local()[2]), 20U);
  EXPECT_TRUE(v.has_local());
  EXPECT_TRUE(v.is_prerelease());
  EXPECT_TRUE(v.is_postrelease());
  EXPECT_TRUE(v.is_devrelease());
  EXPECT_EQ(v.major(), 2U);
  EXPECT_EQ(v.minor(), 3U);
  EXPECT_EQ(v.micro(), 4U);
  EXPECT_EQ(v.public_version(), "1!2.3.4rc5.post6.dev7");
  EXPECT_EQ(v.base_version(), "1!2.3.4");
  EXPECT_EQ(v.to_string(), "1!2.3.4rc5.post6.dev7+ubuntu.1.20");
  EXPECT_EQ(v.without_local().to_string(), "1!2.3.4rc5.post6.dev7");
  EXPECT_EQ(v.base().to_string(), "1!2.3.4");

  const Version plain = V("7");
  EXPECT_EQ(plain.epoch(), 0U);
  EXPECT_EQ(plain.major(), 7U);
  EXPECT_EQ(plain.minor(), 0U);
  EXPECT_EQ(plain.micro(), 0U);
  EXPECT_FALSE(plain.pre().has_value());
  EXPECT_FALSE(plain.post().has_value());
  EXPECT_FALSE(plain.dev().has_value());
  EXPECT_FALSE(plain.has_local());
  EXPECT_EQ(plain.local_string(), "");
  EXPECT_FALSE(plain.is_prerelease());
  EXPECT_FALSE(plain.is_postrelease());
  EXPECT_FALSE(plain.is_devrelease());

  EXPECT_TRUE(V("1.0.dev0").is_prerelease());  // dev releases are pre-releases
  EXPECT_FALSE(V("1.0.post1").is_prerelease());
  EXPECT_TRUE(V("1.0a1.post1").is_prerelease());
  EXPECT_EQ(V("1.0a").pre()->kind, PreReleaseKind::alpha);
  EXPECT_EQ(V("1.0beta2").pre()->kind, PreReleaseKind::beta);
  EXPECT_EQ(V("1.0preview").pre()->kind, PreReleaseKind::rc);
  EXPECT_EQ(V("1.0-3").post(), Number(3));
  EXPECT_EQ(V("1.0rev").post(), Number(0));
}

TEST(Pep440Version, DefaultIsZero) {
  const Version v;
  EXPECT_EQ(v.to_string(), "0");
  EXPECT_EQ(v, V("0.0"));
  EXPECT_LT(v, V("0.0.1"));
}

TEST(Pep440Version, HugeNumbersSurvive) {
  const Version v = V("123456789012345678901234567890.1+99999999999999999999999999");
  EXPECT_EQ(v.to_string(), "123456789012345678901234567890.1+99999999999999999999999999");
  EXPECT_FALSE(v.major().to_u64().has_value());
  EXPECT_EQ(v.major().to_string(), "123456789012345678901234567890");
  EXPECT_EQ(v.minor().to_u64(), 1U);
  EXPECT_LT(V("18446744073709551615"), v);
  EXPECT_EQ(V("000000000000000000000000000001"), V("1"));
  EXPECT_EQ(V("00000000000000000000000000000000000123456789012345678901234567890.1"),
            V("123456789012345678901234567890.1"));
}

TEST(Pep440Number, FromDigits) {
  EXPECT_EQ(Number::from_digits("0"), Number(0));
  EXPECT_EQ(Number::from_digits("000"), Number(0));
  EXPECT_EQ(Number::from_digits("0042"), Number(42));
  EXPECT_EQ(Number::from_digits("18446744073709551615")->to_u64(), UINT64_MAX);
  EXPECT_FALSE(Number::from_digits("18446744073709551616")->to_u64().has_value());
  EXPECT_EQ(Number::from_digits("18446744073709551616")->to_string(), "18446744073709551616");
  EXPECT_FALSE(Number::from_digits("").has_value());
  EXPECT_FALSE(Number::from_digits("12a").has_value());
  EXPECT_FALSE(Number::from_digits("-1").has_value());
  EXPECT_LT(*Number::from_digits("18446744073709551616"), *Number::from_digits("18446744073709551617"));
  EXPECT_LT(*Number::from_digits("99999999999999999999"), *Number::from_digits("100000000000000000000"));
  EXPECT_LT(Number(UINT64_MAX), *Number::from_digits("18446744073709551616"));
  EXPECT_TRUE(Number().is_zero());
}

}  // namespace
