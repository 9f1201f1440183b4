#pragma once
/// \file
/// Source distributions from indexes and `--find-links`, as the resolver sees them: which projects
/// may use wheels or sdists (pip's `--no-binary` / `--only-binary` / `--prefer-binary`), and
/// whether an sdist's `PKG-INFO` can stand for the metadata of the wheel it builds (PEP 643).
/// Downloading and building them belongs to the layers above (`Settings::sdist_metadata`).

#include <functional>
#include <set>
#include <string>
#include <string_view>

#include "vwheel/core/error.hpp"
#include "vwheel/finder/finder.hpp"

namespace vwheel::plan {

/// pip's format control: which projects may be installed from wheels, which from sdists.
struct FormatControl {
  /// Canonical names, or `:all:` for every project.
  std::set<std::string> no_binary;
  std::set<std::string> only_binary;
  /// An older version with a compatible wheel before a newer one that only an sdist gives.
  bool prefer_binary = false;

  /// Whether wheels of the project (canonical name) may be used: not under `--no-binary` (a
  /// name given to `--only-binary` after `--no-binary :all:` still may).
  [[nodiscard]] bool allows_wheel(std::string_view name) const;
  /// Whether its sdists may be built: not under `--only-binary`, in the same way.
  [[nodiscard]] bool allows_sdist(std::string_view name) const;
};

/// Adds one `--no-binary VALUE` (`no_binary`) or `--only-binary VALUE` option, as pip reads them:
/// VALUE is `:all:`, `:none:` or comma-separated project names; `:all:` replaces the option's set
/// and takes it out of the other one's, `:none:` empties the option's set, and a name joins the
/// option's set and leaves the other one. An empty name or an invalid one is an error naming it.
[[nodiscard]] Result<void> add_format_option(FormatControl& control, bool no_binary, std::string_view value);

/// Whether an sdist's `PKG-INFO` (core metadata headers) gives the dependencies of what it builds
/// (PEP 643): `Metadata-Version` 2.2 or later and none of `Requires-Dist`, `Requires-Python` and
/// `Provides-Extra` listed as `Dynamic`. Otherwise the backend has to say.
[[nodiscard]] bool sdist_metadata_is_static(std::string_view pkg_info);

/// The core metadata of the wheel an sdist builds, as METADATA text: read from its `PKG-INFO`
/// when that is static, else from the backend (which may build the wheel). Errors are one line
/// naming the sdist.
using SdistMetadataReader = std::function<Result<std::string>(const finder::File& sdist)>;

/// Told of an sdist whose metadata the resolution will most likely read next (its project's most
/// preferred candidate): the reader may start on it now, beside the resolution and the other
/// such sdists, so that their backends run side by side rather than one at a time.
using SdistPrefetch = std::function<void(const finder::File& sdist)>;

}  // namespace vwheel::plan
