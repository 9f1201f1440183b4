// Unit tests of reading and validating variant metadata documents.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_support.hpp"
#include "vwheel/metadata/document.hpp"

namespace vwheel::metadata {
namespace {

using test::any_line_mentions;
using test::joined;
using variant::SchemaVersion;

constexpr std::string_view kPep825Doc = R"({
  "$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
  "default-priorities": {"namespace": ["x86_64", "blas_lapack"]},
  "variants": {
    "null": {},
    "x86_64_v3_openblas": {"blas_lapack": {"library": ["openblas"]}, "x86_64": {"level": ["v3"]}},
    "x86_64_v4_mkl": {"blas_lapack": {"library": ["mkl"]}, "x86_64": {"level": ["v4"]}}
  }
})";

std::string with_schema(std::string_view url) {
  return std::string(R"({"$schema": ")") + std::string(url) +
         R"(", "default-priorities": {"namespace": ["ns"]}, "variants": {"abc": {"ns": {"f": ["v"]}}}})";
}

TEST(MetadataSchema, ParsesVersionFromLastSegment) {
  EXPECT_EQ(parse_schema_version("https://variants-schema.wheelnext.dev/v0.0.3.json"), (SchemaVersion{0, 0, 3}));
  EXPECT_EQ(parse_schema_version("https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json"),
            (SchemaVersion{0, 1, 1}));
  EXPECT_EQ(parse_schema_version("https://packaging.python.org/schemas/variants/v1.12.0.json"),
            (SchemaVersion{1, 12, 0}));
  EXPECT_EQ(parse_schema_version("v2.0.0.json"), (SchemaVersion{2, 0, 0}));
  for (std::string_view bad : {"", "https://variants-schema.wheelnext.dev/", "https://x/v0.1.json", "https://x/v0.1.1",
                               "https://x/0.1.1.json", "https://x/v0.1.x.json", "https://x/v-1.0.0.json",
                               "https://x/v0..1.json", "https://x/v0.1.1.1.json", "https://x/v+1.0.0.json"}) {
    EXPECT_FALSE(parse_schema_version(bad).has_value()) << bad;
  }
}

TEST(MetadataSchema, SupportedVersions) {
  EXPECT_TRUE(is_supported_schema({0, 0, 2}));
  EXPECT_TRUE(is_supported_schema({0, 0, 3}));
  EXPECT_TRUE(is_supported_schema({0, 1, 0}));
  EXPECT_TRUE(is_supported_schema({0, 1, 1}));
  EXPECT_TRUE(is_supported_schema({0, 1, 9}));
  EXPECT_FALSE(is_supported_schema({0, 0, 1}));
  EXPECT_FALSE(is_supported_schema({0, 0, 4}));
  EXPECT_TRUE(is_supported_schema({0, 2, 0}));
  EXPECT_FALSE(is_supported_schema({1, 0, 0}));
  EXPECT_TRUE(is_draft_schema({0, 0, 3}));
  EXPECT_FALSE(is_draft_schema({0, 1, 0}));
}

TEST(MetadataSchema, NewerPatchOfPep825IsAccepted) {
  auto r = parse_json_document(with_schema("https://variants-schema.wheelnext.dev/peps/825/v0.1.7.json"),
                               DocumentKind::VariantsJson);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->metadata.schema, (SchemaVersion{0, 1, 7}));
  EXPECT_TRUE(r->conformance_problems.empty()) << joined(r->conformance_problems);
}

TEST(MetadataSchema, NewerMinorIsReadAsNewestKnownMinorAndNoted) {
  auto r = parse_json_document(with_schema("https://variants-schema.wheelnext.dev/peps/825/v0.3.0.json"),
                               DocumentKind::VariantsJson);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->metadata.schema, (SchemaVersion{0, 3, 0}));
  EXPECT_FALSE(is_draft_schema(r->metadata.schema));
  EXPECT_TRUE(any_line_mentions(r->conformance_problems, {"$schema", "0.3.0", "newer", "read as 0.2.0"}));
}

