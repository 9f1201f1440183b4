#include "vwheel/api/validate.hpp"

#include <fmt/format.h>

#include "vwheel/core/fs.hpp"

namespace vwheel::api {

metadata::DocumentKind guess_document_kind(const std::filesystem::path& path) {
  const auto name = path.filename().string();
  if (path.extension() == ".toml") return metadata::DocumentKind::Pyproject;
  if (name == "variant.json") return metadata::DocumentKind::VariantJson;
  return metadata::DocumentKind::VariantsJson;
}

Result<std::vector<std::string>> validate_file(const std::filesystem::path& path,
                                               std::optional<metadata::DocumentKind> kind) {
  auto text = read_file(path);
  if (!text) return fail(text.error());
  const auto k = kind.value_or(guess_document_kind(path));
  std::vector<std::string> problems;
  if (k == metadata::DocumentKind::Pyproject) {
    problems = metadata::validate_pyproject(*text);
  } else {
    problems = metadata::validate_json_document(*text, k);
  }
  for (auto& p : problems) p = fmt::format("{}: {}", path.string(), p);
  return problems;
}

ValidateReport validate_files(const std::vector<std::filesystem::path>& paths) {
  ValidateReport report;
  for (const auto& path : paths) {
    auto problems = validate_file(path);
    if (!problems) {
      report.errors.push_back(problems.error());
      continue;
    }
    report.problems.insert(report.problems.end(), problems->begin(), problems->end());
  }
  return report;
}

}  // namespace vwheel::api
