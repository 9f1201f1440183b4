#pragma once
/// \file
/// From requirements to an installed environment: resolve requirements against package indexes
/// and `--find-links` sources, choose the wheel of every resolved version (tags, then PEP 825
/// variant ranking for the target machine), download and verify the wheels, and install them;
/// the same choice made from a `pylock.toml` instead of an index (`vwheel sync`), and the lock
/// itself (`vwheel lock`).
///
/// How one version's wheel is chosen (PEP 825, "Suggested implementation logic for tools"):
/// wheels whose tags the target does not support, or whose `Requires-Python` excludes it, are
/// dropped; when variant wheels remain, the version's combined variant metadata is read (the
/// `{name}-{version}-variants.json` of the same source, else `variant.json` of one wheel per
/// label) and the labels are ranked for the target; the best label with a wheel wins, the null
/// variant last, and non-variant wheels only after it. Sources are taken in priority order for
/// variants (index priority): variant metadata of different sources is never combined. Within a
/// label, the wheel with the best tag wins. The dependencies of the chosen wheel are evaluated
/// with its label and those of its properties the target supports.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/finder/finder.hpp"
#include "vwheel/install/install.hpp"
#include "vwheel/lock/pylock.hpp"
#include "vwheel/markers/marker.hpp"
#include "vwheel/markers/requirement.hpp"
#include "vwheel/plan/sdist.hpp"
#include "vwheel/plan/sources.hpp"
#include "vwheel/selection/selection.hpp"
#include "vwheel/simple/core_metadata.hpp"
#include "vwheel/variant/ordering.hpp"

namespace vwheel::http {
class ProgressDisplay;
}  // namespace vwheel::http

namespace vwheel::plan {

/// The synthetic dependency group (PEP 751 `default-groups`) that a project's lock gives what
/// `[project].dependencies` needs, the project itself included: installed by default, left out by
/// `vwheel sync --no-default-groups` / `--only-group`. A project may not name a group so.
inline constexpr std::string_view kDefaultGroup = "default";

/// Where a root requirement comes from when a project is locked: its `[project].dependencies`, one
/// of its `optional-dependencies` extras, or one of its PEP 735 dependency groups. The lock marks
/// what each needs with `'default' in dependency_groups`, `'E' in extras` or
/// `'G' in dependency_groups` (PEP 751 markers).
struct RootOrigin {
  enum class Kind : std::uint8_t { dependencies, extra, group };
  Kind kind = Kind::dependencies;
  std::string name;  ///< the extra or group, normalized; empty for `dependencies`

