#pragma once
/// \file
/// `vwheel pyproject add-provider|remove-provider`: edit the `[variant]` table of a
/// `pyproject.toml` in place, keeping everything else byte for byte (the edit itself is
/// `vwheel/metadata/pyproject_edit.hpp`), and write the result safely: only when it changed,
/// atomically, through a symbolic link to its target, keeping the file's permissions.
/// (`pyproject validate` is `api::validate_file` with `DocumentKind::Pyproject`.)

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/metadata/pyproject_edit.hpp"

namespace vwheel::api {

/// Which file to edit, and whether to write it.
struct PyprojectEdit {
  std::filesystem::path file = "pyproject.toml";
  /// Compute the new text without writing anything.
  bool dry_run = false;
};

/// `add-provider`: add the provider, or update the keys `spec` sets.
struct AddProviderRequest {
  PyprojectEdit edit;
  metadata::ProviderSpec spec;
};

/// `remove-provider`: remove the namespace's provider, priorities and static properties.
struct RemoveProviderRequest {
  PyprojectEdit edit;
  std::string ns;
};

/// What an edit did.
struct PyprojectEditReport {
  std::filesystem::path file;
  bool dry_run = false;
  /// The edited text.
  std::string text;
  /// Whether `text` differs from the file's.
  bool changed = false;
  /// Conformance problems left in the result, as `FILE: problem`; not errors.
  std::vector<std::string> warnings;
  /// Set when the changed text could not be written (an environmental failure; the file is
  /// unchanged).
  std::optional<Error> write_error;
};

/// Reads the file, adds or updates the provider, and writes the result unless it is a dry run
/// or nothing changed. A file that cannot be read and an edit that fails are errors (the
/// latter prefixed with the file name); nothing is written then.
[[nodiscard]] Result<PyprojectEditReport> add_provider(const AddProviderRequest& request);

/// As `add_provider`, removing the provider.
[[nodiscard]] Result<PyprojectEditReport> remove_provider(const RemoveProviderRequest& request);

/// What the edit prints on stdout: the new text for a dry run, else `Wrote changes to FILE` or
/// `No changes to FILE` and a newline. Empty when writing failed.
[[nodiscard]] std::string format_pyproject_edit(const PyprojectEditReport& report);

}  // namespace vwheel::api
