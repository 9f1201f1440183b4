#pragma once
/// \file
/// `vwheel list`, `show`, `uninstall` and `venv`: look at, change and create Python
/// environments. Opening an environment fails only for environmental reasons (no usable
/// interpreter), so the `Result` errors of the request-level functions are environmental; a
/// problem with one named distribution is that name's entry in the report.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/core/error.hpp"
#include "vwheel/install/install.hpp"

namespace vwheel::api {

/// Which environment to look at: this interpreter's, else `$VIRTUAL_ENV`'s, else `python3`'s.
struct EnvironmentRequest {
  std::optional<std::filesystem::path> python;
};

/// `vwheel list`'s answer: every installed distribution, sorted by canonical name.
struct ListReport {
  std::vector<install::Distribution> distributions;
};

/// Opens the environment and lists its distributions. Fails when no interpreter can be used.
[[nodiscard]] Result<ListReport> list_distributions(const EnvironmentRequest& request);

/// The table `vwheel list` prints: Package, Version, Installer, Variant columns, each as wide
/// as its widest cell (at least the heading).
[[nodiscard]] std::string format_list_text(const ListReport& report);
/// A JSON array of {name, version, installer, variant, variant_properties}, indented by two,
/// with a trailing newline.
[[nodiscard]] std::string format_list_json(const ListReport& report);

/// One installed distribution as `vwheel show` describes it.
struct ShownDistribution {
  install::Distribution distribution;
  /// Whether METADATA could be read; without it `fields` and `requires_dist` are empty and the
  /// `Requires:` line is left out.
  bool has_metadata = false;
  /// Non-empty Summary, Home-page, Author, Author-email, License, Requires-Python headers.
  std::vector<std::pair<std::string, std::string>> fields;
  /// Every `Requires-Dist` of the METADATA headers, in order.
  std::vector<std::string> requires_dist;
  /// The number of RECORD rows (0 when RECORD is malformed); nullopt when there is no RECORD.
  std::optional<std::size_t> files;
};

/// What to show.
struct ShowRequest {
  EnvironmentRequest environment;
  std::vector<std::string> names;
};

/// One entry per requested name, in request order: the distribution, or why it is not shown.
struct ShowReport {
  std::vector<Result<ShownDistribution>> entries;
};

/// Opens the environment and describes every named distribution. Fails when no interpreter
/// can be used.
[[nodiscard]] Result<ShowReport> show_distributions(const ShowRequest& request);
/// As above in an environment already opened (e.g. a test's directory tree).
[[nodiscard]] ShowReport show_distributions(const install::Environment& env, const std::vector<std::string>& names);

/// `pip show`-style text of every distribution found, separated by `---` lines.
[[nodiscard]] std::string format_show(const ShowReport& report);

/// What to uninstall.
struct UninstallRequest {
  EnvironmentRequest environment;
  std::vector<std::string> names;
};

/// What was removed, one entry per distribution, in request order.
struct UninstallReport {
  std::vector<install::Uninstalled> entries;
};

/// Opens the environment and uninstalls every named distribution in one transaction (all or
/// none; see install::uninstall). Fails when no interpreter can be used, when a name is not
/// installed (nothing is then removed), or when the removal fails (undone).
[[nodiscard]] Result<UninstallReport> uninstall(const UninstallRequest& request);

/// `uninstalled NAME VERSION (N files)` and a newline.
[[nodiscard]] std::string format_uninstalled(const install::Uninstalled& uninstalled);

/// Opens the environment and repairs it (install::repair): an interrupted install, upgrade or
/// uninstall is undone, or finished when it had committed. Fails when no interpreter can be
/// used (exit 3), the journal cannot be read or a backup cannot be put back (exit 3), or the
/// journal names a path outside the environment (exit 1: nothing is undone).
[[nodiscard]] Result<install::Repaired> repair(const EnvironmentRequest& request);

/// What `vwheel repair` prints: what was found and done, one line.
[[nodiscard]] std::string format_repaired(const install::Repaired& repaired);

/// What virtual environment to create.
struct VenvRequest {
  std::filesystem::path path;
  /// The base interpreter; `python3` on PATH when absent (not the active virtual environment's).
  std::optional<std::filesystem::path> python;
  /// Also install pip (runs ensurepip, slow).
  bool with_pip = false;
};

/// The environment created.
struct VenvReport {
  std::filesystem::path path;
  std::filesystem::path python;  ///< the base interpreter used
};

/// Runs `PYTHON -m venv [--without-pip] PATH` without the active environment's `VIRTUAL_ENV`
/// and `PYTHONHOME`. No interpreter, or one that cannot be started, is environmental; a venv
/// module that fails (exit status not 0) is the input's fault (e.g. an unusable PATH).
[[nodiscard]] Result<VenvReport> create_venv(const VenvRequest& request);

/// `created virtual environment PATH (PYTHON)` and a newline.
[[nodiscard]] std::string format_venv(const VenvReport& report);

}  // namespace vwheel::api
