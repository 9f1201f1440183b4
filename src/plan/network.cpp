// Cheap guesses of whether a run will need the network soon, made before anything is resolved,
// so that the use cases can start loading libcurl while they do other work.
#include <system_error>

#include "vwheel/core/cache_layout.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/http/preload.hpp"
#include "vwheel/install/install.hpp"
#include "vwheel/plan/plan.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::plan {
namespace fs = std::filesystem;

bool starts_with_request(const Requirements& requirements, const Settings& settings) {
  for (const auto& source : settings.sources) {
    if (source.kind == finder::Source::Kind::find_links) {
      auto page = finder::page_request(source, "");
      if (page && !http::answered_from_cache(settings.http, *page)) return true;
      continue;
    }
    for (const auto& root : requirements.roots) {
      auto page = finder::page_request(source, wheel_name::canonicalize_name(root.name));
      if (page && !http::answered_from_cache(settings.http, *page)) return true;
    }
  }
  return false;
}

bool lock_may_download(const lock::Lock& lock, const Settings& settings) {
  if (settings.http.offline) return false;
  for (const auto& package : lock.packages) {
    for (const auto& wheel : package.wheels) {
      if (!wheel.url) continue;
      auto sha = wheel.hashes.find("sha256");
      if (sha == wheel.hashes.end()) return true;
      const auto hex = ascii_lower(sha->second);
      if (!is_sha256_hex(hex) || wheel.name.empty() || wheel.name.find('/') != std::string::npos) return true;
      std::error_code ec;
      // A download with holes (punched while it was unpacked, then the run killed) is fetched again.
      if (const auto kept = CacheLayout(settings.cache_dir).archive_dir(hex) / wheel.name;
          fs::is_regular_file(kept, ec) && !has_hole_before_end(kept)) {
        continue;
      }
      // A guess, so only the skeleton's presence: not every file of the entry, as fetch_wheels checks.
      if (!settings.unpacked_cache || !install::cached_skeleton(*settings.unpacked_cache, hex, false)) return true;
    }
  }
  return false;
}

}  // namespace vwheel::plan
