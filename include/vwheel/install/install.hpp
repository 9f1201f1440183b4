#pragma once
/// \file
/// Installing wheels into a Python environment, safely and quickly.
///
/// Each wheel is checked (member names and types, `WHEEL`, zip-bomb limits, every file against
/// `RECORD`), unpacked into a staging directory inside the environment, completed there
/// (shebangs, entry-point launchers, `INSTALLER`, `REQUESTED`, `direct_url.json`, the rewritten
/// `RECORD`, optionally bytecode), and then moved into place with renames, all wheels of a run
/// in one transaction. Every move is recorded in memory and, before it is made, in the
/// environment's journal (`<lock_dir>/.vwheel-journal`), so a failure rolls the environment
/// back to where it was, and a run killed half-way is undone (or finished, once it has committed)
/// by the next run or `repair()`; an upgrade removes the old version in the same transaction. An unpacked copy of every wheel is kept in a cache
/// (`<cache>/unpacked/<sha256 of the wheel>/`) and hard-linked into environments on later installs;
/// the downloaded wheels themselves are kept beside it, in `<cache>/archives/<sha256>/`.
/// Concurrent runs on one environment are serialized by `flock` on `<lock_dir>/.vwheel.lock`.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/core/file_lock.hpp"
#include "vwheel/install/layout.hpp"
#include "vwheel/python/interpreter.hpp"

namespace vwheel::zip {
struct Arriving;
}  // namespace vwheel::zip

namespace vwheel::install {

/// The environment to install into.
struct Environment {
  std::filesystem::path python;  ///< absolute path of the interpreter (shebangs, compileall)
  /// The interpreter's `X.Y` (its `python_version` marker): versioned script names (`pip3.11`).
  std::string python_version;
  Scheme scheme;                 ///< headers: the base directory (the distribution name is added)
  /// The directory the lock file and the journal live in: the prefix of a virtual environment
  /// (beside `pyvenv.cfg`), else purelib.
  std::filesystem::path lock_dir;
  /// The prefix nothing may be written outside of (uninstall checks RECORD paths against it).
  std::filesystem::path prefix;
};

/// The environment of an interpreter: its sysconfig scheme (`headers` as pip's
/// `{prefix}/include/site/pythonX.Y` in a virtual environment, else `include`).
[[nodiscard]] Result<Environment> environment_of(const python::Interpreter& interpreter);

/// An interpreter and its environment.
struct OpenedEnvironment {
  python::Interpreter interpreter;
  Environment env;
};

/// Finds the interpreter (`python`, else `$VIRTUAL_ENV`, else `python3` on PATH), queries it and
/// describes its environment. The error says which interpreter could not be used.
///
/// The query (a Python start-up, most of a small install's time) is cached per interpreter in
/// `<interpreter_cache>/interpreters/`, keyed by the interpreter's absolute path, the identity
/// and modification time of the path and of the file it resolves to, the `pyvenv.cfg` next to
/// it, and the kernel release; nullopt disables the cache.
[[nodiscard]] Result<OpenedEnvironment> open_environment(const std::optional<std::filesystem::path>& python,
                                                         const std::optional<std::filesystem::path>& interpreter_cache);

/// As above, with the cache under `default_cache_dir()`.
[[nodiscard]] Result<OpenedEnvironment> open_environment(const std::optional<std::filesystem::path>& python);

/// An exclusive `flock` on `<dir>/.vwheel.lock`, held for the object's lifetime.
class EnvironmentLock {
 public:
  /// Blocks until the lock is held. Fails when the file cannot be created.
  [[nodiscard]] static Result<EnvironmentLock> acquire(const std::filesystem::path& dir);
  /// Tries first; when another process holds the lock, calls `on_wait` (once) and then blocks.
  [[nodiscard]] static Result<EnvironmentLock> acquire(const std::filesystem::path& dir,
                                                       const std::function<void()>& on_wait);
  /// Does not block: nullopt-like error when another process holds it.
  [[nodiscard]] static Result<EnvironmentLock> try_acquire(const std::filesystem::path& dir);

