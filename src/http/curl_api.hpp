#pragma once
// libcurl through dlopen("libcurl.so.4"): <curl/curl.h> supplies the types and constants only,
// every function is resolved with dlsym into a table, so nothing links against libcurl.

#define CURL_DISABLE_TYPECHECK 1
#define CURL_DISABLE_DEPRECATION 1
#include <curl/curl.h>

#include "vwheel/core/error.hpp"

namespace vwheel::http::detail {

struct CurlApi {
  decltype(&::curl_global_init) global_init = nullptr;
  decltype(&::curl_version_info) version_info = nullptr;
  decltype(&::curl_easy_init) easy_init = nullptr;
  decltype(&::curl_easy_setopt) easy_setopt = nullptr;
  decltype(&::curl_easy_getinfo) easy_getinfo = nullptr;
  decltype(&::curl_easy_cleanup) easy_cleanup = nullptr;
  decltype(&::curl_easy_reset) easy_reset = nullptr;
  decltype(&::curl_easy_strerror) easy_strerror = nullptr;
  decltype(&::curl_multi_init) multi_init = nullptr;
  decltype(&::curl_multi_setopt) multi_setopt = nullptr;
  decltype(&::curl_multi_add_handle) multi_add_handle = nullptr;
  decltype(&::curl_multi_remove_handle) multi_remove_handle = nullptr;
  decltype(&::curl_multi_perform) multi_perform = nullptr;
  decltype(&::curl_multi_poll) multi_poll = nullptr;
  decltype(&::curl_multi_info_read) multi_info_read = nullptr;
  decltype(&::curl_multi_cleanup) multi_cleanup = nullptr;
  decltype(&::curl_multi_strerror) multi_strerror = nullptr;
  decltype(&::curl_slist_append) slist_append = nullptr;
  decltype(&::curl_slist_free_all) slist_free_all = nullptr;
  decltype(&::curl_url) url = nullptr;
  decltype(&::curl_url_set) url_set = nullptr;
  decltype(&::curl_url_get) url_get = nullptr;
  decltype(&::curl_url_cleanup) url_cleanup = nullptr;
  decltype(&::curl_free) free = nullptr;
};

/// Loads libcurl.so.4 and calls curl_global_init, once per process (thread-safe); the library
/// stays loaded. The error: "cannot load libcurl.so.4 (<dlerror>): install the libcurl4 package".
[[nodiscard]] Result<const CurlApi*> load_curl();

/// Whether some thread has called load_curl() or claimed the load (it may still be running).
[[nodiscard]] bool curl_load_begun() noexcept;

/// Marks the load as begun; true for the one caller that found it not begun yet (a preload then
/// starts its thread; any other has nothing to do).
[[nodiscard]] bool claim_curl_load() noexcept;

}  // namespace vwheel::http::detail
