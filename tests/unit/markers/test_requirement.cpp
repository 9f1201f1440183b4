// PEP 508 dependency specifiers. kValid/kInvalid were checked against packaging 23.0
// (`str(Requirement(s))`); one deliberate difference in the printed form: a URL requirement is
// printed `name @ url` (packaging prints `name@ url`), both parse the same.

#include <gtest/gtest.h>

#include <string>

#include "vwheel/markers/requirement.hpp"

namespace {

using vwheel::markers::Environment;
using vwheel::markers::Requirement;

struct ValidCase {
  const char* text;
  const char* normalized;
};

const ValidCase kValid[] = {
    {"name", "name"},
    {"name>=3", "name>=3"},
    {"name >= 3", "name>=3"},
    {"name>=3,<2", "name<2,>=3"},
    {"name (>=3)", "name>=3"},
    {"name ( >=3 , <4 )", "name<4,>=3"},
    {"name[bar]", "name[bar]"},
    {"name[bar,baz]>=2.8.1", "name[bar,baz]>=2.8.1"},
    {"name[ bar , baz ]", "name[bar,baz]"},
    {"name[]", "name"},
    {"name[bar]>=2,<3;python_version<'2.7'", "name[bar]<3,>=2; python_version < \"2.7\""},
    {"name @ http://foo.com", "name @ http://foo.com"},
    {"name @ https://github.com/pypa/packaging/archive/master.zip",
     "name @ https://github.com/pypa/packaging/archive/master.zip"},
    {"name[fred,bar] @ http://foo.com ; python_version=='2.7'",
     "name[bar,fred] @ http://foo.com ; python_version == \"2.7\""},
    {"name @ file:///absolute/path", "name @ file:///absolute/path"},
    {"name; python_version < '3'", "name; python_version < \"3\""},
    {"name>=1.0 ; extra == 'Foo_Bar'", "name>=1.0; extra == \"foo-bar\""},
    {"A.B-C_D", "A.B-C_D"},
    {"foo-bar.baz_1>=1.0", "foo-bar.baz_1>=1.0"},
    {"name===arbitrary", "name===arbitrary"},
    {"name===", "name==="},
    {"name==1.0.*", "name==1.0.*"},
    {"name~=1.4.5a4", "name~=1.4.5a4"},
    {"name!=1.0+local", "name!=1.0+local"},
    {"name<=2.0,>=1.0,", "name<=2.0,>=1.0"},
    {"  name  ", "name"},
    {"name\t>=\t1", "name>=1"},
    {"name ;os_name=='nt'", "name; os_name == \"nt\""},
    {"name>=1.0alpha1", "name>=1.0alpha1"},
    {"name>=1.0preview1", "name>=1.0preview1"},
    {"name[Extra_1,extra-2]", "name[Extra_1,extra-2]"},
    // PEP 825 variant markers
    {"pkg==1.0; 'foo :: bar :: baz' in variant_properties", "pkg==1.0; \"foo :: bar :: baz\" in variant_properties"},
    {"pkg; variant_label == 'cu126'", "pkg; variant_label == \"cu126\""},
    {"pkg ; 'nvidia::sm_arch' in variant_features", "pkg; \"nvidia :: sm_arch\" in variant_features"},
    {"name[b,a,b]", "name[a,b]"},
    {"name @ file://localhost/x.whl", "name @ file://localhost/x.whl"},
    {"name @ https://h/x.whl;python_version>'3'", "name @ https://h/x.whl;python_version>'3'"},
};

const char* const kInvalid[] = {
    "",               // Expected package name at the start of dependency specifier
    "=>2.0",          // Expected package name at the start of dependency specifier
    "name>=",         // Expected end or semicolon (after name and no valid version specifier)
    "name[",          // Expected closing RIGHT_BRACKET
    "name[bar",       // Expected closing RIGHT_BRACKET
    "name[bar baz]",  // Expected comma between extra names
    "name[bar,]",     // Expected extra name after comma
    "name[,bar]",     // Expected closing RIGHT_BRACKET
    "name@",          // Expected URL after @
    "name @ ",        // Expected URL after @
    "name @ foo",     // Invalid URL: foo
    "name @ http://foo.com; python_version<'3'",  // Expected end or semicolon (after URL and whitespace)
    "name>=1.0 ;",                                // Expected a marker variable or quoted string
    "name>=1.0 ; foo == 'bar'",                   // Expected a marker variable or quoted string
    "name>=1.0 ; os_name == 'posix' or",          // Expected a marker variable or quoted string
    "name-",                   // Expected end or semicolon (after name and no valid version specifier)
    "na me",                   // Expected end or semicolon (after name and no valid version specifier)
    "name==1.0.*.1",           // Expected end or semicolon (after version specifier)
    "name===foo bar",          // Expected end or semicolon (after version specifier)
    "name (>=1.0",             // Expected closing RIGHT_PARENTHESIS
    "name >=1.0)",             // Expected end or semicolon (after version specifier)
    "name; os_name",           // Expected marker operator, one of <=, <, !=, ==, >=, >, ~=, ===, in, not in
    "name; os_name = 'a'",     // Expected marker operator, one of <=, <, !=, ==, >=, >, ~=, ===, in, not in
    "name; (os_name == 'a'",   // Expected closing RIGHT_PARENTHESIS
    "name; os_name == 'a' )",  // Expected end of dependency specifier
    "name; os_name == 'a",     // Expected a marker variable or quoted string
    "-name",                   // Expected package name at the start of dependency specifier
    "name; not in 'a'",        // Expected a marker variable or quoted string
    "name; 'a' not 'b'",       // Expected 'in' after 'not'
    "name @ http://x x",       // Expected end or semicolon (after URL and whitespace)
    "name @ file:relative/path",
    "name @ file:/absolute/path",
    "name @ https:///nohost",
    "name; variant_properties == 'a :: b :: c'",
    "name>=1.0 extra",
    "name[a]extra",
};

TEST(Requirement, ParsesAndNormalizesLikePackaging) {
  for (const auto& c : kValid) {
    auto r = Requirement::parse(c.text);
    ASSERT_TRUE(r.has_value()) << c.text << ": " << r.error().message;
    EXPECT_EQ(r->to_string(), c.normalized) << c.text;
    auto again = Requirement::parse(r->to_string());
    ASSERT_TRUE(again.has_value()) << r->to_string() << ": " << again.error().message;
    EXPECT_EQ(*again, *r) << c.text;
    EXPECT_EQ(again->to_string(), c.normalized);
  }
}

TEST(Requirement, RejectsInvalidRequirements) {
  for (const char* text : kInvalid) {
    auto r = Requirement::parse(text);
    EXPECT_FALSE(r.has_value()) << "accepted '" << text << "' as " << (r ? r->to_string() : "");
    if (!r) {
      EXPECT_NE(r.error().message.find(std::string("`") + text + "`"), std::string::npos) << r.error().message;
      EXPECT_NE(r.error().message.find("at column "), std::string::npos) << r.error().message;
    }
  }
}

TEST(Requirement, Fields) {
  auto r = *Requirement::parse("Foo.Bar[security , tests] (>=2.8.1, ==2.8.*) ; python_version < '3.14'");
  EXPECT_EQ(r.name, "Foo.Bar");
  EXPECT_EQ(r.extras, (std::vector<std::string>{"security", "tests"}));
  EXPECT_EQ(r.specifier.to_string(), "==2.8.*,>=2.8.1");
  EXPECT_EQ(r.url, "");
  ASSERT_TRUE(r.marker.has_value());
  EXPECT_EQ(r.marker->to_string(), "python_version < \"3.14\"");

  auto u = *Requirement::parse("pip @ https://github.com/pypa/pip/archive/1.3.1.zip#sha1=da9234ee");
  EXPECT_EQ(u.name, "pip");
  EXPECT_EQ(u.url, "https://github.com/pypa/pip/archive/1.3.1.zip#sha1=da9234ee");
  EXPECT_TRUE(u.specifier.empty());
  EXPECT_FALSE(u.marker.has_value());
}

TEST(Requirement, ErrorsNameThePosition) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "expected a package name at column 1"},
      {"name>=", "expected end or semicolon (after name and no valid version specifier) at column 5"},
      {"name==1.0.*.1", "expected end or semicolon (after version specifier) at column 12"},
      {"name[bar baz]", "expected a comma between extra names at column 10"},
      {"name (>=1.0", "to close the `(` at column 6"},
      {"name>=1.0 ; foo == 'bar'", "unknown marker variable `foo` at column 13"},
      {"name @ foo", "invalid URL `foo`"},
      {"name; os_name == 'a' )", "at column 22"},
  };
  for (const auto& [text, needle] : cases) {
    auto r = Requirement::parse(text);
    ASSERT_FALSE(r.has_value()) << text;
    EXPECT_NE(r.error().message.find(needle), std::string::npos) << text << " -> " << r.error().message;
    EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
  }
}

TEST(Requirement, AppliesTo) {
  Environment env;
  env.variables = {{"python_version", "3.11"}, {"sys_platform", "linux"}};
  env.variant_properties = {"nvidia :: cuda_version_lower_bound :: 12.8"};
  EXPECT_TRUE(*Requirement::parse("a")->applies_to(env));
  EXPECT_TRUE(*Requirement::parse("a; python_version >= '3.8'")->applies_to(env));
  EXPECT_FALSE(*Requirement::parse("a; sys_platform == 'win32'")->applies_to(env));
  EXPECT_TRUE(*Requirement::parse("nvidia-cudnn; 'nvidia :: cuda_version_lower_bound :: 12.8' in variant_properties")
                   ->applies_to(env));
  EXPECT_FALSE(*Requirement::parse("a; 'x' in variant_namespaces")->applies_to(env));
  EXPECT_TRUE(*Requirement::parse("a; extra == 'x'")->applies_to([&] {
    Environment e = env;
    e.variables["extra"] = "X";
    return e;
  }()));
  auto missing = Requirement::parse("a; os_name == 'posix'")->applies_to(env);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message, "marker variable 'os_name' is not defined for the target environment");
}

}  // namespace
