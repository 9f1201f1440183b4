#pragma once
/// \file
/// The index-level `{name}-{version}-variants.json` of PEP 825, built from variant wheels: one
/// file per package version, their `variant.json` files merged by PEP 825's rules
/// (`metadata::merge_into`). Only each wheel's central directory and `variant.json` are read.
///
/// Wheels are processed in file-name order, and merging is order-independent, so the bytes
/// written never depend on directory order.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/wheel/wheel.hpp"

namespace vwheel::wheel {

/// One `{name}-{version}-variants.json` to write.
struct IndexJsonFile {
  std::string filename;             ///< `{name}-{version}-variants.json`
  std::string text;                 ///< the merged document
  std::vector<std::string> wheels;  ///< file names of the variant wheels merged into it, sorted
};

/// Options for `build_index_json`.
struct IndexJsonOptions {
  /// Output format; by default the Providers draft's (v0.2.0) when the inputs are v0.2.x, PEP
  /// 825's when every input is v0.1.x, else the draft v0.0.3.
  std::optional<VariantJsonFormat> format;
  /// Skip wheels that cannot be read (bad file name, broken zip, invalid or missing
  /// `variant.json`) with a warning, as variantlib does, instead of failing.
  bool skip_invalid = false;
  /// Worker threads reading wheels.
  unsigned jobs = 1;
};

/// What `build_index_json` produced.
struct IndexJsonResult {
  std::vector<IndexJsonFile> files;   ///< sorted by file name
  std::vector<std::string> warnings;  ///< one line each (skipped wheels, labels sharing properties)
  std::vector<std::string> notes;     ///< one line each (non-variant wheels skipped)
  std::size_t variant_wheels = 0;     ///< variant wheels merged
  std::uint64_t bytes_read = 0;       ///< bytes read from all wheels
  std::uint64_t bytes_total = 0;      ///< total size of those wheels
};

/// Merges the variant wheels among `wheels` (non-variant wheels are skipped with a note). Fails
/// with every problem (first in `message`, the others in `details`): an unreadable wheel (unless
/// `skip_invalid`), and metadata that cannot be merged, naming both wheels.
[[nodiscard]] Result<IndexJsonResult> build_index_json(std::span<const std::filesystem::path> wheels,
                                                       const IndexJsonOptions& options = {});

/// The `*.whl` files directly in `dir`, sorted. Fails when `dir` is not a directory.
[[nodiscard]] Result<std::vector<std::filesystem::path>> list_wheels(const std::filesystem::path& dir);

/// Merges one variant wheel into an existing `{name}-{version}-variants.json` (`input`, when
/// given) and returns the file to write. Fails when the wheel is not a variant wheel, has no
/// valid `variant.json`, belongs to another package version than `input`, or conflicts with it.
[[nodiscard]] Result<IndexJsonFile> add_wheel_to_index_json(const std::filesystem::path& wheel,
                                                            const std::optional<std::filesystem::path>& input,
                                                            std::optional<VariantJsonFormat> format = {});

}  // namespace vwheel::wheel
