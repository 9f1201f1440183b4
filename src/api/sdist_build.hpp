#pragma once
// `vwheel install` of sdists from indexes and --find-links (plan/sdist.hpp): downloading them
// (their sha256 checked), reading their static PKG-INFO (PEP 643), and building them into wheels
// with the PEP 517 frontend (api::build), each built wheel kept in the cache's `built-wheels` area
// under the sdist's sha256 and the build's inputs, so that it is built once.

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <semaphore>
#include <string>
#include <thread>
#include <vector>

#include "vwheel/api/build.hpp"
#include "vwheel/api/install.hpp"
#include "vwheel/core/error.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/finder/finder.hpp"
#include "vwheel/python/interpreter.hpp"
#include "vwheel/selection/selection.hpp"

namespace vwheel::api {

/// Where the installer's isolated build environments are kept (BuildRequest::environments_dir):
/// in the cache's `built-wheels/environments/`, apart for each set of sources they are filled
/// from (another index may give other build requirements); empty with --no-cache.
[[nodiscard]] std::filesystem::path build_environments_dir(const SourceRequest& sources);

struct SdistBuildOptions {
  /// The target's interpreter: runs the backend (in its environment with `no_build_isolation`).
  python::Interpreter interpreter;
  /// The cache root whose `built-wheels` area keeps the wheels and the failed builds' logs (with
  /// --no-cache, the run's temporary folder).
  std::filesystem::path cache_root;
  /// Where the isolated builds' requirements come from.
  SourceRequest sources;
  bool no_build_isolation = false;
  /// Refuse to build: only a static PKG-INFO is read.
  bool no_build = false;
  std::chrono::milliseconds timeout{std::chrono::minutes(30)};
  /// A failed build's error has the backend's last 20 lines as details (`--verbose`).
  bool verbose = false;
  /// How many backends run at once (`-j`; 0: one per core).
  unsigned jobs = 0;
  /// Told when each backend run begins and ends (Observer::on_build), one line at a time.
  std::function<void(const std::string&)> progress;
  /// The target: an sdist whose pyproject.toml has a `[variant]` table is built as the variant
  /// the target ranks best among those it declares (`vwheel rank`'s engine), as the Building
  /// draft asks of installers; without it, as its plain wheel.
  std::optional<selection::Selection> selection;
};

/// The wheel an sdist is built as (SdistBuilder::variant).
struct SdistVariant {
  /// The variant label; empty for the plain wheel, `null` for the null variant.
  std::string label;
  /// The label's properties, `ns :: feature :: value` (none for the null variant).
  std::vector<std::string> properties;
  /// How many variants its `[variant.variants]` declares.
  std::size_t declared = 0;
  /// How it was chosen, for --explain (empty for the plain wheel).
  std::string why;
};

class SdistBuilder {
 public:
  explicit SdistBuilder(SdistBuildOptions options) : options_(std::move(options)) {}

  /// plan::SdistMetadataReader: the PKG-INFO of the sdist when static, else what the backend's
  /// `prepare_metadata_for_build_wheel` writes, else the METADATA of the wheel it builds (built
  /// once: `wheel` takes it from the cache).
  Result<std::string> metadata(const finder::File& sdist);

  /// plan::SdistPrefetch: starts `metadata` of the sdist on a thread of its own (at most one per
  /// core at a time), which `metadata` then waits for instead of starting again.
  void prefetch(const finder::File& sdist);

  /// The wheel built from the sdist of `name` `version` (a file in the cache), built now unless
  /// a build with the same inputs was kept. The error is one line naming the package, the
  /// backend's last line and the log with its whole output; with `verbose`, its details are the last 20 lines.
  /// Safe to call from several threads at once (the installer builds in parallel).
  Result<std::filesystem::path> wheel(const finder::File& sdist, const std::string& name, const std::string& version);

  /// The sdist's sha256 (fetching it first, the index's sha256 checked).
  Result<std::string> sha256(const finder::File& sdist);

  /// Which wheel `wheel` builds from the sdist: the plain wheel when its pyproject.toml has no
  /// `[variant]` table (or there is no `selection`), else the variant the target ranks best among
  /// its `[variant.variants]`, or the null variant when none fits. Fetches the sdist; chosen once.
  Result<SdistVariant> variant(const finder::File& sdist);

 private:
  struct Fetched {
    std::filesystem::path path;
    std::string sha256;
  };
  Result<const Fetched*> fetch(const finder::File& sdist);
  Result<std::string> read_metadata(const finder::File& sdist);
  /// The sdist's sha256 as the index gives it, else as `sha256` computes it.
  Result<std::string> known_sha256(const finder::File& sdist);
  /// The built-wheel cache's key: the build's inputs, the variant label among them.
  [[nodiscard]] std::string cache_key(const std::string& sdist_sha256, const std::string& label) const;
  Result<SdistVariant> choose_variant(const finder::File& sdist);
  /// Runs the frontend on the sdist: builds its wheel into the cache, or (`metadata_only`)
  /// prepares its metadata. A failed hook's error is the one line `wheel` describes, its whole
  /// output in the cache's `built-wheels/logs/NAME-VERSION.log` (kept only then).
  Result<api::BuildReport> run_frontend(const finder::File& sdist, const Fetched& fetched, const std::string& name,
                                        const std::string& version, const std::string& label, bool metadata_only);

  SdistBuildOptions options_;
  std::optional<TempDir> work_;
  std::mutex fetching_;                     ///< `wheel` runs on several threads at once (fetched_ and work_)
  std::map<std::string, Fetched> fetched_;  ///< by location; never erased (pointers stay valid)
  std::mutex choosing_;
  std::map<std::string, SdistVariant> variants_;  ///< by location
  std::counting_semaphore<> cores_{
      static_cast<std::ptrdiff_t>(options_.jobs != 0 ? options_.jobs : std::max(1U, std::thread::hardware_concurrency()))};
  std::mutex prefetching_;
  /// The prefetched metadata by location. Declared last: destroyed first, waiting for the
  /// threads, which use the members above.
  std::map<std::string, std::shared_future<Result<std::string>>> prefetched_;
};

}  // namespace vwheel::api
