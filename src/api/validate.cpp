#include "vwheel/api/validate.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vwheel/core/fs.hpp"

namespace vwheel::api {

metadata::DocumentKind guess_document_kind(const std::filesystem::path& path) {
  const auto name = path.filename().string();
  if (path.extension() == ".toml") return metadata::DocumentKind::Pyproject;
  if (name == "variant.json") return metadata::DocumentKind::VariantJson;
  return metadata::DocumentKind::VariantsJson;
}

Result<std::vector<FileFinding>> validate_file(const std::filesystem::path& path,
                                               std::optional<metadata::DocumentKind> kind) {
  auto text = read_file(path);
  if (!text) return fail(text.error());
  const auto k = kind.value_or(guess_document_kind(path));
  auto report = k == metadata::DocumentKind::Pyproject ? metadata::check_pyproject(*text)
                                                       : metadata::check_json_document(*text, k);
  std::vector<FileFinding> out;
  for (auto& f : report.findings) out.push_back({path, std::move(f)});
  return out;
}

std::string format_finding(const FileFinding& finding) {
  const auto& f = finding.finding;
  const auto severity = metadata::severity_name(f.severity);
  if (f.location.empty()) return fmt::format("{}: {}: {} [{}]", finding.file.string(), severity, f.message, f.rule);
  return fmt::format("{}: {}: {}: {} [{}]", finding.file.string(), severity, f.location, f.message, f.rule);
}

std::size_t ValidateReport::count(metadata::Severity severity) const noexcept {
  return static_cast<std::size_t>(std::count_if(findings.begin(), findings.end(), [severity](const FileFinding& f) {
    return f.finding.severity == severity;
  }));
}

bool ValidateReport::valid(bool strict) const noexcept {
  if (!errors.empty() || count(metadata::Severity::Error) > 0) return false;
  return !strict || findings.empty();
}

ValidateReport validate_files(const std::vector<std::filesystem::path>& paths) {
  ValidateReport report;
  for (const auto& path : paths) {
    auto findings = validate_file(path);
    if (!findings) {
      report.errors.push_back({path, findings.error()});
      continue;
    }
    report.findings.insert(report.findings.end(), std::make_move_iterator(findings->begin()),
                           std::make_move_iterator(findings->end()));
  }
  return report;
}

std::string findings_json(const ValidateReport& report) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& [file, error] : report.errors) {
    out.push_back(
        {{"file", file.string()}, {"pointer", ""}, {"severity", "error"}, {"rule", "unreadable"}, {"message", error.message}});
  }
  for (const auto& [file, f] : report.findings) {
    out.push_back({{"file", file.string()},
                   {"pointer", f.pointer},
                   {"severity", metadata::severity_name(f.severity)},
                   {"rule", f.rule},
                   {"message", f.message}});
  }
  return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace vwheel::api
