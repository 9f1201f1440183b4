#pragma once
// `vwheel install` of sdists from indexes and --find-links (plan/sdist.hpp): downloading them
// (their sha256 checked), reading their static PKG-INFO (PEP 643), and building them into wheels
// with the PEP 517 frontend (api::build), each built wheel kept in the cache's `built-wheels` area
// under the sdist's sha256 and the build's inputs, so that it is built once.

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vwheel/api/build.hpp"
#include "vwheel/api/install.hpp"
#include "vwheel/core/error.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/finder/finder.hpp"
#include "vwheel/python/interpreter.hpp"

namespace vwheel::api {

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
};

class SdistBuilder {
 public:
  explicit SdistBuilder(SdistBuildOptions options) : options_(std::move(options)) {}

  /// plan::SdistMetadataReader: the PKG-INFO of the sdist when static, else what the backend's
  /// `prepare_metadata_for_build_wheel` writes, else the METADATA of the wheel it builds (built
  /// once: `wheel` takes it from the cache).
  Result<std::string> metadata(const finder::File& sdist);

  /// The wheel built from the sdist of `name` `version` (a file in the cache), built now unless
  /// a build with the same inputs was kept. The error is one line naming the package, the
  /// backend's last line and the log with its whole output; with `verbose`, its details are the last 20 lines.
  Result<std::filesystem::path> wheel(const finder::File& sdist, const std::string& name, const std::string& version);

  /// The sdist's sha256 (fetching it first, the index's sha256 checked).
  Result<std::string> sha256(const finder::File& sdist);

 private:
  struct Fetched {
    std::filesystem::path path;
    std::string sha256;
  };
  Result<const Fetched*> fetch(const finder::File& sdist);
  [[nodiscard]] std::string cache_key(const Fetched& fetched) const;
  /// Runs the frontend on the sdist: builds its wheel into the cache, or (`metadata_only`)
  /// prepares its metadata. A failed hook's error is the one line `wheel` describes, its whole
  /// output in the cache's `built-wheels/logs/NAME-VERSION.log` (kept only then).
  Result<api::BuildReport> run_frontend(const finder::File& sdist, const Fetched& fetched, const std::string& name,
                                        const std::string& version, bool metadata_only);

  SdistBuildOptions options_;
  std::optional<TempDir> work_;
  std::map<std::string, Fetched> fetched_;  ///< by location
};

}  // namespace vwheel::api