  bool operator==(const RootOrigin&) const = default;
};

/// A wheel made from a local source (plan/sources.hpp: built from a project directory, an sdist
/// or a git checkout, downloaded, or given) before resolving, as pip takes it: its project is
/// fixed to this exact distribution. The resolver takes its version and `Requires-Dist` from
/// `metadata` and never asks the indexes for the project; the plan installs this file, with
/// `origin` as its direct_url.json.
struct LocalWheel {
  std::filesystem::path path;
  std::optional<std::string> sha256;  ///< when known already (a download)
  simple::CoreMetadata metadata;      ///< the wheel's METADATA
  install::DirectUrl origin;
};

/// The requirements of one run.
struct Requirements {
  std::vector<markers::Requirement> roots;
  std::vector<markers::Requirement> constraints;
  /// `--hash` values from requirement files, per canonical name (`sha256:hex`, ...).
  std::map<std::string, std::vector<std::string>> hashes;
  /// Parallel to `roots` when a project is locked (same size); empty: plain requirements, which a
  /// lock needs unconditionally (no `extras`/`dependency_groups` markers).
  std::vector<RootOrigin> origins;
  /// The Pythons a lock covers: the project's `requires-python`, or `vwheel lock --python-version`.
  /// Environments it excludes are not locked; it becomes the lock's `requires-python`.
  std::optional<pep440::SpecifierSet> requires_python;
  /// Local projects, archives and direct references (plan/sources.hpp), installed as given rather
  /// than resolved; a relative path from a requirements file is made relative to its folder.
  std::vector<SourceRef> sources;
  /// The wheels of local sources, prepared: their projects resolve to them (LocalWheel). A root
  /// requirement names each one that is installed (`name==version`); one that no requirement
  /// reaches is not installed.
  std::vector<LocalWheel> local_wheels;
};

/// How to resolve and fetch.
struct Settings {
  std::vector<finder::Source> sources;
  bool pre = false;
  bool no_deps = false;
  bool require_hashes = false;
  std::filesystem::path cache_dir;
  /// The installer's cache root (install::InstallOptions::cache_dir), when the run unpacks
  /// through it: a wheel whose archive is gone but whose unpacked copy is there
  /// (install::cached_skeleton) is not downloaded again.
  std::optional<std::filesystem::path> unpacked_cache;
  http::Options http;
  /// Versions to prefer (canonical name -> normalized versions): an existing lock's when
  /// re-locking, so that `vwheel lock` keeps them unless asked to upgrade.
  std::map<std::string, std::set<std::string>> preferred;
  /// No progress display for wheels downloaded while resolving (a server that ignores range
  /// requests: such wheels are read whole for their metadata).
  bool quiet = false;
  /// Which projects may use wheels and sdists, and whether wheels come first.
  FormatControl formats;
  /// Reads an sdist's dependencies (the installer downloads it, and builds it when its PKG-INFO
  /// is not static). Set: a version without a compatible wheel (or any version under
  /// `--no-binary`) is a candidate through its sdist (the first source's), which the plan then
  /// lists in place of a wheel (`Selected::wheel` is the sdist; the caller builds it). A
  /// universal lock (make_lock) takes a version through its sdist only when it has no usable
  /// wheel at all. Unset: sdists are never candidates.
  SdistMetadataReader sdist_metadata;
  /// With `sdist_metadata`: told of the sdists it will most likely be asked for next.
  SdistPrefetch sdist_prefetch;
};

/// Reads requirement strings and `-r`/`-c` files (nested references included) into `out`; options
/// the files carry (index URLs, find-links, --pre, --require-hashes, --no-index) are added to
/// `settings`. Errors name the file and line.
[[nodiscard]] Result<void> load_requirements(const std::vector<std::string>& requirements,
                                             const std::vector<std::filesystem::path>& requirement_files,
                                             const std::vector<std::filesystem::path>& constraint_files,
                                             Requirements& out, Settings& settings);

/// Another variant label of the chosen version, and why it was not chosen.
struct OtherVariant {
  std::string label;
  std::string reason;
};

/// A lock entry installed from something other than one of its wheels (PEP 751 "Installation"):
/// its sdist (no listed wheel fits), an archive, a directory or a VCS commit. The caller gets the
/// file or tree, checks it and builds it (api/lock_sources.hpp) before the plan is applied.
struct LockedSource {
  enum class Kind : std::uint8_t { sdist, archive, directory, vcs };
  Kind kind = Kind::sdist;
  /// `pylock.toml packages[N].sdist (name version)`: what errors name.
  std::string entry;
  std::string url;                                ///< empty when the entry gives a path
  std::optional<std::filesystem::path> path;      ///< absolute (a relative one is the lock's directory's)
  std::optional<std::uint64_t> size;              ///< sdist and archive
  std::map<std::string, std::string> hashes;      ///< sdist and archive: every one is checked
  std::optional<std::string> subdirectory;        ///< archive, directory, vcs
  bool editable = false;                          ///< directory: PEP 660
  std::string vcs_type;                           ///< vcs: `git`
  std::string commit_id;                          ///< vcs
  std::optional<std::string> requested_revision;  ///< vcs: for direct_url.json only
};

/// The wheel chosen for one package.
struct Selected {
  std::string name;  ///< canonical
  std::string version;
  finder::File wheel;
  std::optional<std::string> label;       ///< the variant label; nullopt for a non-variant wheel
  std::vector<std::string> properties;    ///< the label's properties, `ns :: feature :: value`
  std::string why;                        ///< "variant cu128: ...", "the null variant", "non-variant"
  std::vector<OtherVariant> other_variants;
  bool requested = false;
  std::vector<std::string> required_by;
  std::vector<std::string> extras;
  /// The variant metadata the label was ranked with (for locks).
  std::optional<variant::VariantMetadata> variants_json;
  /// Every wheel of the version from the chosen wheel's source (for locks).
  std::vector<finder::File> all_wheels;
  /// The version's sdist from the chosen wheel's source, if it lists one (for locks: PEP 751's
  /// `packages.sdist` beside the wheels).
  std::optional<finder::File> sdist;
  std::vector<std::string> requires_dist;  ///< as written in the chosen wheel's METADATA
  std::optional<std::string> requires_python;  ///< the chosen wheel's Requires-Python
  /// The core metadata the resolution used (PEP 658 `.metadata` or read by range); the downloaded
  /// wheel's METADATA must agree with it. nullopt when none was read (nothing to compare).
  std::optional<simple::CoreMetadata> core_metadata;
  /// Where the label's properties came from (the source's `*-variants.json`, or the lock file's
  /// `packages[N].variants-json`), for messages.
  std::string variants_json_location;
  /// The source's `{name}-{version}-variants.json` file the label was ranked with, when it came
  /// from an index or find-links (what `vwheel download` saves beside the wheel).
  std::optional<finder::File> variants_json_file;
  /// Labels the target can use (the chosen one and the other compatible ones).
  std::vector<std::string> compatible_labels;
  /// sha256 digests the wheel must have (`--hash` of requirement files); empty: any.
  std::vector<std::string> allowed_sha256;
  /// Where a lock lists the wheel (`FILE packages[N].wheels[M]`): a file that is not what the lock
  /// says (its `size`) is refused naming that entry. Empty for a wheel from an index.
  std::string listed_at;
  std::vector<std::string> explain;        ///< lines for --explain
  /// Set when a lock entry is installed from a source (`wheel` is then only its name until the
  /// caller puts the built wheel there, `version` empty for a source tree until then).
  std::optional<LockedSource> source;
  /// The environment the wheel's Requires-Dist is evaluated in: the target's variables plus the
  /// chosen wheel's variant (label, and those of its properties the target supports).
  markers::Environment environment;
  /// PEP 610's direct_url.json of the installed wheel: a local source's (LocalWheel), installed
  /// even when the same version is (as pip reinstalls a local project), or a lock's archive,
  /// directory or vcs entry's.
  std::optional<install::DirectUrl> origin;
};

/// A resolved set of wheels.
struct Plan {
  std::string target;
  std::vector<Selected> packages;  ///< sorted by name
  std::vector<std::string> warnings;
  std::size_t requests = 0;  ///< HTTP requests made while resolving
  /// Some chosen version has variants with `abi_dependency` properties (ranked again with the
  /// resolved versions).
  bool uses_abi_dependency = false;
  /// The answers to HEAD requests the resolution made (by wheel URL) about wheels without a
  /// sha256 whose members it read from the cache (finder::Finder::head_answers): fetch_wheels
  /// takes them instead of asking again.
  std::map<std::string, http::Response, std::less<>> head_answers;
};

/// A requirement of an installed distribution that a run would break.
struct BrokenRequirement {
  std::string distribution;  ///< the installed distribution's name, as installed
  /// `a 1.0 requires b<2, but this run would install b 2.0` (with `[label]` after the version of a
  /// variant distribution).
  std::string message;
};

/// What an install keeps, checked against what it installs (`installing`: canonical name ->
/// version): each requirement of a distribution already in `env` that the run does not replace,
/// on a project the run installs, at a version the requirement does not accept (e.g. installed
/// `a` requires `b<2` and the run installs b 2.0). Its Requires-Dist is evaluated in `target`'s
/// environment with its own variant (no extras). Requirements on projects the run does not touch
/// are not this run's doing and are not checked. In the order of the environment's listing.
[[nodiscard]] std::vector<BrokenRequirement> broken_requirements(const std::map<std::string, std::string>& installing,
                                                                 const install::Environment& env,
                                                                 const selection::Selection& target);

/// Never an incomplete environment, for what an install from requirements keeps: fails with the
/// first of broken_requirements of the plan's packages (one line, advising to resolve both
/// requirements together).
[[nodiscard]] Result<void> check_kept(const Plan& plan, const install::Environment& env,
                                      const selection::Selection& target);

/// The start of a resolution fetched on a thread of its own, while the caller does what the
/// rest needs first (queries the interpreter, whose tags choosing a wheel needs): the roots'
/// project pages, and what finder::Finder::prefetch reads from them (variant metadata, PEP 658
/// files of the newest versions). Loading libcurl is part of the first request. resolve_plan
/// waits for it and goes on from what it fetched. When nothing took it (the interpreter could
/// not be queried), the destructor cancels what is still under way (http::Options::cancel:
/// within a tick, not after a distant server's timeouts) and waits for the thread. Failures are
/// not reported here: the resolution meets them again and reports them.
class HeadStart {
 public:
  /// Starts it; nullptr when the first request of the resolution would be answered without the
  /// network (starts_with_request), or no client can be made (resolve_plan will say why).
  [[nodiscard]] static std::unique_ptr<HeadStart> start(const Requirements& requirements, const Settings& settings);