 private:
  explicit EnvironmentLock(FileLock lock) noexcept : lock_(std::move(lock)) {}
  FileLock lock_;
};

/// Prints `waiting for the lock on PREFIX held by another process` to stderr (the default
/// `InstallOptions::on_lock_wait`, also used by `uninstall`).
void print_lock_wait(const Environment& env);

/// How files come from the cache of unpacked wheels into an environment (`--link-mode`).
enum class LinkMode {
  automatic,  ///< reflink (a copy-on-write clone) where the file system can, else a hard link
  hardlink,   ///< a hard link (a copy across file systems): fastest; shares the inode with the cache
  copy,       ///< a full copy: the environment's files are its own
  reflink,    ///< a copy-on-write clone (FICLONE: btrfs, XFS, bcachefs...), a copy where unsupported
};

/// `auto`, `hardlink`, `copy`, `reflink`, or nullopt.
[[nodiscard]] std::optional<LinkMode> parse_link_mode(std::string_view text);

/// The skeleton in the unpacked-wheel cache under `cache_dir` of the archive with this sha256
/// (lowercase hex), when that entry can stand in for the archive: it has a skeleton, and every
/// file its manifest lists has the size and modification time recorded (none was edited through
/// a hard link). Else nullopt: the wheel must be downloaded again. `check_files` false skips the
/// files (a cheap guess: one stat).
[[nodiscard]] std::optional<std::filesystem::path> cached_skeleton(const std::filesystem::path& cache_dir,
                                                                   std::string_view sha256, bool check_files = true);

/// How to install.
struct InstallOptions {
  Limits limits;
  bool compile = false;          ///< run compileall on the installed `.py` files (listed in RECORD)
  bool force_reinstall = false;  ///< reinstall when the same version is installed
  /// The cache root: unpacked wheels go to `<dir>/unpacked/<sha256>/`; nullopt disables it.
  std::optional<std::filesystem::path> cache_dir;
  /// How cached files are placed. Whatever the mode, each cached file's size and modification
  /// time are checked against those recorded when the entry was made, so a file edited in place
  /// through a hard link in some environment is unpacked again rather than spread further.
  LinkMode link_mode = LinkMode::automatic;
  /// Keep a downloaded wheel in `<cache_dir>/archives/` once its unpacked copy is cached. By
  /// default the cache keeps one copy of a wheel: its unpacked files and a skeleton of the archive
  /// (zip::write_skeleton: the `.dist-info` and the central directory, to plan the next install
  /// from), and the download goes once it is installed.
  bool keep_archives = false;
  unsigned jobs = 0;  ///< worker threads (0: the number of CPUs)
  /// Members up to this size are inflated whole in memory (libdeflate, fastest); larger ones
  /// stream through bounded buffers (zlib), so memory does not grow with a member's size.
  std::uint64_t whole_member_max = std::uint64_t{8} << 20;
  /// Called once when another process holds the environment lock, before waiting for it.
  std::function<void(const Environment&)> on_lock_wait = print_lock_wait;
  /// Unpacking progress, for a display of big wheels: `written` of the `total` uncompressed bytes
  /// of the wheel added as `slot` (its Session::add slot; its position for install_wheels) are in
  /// staging. Called from worker threads, possibly several wheels at once, so the callee must be
  /// thread-safe; calls for one slot never overlap and come in order. Throttled: at most once per
  /// 4 MiB or 100 ms of a wheel (a wheel of 12,000 small files gives a few calls, not 12,000),
  /// members streamed in chunks reporting between files too. Each unpacked wheel gets a final
  /// call with `written == total`, also when its files came from the cache; none after it.
  std::function<void(std::size_t slot, std::uint64_t written, std::uint64_t total)> on_unpack;
  /// Test hook: called before each move into place with its 0-based number; returning true makes
  /// the install fail there (and roll back).
  std::function<bool(std::size_t)> fail_at_move;
};

/// One wheel to install.
struct WheelRequest {
  std::filesystem::path path;
  bool requested = true;   ///< write `REQUESTED`
  bool direct = true;      ///< given as a file: write `direct_url.json`
  /// What `direct_url.json` says when the wheel stands for something else the user named (built
  /// from a project directory or an sdist, downloaded from a URL); nullopt: the wheel file itself
  /// (its `file://` URL and sha256).
  std::optional<DirectUrl> origin;
  /// The archive's sha256 (lowercase hex) when the caller has verified it (a download): spares
  /// hashing the file again to find its unpacked copy in the cache.
  std::optional<std::string> sha256;
  /// The wheel is still downloading to `arriving->path` (and will be at `path`, verified, with the
  /// `sha256` above): its members are unpacked as their bytes arrive, and the result is kept only
  /// once the download has finished and checked out. Any failure on the way is judged again on
  /// the complete file.
  std::shared_ptr<const zip::Arriving> arriving;
  /// The archive at `path` is not kept (InstallOptions::keep_archives): the wheel is planned from
  /// this skeleton (cached_skeleton) and its files come from the cache entry named by `sha256`.
  std::optional<std::filesystem::path> skeleton;

