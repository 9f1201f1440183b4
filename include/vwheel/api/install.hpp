#pragma once
/// \file
/// The installer's use cases: `vwheel install` (wheel files, or requirements resolved against
/// indexes and `--find-links`), `vwheel lock`, `vwheel sync` and `vwheel export`. Each builds the
/// run's one `selection::Selection` and hands it to the `plan` and `install` mechanisms.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "vwheel/api/selection.hpp"
#include "vwheel/core/error.hpp"
#include "vwheel/install/install.hpp"
#include "vwheel/lock/pylock.hpp"
#include "vwheel/plan/plan.hpp"

namespace vwheel::api {

/// Where packages come from, the network and the caches, as given on the command line.
struct SourceRequest {
  std::string index_url;
  std::vector<std::string> extra_index_urls;
  std::vector<std::string> find_links;
  bool no_index = false;
  bool offline = false;
  bool refresh = false;
  unsigned retries = 3;
  unsigned timeout = 30;  ///< seconds without data before an attempt fails
  unsigned jobs = 16;     ///< parallel transfers
  std::string cache_dir;  ///< empty: `default_cache_dir()`
  bool no_cache = false;
  bool pre = false;
  /// `--index NAME=URL`: named indexes, searched first, in order; credentials for a named index
  /// may come from VWHEEL_INDEX_<NAME>_USERNAME and _PASSWORD.
  std::vector<std::string> indexes;
  std::string keyring_provider = "disabled";  ///< `disabled` or `subprocess`
  std::string cert;                           ///< CA bundle; empty: $SSL_CERT_FILE, $REQUESTS_CA_BUNDLE, $PIP_CERT
  std::string client_cert;                    ///< PEM with the key
  std::string proxy;
  std::vector<std::string> trusted_hosts;
};

/// `--index NAME=URL` split into the name and the URL: nullopt when it is not `NAME=URL` with a
/// name of letters, digits, `-`, `_` and `.` (a URL alone has no `=` before its `://`).
[[nodiscard]] std::optional<std::pair<std::string, std::string>> parse_named_index(std::string_view text);

/// The plan settings the request describes. Without --index-url, --index, --find-links or
/// --no-index the index is `$VWHEEL_INDEX_URL`, else `$PIP_INDEX_URL`, else https://pypi.org/simple.
/// The indexes and find-links URLs are those credentials are looked up for; the CA bundle is
/// --cert, else the first of $SSL_CERT_FILE, $REQUESTS_CA_BUNDLE, $PIP_CERT that is set.
[[nodiscard]] plan::Settings make_settings(const SourceRequest& request);

/// Called as a run goes: the plan once chosen (before anything downloads), warnings.
struct Observer {
  std::function<void(const plan::Plan&)> on_plan;
  std::function<void(const std::string&)> on_warning;
  /// An sdist's build (or metadata step) began or ended: one line, e.g. `building b 1.0
  /// (b-1.0.tar.gz)`, `built b 1.0 (b-1.0.tar.gz) in 1.2 s`. Called from several threads at once,
  /// never concurrently (the caller holds a lock).
  std::function<void(const std::string&)> on_build;
};

/// `vwheel install`.
struct InstallRequest {
  /// Requirements (PEP 508), and what names one distribution's files (plan/sources.hpp): wheel
  /// files, project directories, sdists, `name @ URL` and `git+` references (directories, sdists
  /// and checkouts built into a wheel first). Those wheels are fixed candidates of the resolution
  /// (plan::LocalWheel): their dependencies are resolved with the requirements, as pip does; with
  /// `no_deps` and no requirements, they are installed as given.
  std::vector<std::string> items;
  std::vector<std::filesystem::path> requirement_files;
  std::vector<std::filesystem::path> constraint_files;
  std::optional<std::filesystem::path> python;
  SelectionRequest selection;
  SourceRequest sources;
  /// Requirements: no dependencies, and what stays installed is not checked (plan::check_kept).
  /// Wheel files: a requirement of an installed distribution that they break is a warning, not a
  /// refusal (plan::broken_requirements).
  bool no_deps = false;
  bool require_hashes = false;
  bool dry_run = false;
  bool ignore_variant = false;  ///< wheel files: install an unsupported variant anyway
  /// Project directories and sdists: the backend runs in the target's environment, which must
  /// have the build requirements, instead of a fresh one with them installed from `sources`.
  bool no_build_isolation = false;
  /// Requirements: which projects may use wheels and sdists (`--no-binary`, `--only-binary`,
  /// `--prefer-binary`). A version without a compatible wheel is installed from its sdist from
  /// an index or --find-links, built into a wheel (kept in the cache's `built-wheels` area).
  plan::FormatControl formats;
  /// Requirements: refuse to build an sdist (one line naming the package and its sdist); a
  /// static PKG-INFO is still read (PEP 643).
  bool no_build = false;
  /// A backend that runs longer than this is stopped and the install fails (nothing installed).
  std::chrono::seconds build_timeout{std::chrono::minutes(30)};
  /// A failed build of an sdist shows the backend's last 20 lines after its one-line error.
  bool verbose = false;
  /// `-e PATH`: project directories installed editable (PEP 660), as the sources in `items`.
  std::vector<std::string> editables;
  bool quiet = false;           ///< no progress output
  /// Write the JSON report here (`--report`).
  std::optional<std::filesystem::path> report_file;
  bool want_report = false;  ///< fill `InstallReport::report_json` (`--json`)
  /// How to install; `cache_dir` is set from `sources` (none with `no_cache`).
  install::InstallOptions options;
};

/// What `install` did.
struct InstallReport {
  bool from_files = false;
  /// Wheel files that would be installed (`--dry-run` of files).
  std::vector<std::filesystem::path> would_install;
  std::optional<plan::Plan> plan;
  std::vector<install::Installed> installed;
  std::vector<std::string> unchanged;  ///< `name version` already installed as planned
  std::string report_json;             ///< with `want_report` or `report_file`
};

/// Whether `items` are all existing `.whl` files (then `install` installs them as given).
[[nodiscard]] bool all_wheel_files(const std::vector<std::string>& items);

/// Installs wheel files or resolved requirements into the environment of `request.python`.
[[nodiscard]] Result<InstallReport> install(const InstallRequest& request, const Observer& observer);

/// `vwheel lock`.
struct LockRequest {
  /// Requirements, and local projects, archives and direct references (plan/sources.hpp): each of
  /// those is built to read its metadata and becomes a PEP 751 `directory`, `archive` or `vcs`
  /// entry. A universal lock takes the built wheel's Requires-Dist as they are in every
  /// environment: one whose markers differ between environments is an input error (use
  /// `profiles`).
  std::vector<std::string> items;
  /// `-e PATH`: project directories, locked as editable `directory` entries.
  std::vector<std::string> editables;
  std::vector<std::filesystem::path> requirement_files;
  std::vector<std::filesystem::path> constraint_files;
  std::filesystem::path output = "pylock.toml";
  std::optional<std::filesystem::path> python;
  /// One selection per profile in `profiles` (none: every variant of every version).
  SelectionRequest selection;
  std::vector<std::filesystem::path> profiles;
  SourceRequest sources;
  /// Re-locking: an existing `output` lock's versions are kept where they still resolve, except
  /// for every project with `upgrade`, and for these (canonical or not) with `upgrade_packages`.
  bool upgrade = false;
  std::vector<std::string> upgrade_packages;
  bool quiet = false;  ///< no progress output (wheels downloaded to hash them)
  /// `--python-version`: the Pythons a universal lock covers, a PEP 440 specifier set (becomes
  /// plan::Requirements::requires_python and the lock's `requires-python`); a bad one is a usage
  /// error naming it.
  std::optional<std::string> python_version;
  /// Versions that only sdists give are locked through their metadata, which the interpreter
  /// reads (static PKG-INFO, else the backend): with this, the backend runs in the interpreter's
  /// environment, which must have the build requirements.
  bool no_build_isolation = false;
};

struct LockReport {
  lock::Lock lock;
  std::size_t wheels = 0;
  /// What the lock leaves out that was not asked for: the oldest Pythons, when the requirements
  /// do not resolve there and no range was given (see `lock`).
  std::vector<std::string> warnings;
};

/// Resolves and writes the lock file atomically. Without a Python range (a project's
/// `requires-python`, `python_version`), a universal lock covers Python 3.9 onwards; where the
/// requirements do not resolve for the oldest of those Pythons, the lock starts at the first minor
/// version (up to the interpreter's or profile's own) from which they do, says so in
/// `LockReport::warnings`, and writes that range as its `requires-python`, as a locker given
/// `--python-version` would. Otherwise the error of the whole range is reported. An unknown name in `upgrade_packages` (in
/// neither the existing lock nor the new resolution) is an input error; nothing is written.
[[nodiscard]] Result<LockReport> lock(const LockRequest& request);

/// `vwheel sync` and `vwheel export`.
struct SyncRequest {
  std::filesystem::path lock_file;
  /// The extras and dependency groups to install (PEP 751 `extras` / `dependency_groups`).
  plan::LockSelection lock_selection;
  std::optional<std::filesystem::path> python;
  SelectionRequest selection;
  SourceRequest sources;
  bool dry_run = false;
  bool quiet = false;
  /// `--locked`: refuse a lock made from a project whose pyproject.toml changed since (check_locked).
  bool locked = false;
  /// Entries built from a source (sdist, archive, directory, vcs): the backend runs in the target's
  /// environment, as InstallRequest::no_build_isolation says.
  bool no_build_isolation = false;
  std::optional<std::filesystem::path> report_file;
  /// How to install; `cache_dir` is set from `sources` (none with `no_cache`).
  install::InstallOptions options;
};

struct SyncReport {
  plan::Plan plan;
  std::optional<plan::Applied> applied;  ///< nullopt with `dry_run`
};

/// Makes the environment match the lock for the selection's machine.
[[nodiscard]] Result<SyncReport> sync(const SyncRequest& request, const Observer& observer);

/// The lock's wheels for one machine as a requirements.txt with hashes (written to `output`
/// when given; the text is returned either way).
[[nodiscard]] Result<std::string> export_lock(const SyncRequest& request, const std::optional<std::filesystem::path>& output);

}  // namespace vwheel::api