TEST(MetadataSchema, UnknownVersionsAreRejectedNamingTheUrl) {
  for (std::string_view url : {"https://variants-schema.wheelnext.dev/peps/825/v1.0.0.json",
                               "https://variants-schema.wheelnext.dev/peps/825/v2.1.0.json",
                               "https://variants-schema.wheelnext.dev/v0.0.4.json",
                               "https://variants-schema.wheelnext.dev/v0.0.1.json"}) {
    auto r = parse_json_document(with_schema(url), DocumentKind::VariantsJson);
    ASSERT_FALSE(r) << url;
    EXPECT_NE(r.error().message.find("$schema"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find(std::string(url)), std::string::npos) << r.error().message;
  }
}

TEST(MetadataSchema, UnversionedUrl) {
  // Elsewhere: no way to tell the version.
  auto r = parse_json_document(with_schema("https://example.org/schema.json"), DocumentKind::VariantsJson);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("\"https://example.org/schema.json\""), std::string::npos) << r.error().message;
  // The draft host (PyTorch published such files): read as v0.0.2, reported.
  auto draft = parse_json_document(with_schema("https://variants-schema.wheelnext.dev/"), DocumentKind::VariantsJson);
  ASSERT_TRUE(draft) << draft.error().message;
  EXPECT_EQ(draft->metadata.schema, variant::kSchemaDraft002);
  EXPECT_TRUE(any_line_mentions(draft->conformance_problems, {"$schema", "no version"}));
}

TEST(MetadataDocument, Pep825DocumentReadsCleanly) {
  auto r = parse_json_document(kPep825Doc, DocumentKind::VariantsJson);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->conformance_problems.empty()) << joined(r->conformance_problems);
  const auto& md = r->metadata;
  EXPECT_EQ(md.schema, variant::kSchemaPep825);
  EXPECT_EQ(md.schema_url, kSchemaUrlPep825);
  EXPECT_EQ(md.namespace_priorities, (std::vector<std::string>{"x86_64", "blas_lapack"}));
  ASSERT_EQ(md.variants.size(), 3U);
  EXPECT_TRUE(md.variants.at("null").empty());
  const auto& mkl = md.variants.at("x86_64_v4_mkl");
  ASSERT_EQ(mkl.size(), 2U);
  EXPECT_EQ(mkl[0], (variant::Property{"blas_lapack", "library", "mkl"}));
  EXPECT_EQ(mkl[1], (variant::Property{"x86_64", "level", "v4"}));
  EXPECT_TRUE(md.providers.empty());
  EXPECT_TRUE(validate_json_document(kPep825Doc, DocumentKind::VariantsJson).empty());
}

TEST(MetadataDocument, DraftKeysInPep825FileAreReadAndReported) {
  const std::string doc = R"({
    "$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
    "default-priorities": {"namespace": ["ns"], "feature": {"ns": ["f"]}},
    "providers": {"ns": {"requires": ["ns-provider"]}},
    "variants": {"abc": {"ns": {"f": ["v"]}}}})";
  auto r = parse_json_document(doc, DocumentKind::VariantsJson);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->metadata.feature_priorities.at("ns"), std::vector<std::string>{"f"});
  EXPECT_EQ(r->metadata.providers.at("ns").requires_, std::vector<std::string>{"ns-provider"});
  EXPECT_TRUE(any_line_mentions(r->conformance_problems, {"default-priorities.feature", "PEP 825"}));
  EXPECT_TRUE(any_line_mentions(r->conformance_problems, {"providers", "PEP 825"}));
}

TEST(MetadataDocument, UnsortedValuesAreSortedAndReported) {
  std::string doc = with_schema(kSchemaUrlDraft003);
  doc.replace(doc.find(R"(["v"])"), 5, R"(["90_real", "100_real", "80_real"])");
  auto r = parse_json_document(doc, DocumentKind::VariantsJson);
  ASSERT_TRUE(r) << r.error().message;
  const auto& set = r->metadata.variants.at("abc");
  ASSERT_EQ(set.size(), 3U);
  EXPECT_EQ(set[0].value, "100_real");
  EXPECT_EQ(set[1].value, "80_real");
  EXPECT_EQ(set[2].value, "90_real");
  EXPECT_TRUE(any_line_mentions(r->conformance_problems, {"variants.abc.ns.f", "not sorted", "\"90_real\""}));
}

