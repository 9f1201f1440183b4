// Loading libcurl ahead of the first request: http::preload_curl's thread and load_curl() called
// at once from several threads share one load and one result, and answered_from_cache says which
// requests the HTTP cache answers alone (those never need libcurl).

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "http/cache.hpp"
#include "http/curl_api.hpp"
#include "vwheel/http/preload.hpp"

namespace vwheel::http {
namespace {

namespace fs = std::filesystem;

bool libcurl_loaded() { return ::dlopen("libcurl.so.4", RTLD_NOW | RTLD_NOLOAD) != nullptr; }

TEST(CurlPreload, StartsOneLoadOnlyWhenNoneHasBegun) {
  // ctest runs each test in a process of its own, where nothing has begun loading libcurl.
  const bool begun = detail::curl_load_begun();
  auto preload = preload_curl();
  EXPECT_EQ(preload.started(), !begun);
  EXPECT_TRUE(detail::curl_load_begun());
  preload.wait();
  EXPECT_FALSE(preload.started());
  EXPECT_TRUE(libcurl_loaded());
  // Loaded already: nothing more to start.
  auto again = preload_curl();
  EXPECT_FALSE(again.started());
  auto api = detail::load_curl();
  ASSERT_TRUE(api) << api.error().message;
  EXPECT_NE((*api)->easy_init, nullptr);
}

TEST(CurlPreload, ConcurrentPreloadsAndLoadsShareOneResult) {
  // Preloads and direct loads (as the first request makes them) race; every load_curl() returns
  // the one table, complete, and every thread is joined.
  constexpr int kThreads = 8;
  std::vector<const detail::CurlApi*> seen(kThreads, nullptr);
  std::vector<CurlPreload> preloads(kThreads);
  {
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i) {
      threads.emplace_back([&, i] {
        preloads[static_cast<std::size_t>(i)] = preload_curl();
        auto api = detail::load_curl();
        if (api) seen[static_cast<std::size_t>(i)] = *api;
      });
    }
    for (auto& t : threads) t.join();
  }
  int started = 0;
  for (auto& p : preloads) {
    started += p.started() ? 1 : 0;
    p.wait();
  }
  EXPECT_LE(started, 1);  // one load per process: at most one preload claims it
  for (const auto* api : seen) {
    ASSERT_NE(api, nullptr);
    EXPECT_EQ(api, seen.front());
    EXPECT_NE(api->multi_perform, nullptr);
  }
  EXPECT_TRUE(libcurl_loaded());
}

TEST(CurlPreload, MovedAndDestroyedWhileLoadingJoins) {
  auto a = preload_curl();
  CurlPreload b = std::move(a);
  CurlPreload c;
  c = std::move(b);     // c waits for nothing, then owns the thread
  c = preload_curl();   // joins the first before taking the (no-op) second
  EXPECT_FALSE(c.started());
  EXPECT_TRUE(detail::curl_load_begun());
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("vwheel-preload-test-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

TEST(AnsweredFromCache, FreshEntriesOfflineAndRefresh) {
  TempDir tmp;
  Options o;
  o.cache_dir = tmp.path;
  const Request fresh{"https://example.invalid/simple/a/", {"Accept: text/html"}};
  const Request stale{"https://example.invalid/simple/b/", {"Accept: text/html"}};
  const Request missing{"https://example.invalid/simple/c/", {"Accept: text/html"}};
  const Request file{"file:///tmp/simple/a/", {}};
  fs::create_directories(tmp.path / "http");
  detail::CacheEntry e;
  e.body = std::string(100000, 'x');
  e.expires = detail::unix_now() + 600;
  detail::write_cache(*detail::cache_file(o.cache_dir, fresh), fresh.url, e);
  e.expires = detail::unix_now() - 1;
  detail::write_cache(*detail::cache_file(o.cache_dir, stale), stale.url, e);

  EXPECT_TRUE(answered_from_cache(o, fresh));
  EXPECT_FALSE(answered_from_cache(o, stale));  // revalidated: a request
  EXPECT_FALSE(answered_from_cache(o, missing));
  EXPECT_FALSE(answered_from_cache(o, file));   // file: URLs are never cached, read with libcurl
  // Another Accept value is another entry.
  EXPECT_FALSE(answered_from_cache(o, Request{fresh.url, {"Accept: application/json"}}));
  Request uncached = fresh;
  uncached.use_cache = false;
  EXPECT_FALSE(answered_from_cache(o, uncached));

  auto refresh = o;
  refresh.refresh = true;
  EXPECT_FALSE(answered_from_cache(refresh, fresh));

  auto offline = o;
  offline.offline = true;
  EXPECT_TRUE(answered_from_cache(offline, fresh));
  EXPECT_TRUE(answered_from_cache(offline, missing));  // the error needs no libcurl either
  EXPECT_FALSE(answered_from_cache(offline, file));

  Options no_cache;
  EXPECT_FALSE(answered_from_cache(no_cache, fresh));
}

TEST(AnsweredFromCache, UnreadableEntriesAreMisses) {
  TempDir tmp;
  Options o;
  o.cache_dir = tmp.path;
  const Request r{"https://example.invalid/simple/a/"};
  const auto file = *detail::cache_file(o.cache_dir, r);
  fs::create_directories(file.parent_path());
  for (const char* text : {"", "{\"expires\": 99999999999}", "not json\nbody", "[1]\nbody",
                           "{\"expires\": \"soon\"}\nbody"}) {
    {
      std::FILE* f = std::fopen(file.c_str(), "wb");
      ASSERT_NE(f, nullptr);
      std::fputs(text, f);
      std::fclose(f);
    }
    EXPECT_FALSE(answered_from_cache(o, r)) << text;
    EXPECT_EQ(detail::read_cache_expires(file).has_value(), detail::read_cache(file).has_value()) << text;
  }
}

}  // namespace
}  // namespace vwheel::http
