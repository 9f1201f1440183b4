#pragma once
/// \file
/// `vwheel validate`: check variant metadata files against PEP 825 (and the draft formats).
///
/// Every finding is an error (a MUST of the format version the document declares, or a document
/// that cannot be read) or a warning (advice, or a rule only a newer version has); see
/// `metadata::Severity`. Files are valid when they have no errors, or, with `strict`, no findings.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/metadata/document.hpp"

namespace vwheel::api {

/// The kind of a metadata file from its name: `pyproject.toml`/`*.toml` -> Pyproject,
/// `variant.json` -> VariantJson, anything else -> VariantsJson.
[[nodiscard]] metadata::DocumentKind guess_document_kind(const std::filesystem::path& path);

/// One finding and the file it is about.
struct FileFinding {
  std::filesystem::path file;
  metadata::Finding finding;
};

/// Every finding of one file (hard errors first); empty when there is nothing to say.
/// A file that cannot be read is an error.
[[nodiscard]] Result<std::vector<FileFinding>> validate_file(const std::filesystem::path& path,
                                                             std::optional<metadata::DocumentKind> kind = {});

/// A finding as one line: `FILE: SEVERITY: LOCATION: MESSAGE [RULE]` (SEVERITY `error` or
/// `warning`; `--strict` changes the exit status, not the line).
[[nodiscard]] std::string format_finding(const FileFinding& finding);

/// `vwheel validate`: every file checked (kinds guessed from the names), in order.
struct ValidateReport {
  /// Every finding, in file order.
  std::vector<FileFinding> findings;
  /// A file that could not be read (counted as invalid).
  struct Unreadable {
    std::filesystem::path file;
    Error error;
  };
  std::vector<Unreadable> errors;

  [[nodiscard]] std::size_t count(metadata::Severity severity) const noexcept;
  /// No unreadable file and no error; with `strict`, no warning either.
  [[nodiscard]] bool valid(bool strict = false) const noexcept;
};
[[nodiscard]] ValidateReport validate_files(const std::vector<std::filesystem::path>& paths);

/// The findings as a JSON array of `{"file", "pointer", "severity", "rule", "message"}` objects
/// (`pointer` an RFC 6901 JSON pointer); unreadable files appear first, as errors with rule
/// `unreadable` and an empty pointer.
[[nodiscard]] std::string findings_json(const ValidateReport& report);

}  // namespace vwheel::api