TEST(MetadataDocument, ValidateCollectsEveryProblem) {
  const std::string doc = R"({
    "default-priorities": {"namespace": ["NS", "ok"], "frob": 1},
    "providers": {"ok": {"requires": ["p"], "optional": "no"}},
    "variants": {"Bad": {}, "good": {"ok": {"f": ["V", "v"]}}, "null": {"ok": {"f": ["x"]}}}})";
  const auto report = check_json_document(doc, DocumentKind::VariantsJson);
  EXPECT_TRUE(any_line_mentions(report.errors, {"default-priorities.namespace[0]", "\"NS\""}));
  EXPECT_TRUE(any_line_mentions(report.errors, {"providers.ok.optional", "\"no\""}));
  EXPECT_TRUE(any_line_mentions(report.errors, {"variants", "\"Bad\""}));
  EXPECT_TRUE(any_line_mentions(report.errors, {"variants.good.ok.f[0]", "\"V\""}));
  EXPECT_TRUE(any_line_mentions(report.errors, {"variants.null", "ok :: f :: x"}));
  EXPECT_EQ(report.errors.size(), 5U) << joined(report.errors);
  EXPECT_TRUE(any_line_mentions(report.conformance_problems, {"$schema", "missing"}));
  EXPECT_TRUE(any_line_mentions(report.conformance_problems, {"default-priorities.frob", "unknown"}));
  for (const auto& line : validate_json_document(doc, DocumentKind::VariantsJson)) {
    EXPECT_EQ(line.find('\n'), std::string::npos);
  }
  auto parsed = parse_json_document(doc, DocumentKind::VariantsJson);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message, report.errors.front());
  EXPECT_EQ(parsed.error().details.size(), report.errors.size() - 1);
}

TEST(MetadataDocument, VariantJsonNeedsExactlyOneVariantWithTheExpectedLabel) {
  const std::string doc = with_schema(kSchemaUrlPep825);
  EXPECT_TRUE(parse_json_document(doc, DocumentKind::VariantJson, "abc"));
  EXPECT_TRUE(parse_json_document(doc, DocumentKind::VariantJson));
  auto wrong = parse_json_document(doc, DocumentKind::VariantJson, "xyz");
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().message.find("\"xyz\""), std::string::npos);
  // The index file accepts any number of variants and ignores expected_label.
  EXPECT_TRUE(parse_json_document(doc, DocumentKind::VariantsJson, "xyz"));
}

TEST(MetadataDocument, LongLabelsAreValidButFlaggedInDrafts) {
  const std::string label(40, 'a');
  std::string pep825 = with_schema(kSchemaUrlPep825);
  pep825.replace(pep825.find("\"abc\""), 5, "\"" + label + "\"");
  auto r = parse_json_document(pep825, DocumentKind::VariantJson, label);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->conformance_problems.empty()) << joined(r->conformance_problems);
  std::string draft = with_schema(kSchemaUrlDraft003);
  draft.replace(draft.find("\"abc\""), 5, "\"" + label + "\"");
  auto d = parse_json_document(draft, DocumentKind::VariantsJson);
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_TRUE(any_line_mentions(d->conformance_problems, {label, "16"}));
}

TEST(MetadataDocument, ProviderFields) {
  const std::string doc = R"({
    "$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
    "default-priorities": {"namespace": ["a", "b"], "feature": {"b": ["g", "f"]}},
    "providers": {
      "a": {"requires": ["a-prov >= 1", "other\u00e9"], "enable-if": "python_version >= '3.12'", "optional": true,
            "plugin-api": "a_mod.sub : Obj.attr", "plugin-extra": 1},
      "b": {"install-time": false, "enable-if": null, "plugin-api": null}},
    "static-properties": {"b": {"f": ["2", "1"], "g": ["x"]}},
    "variants": {"one": {"a": {"f": ["1"]}, "b": {"f": ["2"]}}}})";
  auto r = parse_json_document(doc, DocumentKind::VariantsJson);
  ASSERT_TRUE(r) << r.error().message << joined(r.error().details);
  const auto& a = r->metadata.providers.at("a");
  EXPECT_EQ(a.requires_, (std::vector<std::string>{"a-prov >= 1", "other\xc3\xa9"}));
  EXPECT_EQ(a.enable_if, "python_version >= '3.12'");
  EXPECT_TRUE(a.optional);
  EXPECT_EQ(a.plugin_api, "a_mod.sub : Obj.attr");
  EXPECT_TRUE(a.install_time);
  const auto& b = r->metadata.providers.at("b");
  EXPECT_FALSE(b.install_time);
  EXPECT_FALSE(b.enable_if.has_value());
  EXPECT_FALSE(b.plugin_api.has_value());
  EXPECT_EQ(r->metadata.static_properties.at("b").at("f"), (std::vector<std::string>{"2", "1"}));
  EXPECT_TRUE(any_line_mentions(r->conformance_problems, {"providers.a.plugin-extra", "unknown"}));
}

