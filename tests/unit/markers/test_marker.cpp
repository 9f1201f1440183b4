// PEP 508 markers and the PEP 825 variant markers. kEvaluation was produced with packaging 23.0
// (`str(Marker(m))` and `Marker(m).evaluate(env)`) against kEnvironment (the marker environment
// of the conformance vectors' generator).

#include <gtest/gtest.h>

#include <string>

#include "vwheel/markers/marker.hpp"

namespace {

using vwheel::markers::Environment;
using vwheel::markers::Marker;
using vwheel::markers::normalize_variant_text;
using vwheel::markers::Variable;
using vwheel::markers::variable_from_name;

Environment make_environment() {
  Environment env;
  env.variables = {
      {"implementation_name", "cpython"},
      {"implementation_version", "3.11.2"},
      {"os_name", "posix"},
      {"platform_machine", "x86_64"},
      {"platform_release", "6.1.0"},
      {"platform_system", "Linux"},
      {"platform_version", "#1 SMP PREEMPT_DYNAMIC"},
      {"python_full_version", "3.11.2"},
      {"platform_python_implementation", "CPython"},
      {"python_version", "3.11"},
      {"sys_platform", "linux"},
  };
  return env;
}

struct EvalCase {
  const char* marker;
  const char* normalized;
  bool expected;
};

const EvalCase kEvaluation[] = {
    {"python_version >= \"3.8\"", "python_version >= \"3.8\"", true},
    {"python_version < \"3.8\"", "python_version < \"3.8\"", false},
    {"python_version == \"3.11\"", "python_version == \"3.11\"", true},
    {"python_version == \"3.11.0\"", "python_version == \"3.11.0\"", true},
    {"python_version != \"3.11\"", "python_version != \"3.11\"", false},
    {"python_version == \"3.*\"", "python_version == \"3.*\"", true},
    {"python_version == \"3.1*\"", "python_version == \"3.1*\"", false},
    {"python_version ~= \"3.10\"", "python_version ~= \"3.10\"", true},
    {"python_version ~= \"3.12\"", "python_version ~= \"3.12\"", false},
    {"python_version > \"3.9\"", "python_version > \"3.9\"", true},
    {"python_version > \"3.11\"", "python_version > \"3.11\"", false},
    {"python_full_version >= \"3.11.2\"", "python_full_version >= \"3.11.2\"", true},
    {"python_full_version < \"3.11.3\"", "python_full_version < \"3.11.3\"", true},
    {"python_full_version === \"3.11.2\"", "python_full_version === \"3.11.2\"", true},
    {"python_full_version === \"3.11\"", "python_full_version === \"3.11\"", false},
    {"\"3.8\" < python_version", "\"3.8\" < python_version", true},
    {"\"3.12\" <= python_version", "\"3.12\" <= python_version", false},
    {"\"3\" in python_version", "\"3\" in python_version", true},
    {"\"3.11\" not in python_version", "\"3.11\" not in python_version", false},
    {"os_name == \"posix\"", "os_name == \"posix\"", true},
    {"os_name == 'nt'", "os_name == \"nt\"", false},
    {"os_name != \"nt\"", "os_name != \"nt\"", true},
    {"os.name == \"posix\"", "os_name == \"posix\"", true},
    {"sys.platform == \"linux\"", "sys_platform == \"linux\"", true},
    {"platform.machine == \"x86_64\"", "platform_machine == \"x86_64\"", true},
    {"python_implementation == \"CPython\"", "platform_python_implementation == \"CPython\"", true},
    {"platform.python_implementation == \"CPython\"", "platform_python_implementation == \"CPython\"", true},
    {"sys_platform == \"linux\" and platform_machine == \"x86_64\"",
     "sys_platform == \"linux\" and platform_machine == \"x86_64\"", true},
    {"sys_platform == \"win32\" or platform_machine == \"x86_64\"",
     "sys_platform == \"win32\" or platform_machine == \"x86_64\"", true},
    {"sys_platform == \"win32\" and platform_machine == \"x86_64\"",
     "sys_platform == \"win32\" and platform_machine == \"x86_64\"", false},
    {"sys_platform == \"win32\" or sys_platform == \"darwin\" or sys_platform == \"linux\"",
     "sys_platform == \"win32\" or sys_platform == \"darwin\" or sys_platform == \"linux\"", true},
    {"sys_platform == \"linux\" and (os_name == \"nt\" or python_version >= \"3\")",
     "sys_platform == \"linux\" and (os_name == \"nt\" or python_version >= \"3\")", true},
    {"(sys_platform == \"linux\" and os_name == \"nt\") or python_version >= \"3\"",
     "(sys_platform == \"linux\" and os_name == \"nt\") or python_version >= \"3\"", true},
    {"sys_platform == \"linux\" and os_name == \"nt\" or python_version >= \"3\"",
     "sys_platform == \"linux\" and os_name == \"nt\" or python_version >= \"3\"", true},
    {"os_name == \"nt\" or python_version >= \"3\" and sys_platform == \"win32\"",
     "os_name == \"nt\" or python_version >= \"3\" and sys_platform == \"win32\"", false},
    {"\"linux\" in sys_platform", "\"linux\" in sys_platform", true},
    {"\"lin\" in sys_platform", "\"lin\" in sys_platform", true},
    {"\"win\" not in sys_platform", "\"win\" not in sys_platform", true},
    {"platform_machine in \"x86_64 aarch64\"", "platform_machine in \"x86_64 aarch64\"", true},
    {"platform_machine not in \"x86_64 aarch64\"", "platform_machine not in \"x86_64 aarch64\"", false},
    {"\"x86\" in platform_machine", "\"x86\" in platform_machine", true},
    {"platform_system < \"M\"", "platform_system < \"M\"", true},
    {"platform_system > \"M\"", "platform_system > \"M\"", false},
    {"platform_system >= \"Linux\"", "platform_system >= \"Linux\"", true},
    {"platform_system <= \"Linu\"", "platform_system <= \"Linu\"", false},
    {"implementation_name == \"cpython\" and implementation_version >= \"3.11\"",
     "implementation_name == \"cpython\" and implementation_version >= \"3.11\"", true},
    {"implementation_version < \"3.11.2\"", "implementation_version < \"3.11.2\"", false},
    {"platform_release >= \"5.0\"", "platform_release >= \"5.0\"", true},
    {"platform_release < \"6.1.0.1\"", "platform_release < \"6.1.0.1\"", true},
    {"extra == \"test\"", "extra == \"test\"", false},
    {"extra != \"test\"", "extra != \"test\"", true},
    {"extra == \"\"", "extra == \"\"", true},
    {"python_version>\"3\"and os_name==\"posix\"", "python_version > \"3\" and os_name == \"posix\"", true},
    {"((os_name == 'posix'))", "os_name == \"posix\"", true},
    {"( os_name == 'posix' and ( python_version < '4' ) )", "os_name == \"posix\" and python_version < \"4\"", true},
    {"platform_version == \"#1 SMP PREEMPT_DYNAMIC\"", "platform_version == \"#1 SMP PREEMPT_DYNAMIC\"", true},
    {"\"SMP\" in platform_version", "\"SMP\" in platform_version", true},
    {"python_version == \"3.11.*\"", "python_version == \"3.11.*\"", true},
    {"python_version != \"3.11.*\"", "python_version != \"3.11.*\"", false},
    {"python_version <= \"3.11\"", "python_version <= \"3.11\"", true},
    {"python_version < \"3.11\"", "python_version < \"3.11\"", false},
    {"python_version >= \"3.11a1\"", "python_version >= \"3.11a1\"", true},
    {"python_version < \"3.12a1\"", "python_version < \"3.12a1\"", true},
};

struct ExtraCase {
  const char* marker;
  const char* normalized;
  const char* extra;
  bool expected;
};

const ExtraCase kExtra[] = {
    {"extra == \"test\"", "extra == \"test\"", "test", true},
    {"extra == \"Test_Foo\"", "extra == \"test-foo\"", "test-foo", true},
    {"extra == \"test.foo\"", "extra == \"test-foo\"", "Test__Foo", true},
    {"extra == \"a\"", "extra == \"a\"", "b", false},
    {"\"security\" == extra", "\"security\" == extra", "Security", true},
    {"extra != \"a\"", "extra != \"a\"", "a", false},
    {"extra == \"a\" or extra == \"b\"", "extra == \"a\" or extra == \"b\"", "b", true},
};

bool eval(std::string_view marker, const Environment& env) {
  auto m = Marker::parse(marker);
  EXPECT_TRUE(m.has_value()) << marker << ": " << (m ? "" : m.error().message);
  if (!m) return false;
  auto r = m->evaluate(env);
  EXPECT_TRUE(r.has_value()) << marker << ": " << (r ? "" : r.error().message);
  return r.value_or(false);
}

std::string parse_error(std::string_view marker) {
  auto m = Marker::parse(marker);
  EXPECT_FALSE(m.has_value()) << "accepted: " << marker << " as " << (m ? m->to_string() : "");
  return m ? std::string() : m.error().message;
}

std::string eval_error(std::string_view marker, const Environment& env) {
  auto m = Marker::parse(marker);
  EXPECT_TRUE(m.has_value()) << marker;
  if (!m) return {};
  auto r = m->evaluate(env);
  EXPECT_FALSE(r.has_value()) << "evaluated: " << marker;
  return r ? std::string() : r.error().message;
}

TEST(Marker, EvaluatesLikePackaging) {
  const Environment env = make_environment();
  for (const auto& c : kEvaluation) {
    auto m = Marker::parse(c.marker);
    ASSERT_TRUE(m.has_value()) << c.marker << ": " << m.error().message;
    EXPECT_EQ(m->to_string(), c.normalized) << c.marker;
    auto r = m->evaluate(env);
    ASSERT_TRUE(r.has_value()) << c.marker << ": " << r.error().message;
    EXPECT_EQ(*r, c.expected) << c.marker;
    // Round trip: the normalized text parses to the same marker.
    auto again = Marker::parse(m->to_string());
    ASSERT_TRUE(again.has_value()) << m->to_string();
    EXPECT_EQ(again->to_string(), m->to_string());
    EXPECT_EQ(*again->evaluate(env), c.expected) << m->to_string();
  }
}

TEST(Marker, ExtraIsComparedAfterNameNormalization) {
  Environment env = make_environment();
  for (const auto& c : kExtra) {
    env.variables["extra"] = c.extra;
    auto m = Marker::parse(c.marker);
    ASSERT_TRUE(m.has_value()) << c.marker;
    EXPECT_EQ(m->to_string(), c.normalized) << c.marker;
    EXPECT_EQ(*m->evaluate(env), c.expected) << c.marker << " with extra=" << c.extra;
  }
}

TEST(Marker, ExtraDefaultsToEmpty) {
  const Environment env = make_environment();  // no "extra"
  EXPECT_TRUE(eval("extra == ''", env));
  EXPECT_FALSE(eval("extra == 'test'", env));
}

TEST(Marker, MissingVariableIsAnError) {
  Environment env = make_environment();
  env.variables.erase("platform_release");
  EXPECT_EQ(eval_error("platform_release >= '5'", env),
            "marker variable 'platform_release' is not defined for the target environment");
  EXPECT_EQ(eval_error("'5' <= platform_release", env),
            "marker variable 'platform_release' is not defined for the target environment");
  // Short-circuit: the undefined variable is not needed here.
  EXPECT_TRUE(eval("os_name == 'posix' or platform_release >= '5'", env));
  EXPECT_FALSE(eval("os_name == 'nt' and platform_release >= '5'", env));
}

TEST(Marker, NonVersionValuesFallBackToStringComparison) {
  Environment env = make_environment();
  env.variables["platform_release"] = "5.10.0-1057-oem";  // not a PEP 440 version
  EXPECT_TRUE(eval("platform_release >= '5.0'", env));    // '5.10...' >= '5.0' as strings
  EXPECT_FALSE(eval("platform_release == '5.10'", env));
  EXPECT_TRUE(eval("platform_release == '5.10.0-1057-oem'", env));
  EXPECT_TRUE(eval("os_name == 'posix'", env));
  EXPECT_FALSE(eval("os_name == '1.0'", env));  // rhs is a version, lhs is not: strings differ
  EXPECT_TRUE(eval("os_name != '1.0'", env));
  EXPECT_TRUE(eval("platform_release === '5.10.0-1057-oem'", env));
  // `~=` has no string meaning.
  EXPECT_NE(eval_error("platform_release ~= '5.10'", env).find("~="), std::string::npos);
  EXPECT_NE(eval_error("os_name ~= 'posix'", env).find("~="), std::string::npos);
}

TEST(Marker, OnlyVersionLikeVariablesCompareAsVersions) {
  Environment env = make_environment();
  env.variables["platform_version"] = "10.0.19041";
  env.variables["os_name"] = "1.0.0";
  EXPECT_FALSE(eval("platform_version >= '10.0.9'", env));  // strings: '1' < '9'
  EXPECT_FALSE(eval("os_name == '1.0'", env));
  EXPECT_TRUE(eval("os_name == '1.0.0'", env));
  env.variables["python_full_version"] = "3.13.0rc1";
  EXPECT_TRUE(eval("python_full_version >= '3.13.0a1'", env));
  EXPECT_FALSE(eval("python_full_version >= '3.13'", env));
  EXPECT_TRUE(eval("python_full_version < '3.14'", env));   // pre-releases are admitted ...
  EXPECT_FALSE(eval("python_full_version < '3.13'", env));  // ... but `<V` excludes V's own (packaging agrees)
  EXPECT_NE(eval_error("os_name ~= '1.0'", env).find("~="), std::string::npos);
  Environment labelled = make_environment();
  labelled.variant_label = "1.0.0";
  EXPECT_FALSE(eval("variant_label == '1.0'", labelled));  // labels are identifiers, not versions
  EXPECT_TRUE(eval("variant_label == '1.0.0'", labelled));
  EXPECT_TRUE(eval("variant_label > '1.0'", labelled));
}

TEST(Marker, VariablesOnBothSides) {
  Environment env = make_environment();
  EXPECT_TRUE(eval("python_version <= python_full_version", env));
  EXPECT_TRUE(eval("python_version in python_full_version", env));
  EXPECT_FALSE(eval("os_name == sys_platform", env));
  EXPECT_TRUE(eval("'3.11' == python_version", env));
  EXPECT_TRUE(eval("'3.11.0' == python_version", env));  // version semantics with the variable on the right
}

TEST(Marker, ParseErrorsNameTheTextAndColumn) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "expected a marker variable or quoted string at column 1"},
      {"os_name", "expected a marker operator"},
      {"os_name = 'a'", "expected a marker operator"},
      {"os_name == ", "expected a marker variable or quoted string at column 12"},
      {"os_name == 'a", "unterminated string at column 12"},
      {"foo == 'a'", "unknown marker variable `foo` at column 1"},
      {"os_name == 'a' and", "expected a marker variable or quoted string"},
      {"(os_name == 'a'", "expected `)` to close the `(` at column 1"},
      {"os_name == 'a')", "expected `and`, `or` or the end of the marker at column 15"},
      {"os_name == 'a' xor os_name == 'b'", "at column 16"},
      {"'a' not'b'", "expected whitespace after `not`"},
      {"'a' not 'b'", "expected `in` after `not` at column 9"},
      {"'a' not  inn 'b'", "expected `in` after `not`"},
      {"'a' notin 'b'", "expected a marker operator"},
      {"os_name == 'a' andos_name == 'b'", "at column 16"},
      {"python_version >= \"3\" \n", "at column 23"},
  };
  for (const auto& [text, needle] : cases) {
    const std::string message = parse_error(text);
    EXPECT_NE(message.find(needle), std::string::npos) << text << " -> " << message;
    std::string quoted = std::string("`") + text + "`";
    if (const auto nl = quoted.find('\n'); nl != std::string::npos) quoted.replace(nl, 1, "\\n");
    EXPECT_NE(message.find(quoted), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(Marker, DeepNestingIsRejectedNotACrash) {
  std::string deep(10000, '(');
  deep += "os_name == 'a'";
  deep += std::string(10000, ')');
  EXPECT_NE(parse_error(deep).find("nested deeper"), std::string::npos);
  std::string ok(30, '(');
  ok += "os_name == 'posix'";
  ok += std::string(30, ')');
  EXPECT_TRUE(eval(ok, make_environment()));
}

TEST(Marker, ToStringKeepsMeaningfulParentheses) {
  const std::pair<const char*, const char*> cases[] = {
      {"(os_name == 'a' or os_name == 'b') and python_version > '3'",
       "(os_name == \"a\" or os_name == \"b\") and python_version > \"3\""},
      {"((os_name == 'a' or os_name == 'b')) and python_version > '3'",
       "(os_name == \"a\" or os_name == \"b\") and python_version > \"3\""},
      {"(os_name == 'a' or os_name == 'b')", "os_name == \"a\" or os_name == \"b\""},
      {"os_name == 'a' or (os_name == 'b' and python_version > '3')",
       "os_name == \"a\" or (os_name == \"b\" and python_version > \"3\")"},
      {"os_name=='a\"b'", "os_name == 'a\"b'"},
      {"os_name == \"it's\"", "os_name == \"it's\""},
  };
  for (const auto& [text, expected] : cases) {
    auto m = Marker::parse(text);
    ASSERT_TRUE(m.has_value()) << text;
    EXPECT_EQ(m->to_string(), expected);
    EXPECT_EQ(Marker::parse(m->to_string())->to_string(), expected);
  }
  // `and` binds tighter than `or`, and the printed form preserves that.
  Environment env = make_environment();
  EXPECT_TRUE(eval("os_name == 'posix' or os_name == 'x' and python_version > '4'", env));
  EXPECT_FALSE(eval("(os_name == 'posix' or os_name == 'x') and python_version > '4'", env));
}

TEST(Marker, VariableNames) {
  EXPECT_EQ(variable_from_name("python_version"), Variable::python_version);
  EXPECT_EQ(variable_from_name("os.name"), Variable::os_name);
  EXPECT_EQ(variable_from_name("python_implementation"), Variable::platform_python_implementation);
  EXPECT_EQ(variable_from_name("variant_properties"), Variable::variant_properties);
  EXPECT_FALSE(variable_from_name("Python_Version").has_value());
  EXPECT_EQ(variable_from_name("dependency_groups"), Variable::dependency_groups);  // PEP 751
  EXPECT_EQ(variable_from_name("extras"), Variable::extras);
  EXPECT_EQ(to_string(Variable::platform_python_implementation), "platform_python_implementation");
  auto m = *Marker::parse("os_name == 'a' and (python_version > '3' or os_name == 'b') and 'x' in variant_features");
  EXPECT_EQ(m.variables(),
            (std::vector<Variable>{Variable::os_name, Variable::python_version, Variable::variant_features}));
  EXPECT_TRUE(m.uses_variant_variables());
  EXPECT_FALSE(Marker::parse("os_name == 'a'")->uses_variant_variables());
}

TEST(Marker, LockFileSetsOfExtrasAndGroups) {
  // PEP 751: `extras` and `dependency_groups` are sets of normalized names, tested with `in`.
  Environment env = make_environment();
  env.extras = {"foo-bar"};
  env.dependency_groups = {"dev"};
  EXPECT_TRUE(eval("'Foo_Bar' in extras", env));
  EXPECT_FALSE(eval("'gpu' in extras", env));
  EXPECT_TRUE(eval("'dev' in dependency_groups and 'docs' not in dependency_groups", env));
  EXPECT_FALSE(Marker::parse("'x' in extras")->uses_variant_variables());
  auto bad = Marker::parse("extras == 'x'");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("`extras` is a set"), std::string::npos) << bad.error().message;
}

// ---- PEP 825 variant markers ----

Environment variant_environment() {
  Environment env = make_environment();
  env.variant_label = "foobar";
  env.variant_properties = {"foo :: bar :: baz", "nvidia :: sm_arch :: 120_real"};
  env.variant_features = {"foo :: bar", "nvidia :: sm_arch"};
  env.variant_namespaces = {"foo", "nvidia"};
  return env;
}

Environment non_variant_environment() { return make_environment(); }

Environment null_variant_environment() {
  Environment env = make_environment();
  env.variant_label = "null";
  return env;
}

TEST(VariantMarkers, Pep825Examples) {
  const Environment variant = variant_environment();
  const Environment plain = non_variant_environment();
  const Environment null = null_variant_environment();
  // dep1: satisfied by the variant "foobar"
  EXPECT_TRUE(eval("variant_label == \"foobar\"", variant));
  EXPECT_FALSE(eval("variant_label == \"foobar\"", plain));
  // dep2: any wheel other than the null variant (including the non-variant wheel)
  EXPECT_TRUE(eval("variant_label != \"null\"", variant));
  EXPECT_TRUE(eval("variant_label != \"null\"", plain));
  EXPECT_FALSE(eval("variant_label != \"null\"", null));
  // dep3: the non-variant wheel
  EXPECT_TRUE(eval("variant_label == \"\"", plain));
  EXPECT_FALSE(eval("variant_label == \"\"", null));
  EXPECT_FALSE(eval("variant_label == \"\"", variant));
  // dep4..dep7
  EXPECT_TRUE(eval("\"foo\" in variant_namespaces", variant));
  EXPECT_TRUE(eval("\"foo :: bar\" in variant_features", variant));
  EXPECT_TRUE(eval("\"foo :: bar :: baz\" in variant_properties", variant));
  EXPECT_TRUE(eval("\"foo::bar::baz\" in variant_properties", variant));
  for (const Environment* env : {&plain, &null}) {
    EXPECT_FALSE(eval("\"foo\" in variant_namespaces", *env));
    EXPECT_FALSE(eval("\"foo :: bar\" in variant_features", *env));
    EXPECT_FALSE(eval("\"foo :: bar :: baz\" in variant_properties", *env));
    EXPECT_TRUE(eval("\"foo :: bar :: baz\" not in variant_properties", *env));
  }
}

TEST(VariantMarkers, SetMembershipIsNotSubstring) {
  const Environment env = variant_environment();
  EXPECT_FALSE(eval("\"fo\" in variant_namespaces", env));
  EXPECT_FALSE(eval("\"foo :: ba\" in variant_features", env));
  EXPECT_FALSE(eval("\"bar\" in variant_features", env));
  EXPECT_FALSE(eval("\"foo :: bar :: ba\" in variant_properties", env));
  EXPECT_TRUE(eval("\"fo\" not in variant_namespaces", env));
  EXPECT_FALSE(eval("\"foo\" not in variant_namespaces", env));
  // variant_label is a String: `in` is substring containment there.
  EXPECT_TRUE(eval("\"oba\" in variant_label", env));
}

TEST(VariantMarkers, WhitespaceAroundSeparatorsIsIgnored) {
  const Environment env = variant_environment();
  const char* const spellings[] = {
      "\"nvidia ::sm_arch\" in variant_features",
      "\"nvidia::sm_arch\" in variant_features",
      "\"  nvidia   ::   sm_arch  \" in variant_features",
      "'nvidia\t::\tsm_arch' in variant_features",
      "\"nvidia::sm_arch:: 120_real\" in variant_properties",
  };
  for (const char* s : spellings) EXPECT_TRUE(eval(s, env)) << s;
  EXPECT_EQ(Marker::parse("\"nvidia ::sm_arch\" in variant_features")->to_string(),
            "\"nvidia :: sm_arch\" in variant_features");
  // Environments whose sets are not in canonical form still match.
  Environment sloppy = make_environment();
  sloppy.variant_properties = {"nvidia::sm_arch::120_real"};
  EXPECT_TRUE(eval("\"nvidia :: sm_arch :: 120_real\" in variant_properties", sloppy));
  EXPECT_FALSE(eval("\"nvidia :: sm_arch :: 110_real\" in variant_properties", sloppy));
}

TEST(VariantMarkers, FilteredMultiValueFeature) {
  // PEP 825: a wheel declares sm_arch 120_real and 110_real; the target supports only 120_real.
  Environment env = make_environment();
  env.variant_label = "cu";
  env.variant_properties = {"nvidia :: sm_arch :: 120_real"};
  env.variant_features = {"nvidia :: sm_arch"};
  env.variant_namespaces = {"nvidia"};
  EXPECT_TRUE(eval("'nvidia :: sm_arch :: 120_real' in variant_properties", env));
  EXPECT_FALSE(eval("'nvidia :: sm_arch :: 110_real' in variant_properties", env));
  EXPECT_TRUE(eval("'nvidia :: sm_arch :: 110_real' in variant_properties or python_version >= '3'", env));
}

TEST(VariantMarkers, CombinesWithStandardMarkers) {
  const Environment env = variant_environment();
  EXPECT_TRUE(eval("sys_platform == 'linux' and 'nvidia' in variant_namespaces", env));
  EXPECT_FALSE(eval("sys_platform == 'win32' and 'nvidia' in variant_namespaces", env));
  EXPECT_TRUE(eval("('x' in variant_namespaces or variant_label == 'foobar') and python_version >= '3.8'", env));
  EXPECT_TRUE(eval("variant_label in variant_namespaces or 'foo' in variant_namespaces", env));
}

TEST(VariantMarkers, SetValuedMisuseIsAParseError) {
  const char* const misuse[] = {
      "variant_properties == 'a :: b :: c'",
      "variant_features != 'a :: b'",
      "variant_namespaces >= 'a'",
      "'a' == variant_namespaces",
      "variant_namespaces in 'abc'",
      "variant_namespaces in variant_features",
      "'a' < variant_properties",
      "variant_properties ~= '1.0'",
  };
  for (const char* text : misuse) {
    const std::string message = parse_error(text);
    EXPECT_NE(message.find("is a set"), std::string::npos) << text << " -> " << message;
  }
}

TEST(VariantMarkers, VariantLabelNeedsNoEnvironmentEntry) {
  Environment env;  // nothing defined at all
  EXPECT_TRUE(eval("variant_label == ''", env));
  EXPECT_TRUE(eval("'x' not in variant_properties", env));
}

TEST(VariantMarkers, NormalizeVariantText) {
  EXPECT_EQ(normalize_variant_text("a::b::c"), "a :: b :: c");
  EXPECT_EQ(normalize_variant_text("  a ::b:: c  "), "a :: b :: c");
  EXPECT_EQ(normalize_variant_text("a"), "a");
  EXPECT_EQ(normalize_variant_text(" a "), "a");
  EXPECT_EQ(normalize_variant_text("a :: b"), "a :: b");
  EXPECT_EQ(normalize_variant_text(""), "");
}

}  // namespace
