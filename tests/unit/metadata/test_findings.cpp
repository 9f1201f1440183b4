// Unit tests of validation findings: severities, rule ids and JSON pointers.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "vwheel/metadata/document.hpp"

namespace vwheel::metadata {
namespace {

std::string doc(std::string_view schema, std::string_view variants) {
  return std::string(R"({"$schema": ")") + std::string(schema) +
         R"(", "default-priorities": {"namespace": ["nvidia"]}, "variants": )" + std::string(variants) + "}";
}

// The one finding with that rule (fails the test when there is not exactly one).
const Finding& only(const ValidationReport& report, std::string_view rule) {
  const Finding* found = nullptr;
  int count = 0;
  for (const auto& f : report.findings) {
    if (f.rule == rule) {
      found = &f;
      ++count;
    }
  }
  EXPECT_EQ(count, 1) << rule;
  static const Finding kNone{};
  return found != nullptr ? *found : kNone;
}

constexpr std::string_view kDraft003 = "https://variants-schema.wheelnext.dev/v0.0.3.json";
constexpr std::string_view kPep825 = "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json";

TEST(MetadataFindings, UnsortedValuesInADraftFileAreAWarningWithAPointer) {
  const auto report = check_json_document(
      doc(kDraft003, R"({"cuda12.8": {"nvidia": {"sm_arch": ["90_real", "100_real"]}}})"), DocumentKind::VariantsJson);
  // Draft file without providers: the namespace list / providers mismatch is reported too.
  ASSERT_EQ(report.findings.size(), 2U);
  const auto& f = only(report, "values-unsorted");
  EXPECT_EQ(f.severity, Severity::Warning);
  EXPECT_EQ(only(report, "namespace-providers-mismatch").severity, Severity::Warning);
  // The label holds a dot: the pointer follows the document's keys, not the dots.
  EXPECT_EQ(f.pointer, "/variants/cuda12.8/nvidia/sm_arch");
  EXPECT_EQ(f.location, "variants.cuda12.8.nvidia.sm_arch");
  EXPECT_EQ(f.message, R"(values are not sorted ("90_real", "100_real"); PEP 825 lists them sorted lexically)");
  EXPECT_TRUE(report.usable());
}

TEST(MetadataFindings, UnsortedValuesInAPep825FileAreAWarningToo) {
  const auto report =
      check_json_document(doc(kPep825, R"({"l": {"nvidia": {"sm_arch": ["b", "a"]}}})"), DocumentKind::VariantsJson);
  ASSERT_EQ(report.findings.size(), 1U);
  EXPECT_EQ(report.findings[0].severity, Severity::Warning);
}

TEST(MetadataFindings, NullLabelIsAnErrorInPep825AndAWarningInADraft) {
  const std::string variants = R"({"00000000": {}, "l": {"nvidia": {"f": ["a"]}}})";
  const auto pep825 = check_json_document(doc(kPep825, variants), DocumentKind::VariantsJson);
  ASSERT_EQ(pep825.findings.size(), 1U);
  EXPECT_EQ(pep825.findings[0].severity, Severity::Error);
  EXPECT_EQ(pep825.findings[0].rule, "null-label");
  EXPECT_EQ(pep825.findings[0].pointer, "/variants/00000000");
  const auto draft = check_json_document(doc(kDraft003, variants), DocumentKind::VariantsJson);
  EXPECT_EQ(only(draft, "null-label").severity, Severity::Warning);
  EXPECT_TRUE(std::all_of(draft.findings.begin(), draft.findings.end(),
                          [](const Finding& f) { return f.severity == Severity::Warning; }));
}

TEST(MetadataFindings, UnlistedNamespaceIsAnErrorInPep825) {
  const auto report =
      check_json_document(doc(kPep825, R"({"l": {"x86_64": {"level": ["v3"]}}})"), DocumentKind::VariantsJson);
  ASSERT_EQ(report.findings.size(), 1U);
  EXPECT_EQ(report.findings[0].severity, Severity::Error);
  EXPECT_EQ(report.findings[0].rule, "namespace-unlisted");
  EXPECT_EQ(report.findings[0].pointer, "/default-priorities/namespace");
}

TEST(MetadataFindings, HardErrorsComeFirstAndUnknownKeysWarn) {
  const auto text = R"({"$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json", "extra~/key": 1,
    "default-priorities": {"namespace": ["nvidia"]}, "variants": {"l": {"nvidia": {"f": ["BAD"]}}}})";
  const auto report = check_json_document(text, DocumentKind::VariantsJson);
  ASSERT_EQ(report.findings.size(), 2U);
  EXPECT_EQ(report.findings[0].severity, Severity::Error);
  EXPECT_EQ(report.findings[0].rule, "invalid");
  EXPECT_EQ(report.findings[0].pointer, "/variants/l/nvidia/f/0");
  EXPECT_EQ(report.findings[1].severity, Severity::Warning);
  EXPECT_EQ(report.findings[1].rule, "unknown-key");
  EXPECT_EQ(report.findings[1].pointer, "/extra~0~1key");
}

TEST(MetadataFindings, MissingSchemaIsAWarningAndBrokenJsonAnError) {
  const auto report = check_json_document(R"({"default-priorities": {"namespace": ["n"]}, "variants": {}})",
                                          DocumentKind::VariantsJson);
  const auto& f = only(report, "schema-missing");
  EXPECT_EQ(f.severity, Severity::Warning);
  EXPECT_EQ(f.pointer, "/$schema");
  const auto broken = check_json_document("{", DocumentKind::VariantsJson);
  ASSERT_EQ(broken.findings.size(), 1U);
  EXPECT_EQ(broken.findings[0].severity, Severity::Error);
  EXPECT_EQ(broken.findings[0].pointer, "");
}

TEST(MetadataFindings, SeverityNames) {
  EXPECT_EQ(severity_name(Severity::Error), "error");
  EXPECT_EQ(severity_name(Severity::Warning), "warning");
}

}  // namespace
}  // namespace vwheel::metadata