TEST(MetadataDocument, RequirementTextUsesPythonWhitespace) {
  auto make = [](std::string_view requirement) {
    return std::string(R"({"$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
      "default-priorities": {"namespace": ["ns"]}, "providers": {"ns": {"requires": [")") +
           std::string(requirement) + R"("]}}, "variants": {}})";
  };
  EXPECT_TRUE(parse_json_document(make("pkg >= 1, < 2"), DocumentKind::VariantsJson));
  EXPECT_TRUE(parse_json_document(make("pk\u00e9g"), DocumentKind::VariantsJson));
  EXPECT_FALSE(parse_json_document(make("pkg\\u00a0>= 1"), DocumentKind::VariantsJson));  // NBSP
  EXPECT_FALSE(parse_json_document(make("pkg\\u2003"), DocumentKind::VariantsJson));      // EM SPACE
  EXPECT_FALSE(parse_json_document(make("pkg\\r"), DocumentKind::VariantsJson));
  EXPECT_FALSE(parse_json_document(make("pkg\\u001c"), DocumentKind::VariantsJson));
}

TEST(MetadataDocument, PluginUseOfDraft002) {
  const std::string doc = R"({
    "$schema": "https://variants-schema.wheelnext.dev/v0.0.2.json",
    "default-priorities": {"namespace": ["hw", "prio"], "property": {"prio": {"order": ["1", "2"]}}},
    "providers": {"hw": {"requires": ["hw-prov"], "plugin-use": "all"},
                  "prio": {"requires": [], "plugin-use": "none"}},
    "variants": {"one": {"prio": {"order": ["1"]}}}})";
  auto r = parse_json_document(doc, DocumentKind::VariantsJson);
  ASSERT_TRUE(r) << r.error().message << joined(r.error().details);
  EXPECT_TRUE(r->metadata.providers.at("hw").install_time);
  EXPECT_FALSE(r->metadata.providers.at("prio").install_time);
  EXPECT_EQ(r->metadata.static_properties.at("prio").at("order"), (std::vector<std::string>{"1", "2"}));
  EXPECT_TRUE(r->conformance_problems.empty()) << joined(r->conformance_problems);

  std::string contradicting = doc;
  contradicting.replace(contradicting.find(R"("plugin-use": "none")"), 20,
                        R"("plugin-use": "none", "install-time": true)");
  auto bad = parse_json_document(contradicting, DocumentKind::VariantsJson);
  ASSERT_FALSE(bad);
  EXPECT_TRUE(any_line_mentions({bad.error().message}, {"providers.prio", "plugin-use"}));

  std::string unknown = doc;
  unknown.replace(unknown.find(R"("plugin-use": "all")"), 19, R"("plugin-use": "sometimes")");
  auto bad2 = parse_json_document(unknown, DocumentKind::VariantsJson);
  ASSERT_FALSE(bad2);
  EXPECT_TRUE(any_line_mentions({bad2.error().message}, {"providers.hw.plugin-use", "\"sometimes\""}));

  // In a PEP 825 file plugin-use is an unknown key: ignored.
  std::string pep825 = doc;
  pep825.replace(pep825.find("v0.0.2.json"), 11, "peps/825/v0.1.1.json");
  pep825.replace(pep825.find(R"("plugin-use": "none")"), 20, R"("plugin-use": "none", "install-time": false)");
  auto p = parse_json_document(pep825, DocumentKind::VariantsJson);
  ASSERT_FALSE(p);  // install-time false without static-properties: PEP 817 rule
  EXPECT_TRUE(any_line_mentions({p.error().message}, {"static-properties", "\"prio\""}));
}

