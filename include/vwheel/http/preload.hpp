#pragma once
/// \file
/// Loading libcurl ahead of the first request. dlopen("libcurl.so.4") and curl_global_init take
/// tens of milliseconds (libcurl pulls in some thirty libraries: TLS, LDAP, SSH...); a use case
/// that knows it will soon need the network starts the load on a thread of its own, so that it
/// overlaps work done meanwhile (e.g. querying the Python interpreter), and the first request
/// finds libcurl loaded. A preload never reports an error: when libcurl cannot be loaded, the
/// first request fails as it would have without one ("cannot load libcurl.so.4 (...): install
/// the libcurl4 package").

#include <thread>

#include "vwheel/http/client.hpp"

namespace vwheel::http {

/// A libcurl load running on a thread of its own, joined by wait() or the destructor: hold it
/// for as long as the work it overlaps, and no longer than the run (a process must not exit
/// while the thread is still inside dlopen). Movable, not copyable.
class CurlPreload {
 public:
  /// Nothing to wait for.
  CurlPreload() = default;
  CurlPreload(CurlPreload&& other) noexcept = default;
  CurlPreload& operator=(CurlPreload&& other) noexcept;
  CurlPreload(const CurlPreload&) = delete;
  CurlPreload& operator=(const CurlPreload&) = delete;
  ~CurlPreload();

  /// Whether a thread was started (false when libcurl was loaded, or being loaded, already).
  [[nodiscard]] bool started() const noexcept { return thread_.joinable(); }

  /// Waits for the load to finish (at once when none runs). Its outcome is not reported here.
  void wait() noexcept;

 private:
  friend CurlPreload preload_curl();
  explicit CurlPreload(std::thread thread) : thread_(std::move(thread)) {}
  std::thread thread_;
};

/// Starts loading libcurl (once per process, as the first request would) on a new thread and
/// returns at once. A no-op, with nothing to wait for, when some thread has begun loading it
/// already, or when no thread can be started.
[[nodiscard]] CurlPreload preload_curl();

/// Whether Client::get(request) with `options` would be answered without libcurl: from a fresh
/// cache entry (unless `refresh`), or offline (then from the cache or with an error) for anything
/// but a file: URL. Reads only the metadata of the cache entry. For deciding whether a preload is
/// worth it: a run answered from the cache never loads libcurl.
[[nodiscard]] bool answered_from_cache(const Options& options, const Request& request);

}  // namespace vwheel::http
