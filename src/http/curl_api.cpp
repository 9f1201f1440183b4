#include "http/curl_api.hpp"


#include <atomic>
#include <mutex>
#include <string>

#include <fmt/format.h>

#include "core/dl.hpp"

namespace vwheel::http::detail {
namespace {

// Resolves `name` into `fn`, adding it to the list of `missing` functions when it is not there.
template <class Fn>
void resolve(void* lib, const char* name, Fn& fn, std::string& missing) {
  if (vwheel::detail::dl_function(lib, name, fn)) return;
  if (!missing.empty()) missing += ", ";
  missing += name;
}

Result<const CurlApi*> load_once() {
  static CurlApi api;
  const std::string name(vwheel::detail::runtime_library_name(vwheel::detail::RuntimeLibrary::curl));
  void* lib = vwheel::detail::dl_open(name);
  if (lib == nullptr) {
    // The machine lacks a library, not the input anything: an environmental failure (exit 3).
    return fail(with_kind(Error(fmt::format("cannot load {} ({}): install the libcurl4 package", name,
                                            vwheel::detail::dl_error())),
                          ErrorKind::environment));
  }
  std::string missing;
  resolve(lib, "curl_global_init", api.global_init, missing);
  resolve(lib, "curl_version_info", api.version_info, missing);
  resolve(lib, "curl_easy_init", api.easy_init, missing);
  resolve(lib, "curl_easy_setopt", api.easy_setopt, missing);
  resolve(lib, "curl_easy_getinfo", api.easy_getinfo, missing);
  resolve(lib, "curl_easy_cleanup", api.easy_cleanup, missing);
  resolve(lib, "curl_easy_reset", api.easy_reset, missing);
  resolve(lib, "curl_easy_strerror", api.easy_strerror, missing);
  resolve(lib, "curl_multi_init", api.multi_init, missing);
  resolve(lib, "curl_multi_setopt", api.multi_setopt, missing);
  resolve(lib, "curl_multi_add_handle", api.multi_add_handle, missing);
  resolve(lib, "curl_multi_remove_handle", api.multi_remove_handle, missing);
  resolve(lib, "curl_multi_perform", api.multi_perform, missing);
  resolve(lib, "curl_multi_poll", api.multi_poll, missing);
  resolve(lib, "curl_multi_info_read", api.multi_info_read, missing);
  resolve(lib, "curl_multi_cleanup", api.multi_cleanup, missing);
  resolve(lib, "curl_multi_strerror", api.multi_strerror, missing);
  resolve(lib, "curl_slist_append", api.slist_append, missing);
  resolve(lib, "curl_slist_free_all", api.slist_free_all, missing);
  resolve(lib, "curl_url", api.url, missing);
  resolve(lib, "curl_url_set", api.url_set, missing);
  resolve(lib, "curl_url_get", api.url_get, missing);
  resolve(lib, "curl_url_cleanup", api.url_cleanup, missing);
  resolve(lib, "curl_free", api.free, missing);
  if (!missing.empty()) {
    vwheel::detail::dl_close(lib);
    return fail(with_kind(Error(fmt::format("cannot load libcurl.so.4 (missing {}; libcurl 7.68 or newer is "
                                            "needed): install the libcurl4 package",
                                            missing)),
                          ErrorKind::environment));
  }
  if (CURLcode rc = api.global_init(CURL_GLOBAL_DEFAULT); rc != CURLE_OK) {
    return fail(fmt::format("cannot initialize libcurl: {}", api.easy_strerror(rc)));
  }
  return &api;
}

std::atomic<bool> begun{false};

}  // namespace

Result<const CurlApi*> load_curl() {
  begun.store(true, std::memory_order_relaxed);
  // call_once: a second caller (e.g. the first request while http::preload_curl's thread is
  // still in dlopen) waits for the first one's result and shares it, failure included.
  static std::once_flag once;
  static Result<const CurlApi*> loaded = fail("libcurl not loaded");
  std::call_once(once, [] { loaded = load_once(); });
  return loaded;
}

bool curl_load_begun() noexcept { return begun.load(std::memory_order_relaxed); }

bool claim_curl_load() noexcept { return !begun.exchange(true, std::memory_order_relaxed); }

}  // namespace vwheel::http::detail