TEST(MetadataDocument, NonObjectAndBrokenInputs) {
  for (std::string_view text : {"", "[]", "null", "1", "\"x\"", "{", "{\"variants\": {}} trailing", "\xff\xfe"}) {
    auto r = parse_json_document(text, DocumentKind::VariantsJson);
    ASSERT_FALSE(r) << text;
    EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
    EXPECT_FALSE(validate_json_document(text, DocumentKind::VariantsJson).empty());
  }
  // A UTF-8 byte order mark is skipped, like Python's json.loads(bytes).
  EXPECT_TRUE(parse_json_document("\xef\xbb\xbf{\"variants\": {}}", DocumentKind::VariantsJson));
}

TEST(MetadataDocument, DeepNestingIsReportedNotRecursed) {
  std::string deep = "{\"variants\": ";
  for (int i = 0; i < 200000; ++i) deep += '[';
  for (int i = 0; i < 200000; ++i) deep += ']';
  deep += "}";
  auto r = parse_json_document(deep, DocumentKind::VariantsJson);
  ASSERT_FALSE(r);
  EXPECT_LT(r.error().message.size(), 300U);
  EXPECT_NE(r.error().message.find("variants"), std::string::npos);
}

TEST(MetadataDocument, MessagesQuoteHostileKeysAndValues) {
  const std::string doc = R"({"$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
    "default-priorities": {"namespace": ["ns"]},
    "variants": {"a\nb": {}, "ok": {"ns": {"f": ["\u0000\u00e9"]}}}})";
  const auto report = check_json_document(doc, DocumentKind::VariantsJson);
  ASSERT_EQ(report.errors.size(), 2U) << joined(report.errors);
  EXPECT_TRUE(any_line_mentions(report.errors, {"variants", "\"a\\nb\""}));
  EXPECT_TRUE(any_line_mentions(report.errors, {"variants.ok.ns.f[0]", "\"\\u0000\\u00e9\""}));
}

TEST(MetadataConformance, ModelLevelChecks) {
  variant::VariantMetadata md;
  md.namespace_priorities = {"a", "a"};
  md.variants["x"] = {{"a", "f", "1"}, {"b", "g", "2"}};
  md.variants["empty"] = {};
  const auto problems = conformance_problems(md, DocumentKind::VariantsJson);
  EXPECT_TRUE(any_line_mentions(problems, {"default-priorities.namespace", "\"a\"", "more than once"}));
  EXPECT_TRUE(any_line_mentions(problems, {"default-priorities.namespace", "\"b\"", "\"x\""}));
  EXPECT_TRUE(any_line_mentions(problems, {"variants.empty", "null"}));
  EXPECT_EQ(problems.size(), 3U) << joined(problems);
  EXPECT_TRUE(any_line_mentions(conformance_problems(md, DocumentKind::VariantJson), {"exactly one"}));

  variant::VariantMetadata good;
  good.namespace_priorities = {"a"};
  good.variants["x"] = {{"a", "f", "1"}};
  EXPECT_TRUE(conformance_problems(good, DocumentKind::VariantJson).empty());
  variant::VariantMetadata empty;
  EXPECT_TRUE(any_line_mentions(conformance_problems(empty, DocumentKind::Pyproject),
                                {"variant.default-priorities.namespace", "empty"}));
}

// ---- pyproject.toml ----

TEST(MetadataPyproject, ReadsTheVariantTable) {
  const std::string toml = R"(
[project]
name = "test-package"

[variant.default-priorities]
namespace = ["installable_plugin", "non_existing_plugin", "aot"]
feature = { aot = ["b", "a"] }

[variant.providers.installable_plugin]
requires = ["test-plugin-package"]
optional = false

[variant.providers.non_existing_plugin]
requires = ["do-not-install-me"]
optional = true
enable-if = "python_version >= '3.12'"

[variant.providers.aot]
install-time = false

[variant.static-properties.aot]
a = ["x", "y"]
b = ["z"]
)";
  auto r = parse_pyproject(toml);
  ASSERT_TRUE(r) << r.error().message << joined(r.error().details);
  EXPECT_TRUE(r->conformance_problems.empty()) << joined(r->conformance_problems);
  const auto& md = r->metadata;
  EXPECT_EQ(md.namespace_priorities, (std::vector<std::string>{"installable_plugin", "non_existing_plugin", "aot"}));
  EXPECT_TRUE(md.providers.at("non_existing_plugin").optional);
  EXPECT_FALSE(md.providers.at("installable_plugin").optional);
  EXPECT_FALSE(md.providers.at("aot").install_time);
  EXPECT_EQ(md.static_properties.at("aot").at("a"), (std::vector<std::string>{"x", "y"}));
  EXPECT_TRUE(md.variants.empty());
  EXPECT_TRUE(md.schema_url.empty());
  EXPECT_TRUE(validate_pyproject(toml).empty());
}

