#include "vwheel/http/preload.hpp"

#include <system_error>

#include "http/cache.hpp"
#include "http/curl_api.hpp"
#include "vwheel/core/text.hpp"

namespace vwheel::http {

CurlPreload& CurlPreload::operator=(CurlPreload&& other) noexcept {
  if (this != &other) {
    wait();
    thread_ = std::move(other.thread_);
  }
  return *this;
}

CurlPreload::~CurlPreload() { wait(); }

void CurlPreload::wait() noexcept {
  if (thread_.joinable()) thread_.join();
}

CurlPreload preload_curl() {
  if (!detail::claim_curl_load()) return {};
  try {
    // The result is kept by load_curl() for the first request, which reports a failure.
    return CurlPreload(std::thread([] { static_cast<void>(detail::load_curl()); }));
  } catch (const std::system_error&) {
    return {};  // no thread: the first request loads libcurl, as without a preload
  }
}

bool answered_from_cache(const Options& options, const Request& request) {
  const bool file_url = ascii_istarts_with(request.url, "file:");
  if (options.offline) return !file_url;
  if (options.refresh) return false;
  auto file = detail::cache_file(options.cache_dir, request);
  if (!file) return false;
  auto expires = detail::read_cache_expires(*file);
  return expires && *expires > detail::unix_now();
}

}  // namespace vwheel::http
