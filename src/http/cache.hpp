#pragma once
// Private to the http component: the on-disk HTTP cache of get(). One file per URL and Accept
// value under <cache_dir>/http/: a JSON line of metadata (validators, expiry), then the body.
// Fresh entries (Cache-Control max-age) answer without a request; stale ones are revalidated with
// If-None-Match / If-Modified-Since. The cache is best effort: unreadable entries are misses.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "http/headers.hpp"
#include "vwheel/http/client.hpp"

namespace vwheel::http::detail {

/// The cache file of one URL: a JSON line of metadata, then the body.
struct CacheEntry {
  std::string etag, last_modified, content_type, effective_url;
  long status = 200;
  std::int64_t expires = 0;  ///< unix time until which the entry is fresh (Cache-Control max-age); 0: revalidate
  std::string body;
};

/// The current unix time in seconds.
[[nodiscard]] std::int64_t unix_now();

/// Until when (unix time) an answer received at `now` stays fresh without revalidation (RFC 9111 section 4.2):
/// `max-age` (or `s-maxage`) less `Age`; 0 when it must be revalidated (absent, `no-cache`, `no-store`).
[[nodiscard]] std::int64_t fresh_until(const Headers& h, std::int64_t now);

/// Whether an answer with these headers may be stored (no `no-store`).
[[nodiscard]] bool may_store(const Headers& h);

/// The cache file of `request`, or nullopt when it is not cached (no cache directory, a request
/// that opts out, a file: URL).
[[nodiscard]] std::optional<std::filesystem::path> cache_file(const std::optional<std::filesystem::path>& cache_dir,
                                                              const Request& request);

/// The entry stored in `file`; nullopt when it is absent or unreadable.
[[nodiscard]] std::optional<CacheEntry> read_cache(const std::filesystem::path& file);

/// The `expires` of the entry stored in `file`, reading its metadata line only (the body may be
/// megabytes); nullopt when it is absent or unreadable, as read_cache would find it.
[[nodiscard]] std::optional<std::int64_t> read_cache_expires(const std::filesystem::path& file);

/// Stores `e` for `url` in `file` (atomically; failures are ignored).
void write_cache(const std::filesystem::path& file, const std::string& url, const CacheEntry& e);

/// A cached answer as a Response.
[[nodiscard]] Response cached_response(CacheEntry&& e, const std::string& url);

}  // namespace vwheel::http::detail
