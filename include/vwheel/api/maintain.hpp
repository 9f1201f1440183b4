#pragma once
/// \file
/// Maintainer tools: `make-variant`, `unmake-variant` and `analyze-wheel` — turning CI-built
/// wheels into variant wheels (validated against the providers), back, and inspecting them.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "vwheel/api/selection.hpp"
#include "vwheel/core/error.hpp"
#include "vwheel/metadata/document.hpp"
#include "vwheel/variant/ordering.hpp"
#include "vwheel/wheel/wheel.hpp"

namespace vwheel::api {

/// A project's `[variant]` table, as read from its `pyproject.toml`.
struct Pyproject {
  std::filesystem::path path;
  metadata::ParsedDocument document;
};

/// Reads `explicit_path`, or `./pyproject.toml` when it exists and no path is given (nullopt
/// when there is none). Hard errors in the `[variant]` table fail; conformance problems are in
/// `document.conformance_problems`.
[[nodiscard]] Result<std::optional<Pyproject>> load_pyproject(const std::optional<std::filesystem::path>& explicit_path);

/// How properties are checked before a variant wheel is written.
struct PropertyValidation {
  /// Accept properties without checking them against any provider.
  bool skip = false;
  /// Namespaces whose Python provider may be run (`get_all_configs`) to check their properties.
  std::vector<std::string> allow_python_providers;
};

/// Checks that every property is one its provider knows: the static properties of the
/// pyproject's ahead-of-time providers, else the native provider's `all_configs`, else (when
/// allowed) the Python provider's `get_all_configs()`. Several values for one feature need the
/// feature to be multi-value. The error lists every invalid property, one per line.
[[nodiscard]] Result<void> validate_properties(const variant::PropertySet& properties, const Pyproject* pyproject,
                                               const PropertyValidation& validation);

/// What `make_variants` does.
struct MakeVariantsRequest {
  std::vector<std::filesystem::path> inputs;
  std::filesystem::path output_dir;
  /// `ns :: feature :: value` texts; empty with `null_variant`.
  std::vector<std::string> properties;
  bool null_variant = false;
  std::optional<std::string> label;
  /// `--pyproject`; `./pyproject.toml` when absent and present.
  std::optional<std::filesystem::path> pyproject;
  /// The project's `[variant]` table already read (and possibly completed, as `vwheel build` does
  /// with its `build-requires` providers); used instead of reading `pyproject`.
  std::optional<Pyproject> project;
  wheel::VariantJsonFormat format = wheel::VariantJsonFormat::Draft003;
  PropertyValidation validation;
  unsigned jobs = 1;
};

/// What `make_variants` did: one result per input, in input order.
struct MakeVariantsReport {
  std::vector<Result<wheel::MadeVariant>> results;
  std::vector<std::string> warnings;
};

/// Parses and validates the request once (properties, label, pyproject, providers), then writes
/// one variant wheel per input, in parallel. Request-level problems fail the whole call; a
/// problem with one input is that input's result, and the others are still written.
[[nodiscard]] Result<MakeVariantsReport> make_variants(const MakeVariantsRequest& request);

/// What `unmake_variants` does.
struct UnmakeVariantsRequest {
  std::vector<std::filesystem::path> inputs;
  std::filesystem::path output_dir;
  /// Wheels processed in parallel; 0 means one per CPU.
  unsigned jobs = 0;
};

/// What `unmake_variants` did: per input, in input order, the plain wheel written, nullopt when
/// the input is not a variant wheel (nothing written), or why it failed.
struct UnmakeVariantsReport {
  std::vector<Result<std::optional<std::filesystem::path>>> results;
};

/// Writes the plain wheel of every variant wheel (see `wheel::unmake_variant`), in parallel. A
/// failure with one input (including an exception while writing it) is that input's result; the
/// others are still written.
[[nodiscard]] UnmakeVariantsReport unmake_variants(const UnmakeVariantsRequest& request);

/// One wheel as `analyze-wheel` describes it.
struct WheelAnalysis {
  std::filesystem::path path;
  wheel_name::WheelName name;
  std::string dist_info;
  std::size_t members = 0;
  /// The wheel's `variant.json`, when it is a variant wheel.
  std::optional<metadata::ParsedDocument> variant_json;
  /// Its property set (empty for the null variant and non-variant wheels).
  variant::PropertySet properties;
  /// Whether the target can use it; non-variant wheels always can.
  bool supported = true;
  /// Why not, when it cannot.
  std::string reason;
  /// 1-based position among the given wheels of the same package version that the target can
  /// use (variants by rank, then the non-variant wheels); nullopt when unsupported.
  std::optional<std::size_t> rank;
  /// How many of the given wheels of that package version the target can use.
  std::size_t usable = 0;
};

/// `analyze-wheel`'s answer.
struct AnalyzeReport {
  std::vector<WheelAnalysis> wheels;  ///< in input order
  std::string target_description;
  std::vector<std::string> notes;
  std::vector<std::string> warnings;
};

/// What to analyze and for which machine.
struct AnalyzeRequest {
  std::vector<std::filesystem::path> wheels;
  SelectionRequest selection;
};

/// Reads every wheel's name and `variant.json`, merges those of each package version, and ranks
/// them for the target (or this machine).
[[nodiscard]] Result<AnalyzeReport> analyze_wheels(const AnalyzeRequest& request);
/// As above, for a selection already made.
[[nodiscard]] Result<AnalyzeReport> analyze_wheels(const std::vector<std::filesystem::path>& wheels,
                                                   selection::Selection& selection);

/// Human-readable report.
[[nodiscard]] std::string format_analyze_plain(const AnalyzeReport& report);
/// JSON report (stable keys, trailing newline).
[[nodiscard]] std::string format_analyze_json(const AnalyzeReport& report);

}  // namespace vwheel::api
