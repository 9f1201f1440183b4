#pragma once
/// \file
/// A static "simple" package index built from a folder of wheels: PEP 503 HTML and PEP 691 JSON
/// pages, PEP 658/714 core metadata files, PEP 592 yanking, and PEP 825's
/// `{name}-{version}-variants.json` beside the wheels, as plain files that any web server,
/// object store or CDN can serve.
///
/// Layout of a built SITE:
///
///     SITE/simple/index.html, SITE/simple/index.json            the project list
///     SITE/simple/<project>/index.html, .../index.json           one page per project (normalized name)
///     SITE/files/<project>/<file>.whl                            the wheels (hard links, else copies)
///     SITE/files/<project>/<file>.whl.metadata                   core metadata (PEP 658/714)
///     SITE/files/<project>/<name>-<version>-variants.json        merged variant metadata (PEP 825)
///     SITE/.vwheel/                                              state for incremental builds
///
/// Builds are incremental (only projects whose files changed are rewritten) and atomic per file
/// (written to a temporary name and renamed), so a reader never sees a half-written page.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"

namespace vwheel::index {

/// PEP 691 media types.
inline constexpr std::string_view kSimpleJsonType = "application/vnd.pypi.simple.v1+json";
inline constexpr std::string_view kSimpleHtmlType = "application/vnd.pypi.simple.v1+html";

/// What `build_site` builds.
struct BuildOptions {
  std::filesystem::path wheel_dir;  ///< the wheels (read-only)
  std::filesystem::path site;       ///< the output folder (created when missing)
  /// Absolute URL prefix of SITE (e.g. `https://example.org/pypi`); file links are relative when empty.
  std::string base_url;
  /// Yanked files or versions, one per line (`FILE[: reason]` or `PROJECT==VERSION[: reason]`).
  std::optional<std::filesystem::path> yanked;
  /// Worker threads hashing and reading wheels.
  unsigned jobs = 1;
  /// Skip files that cannot be indexed (bad file name, broken zip, no or inconsistent METADATA,
  /// invalid `variant.json`, variant metadata that cannot be merged) with a warning, instead of
  /// failing without changing anything.
  bool skip_invalid = false;
};

/// What `build_site` did.
struct BuildReport {
  std::size_t projects = 0;           ///< projects in the index
  std::size_t files = 0;              ///< distribution files in the index
  std::size_t projects_written = 0;   ///< project pages (re)written by this build
  std::vector<std::string> warnings;  ///< one line each (skipped files, ...)
  std::size_t variants_files = 0;     ///< `{name}-{version}-variants.json` files in the index
  std::size_t files_hashed = 0;       ///< source files read and hashed by this build (new or changed)
  std::size_t files_placed = 0;       ///< files hard-linked (or copied) into SITE/files by this build
  std::size_t files_copied = 0;       ///< of those, copies (hard linking failed, e.g. across file systems)
  std::size_t variants_written = 0;   ///< `*-variants.json` files (re)written by this build
  std::size_t files_removed = 0;      ///< files of SITE removed because their source is gone
  bool root_written = false;          ///< whether the project list was (re)written
};

/// Builds or updates SITE from `options.wheel_dir`. Errors are one line naming the file and
/// the problem; a failed build leaves every page as it was. Input errors (a file that cannot be
/// indexed, a bad `--yanked` line) are returned before anything in SITE changes; file-system
/// failures while writing throw `std::system_error`. Builds of one SITE are serialized (a lock
/// file in `SITE/.vwheel/`): a second one waits for the first to finish.
[[nodiscard]] Result<BuildReport> build_site(const BuildOptions& options);

}  // namespace vwheel::index
