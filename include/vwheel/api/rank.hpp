#pragma once
/// \file
/// `vwheel rank`: order the variants of a `*-variants.json` file for a target machine.

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "vwheel/api/selection.hpp"
#include "vwheel/core/error.hpp"
#include "vwheel/variant/ordering.hpp"

namespace vwheel::api {

/// What to rank and for which machine.
struct RankRequest {
  std::filesystem::path variants_json;
  /// The machine: a target profile or this one, configuration, optional providers, ...
  SelectionRequest selection;
};

/// The ranking plus what it was computed from.
struct RankReport {
  variant::Ranking ranking;
  /// Every label of the file with its property set, for explanations.
  std::map<std::string, variant::PropertySet> variants;
  /// "target profile FILE" or "this machine (detected)".
  std::string target_description;
  /// The supported properties per namespace that the ranking used.
  variant::SupportedProperties supported;
  /// Where the target's answer for each namespace came from ("target profile FILE", "detected:
  /// ..."), from the selection.
  std::map<std::string, std::string, std::less<>> property_sources;
  /// Conformance problems of the file (PEP 825), one line each, shown by --explain and --json;
  /// ranking still happened (`vwheel validate` reports them as problems).
  std::vector<std::string> warnings;
  /// Notes about detection (e.g. "no NVIDIA driver"), one line each.
  std::vector<std::string> notes;
};

/// Loads the file, the target (or detects this machine), the user configuration, and ranks.
/// Labels the file lacks are read from the `variant.json` of the project version's wheels beside
/// it, one note each (PEP 825: clients may read wheels whose labels the index-level file lacks).
[[nodiscard]] Result<RankReport> rank(const RankRequest& request);

/// Ranks metadata already in memory (e.g. merged from wheels) for `selection`; `source` names the
/// metadata in errors and `project` (canonical, may be empty) finds its `--variant` choice.
[[nodiscard]] Result<RankReport> rank_metadata(const variant::VariantMetadata& metadata, const std::string& source,
                                               std::string_view project, selection::Selection& selection);

/// One label per line, best first.
[[nodiscard]] std::string format_rank_plain(const RankReport& report);
/// Human explanation: every label, its position or why it is incompatible, and the supported
/// properties in priority order.
[[nodiscard]] std::string format_rank_explain(const RankReport& report);
/// Machine-readable JSON (stable keys, trailing newline).
[[nodiscard]] std::string format_rank_json(const RankReport& report);

}  // namespace vwheel::api
