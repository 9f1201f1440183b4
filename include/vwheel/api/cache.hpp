#pragma once
/// \file
/// `vwheel cache dir|info|clean|prune`: what the cache holds, and taking it back. A torch
/// variant's unpacked tree is 1.7 GB, and `lock` keeps the wheels it downloaded to hash.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "vwheel/core/error.hpp"

namespace vwheel::api {

/// Which cache: `--cache-dir`, else the default ($XDG_CACHE_HOME/vwheel).
struct CacheRequest {
  std::filesystem::path cache_dir;  ///< empty: the default
  /// Called once when clean or prune must wait for other vwheel runs using the cache.
  std::function<void(const std::filesystem::path& cache_dir)> on_wait;
};

/// The cache root the request names.
[[nodiscard]] std::filesystem::path cache_dir(const CacheRequest& request);

/// Files and their space on disk (allocated blocks: a wheel's skeleton is mostly a hole; a file
/// with several names counted once).
struct Usage {
  std::uint64_t files = 0;
  std::uint64_t bytes = 0;
  /// Of `bytes`, those of files also linked from elsewhere (an environment the unpacked tree was
  /// hard-linked into): removing them from the cache does not free that space.
  std::uint64_t shared_bytes = 0;
};

/// One part of the cache.
struct CacheArea {
  std::string name;  ///< the directory under the cache root
  std::string what;  ///< what it holds, for people
  Usage usage;
};

struct CacheInfo {
  std::filesystem::path root;
  std::vector<CacheArea> areas;  ///< in a fixed order, then any other entry; only those present
  Usage total;
  /// What `prune` would remove.
  Usage prunable;
};

/// What the cache holds. A cache that does not exist yet is empty.
[[nodiscard]] Result<CacheInfo> cache_info(const CacheRequest& request);

/// The info as JSON: `{"cache": ROOT, "areas": [{"name", "what", "files", "bytes", "shared_bytes"}...],
/// "total": {...}, "prunable": {...}}`, byte counts as numbers.
[[nodiscard]] std::string cache_info_json(const CacheInfo& info);

/// Removes everything in the cache but its lock file, once every other run using it has ended
/// (runs that start meanwhile wait). Each entry is first renamed aside, so that a clean killed
/// midway leaves no half-removed entry that a run could take for a whole one (what is left
/// aside goes with the next clean or prune). Returns what was removed.
[[nodiscard]] Result<Usage> cache_clean(const CacheRequest& request);

/// What `cache_clean_projects` removed for one project.
struct ProjectUsage {
  std::string project;  ///< as named on the command line
  Usage usage;          ///< nothing found: zero files
};

/// Removes, under the same lock and in the same way as `cache_clean`, only what the cache holds
/// for these projects (names compared PEP 503 normalized): their unpacked wheels (the project
/// read from each entry's skeleton `.dist-info`, or from the wheel kept beside it), kept
/// downloads and their records, PEP 658 METADATA (its `Name:`), members read by range, and index
/// pages (the project page, the wheels' `*-variants.json`). What no project can be told for
/// (interpreter queries, platform detection) stays. An invalid project name is an input error,
/// before anything is locked or removed. One result per project (a name given twice, in any
/// spelling, once), in the order given.
[[nodiscard]] Result<std::vector<ProjectUsage>> cache_clean_projects(const CacheRequest& request,
                                                                     const std::vector<std::string>& projects);

/// Removes, under the same lock, what no run will use: leftovers of interrupted runs (part
/// files, temporary directories, what a killed clean left aside), downloads with holes (which are
/// never trusted), and records of downloads without a sha256 whose file and unpacked tree are
/// both gone. Returns what was removed.
[[nodiscard]] Result<Usage> cache_prune(const CacheRequest& request);

}  // namespace vwheel::api