  WheelRequest() = default;
  WheelRequest(std::filesystem::path path_, bool requested_ = true, bool direct_ = true,  // NOLINT: implicit
               std::optional<std::string> sha256_ = std::nullopt)
      : path(std::move(path_)), requested(requested_), direct(direct_), sha256(std::move(sha256_)) {}
};

/// What happened to one wheel.
struct Installed {
  std::string name;
  std::string version;
  std::filesystem::path dist_info;  ///< installed `.dist-info` directory
  std::size_t files = 0;            ///< RECORD rows written
  bool from_cache = false;          ///< linked from the unpacked-wheel cache
  bool skipped = false;             ///< already installed (same version, no force)
  /// The version replaced, when this was an upgrade or reinstall.
  std::optional<std::string> replaced;
  /// Things worth saying that did not stop the install (a `Wheel-Version` newer than 1.0).
  std::vector<std::string> warnings;
};

/// What uninstalling removed.
struct Uninstalled {
  std::string name;
  std::string version;
  std::size_t files = 0;
};

/// An installation fed one wheel at a time, e.g. as downloads finish: each wheel is checked and
/// unpacked into a staging directory on a worker thread as soon as it is added, while the caller
/// goes on; `finish` then moves them all into place. The environment lock is held from `begin`
/// until `finish` or destruction; destroying an unfinished session discards what was staged and
/// leaves the environment as it was.
///
///     auto session = Session::begin(env, options, wheels.size());
///     for (...) (*session)->add(i, request);   // any order, each slot once
///     auto installed = (*session)->finish();   // results in slot order
class Session {
 public:
  /// Takes the environment lock and starts `options.jobs` threads for `count` wheels: each wheel
  /// is prepared by one of them, and its members are unpacked by every thread that has nothing
  /// else to do (core/worker_pool.hpp), so that the largest wheel is not left to one.
  [[nodiscard]] static Result<std::unique_ptr<Session>> begin(const Environment& env, const InstallOptions& options,
                                                              std::size_t count);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// Queues wheel `slot` (< count) for checking and unpacking; returns at once. Wheels on disk are
  /// taken before those still arriving (WheelRequest::arriving), each kind in the order added.
  void add(std::size_t slot, WheelRequest request);

  /// Also uninstalls these distributions (canonical names; those not installed are ignored) in
  /// the same transaction as the wheels (`sync`); what was removed is then in `removed()`.
  void uninstall_too(std::vector<std::string> canonical_names);

  /// Waits for every wheel (each slot must have been added), then moves them into place in slot
  /// order, as install_wheels() does.
  [[nodiscard]] Result<std::vector<Installed>> finish();

  /// After a successful finish(): what uninstall_too() removed, in the order given.
  [[nodiscard]] const std::vector<Uninstalled>& removed() const;

  struct Impl;

 private:
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Installs the wheels (checked and unpacked in parallel; moved into place together under the
/// environment lock, in one transaction). Any failure leaves the environment as it was, with no
/// wheel of the run installed. The error names the wheel and the member or field at fault; a
/// member that is a file where the environment has a directory (or the other way round) is one,
/// unless what is there is the replaced version's own.
[[nodiscard]] Result<std::vector<Installed>> install_wheels(const Environment& env,
                                                            const std::vector<WheelRequest>& wheels,
                                                            const InstallOptions& options);

/// An installed distribution.
struct Distribution {
  std::string name;     ///< from METADATA (as written)
  std::string version;  ///< from METADATA
  std::filesystem::path dist_info;
  std::string installer;  ///< INSTALLER's first line, empty when absent
  /// The variant label and properties (`ns :: feature :: value`) from `variant.json`, if any.
  std::optional<std::string> variant_label;
  std::vector<std::string> variant_properties;
  /// `direct_url.json` (PEP 610) as written, when the distribution was installed from a file,
  /// a directory or a URL.
  std::optional<std::string> direct_url;
};

/// Every `*.dist-info` directory in purelib and platlib, sorted by canonical name.
[[nodiscard]] std::vector<Distribution> list_distributions(const Environment& env);

/// The installed distribution with this (canonicalized) name, or nullopt.
[[nodiscard]] std::optional<Distribution> find_distribution(const Environment& env, std::string_view name);


/// Removes distributions from RECORD (files, their `__pycache__` files, the dist-info
/// directories, directories left empty), under the environment lock, in one journaled
/// transaction: all of them or none (a kill at any point is undone, or finished, by the next run
/// or repair()). Fails before anything is removed when a name is not installed (unlike pip, which
/// skips it with a warning): the error names it. Fails when a distribution has no RECORD, and when
/// a file it lists that exists is outside the environment (the real path of its directory, links
/// resolved, is in none of the scheme directories: a package directory linked to a checkout):
/// the error names the RECORD line and the environment, and nothing is removed. A name given
/// twice is removed once; the result is in the order given.
[[nodiscard]] Result<std::vector<Uninstalled>> uninstall(const Environment& env, const std::vector<std::string>& names);

/// uninstall() of one name.
[[nodiscard]] Result<Uninstalled> uninstall(const Environment& env, std::string_view name);

/// What repair() found and did.
struct Repaired {
  bool interrupted = false;     ///< a journal of an interrupted run was found
  bool rolled_forward = false;  ///< that run had committed: its clean-up was finished, else it was undone
  std::size_t steps = 0;        ///< journaled steps undone (or clean-ups done)
  std::size_t stale = 0;        ///< staging directories of runs killed before they moved anything, removed
};

/// Under the environment lock, undoes the run the environment's journal describes (or finishes
/// it when it had committed), then removes stale staging directories. Every install and
/// uninstall does this first; `vwheel repair` does only this. Fails (exit 3) when the journal
/// cannot be parsed or a backup cannot be put back, and (exit 1) when a step names a path outside
/// the environment or a backup outside the run directory (a journal this vwheel did not write:
/// nothing is undone): the journal and the backups are kept.
[[nodiscard]] Result<Repaired> repair(const Environment& env);

}  // namespace vwheel::install