  HeadStart(const HeadStart&) = delete;
  HeadStart& operator=(const HeadStart&) = delete;
  ~HeadStart();

  /// The finder that fetched, and its client, once the fetching is done.
  [[nodiscard]] finder::Finder& finder();
  [[nodiscard]] http::Client& client();

  struct State;  ///< the client, the finder, the thread and its cancel flag (resolve.cpp)

 private:
  explicit HeadStart(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

/// Resolves `requirements` against the sources for `target` and chooses every wheel; from where
/// `head` (started for the same requirements and settings) left off, when given.
[[nodiscard]] Result<Plan> resolve_plan(const Requirements& requirements, const Settings& settings,
                                        const selection::Selection& target, HeadStart* head = nullptr);

/// Resolves for a lock file. With no targets the lock is universal: the resolution forks where
/// a version's wheels have different requirements (variant labels with different variant-marker
/// dependencies, or plain and variant wheels with different Requires-Dist; labels with the same
/// requirements share a fork) and where a dependency's environment markers differ between the
/// environments the lock stands for (Linux, Windows, macOS; Python 3.9 to 3.15; `universal`'s
/// environment first); each fork is resolved on its own and the lock holds every version any fork
/// needs, all wheels of each (`universal`'s `no_variants` applies), and each entry's
/// `dependencies` edges with their markers; a version without usable wheels is locked through
/// its sdist when `settings.sdist_metadata` is set (its metadata is one plain wheel's, evaluated
/// per environment), an entry with the `sdist` and no `wheels`. With targets, the union of their plans, listing only
/// the wheels some target can use (several versions of a project where the targets differ).
/// An unchanged index gives a byte-identical lock. Wheels their index gives no sha256 for are
/// downloaded and hashed (once: see the installer's record of such downloads), with a progress
/// display unless `quiet`. `head` (started for the same requirements and settings) is where the
/// first resolution goes on from, when given.
[[nodiscard]] Result<lock::Lock> make_lock(const Requirements& requirements, const Settings& settings,
                                           const selection::Selection& universal,
                                           const std::vector<selection::Selection>& targets, bool quiet = false,
                                           HeadStart* head = nullptr);

/// What a lock is installed with: PEP 751's `extras` and `dependency_groups` marker sets.
struct LockSelection {
  std::vector<std::string> extras;  ///< `--extra`
  bool all_extras = false;          ///< every extra of the lock's `extras`
  std::vector<std::string> groups;  ///< `--group`, besides the default groups
  bool no_default_groups = false;   ///< without the lock's `default-groups`
  std::vector<std::string> only_groups;  ///< `--only-group`: these groups alone
};

/// The Requires-Dist lines of a wheel's core metadata (its METADATA).
using RequiresDistReader = std::function<Result<std::vector<std::string>>(const finder::File&)>;

/// Chooses, from a lock alone, the wheel of every package to install on `target`, following PEP
/// 751's "Installation" steps: the `lock-version` (a newer minor is a warning in `Plan::warnings`),
/// the top-level `requires-python` and `environments`, then each `[[packages]]` entry whose
/// `marker` holds (evaluated with `extras` and `dependency_groups` from `asked`: by default the
/// lock's `default-groups`; an extra or group the lock does not offer is an error) and whose own
/// `requires-python` admits the target (else an error). Each applicable entry is installed: its
/// wheel chosen for the target (PEP 825 order, `--variant`, `--no-variants`), else (no wheels, or
/// none fits) its sdist; an `archive`, `directory` or `vcs` entry from that source. Those become
/// packages with a `source` (LockedSource: locations made absolute against the lock's directory)
/// that the caller gets, checks and builds; their Requires-Dist is not known here, and narrows
/// nothing. A name with several
/// applicable entries (PEP 825: variants of another package pin different versions) is narrowed
/// by the Requires-Dist of the wheels chosen for the other packages, read with `read_requires`
/// (only then), evaluated with each wheel's variant: the entries every applicable requirement
/// admits, to a fixed point. Still several: PEP 751's ambiguity error, except in a lock with
/// variant wheels, where a name that no chosen wheel requires is not installed. Neither
/// `dependencies` nor tool tables decide anything. The `directory` entry of the project a lock was
/// made for (a lock with `project_inputs`; the entry under `'default' in dependency_groups`) is
/// skipped with a warning. Errors: a requirement that leaves a name no entry
/// (`torch 2.9.0 [cu128] requires nv-lib==12.8.0, which the lock does not contain: run vwheel lock
/// again`), an applicable entry whose wheels none fits and that has no sdist, or that has no
/// source at all, an unknown label, a missing hash, and a plan with nothing in it from a lock
/// that has packages under the lock's default selection (a sync would empty the environment; with
/// `no_default_groups` or `only_groups`, an empty plan is what was asked). `lock_file` is where the lock was read:
/// wheel paths are relative to its directory, and the planned variant wheels name its
/// `packages[N].variants-json` as where their properties come from.
[[nodiscard]] Result<Plan> plan_from_lock(const lock::Lock& lock, const std::filesystem::path& lock_file,
                                          const selection::Selection& target, const LockSelection& asked = {},
                                          const RequiresDistReader& read_requires = {});

/// The RequiresDistReader of `vwheel sync`: a wheel's METADATA as the finder reads it (a local
/// wheel from its zip; a remote one by HTTP range requests, kept in the wheel-members cache), with
/// an HTTP client made on the first call only.
[[nodiscard]] RequiresDistReader lock_requires_reader(const Settings& settings);

/// Whether resolving `requirements` starts with a request that needs libcurl: a root's project
/// page on an index, or a find-links page, that the HTTP cache cannot answer alone
/// (http::answered_from_cache). Dependencies are not looked at: this decides whether loading
/// libcurl early (http::preload_curl) is worth it, not whether the run will be offline.
[[nodiscard]] bool starts_with_request(const Requirements& requirements, const Settings& settings);

/// Whether installing from `lock` may download: unless `settings.http.offline`, some wheel with a
/// `url` is not in the archive cache under `settings.cache_dir` yet (kept by sha256, as
/// fetch_wheels keeps downloads), nor unpacked with its skeleton in `settings.unpacked_cache`.
/// Every wheel of the lock counts, chosen for this machine or not.
[[nodiscard]] bool lock_may_download(const lock::Lock& lock, const Settings& settings);

/// A planned wheel on local disk, verified: its place in the plan, its path, and its sha256 when
/// known (always for downloads).
struct Fetched {
  std::size_t index = 0;
  std::filesystem::path path;
  std::optional<std::string> sha256;
  /// Set when the wheel is handed on while it still downloads (install::WheelRequest::arriving).
  std::shared_ptr<const zip::Arriving> arriving;
  /// Set when `path` is gone and the wheel is read from its skeleton in the unpacked-wheel cache
  /// (install::WheelRequest::skeleton).
  std::optional<std::filesystem::path> skeleton;
};

/// The sha256 of the wheel that a record in the archive cache describes
/// (`<cache>/archives/url-*/NAME.origin.json`, kept for a wheel whose index gave no sha256, so that
/// the next run can ask the server whether it changed), or nullopt when the record cannot serve
/// (unreadable, or not what fetch_wheels writes). `vwheel cache prune` keeps a record only while
/// a copy of that wheel is in the cache.
[[nodiscard]] std::optional<std::string> origin_record_sha256(const std::filesystem::path& record);

/// Downloads (or finds in the cache) and verifies the planned wheels; returns their local paths in
/// plan order. `on_ready` (when set) is called on the calling thread for each wheel as soon as it
/// is verified (those already on disk first, then each download as it completes), so the caller
/// can unpack it while the others still download. Nothing unverified is left in the cache.
/// A large wheel (16 MiB or more, with a known size and sha256, from an HTTP server that honours
/// Range requests for its last bytes) is handed on before its download starts, as
/// Fetched::arriving: the caller unpacks it as it arrives, and learns from the GrowingFile
/// whether the download, its checks included, succeeded; fetch_wheels returns only once every
/// download has finished.
///
/// Progress goes to `display` when given: it must have been made with one name per planned
/// package, in plan order (its indexes are plan indexes), and is left unfinished, so that the
/// caller can go on showing unpacking on it. Without one, a display of its own (quiet when
/// `quiet`) lives for the downloads.
[[nodiscard]] Result<std::vector<std::filesystem::path>> fetch_wheels(
    const Plan& plan, const Settings& settings, bool quiet,
    const std::function<void(const Fetched&)>& on_ready = {}, http::ProgressDisplay* display = nullptr);

/// What applying a plan did.
struct Applied {
  std::vector<install::Installed> installed;  ///< wheels installed (or reinstalled)
  std::vector<std::string> unchanged;         ///< `name version` already installed as planned
  std::vector<install::Uninstalled> removed;  ///< distributions the plan does not list (sync)
};

/// Makes the environment match the plan: packages installed with the planned version and variant
/// label are left alone, the others are fetched (verified) and installed, replacing what is there.
/// With `remove_unlisted` (sync), installed distributions the plan does not list are uninstalled,
/// except the packaging tools `pip`, `setuptools` and `wheel`.
[[nodiscard]] Result<Applied> apply_plan(const Plan& plan, const install::Environment& env, const Settings& settings,
                                         install::InstallOptions options, bool remove_unlisted, bool quiet);

/// `NAME VERSION: FILE (WHY)`.
[[nodiscard]] std::string describe(const Selected& selected);

/// The `--report` JSON document.
[[nodiscard]] std::string report_json(const Plan& plan, const std::vector<install::Installed>* installed);

/// `name==version --hash=sha256:...` lines of the plan (`vwheel export`).
[[nodiscard]] std::string requirements_txt(const Plan& plan);

}  // namespace vwheel::plan
