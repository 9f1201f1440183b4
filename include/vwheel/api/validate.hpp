#pragma once
/// \file
/// `vwheel validate`: check variant metadata files against PEP 825 (and the draft formats).

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

/// Every problem of one file, one line each, prefixed with the file name; empty when valid.
/// A file that cannot be read is an error.
[[nodiscard]] Result<std::vector<std::string>> validate_file(const std::filesystem::path& path,
                                                             std::optional<metadata::DocumentKind> kind = {});

/// `vwheel validate`: every file checked (kinds guessed from the names), in order.
struct ValidateReport {
  /// One line per problem or unreadable file, in file order.
  std::vector<std::string> problems;
  /// Files that could not be read, one error each (also counted as invalid).
  std::vector<Error> errors;
  [[nodiscard]] bool valid() const noexcept { return problems.empty() && errors.empty(); }
};
[[nodiscard]] ValidateReport validate_files(const std::vector<std::filesystem::path>& paths);

}  // namespace vwheel::api
