#pragma once
/// \file
/// Index maintainer tools: `vwheel index build` (a static simple index),
/// `generate-index-json` (the `*-variants.json` files of a folder of variant wheels) and
/// `add-wheel-to-index-json` (merge one wheel into such a file).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/core/error.hpp"
#include "vwheel/index/site.hpp"
#include "vwheel/wheel/wheel.hpp"

namespace vwheel::api {

/// What `build_index` builds: `index::BuildOptions`, with `jobs` 0 meaning one per CPU.
struct BuildIndexRequest {
  index::BuildOptions options;
};

/// What `build_index` did.
struct BuildIndexReport {
  std::filesystem::path site;
  index::BuildReport build;
};

/// Builds or updates the site (see `index::build_site`).
[[nodiscard]] Result<BuildIndexReport> build_index(const BuildIndexRequest& request);

/// The one-line summary (with a newline) `vwheel index build` prints on stderr: counts of the
/// index and of what this build did.
[[nodiscard]] std::string format_build_summary(const BuildIndexReport& report);

/// What `generate_index_json` reads and where it writes.
struct GenerateIndexJsonRequest {
  std::filesystem::path dir;
  /// Where to write; `dir` when absent. Must exist.
  std::optional<std::filesystem::path> output_dir;
  /// Output format; by default PEP 825's when every wheel's `variant.json` is v0.1.x.
  std::optional<wheel::VariantJsonFormat> format;
  bool skip_invalid = false;
  /// Wheels read in parallel; 0 means one per CPU.
  unsigned jobs = 0;
};

/// What `generate_index_json` did.
struct GenerateIndexJsonReport {
  /// Skipped wheels, labels sharing properties: one line each.
  std::vector<std::string> warnings;
  /// The files written, in order.
  std::vector<std::filesystem::path> written;
  /// The files to write (`written` is shorter only when `write_error` is set).
  std::size_t files = 0;
  std::size_t wheels = 0;          ///< wheels in the folder
  std::size_t variant_wheels = 0;  ///< of those, variant wheels merged
  std::uint64_t bytes_read = 0;
  std::uint64_t bytes_total = 0;
  /// Set when a file could not be written (an environmental failure); the files after it were
  /// not written either.
  std::optional<Error> write_error;
};

/// Merges the variant wheels of `dir` into one `{name}-{version}-variants.json` per package
/// version and writes them atomically. A missing folder, a missing output folder and wheels that
/// cannot be merged are errors, and nothing is written then.
[[nodiscard]] Result<GenerateIndexJsonReport> generate_index_json(const GenerateIndexJsonRequest& request);

/// The written files, one path a line.
[[nodiscard]] std::string format_generated_files(const GenerateIndexJsonReport& report);
/// The one-line summary (with a newline) printed on stderr: files, wheels, bytes read.
[[nodiscard]] std::string format_generate_summary(const GenerateIndexJsonReport& report);

/// What `add_wheel_to_index_json` merges and where it writes.
struct AddWheelToIndexJsonRequest {
  std::filesystem::path wheel;
  /// An existing `{name}-{version}-variants.json` to merge into.
  std::optional<std::filesystem::path> input;
  /// Must exist.
  std::filesystem::path output_dir;
  /// Replace an existing output file (replacing `input` itself is always allowed).
  bool overwrite = false;
  std::optional<wheel::VariantJsonFormat> format;
};

/// Merges the wheel's `variant.json` (into `input`, when given) and writes
/// `{output_dir}/{name}-{version}-variants.json` atomically; returns its path. A write that
/// fails is environmental, everything else the input's.
[[nodiscard]] Result<std::filesystem::path> add_wheel_to_index_json(const AddWheelToIndexJsonRequest& request);

}  // namespace vwheel::api