TEST(MetadataPyproject, MissingTableIsEmptyMetadata) {
  auto r = parse_pyproject("[project]\nname = \"x\"\n");
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->conformance_problems.empty());
  EXPECT_TRUE(r->metadata.providers.empty());
  EXPECT_TRUE(r->metadata.namespace_priorities.empty());
  EXPECT_TRUE(parse_pyproject(""));
  EXPECT_TRUE(check_pyproject("").clean());
}

TEST(MetadataPyproject, Errors) {
  auto syntax = parse_pyproject("[variant\nnamespace = 1\n");
  ASSERT_FALSE(syntax);
  EXPECT_NE(syntax.error().message.find("invalid TOML at line 1"), std::string::npos) << syntax.error().message;

  auto date = parse_pyproject("[variant.providers.ns]\nrequires = [\"p\"]\nenable-if = 1979-05-27\n");
  ASSERT_FALSE(date);
  EXPECT_NE(date.error().message.find("variant.providers.ns.enable-if"), std::string::npos) << date.error().message;
  EXPECT_NE(date.error().message.find("date/time"), std::string::npos) << date.error().message;

  auto not_table = parse_pyproject("variant = \"x\"\n");
  ASSERT_FALSE(not_table);
  EXPECT_NE(not_table.error().message.find("variant: expected a table"), std::string::npos);

  const auto lines = validate_pyproject(R"(
[variant.default-priorities]
namespace = ["ns", "other"]
[variant.providers.ns]
requires = ["p"]
optional = "yes"
[variant.variants.x]
)");
  EXPECT_TRUE(any_line_mentions(lines, {"variant.providers.ns.optional", "\"yes\""})) << joined(lines);
  EXPECT_TRUE(any_line_mentions(lines, {"variant.variants", "pyproject.toml"})) << joined(lines);
}

TEST(MetadataPyproject, BuildRequiresProvidersAreAheadOfTimeWithoutStaticProperties) {
  auto r = parse_pyproject(R"(
[variant.default-priorities]
namespace = ["blas_lapack"]
[variant.providers.blas_lapack]
build-requires = ["blas-plugin >=1"]
plugin-api = "blas_plugin:Plugin"
)");
  ASSERT_TRUE(r) << r.error().message;
  const auto& p = r->metadata.providers.at("blas_lapack");
  EXPECT_EQ(p.build_requires, std::vector<std::string>{"blas-plugin >=1"});
  EXPECT_TRUE(p.requires_.empty());
  EXPECT_FALSE(p.install_time);
  EXPECT_TRUE(r->conformance_problems.empty()) << joined(r->conformance_problems);

  const std::string head = "[variant.default-priorities]\nnamespace = [\"ns\"]\n[variant.providers.ns]\n";
  auto both = validate_pyproject(head + "build-requires = [\"p\"]\nrequires = [\"p\"]\n");
  EXPECT_TRUE(any_line_mentions(both, {"variant.providers.ns", "both `build-requires` and `requires`"})) << joined(both);
  auto statics = validate_pyproject(head + "build-requires = [\"p\"]\n[variant.static-properties.ns]\nf = [\"a\"]\n");
  EXPECT_TRUE(any_line_mentions(statics, {"variant.static-properties.ns", "`build-requires` plugin fills"}))
      << joined(statics);
  auto install_time = validate_pyproject(head + "build-requires = [\"p\"]\ninstall-time = true\n");
  EXPECT_TRUE(any_line_mentions(install_time, {"install-time = true contradicts `build-requires`"})) << joined(install_time);
  auto empty = validate_pyproject(head + "build-requires = []\n");
  EXPECT_TRUE(any_line_mentions(empty, {"variant.providers.ns.build-requires", "empty"})) << joined(empty);
}

