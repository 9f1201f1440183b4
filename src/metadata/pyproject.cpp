// pyproject.toml's `[variant]` table: TOML is converted to the JSON tree the reader walks.

#include <fmt/format.h>

#include "core/toml.hpp"

#include "metadata/internal.hpp"

namespace vwheel::metadata {
namespace {

// TOML node -> JSON tree. Dates and times become JSON "binary" values, which the reader
// reports as "a TOML date/time" wherever they appear (no key accepts them).
detail::Json to_json(const toml::node& node) {
  using detail::Json;
  if (const auto* table = node.as_table()) {
    Json out = Json::object();
    for (const auto& [key, value] : *table) out[std::string(key.str())] = to_json(value);
    return out;
  }
  if (const auto* array = node.as_array()) {
    Json out = Json::array();
    for (const auto& value : *array) out.push_back(to_json(value));
    return out;
  }
  if (const auto* s = node.as_string()) return Json(s->get());
  if (const auto* i = node.as_integer()) return Json(i->get());
  if (const auto* f = node.as_floating_point()) return Json(f->get());
  if (const auto* b = node.as_boolean()) return Json(b->get());
  return Json::binary({});  // date, time, date-time
}

struct TomlOutcome {
  std::optional<detail::ReadOutcome> outcome;  // nullopt: no [variant] table
  std::optional<std::string> syntax_error;
};

TomlOutcome read_pyproject(std::string_view toml_text) {
  TomlOutcome result;
  toml::table doc;
  if (auto bad = toml_unsupported_character(toml_text)) {
    result.syntax_error = *bad;
    return result;
  }
  try {
    doc = toml::parse(toml_text);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    result.syntax_error = detail::single_line(
        fmt::format("invalid TOML at line {}, column {}: {}", where.line, where.column, e.description()));
    return result;
  }
  const toml::node* variant_node = doc.get("variant");
  if (variant_node == nullptr) return result;
  result.outcome = detail::read_document(to_json(*variant_node), DocumentKind::Pyproject, std::nullopt);
  return result;
}

variant::VariantMetadata empty_pyproject_metadata() {
  variant::VariantMetadata md;
  md.schema = variant::kSchemaDraft003;
  return md;
}

}  // namespace

Result<ParsedDocument> parse_pyproject(std::string_view toml_text) {
  auto result = read_pyproject(toml_text);
  if (result.syntax_error) return fail(*result.syntax_error);
  if (!result.outcome) return ParsedDocument{empty_pyproject_metadata(), {}};
  return detail::to_result(std::move(*result.outcome));
}

ValidationReport check_pyproject(std::string_view toml_text) {
  ValidationReport report;
  auto result = read_pyproject(toml_text);
  if (result.syntax_error) {
    report.errors.push_back(*result.syntax_error);
    report.findings.push_back({Severity::Error, "invalid", "", "", *result.syntax_error});
  } else if (result.outcome) {
    report.errors = std::move(result.outcome->errors);
    report.conformance_problems = std::move(result.outcome->conformance);
    report.findings = std::move(result.outcome->findings);
    std::stable_partition(report.findings.begin(), report.findings.end(),
                          [](const Finding& f) { return f.rule == "invalid"; });
    detail::fill_pointers(report.findings, nullptr);
  }
  return report;
}

std::vector<std::string> validate_pyproject(std::string_view toml_text) {
  auto report = check_pyproject(toml_text);
  auto all = std::move(report.errors);
  all.insert(all.end(), std::make_move_iterator(report.conformance_problems.begin()),
             std::make_move_iterator(report.conformance_problems.end()));
  return all;
}

}  // namespace vwheel::metadata
