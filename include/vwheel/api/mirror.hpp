#pragma once
/// \file
/// `vwheel index mirror UPSTREAM -o SITE`: an incremental static mirror of chosen projects of an
/// upstream simple index (PEP 503/691), for machines without access to it. The chosen files are
/// downloaded (verified against the upstream page's sha256 and size) into `SITE/.vwheel/mirror/`,
/// and SITE is then built from that folder by `index::build_site`, so it has the layout of
/// `vwheel index build` (pages, PEP 658 metadata, PEP 825 `*-variants.json`) and any static web
/// server or object store serves it.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/api/install.hpp"
#include "vwheel/api/selection.hpp"
#include "vwheel/core/error.hpp"
#include "vwheel/index/site.hpp"
#include "vwheel/pep440/specifier.hpp"
#include "vwheel/variant/property.hpp"

namespace vwheel::api {

/// One `--project` value: a PEP 503 name or a glob over names (`*`, `?`), then an optional
/// version specifier set (`torch>=2.8,<2.10`, `nvidia-*`).
struct ProjectPattern {
  std::string text;     ///< as given, for messages
  std::string pattern;  ///< normalized (PEP 503), glob characters kept
  pep440::SpecifierSet specifiers;
  /// Whether `pattern` holds `*` or `?`: only then is the upstream's project list read.
  [[nodiscard]] bool is_glob() const noexcept;
  /// Whether the normalized `name` matches `pattern`.
  [[nodiscard]] bool matches(std::string_view name) const;
};

/// Parses a `--project` value; the error is one line naming it and what was expected.
[[nodiscard]] Result<ProjectPattern> parse_project_pattern(std::string_view text);

/// Parses a `--variant-filter` value (`NAMESPACE :: FEATURE :: VALUE`); the error is one line
/// naming it.
[[nodiscard]] Result<variant::Property> parse_variant_filter(std::string_view text);

/// The project names (normalized, sorted, without duplicates) of an index's root page: PEP 691
/// JSON (`projects[].name`) by its content type, else the link texts of PEP 503 HTML. The error
/// names `url`.
[[nodiscard]] Result<std::vector<std::string>> parse_project_list(std::string_view body, std::string_view content_type,
                                                                  std::string_view url);

/// The names of `available` (normalized) that some glob pattern matches, and the exact names of
/// the other patterns (whether listed or not: their pages say), sorted, without duplicates. A
/// glob that matches nothing is an error naming it.
[[nodiscard]] Result<std::vector<std::string>> select_projects(const std::vector<ProjectPattern>& patterns,
                                                               const std::vector<std::string>& available);

/// What `mirror_index` mirrors, from where, to where.
struct MirrorRequest {
  std::string upstream;  ///< the simple-API base URL (may carry credentials; never written)
  std::filesystem::path site;
  std::vector<std::string> projects;  ///< `--project` values (at least one)
  /// `--variant-filter`: keep variant wheels with one of these properties (and the null variant,
  /// non-variant wheels and sdists).
  std::vector<std::string> variant_filters;
  /// `--target`: keep only the wheel each of these machines would choose per version (and the
  /// null variant); each profile is one machine.
  std::vector<std::filesystem::path> targets;
  /// The rest of the selection (configuration, optional providers) for `targets`.
  SelectionRequest selection;
  /// Network, credentials, TLS, proxy and cache options (`index_url` and the like only name hosts
  /// that credentials are looked up for; `upstream` is registered too).
  SourceRequest sources;
  bool quiet = false;  ///< no progress display
  unsigned jobs = 0;   ///< files read in parallel by the site build; 0: one per CPU
};

/// What `mirror_index` did.
struct MirrorReport {
  std::size_t projects = 0;          ///< projects mirrored
  std::size_t versions = 0;          ///< versions mirrored
  std::size_t files_downloaded = 0;  ///< files fetched by this run (distributions, metadata, variants.json)
  std::size_t files_kept = 0;        ///< files already in the mirror and unchanged upstream
  std::size_t files_skipped = 0;     ///< distributions of the chosen versions left out by the filters
  std::uint64_t bytes_downloaded = 0;
  std::vector<std::string> warnings;
  index::BuildReport build;
};

/// Mirrors the chosen projects. Files are downloaded to a temporary name and renamed once their
/// sha256 and size match the upstream page's, so an interrupted run leaves nothing half-written
/// and the next one completes it (downloading only what is missing or changed). A mismatch is an
/// error naming the URL, expected and actual hash; then nothing of that file is kept and the
/// pages are not rebuilt.
[[nodiscard]] Result<MirrorReport> mirror_index(const MirrorRequest& request);

/// The one-line summary (with a newline) `vwheel index mirror` prints on stderr.
[[nodiscard]] std::string format_mirror_summary(const MirrorReport& report, const std::filesystem::path& site);

}  // namespace vwheel::api
