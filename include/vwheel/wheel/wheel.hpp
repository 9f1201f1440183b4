#pragma once
/// \file
/// Wheels as zip archives: find the `.dist-info` directory, read `variant.json`, and rewrite a
/// wheel into a variant wheel and back without recompressing anything (`make-variant`,
/// `unmake-variant`). Every member other than `variant.json` and `RECORD` is copied raw, so a
/// multi-gigabyte wheel is rewritten at disk speed.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/metadata/document.hpp"
#include "vwheel/variant/metadata.hpp"
#include "vwheel/wheel_name/wheel_name.hpp"
#include "vwheel/zip/zip.hpp"

namespace vwheel::wheel {

/// A wheel opened for reading: its parsed file name, its archive (central directory only), and
/// where its metadata lives.
struct Wheel {
  std::filesystem::path path;
  wheel_name::WheelName name;
  zip::Archive archive;
  /// The one top-level `*.dist-info` directory, without the trailing `/` (e.g. `pkg-1.0.dist-info`).
  std::string dist_info;
  /// Index of `{dist_info}/RECORD` in `archive.entries()`.
  std::size_t record_index = 0;
  /// Index of `{dist_info}/variant.json`, when the wheel has one.
  std::optional<std::size_t> variant_json_index;

  /// `{dist_info}/variant.json`.
  [[nodiscard]] std::string variant_json_path() const { return dist_info + "/variant.json"; }
};

/// Opens a wheel: parses the file name (PEP 825), reads the central directory, and finds the
/// single top-level `.dist-info` directory and its `RECORD`. Errors (one line, naming the file):
/// not a wheel file name, not a zip or truncated, no or several `.dist-info` directories, no
/// `RECORD`.
[[nodiscard]] Result<Wheel> open_wheel(const std::filesystem::path& path);
/// The same checks on an archive opened already (e.g. one still arriving, zip::Archive::open_arriving);
/// `path` gives the file name.
[[nodiscard]] Result<Wheel> open_wheel(const std::filesystem::path& path, zip::Archive archive);

/// Reads and validates the wheel's `variant.json` against the label in its file name. nullopt
/// for a wheel without a label and without `variant.json`; a labelled wheel without one is an
/// error. Errors name the wheel.
[[nodiscard]] Result<std::optional<metadata::ParsedDocument>> read_variant_json(const Wheel& wheel);

/// The format of a `variant.json` written by `make_variant`.
enum class VariantJsonFormat {
  Draft003,  ///< `v0.0.3`: variantlib's format, byte-identical to its output (PEP 817 keys)
  Pep825,    ///< `v0.1.1`: PEP 825's format (priorities and variants only)
  Providers, ///< `v0.2.0`: the Providers draft's format (PEP 850: PEP 825's plus `providers`)
};

/// `v0.0.3` -> Draft003, `v0.1.1` -> Pep825, `v0.2.0` -> Providers, anything else (e.g. `auto`) ->
/// nullopt.
[[nodiscard]] std::optional<VariantJsonFormat> parse_variant_json_format(std::string_view text) noexcept;

/// What `make_variant` writes.
struct MakeVariantRequest {
  std::filesystem::path input;
  std::filesystem::path output_dir;
  /// The variant's properties; empty for the null variant.
  variant::PropertySet properties;
  /// A custom label; the hash label (or `null`) when absent.
  std::optional<std::string> label;
  /// The `[variant]` table of the project's `pyproject.toml` (priorities, providers, static
  /// properties), copied into `variant.json`.
  std::optional<variant::VariantMetadata> pyproject;
  VariantJsonFormat format = VariantJsonFormat::Draft003;
};

/// What `make_variant` did.
struct MadeVariant {
  std::filesystem::path output;
  std::string label;
  /// The label the input already had (replaced), if any.
  std::optional<std::string> replaced_label;
};

/// The `variant.json` text `make_variant` writes for a request, after checking it reads back as
/// a valid `variant.json` with that label.
[[nodiscard]] Result<std::string> make_variant_json(const MakeVariantRequest& request, std::string& label);

/// Writes `{output_dir}/{base name}-{label}.whl`: the input's members in their order with a new
/// `{dist_info}/variant.json` inserted just before `RECORD` (an existing `variant.json` is
/// dropped), `RECORD` gaining (or replacing) its line with sha256 and size, every other member
/// copied raw. The new members take `RECORD`'s timestamp and compression method, so the output
/// depends only on the inputs. Written to a temporary file and renamed.
[[nodiscard]] Result<MadeVariant> make_variant(const MakeVariantRequest& request);

/// Writes `{output_dir}/{base name}.whl`: the variant wheel without `variant.json` and its
/// `RECORD` line, every other member copied raw. nullopt (nothing written) when the input is not
/// a variant wheel.
[[nodiscard]] Result<std::optional<std::filesystem::path>> unmake_variant(const std::filesystem::path& input,
                                                                          const std::filesystem::path& output_dir);

}  // namespace vwheel::wheel