// The Building draft's own example declares schema 0.2.0 (the Providers draft): pyproject.toml is
// read in the PEP 817 model whatever its `$schema`, and `build-requires` is known there.
TEST(MetadataPyproject, BuildRequiresInTheBuildingDraftsExample) {
  auto r = parse_pyproject(R"([variant]
"$schema" = "https://variants-schema.wheelnext.dev/peps/9999/v0.2.0.json"
[variant.default-priorities]
namespace = ["blas_lapack"]
[variant.providers.blas_lapack]
build-requires = ["blas-lapack-variant-provider"]
)");
  ASSERT_TRUE(r) << r.error().message;
  const auto& p = r->metadata.providers.at("blas_lapack");
  EXPECT_EQ(p.build_requires, std::vector<std::string>{"blas-lapack-variant-provider"});
  EXPECT_FALSE(p.install_time);
  EXPECT_TRUE(r->conformance_problems.empty()) << joined(r->conformance_problems);
}

// In a JSON file (a built wheel's metadata) the build has replaced `build-requires` with
// static-properties: left there, it is named as such, not as an unknown key, and ignored.
TEST(MetadataDocument, BuildRequiresLeftInADraftJsonFileIsAWarningNotAnUnknownKey) {
  const auto report = check_json_document(R"({"$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
    "default-priorities": {"namespace": ["ns"]},
    "providers": {"ns": {"requires": ["ns-plugin"], "build-requires": ["ns-plugin"], "plugin-api": "ns_plugin:P"}},
    "variants": {"x": {"ns": {"f": ["a"]}}}})",
                                          DocumentKind::VariantsJson);
  ASSERT_TRUE(report.usable()) << report.errors.front();
  ASSERT_EQ(report.findings.size(), 1U) << report.findings.front().message;
  EXPECT_EQ(report.findings[0].rule, "build-requires-built");
  EXPECT_EQ(report.findings[0].severity, Severity::Warning);
  EXPECT_EQ(report.findings[0].pointer, "/providers/ns/build-requires");
  auto parsed = parse_json_document(R"({"$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
    "default-priorities": {"namespace": ["ns"]},
    "providers": {"ns": {"requires": ["ns-plugin"], "build-requires": ["ns-plugin"], "plugin-api": "ns_plugin:P"}},
    "variants": {"x": {"ns": {"f": ["a"]}}}})",
                                    DocumentKind::VariantsJson);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_TRUE(parsed->metadata.providers.at("ns").build_requires.empty());
}

TEST(MetadataPyproject, NamespaceListAndProvidersMustMatch) {
  // A listed namespace without a provider can never be supported (PEP 817): rejected.
  auto r = parse_pyproject(R"(
[variant.default-priorities]
namespace = ["ns", "other"]
[variant.providers.ns]
requires = ["p"]
)");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("variant.default-priorities.namespace"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("\"other\""), std::string::npos) << r.error().message;
  // A provider missing from the list is only reported (uv's published fixture does this).
  auto lenient = parse_pyproject(R"(
[variant.default-priorities]
namespace = ["ns"]
[variant.providers.ns]
requires = ["p"]
[variant.providers.other]
requires = ["q"]
)");
  ASSERT_TRUE(lenient) << lenient.error().message;
  EXPECT_TRUE(any_line_mentions(lenient->conformance_problems, {"variant.default-priorities.namespace", "\"other\""}))
      << joined(lenient->conformance_problems);
}

}  // namespace
}  // namespace vwheel::metadata

namespace vwheel::metadata {
namespace {

TEST(MetadataJson, RepeatedKeysAreRejected) {
  auto r = parse_json_document(R"({"$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
    "default-priorities": {"namespace": ["a"]},
    "variants": {"l": {"a": {"f": ["x"]}}, "l": {"a": {"f": ["y"]}}}})",
                               DocumentKind::VariantsJson);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("variants"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("\"l\""), std::string::npos) << r.error().message;
  auto nested = parse_json_document(R"({"variants": {"l": {"a": {"f": ["x"], "f": ["y"]}}}})",
                                    DocumentKind::VariantsJson);
  ASSERT_FALSE(nested);
  EXPECT_NE(nested.error().message.find("variants.l.a"), std::string::npos) << nested.error().message;
}

}  // namespace
}  // namespace vwheel::metadata
