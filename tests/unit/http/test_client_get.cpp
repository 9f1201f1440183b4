// The HTTP client's GETs against real sockets on 127.0.0.1: bodies, errors and retries,
// redirects, the HTTP cache (validators, freshness, offline), HEAD, file URLs and ranges.

#include <gtest/gtest.h>

#include "client_servers.hpp"

namespace vwheel::http {
namespace {

using namespace test;  // NOLINT(google-build-using-namespace)

class Get : public ::testing::Test {
 protected:
  void SetUp() override {
    server.svr.Get("/hello", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("hello world", "text/plain; charset=utf-8");
    });
    server.svr.Get("/gone", [this](const httplib::Request&, httplib::Response& res) {
      ++gone_hits;
      res.status = 404;
      res.set_content("no such page", "text/plain");
    });
    server.svr.Get("/etag", [this](const httplib::Request& req, httplib::Response& res) {
      const std::string accept = req.get_header_value("Accept");
      const std::string tag = "\"v1-" + std::to_string(accept.size()) + "\"";
      res.set_header("ETag", tag);
      if (req.get_header_value("If-None-Match") == tag) {
        ++not_modified;
        res.status = 304;
        return;
      }
      ++full;
      res.set_content("page for " + (accept.empty() ? std::string("*/*") : accept), "application/json");
    });
    server.svr.Get("/slow/(\\d+)", [this](const httplib::Request& req, httplib::Response& res) {
      const int now = ++current;
      int seen = max_seen.load();
      while (now > seen && !max_seen.compare_exchange_weak(seen, now)) {
      }
      {
        // A barrier instead of a sleep: each request waits until 8 are in flight at once, then
        // all go. A client that sends one at a time leaves the first waiting until the guard
        // (for a hang only) and the test sees max_seen below 8.
        std::unique_lock lock(slow_mutex);
        slow_cv.notify_all();
        slow_cv.wait_for(lock, 20s, [this] { return slow_released || current >= kSlowBarrier; });
        slow_released = true;
      }
      --current;
      res.set_content("item " + req.matches[1].str(), "text/plain");
    });
    server.svr.Get("/flaky", [this](const httplib::Request&, httplib::Response& res) {
      if (++flaky_hits < 3) {
        res.status = 503;
        return;
      }
      res.set_content("finally", "text/plain");
    });
    // Cache-Control as the test sets it; counts full answers and 304s.
    server.svr.Get("/fresh", [this](const httplib::Request& req, httplib::Response& res) {
      res.set_header("ETag", "\"f1\"");
      {
        std::lock_guard guard(headers_mutex);
        if (!cache_control.empty()) res.set_header("Cache-Control", cache_control);
        if (!age.empty()) res.set_header("Age", age);
      }
      if (req.get_header_value("If-None-Match") == "\"f1\"") {
        ++fresh_304;
        res.status = 304;
        return;
      }
      ++fresh_full;
      res.set_content("fresh body", "text/plain");
    });
    server.svr.Get("/redirect", [](const httplib::Request&, httplib::Response& res) { res.set_redirect("/hello"); });
    server.svr.Get("/to-file",
                   [](const httplib::Request&, httplib::Response& res) { res.set_redirect("file:///etc/passwd"); });
    server.svr.Get("/data", [this](const httplib::Request& req, httplib::Response& res) {
      if (ignore_ranges) const_cast<httplib::Request&>(req).ranges.clear();
      res.set_content(data, "application/octet-stream");
    });
    // Over 64 MiB, sent whole whatever the range asked (served lazily: nothing that large is held).
    server.svr.Get("/huge", [](const httplib::Request& req, httplib::Response& res) {
      const_cast<httplib::Request&>(req).ranges.clear();
      res.set_content_provider((std::size_t{64} << 20) + 1, "application/octet-stream",
                               [](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
                                 const std::string zeros(std::min<std::size_t>(length, 65536), '\0');
                                 (void)offset;
                                 return sink.write(zeros.data(), zeros.size());
                               });
    });
    server.start();
  }

  // The handlers' state comes before the server, so that it outlives the server's threads (members
  // are destroyed in reverse order; GetCancel's stack-use-after-scope was this bug).
  std::atomic<int> gone_hits{0}, not_modified{0}, full{0}, current{0}, max_seen{0}, flaky_hits{0};
  static constexpr int kSlowBarrier = 8;
  std::mutex slow_mutex;
  std::condition_variable slow_cv;
  bool slow_released = false;
  std::atomic<bool> ignore_ranges{false};
  std::string data = make_data(100000, 7);
  std::mutex headers_mutex;
  std::string cache_control, age;
  std::atomic<int> fresh_full{0}, fresh_304{0};
  HttpServer server;

  void set_cache_headers(std::string cc, std::string a = "") {
    std::lock_guard guard(headers_mutex);
    cache_control = std::move(cc);
    age = std::move(a);
  }
};

TEST_F(Get, PlainBody) {
  auto client = make_client();
  auto r = client.get({server.url("/hello")});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "hello world");
  EXPECT_EQ(r->content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(r->url, server.url("/hello"));
  EXPECT_FALSE(r->from_cache);
}

TEST_F(Get, NotFoundIsAnErrorWithoutRetry) {
  auto client = make_client();
  auto r = client.get({server.url("/gone")});
  ASSERT_FALSE(r);
  EXPECT_TRUE(contains(r.error().message, server.url("/gone"))) << r.error().message;
  EXPECT_TRUE(contains(r.error().message, "404")) << r.error().message;
  EXPECT_EQ(gone_hits, 1);
}

TEST_F(Get, NotFoundOkIsAnAnswer) {
  TempDir tmp;
  auto o = test_options();
  o.cache_dir = tmp.path;
  auto client = make_client(o);
  Request req{server.url("/gone")};
  req.not_found_ok = true;
  auto r = client.get(req);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->status, 404);
  EXPECT_TRUE(r->body.empty());
  EXPECT_EQ(gone_hits, 1);
  // Not cached: asked again.
  ASSERT_TRUE(client.get(req));
  EXPECT_EQ(gone_hits, 2);
}

TEST_F(Get, RetriesServerErrors) {
  auto client = make_client();
  auto r = client.get({server.url("/flaky")});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->body, "finally");
  EXPECT_EQ(flaky_hits, 3);
}

TEST_F(Get, GivesUpAfterRetries) {
  auto o = test_options();
  o.retries = 1;
  auto client = make_client(o);
  auto r = client.get({server.url("/flaky")});
  ASSERT_FALSE(r);
  EXPECT_TRUE(contains(r.error().message, "503")) << r.error().message;
  EXPECT_TRUE(contains(r.error().message, "2 attempts")) << r.error().message;
}

TEST_F(Get, FollowsRedirects) {
  auto client = make_client();
  auto r = client.get({server.url("/redirect")});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->body, "hello world");
  EXPECT_EQ(r->url, server.url("/hello"));
}

TEST_F(Get, RefusesRedirectsToFileUrls) {
  auto client = make_client();
  auto r = client.get({server.url("/to-file")});
  ASSERT_FALSE(r);
  EXPECT_TRUE(contains(r.error().message, server.url("/to-file"))) << r.error().message;
}

TEST_F(Get, CacheRevalidatesWithEtag) {
  TempDir tmp;
  auto o = test_options();
  o.cache_dir = tmp.path;
  auto client = make_client(o);
  const Request req{server.url("/etag"), {"Accept: application/json"}};
  auto first = client.get(req);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_FALSE(first->from_cache);
  EXPECT_EQ(first->body, "page for application/json");
  EXPECT_TRUE(fs::exists(tmp.path / "http"));

  auto second = client.get(req);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_TRUE(second->from_cache);
  EXPECT_EQ(second->body, "page for application/json");
  EXPECT_EQ(second->content_type, "application/json");
  EXPECT_EQ(second->status, 200);
  EXPECT_EQ(full, 1);
  EXPECT_EQ(not_modified, 1);

  // Another Accept header is another cache entry.
  auto other = client.get({server.url("/etag"), {"Accept: text/html"}});
  ASSERT_TRUE(other);
  EXPECT_FALSE(other->from_cache);
  EXPECT_EQ(other->body, "page for text/html");
  EXPECT_EQ(full, 2);

  // use_cache = false neither reads nor revalidates.
  auto uncached = client.get({server.url("/etag"), {"Accept: application/json"}, false});
  ASSERT_TRUE(uncached);
  EXPECT_FALSE(uncached->from_cache);
  EXPECT_EQ(full, 3);
}

TEST_F(Get, HeadGivesTheValidatorsWithoutTheBodyAndIsNeverCached) {
  TempDir tmp;
  auto o = test_options();
  o.cache_dir = tmp.path;
  auto client = make_client(o);
  Request req{server.url("/etag"), {"Accept: application/json"}};
  req.head = true;
  for (int i = 0; i < 2; ++i) {
    auto r = client.get(req);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->status, 200);
    EXPECT_FALSE(r->from_cache);
    EXPECT_EQ(r->body, "");
    EXPECT_EQ(r->etag, "\"v1-16\"");
    ASSERT_TRUE(r->content_length);
    EXPECT_EQ(*r->content_length, std::string("page for application/json").size());
  }
  EXPECT_EQ(not_modified, 0);  // never sent with If-None-Match
  EXPECT_FALSE(fs::exists(tmp.path / "http"));
}

// A server refusing HEAD (S3's URLs signed for GET answer 403; others 405 or 501) is asked with a
// GET of the first byte instead: the same validators, and the size from the Content-Range. One
// that ignores the range is cut off after its headers: its Content-Length is the file's size.
TEST(HeadRefused, IsAskedAgainWithAGetOfTheFirstByte) {
  const std::uint64_t size = 50'000'000;  // never sent: the answer ends with its headers
  for (const bool honours_range : {true, false}) {
    for (const char* refusal : {"405 Method Not Allowed", "403 Forbidden", "501 Not Implemented"}) {
      RawServer server([&](RawServer& srv, int fd, const std::string& req, int) {
        if (req.rfind("HEAD ", 0) == 0) {
          send_all(fd, fmt::format("HTTP/1.1 {}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", refusal));
          return;
        }
        if (honours_range && range_start(req) == 0) {
          send_all(fd,
                   fmt::format("HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-0/{}\r\nContent-Length: 1\r\n"
                               "ETag: \"e1\"\r\nLast-Modified: Tue, 01 Dec 2026 10:00:00 GMT\r\n"
                               "Connection: close\r\n\r\nP",
                               size));
          return;
        }
        send_all(fd, fmt::format("HTTP/1.1 200 OK\r\nContent-Length: {}\r\nETag: \"e1\"\r\n"
                                 "Last-Modified: Tue, 01 Dec 2026 10:00:00 GMT\r\nConnection: close\r\n\r\n",
                                 size));
        for (int i = 0; i < 100 && !srv.stopping(); ++i) {
          if (!send_all(fd, std::string(64 << 10, 'P'))) return;  // the client hangs up early
        }
      });
      auto client = make_client();
      Request req(server.url("/f.whl"), {}, false);
      req.head = true;
      auto r = client.get(req);
      ASSERT_TRUE(r) << refusal << ": " << r.error().message;
      EXPECT_EQ(r->body, "");
      EXPECT_EQ(r->etag, "\"e1\"");
      EXPECT_EQ(r->last_modified, "Tue, 01 Dec 2026 10:00:00 GMT");
      ASSERT_TRUE(r->content_length) << refusal;
      EXPECT_EQ(*r->content_length, size) << refusal << (honours_range ? " (range honoured)" : " (range ignored)");
      const auto requests = server.requests();
      ASSERT_EQ(requests.size(), 2U) << refusal;
      EXPECT_EQ(requests[0].rfind("HEAD ", 0), 0U);
      EXPECT_EQ(requests[1].rfind("GET ", 0), 0U);
      EXPECT_EQ(range_start(requests[1]), 0);
    }
  }
}

// A HEAD refused for a reason that is not about the method (404) is not asked again.
TEST(HeadRefused, NotFoundIsAnErrorWithoutAnotherRequest) {
  RawServer server([&](RawServer&, int fd, const std::string&, int) {
    send_all(fd, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
  });
  auto client = make_client();
  Request req(server.url("/f.whl"), {}, false);
  req.head = true;
  auto r = client.get(req);
  ASSERT_FALSE(r);
  EXPECT_TRUE(contains(r.error().message, "404")) << r.error().message;
  EXPECT_EQ(server.requests().size(), 1U);
}

TEST_F(Get, FreshAnswersAreReusedWithoutAsking) {
  TempDir tmp;
  auto o = test_options();
  o.cache_dir = tmp.path;
  set_cache_headers("max-age=600, public");
  auto client = make_client(o);
  ASSERT_TRUE(client.get({server.url("/fresh")}));
  EXPECT_EQ(fresh_full, 1);
  for (int i = 0; i < 3; ++i) {
    auto again = client.get({server.url("/fresh")});
    ASSERT_TRUE(again) << again.error().message;
    EXPECT_TRUE(again->from_cache);
    EXPECT_EQ(again->body, "fresh body");
  }
  EXPECT_EQ(fresh_full + fresh_304, 1) << "a fresh entry must not be revalidated";

  // --refresh asks again (a 304 here), and the answer is fresh for the next client.
  auto r = o;
  r.refresh = true;
  auto refreshing = make_client(r);
  auto revalidated = refreshing.get({server.url("/fresh")});
  ASSERT_TRUE(revalidated);
  EXPECT_TRUE(revalidated->from_cache);
  EXPECT_EQ(fresh_304, 1);
  ASSERT_TRUE(make_client(o).get({server.url("/fresh")}));
  EXPECT_EQ(fresh_full + fresh_304, 2);
}

TEST_F(Get, StaleOrUncacheableAnswersAreRevalidated) {
  TempDir tmp;
  auto o = test_options();
  o.cache_dir = tmp.path;
  auto client = make_client(o);
  // no-cache, max-age=0, and an Age as old as max-age: each asks every time (304s).
  for (const auto& [cc, a] : std::vector<std::pair<std::string, std::string>>{
           {"no-cache", ""}, {"max-age=0", ""}, {"max-age=60", "60"}, {"", ""}}) {
    set_cache_headers(cc, a);
    fs::remove_all(tmp.path / "http");
    fresh_full = 0;
    fresh_304 = 0;
    ASSERT_TRUE(client.get({server.url("/fresh")}));
    ASSERT_TRUE(client.get({server.url("/fresh")}));
    ASSERT_TRUE(client.get({server.url("/fresh")}));
    EXPECT_EQ(fresh_full, 1) << cc;
    EXPECT_EQ(fresh_304, 2) << cc;
  }
  // A 304 that grants a max-age makes the entry fresh from then on.
  set_cache_headers("max-age=600");
  ASSERT_TRUE(client.get({server.url("/fresh")}));
  EXPECT_EQ(fresh_304, 3);
  ASSERT_TRUE(client.get({server.url("/fresh")}));
  EXPECT_EQ(fresh_304, 3);
  EXPECT_EQ(fresh_full, 1);
}

bool libcurl_loaded() { return ::dlopen("libcurl.so.4", RTLD_NOW | RTLD_NOLOAD) != nullptr; }

TEST_F(Get, NoTransferNeedsNoLibcurl) {
  // ctest runs each test in a process of its own, where nothing has loaded libcurl yet. The cache
  // entry is written as the client stores it (a JSON line, then the body), fresh for 10 minutes,
  // so that this process never needs libcurl to fill it. (No fork: a child of this threaded
  // process could deadlock, e.g. under ASan.)
  if (libcurl_loaded())
    GTEST_SKIP() << "libcurl is already loaded in this process (run this test alone, as ctest does)";
  TempDir tmp;
  auto o = test_options();
  o.cache_dir = tmp.path;
  const auto url = server.url("/fresh");
  const auto expires = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::system_clock::now().time_since_epoch() + std::chrono::minutes(10))
                           .count();
  fs::create_directories(tmp.path / "http");
  std::ofstream(tmp.path / "http" / sha256_hex(url + "\n")) << fmt::format(
      R"({{"url":"{0}","effective_url":"{0}","etag":"\"f1\"","last_modified":"","content_type":"text/plain","status":200,"expires":{1}}})"
      "\nfresh body",
      url, expires);
  auto client = make_client(o);
  auto r = client.get({url});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->from_cache);
  EXPECT_EQ(r->body, "fresh body");
  EXPECT_FALSE(libcurl_loaded()) << "a cached answer loaded libcurl";
  EXPECT_EQ(fresh_full + fresh_304, 0);
  // The first request that needs the network loads it.
  ASSERT_TRUE(client.get({server.url("/hello")}));
  EXPECT_TRUE(libcurl_loaded());
}

TEST_F(Get, OfflineUsesOnlyTheCache) {
  TempDir tmp;
  auto o = test_options();
  o.cache_dir = tmp.path;
  {
    auto client = make_client(o);
    ASSERT_TRUE(client.get({server.url("/etag")}));
  }
  o.offline = true;
  auto client = make_client(o);
  const int before = full + not_modified;
  auto hit = client.get({server.url("/etag")});
  ASSERT_TRUE(hit) << hit.error().message;
  EXPECT_TRUE(hit->from_cache);
  EXPECT_EQ(hit->body, "page for */*");
  EXPECT_EQ(full + not_modified, before);

  auto miss = client.get({server.url("/hello")});
  ASSERT_FALSE(miss);
  EXPECT_EQ(miss.error().message, "offline: " + server.url("/hello") + " is not in the cache");

  auto dl = client.download({{server.url("/hello"), tmp.path / "x"}});
  ASSERT_FALSE(dl[0]);
  EXPECT_TRUE(contains(dl[0].error().message, "offline")) << dl[0].error().message;
}

TEST_F(Get, ManyRunConcurrentlyInOrder) {
  auto client = make_client();
  std::vector<Request> reqs;
  for (int i = 0; i < 20; ++i) reqs.push_back({server.url("/slow/" + std::to_string(i))});
  reqs.push_back({server.url("/gone")});
  auto rs = client.get_many(reqs);
  ASSERT_EQ(rs.size(), 21U);
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(rs[i]) << rs[i].error().message;
    EXPECT_EQ(rs[i]->body, "item " + std::to_string(i));
  }
  EXPECT_FALSE(rs[20]);
  // The requests met at the server's barrier: at least 8 were in flight at once.
  EXPECT_GE(max_seen, kSlowBarrier);
}

TEST_F(Get, FileUrls) {
  TempDir tmp;
  const auto file = tmp.path / "page with space.html";
  std::ofstream(file) << "<html>local</html>";
  auto client = make_client();
  auto r = client.get({"file://" + tmp.path.string() + "/page%20with%20space.html"});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->body, "<html>local</html>");
  auto missing = client.get({"file://" + tmp.path.string() + "/nope.html"});
  ASSERT_FALSE(missing);
  EXPECT_TRUE(contains(missing.error().message, "nope.html")) << missing.error().message;

  auto range = client.get_range("file://" + tmp.path.string() + "/page%20with%20space.html", 6, 5);
  ASSERT_TRUE(range) << range.error().message;
  EXPECT_EQ(range->body, "local");
  EXPECT_EQ(range->offset, 6U);
  EXPECT_EQ(range->total_size, 18U);
  auto suffix = client.get_suffix("file://" + tmp.path.string() + "/page%20with%20space.html", 7);
  ASSERT_TRUE(suffix);
  EXPECT_EQ(suffix->body, "</html>");
  EXPECT_EQ(suffix->offset, 11U);
}

TEST_F(Get, Ranges) {
  auto client = make_client();
  auto r = client.get_range(server.url("/data"), 1000, 500);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->whole);
  EXPECT_EQ(r->offset, 1000U);
  EXPECT_EQ(r->total_size, data.size());
  EXPECT_EQ(r->body, data.substr(1000, 500));

  auto s = client.get_suffix(server.url("/data"), 300);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->offset, data.size() - 300);
  EXPECT_EQ(s->body, data.substr(data.size() - 300));

  auto big = client.get_suffix(server.url("/data"), 1000000);  // longer than the file
  ASSERT_TRUE(big) << big.error().message;
  EXPECT_EQ(big->offset, 0U);
  EXPECT_EQ(big->body, data);

  ignore_ranges = true;
  auto w = client.get_range(server.url("/data"), 1000, 500);
  ASSERT_TRUE(w) << w.error().message;
  EXPECT_TRUE(w->whole);
  EXPECT_EQ(w->offset, 0U);
  EXPECT_EQ(w->body, data);

  auto bad = client.get_range(server.url("/gone"), 0, 10);
  ASSERT_FALSE(bad);
  EXPECT_TRUE(contains(bad.error().message, "404"));
}

TEST_F(Get, SeveralRangesAtOnce) {
  auto client = make_client();
  auto got = client.get_ranges({{server.url("/data"), 1000, 500},
                                {server.url("/data"), std::nullopt, 300},
                                {server.url("/gone"), 0, 10},
                                {server.url("/data"), 5, 0}});
  ASSERT_EQ(got.size(), 4U);
  ASSERT_TRUE(got[0]) << got[0].error().message;
  EXPECT_EQ(got[0]->offset, 1000U);
  EXPECT_EQ(got[0]->total_size, data.size());
  EXPECT_EQ(got[0]->body, data.substr(1000, 500));
  ASSERT_TRUE(got[1]) << got[1].error().message;
  EXPECT_EQ(got[1]->offset, data.size() - 300);
  EXPECT_EQ(got[1]->body, data.substr(data.size() - 300));
  ASSERT_FALSE(got[2]);
  EXPECT_TRUE(contains(got[2].error().message, "404")) << got[2].error().message;
  ASSERT_FALSE(got[3]);
  EXPECT_TRUE(contains(got[3].error().message, "a range of 0 bytes")) << got[3].error().message;

  // A server that ignores ranges: each answer is the whole file, as get_range() takes it.
  ignore_ranges = true;
  auto whole = client.get_ranges({{server.url("/data"), 1000, 500}, {server.url("/data"), std::nullopt, 300}});
  for (const auto& w : whole) {
    ASSERT_TRUE(w) << w.error().message;
    EXPECT_TRUE(w->whole);
    EXPECT_EQ(w->offset, 0U);
    EXPECT_EQ(w->body, data);
  }
  // Taken only up to the limit given: a larger whole file is cut off before its body is read,
  // and answered with what the headers said.
  auto limited = client.get_ranges({{server.url("/data"), std::nullopt, 300}}, 1000);
  ASSERT_TRUE(limited[0]) << limited[0].error().message;
  EXPECT_TRUE(limited[0]->whole);
  EXPECT_TRUE(limited[0]->too_large);
  EXPECT_TRUE(limited[0]->body.empty());
  EXPECT_EQ(limited[0]->total_size, data.size());
  // A limit of 0 takes no whole file at all.
  auto none = client.get_ranges({{server.url("/data"), 0, 10}}, 0);
  ASSERT_TRUE(none[0]) << none[0].error().message;
  EXPECT_TRUE(none[0]->too_large);
  EXPECT_TRUE(none[0]->body.empty());
  // get_range() takes at most 64 MiB: a larger whole file is an error naming the URL.
  auto refused = client.get_range(server.url("/huge"), 0, 10);
  ASSERT_FALSE(refused);
  EXPECT_TRUE(contains(refused.error().message, "ignores Range requests (HTTP 200) and the file is over 64 MiB"))
      << refused.error().message;
  auto within = client.get_ranges({{server.url("/data"), std::nullopt, 300}}, data.size());
  ASSERT_TRUE(within[0]) << within[0].error().message;
  EXPECT_EQ(within[0]->body, data);
}

TEST_F(Get, SuffixesMustBeHonouredRanges) {
  auto client = make_client();
  auto both = client.get_suffixes({server.url("/data"), server.url("/gone")}, {300, 10});
  ASSERT_EQ(both.size(), 2U);
  ASSERT_TRUE(both[0]) << both[0].error().message;
  EXPECT_FALSE(both[0]->whole);
  EXPECT_EQ(both[0]->offset, data.size() - 300);
  EXPECT_EQ(both[0]->total_size, data.size());
  EXPECT_EQ(both[0]->body, data.substr(data.size() - 300));
  ASSERT_FALSE(both[1]);
  EXPECT_TRUE(contains(both[1].error().message, "404"));

  // A server that ignores the range: an error, not the whole file.
  ignore_ranges = true;
  auto ignored = client.get_suffixes({server.url("/data")}, {300});
  ASSERT_FALSE(ignored[0]);
  EXPECT_TRUE(contains(ignored[0].error().message, "ignores Range requests (HTTP 200)")) << ignored[0].error().message;
}

TEST(GetCancel, TransfersEndWhenCancelledWithoutWaitingForTheServer) {
  // The server holds every answer until the test ends (a guard of 30 s against a hang): the
  // client's calls must return while it still holds them, each with "cancelled", none retried.
  // What the handler uses is declared before the server, so that it outlives the server's
  // threads: a handler woken by the release may still be reading `release` when the test ends
  // (ASan saw that, a stack-use-after-scope, once in a CI run).
  std::mutex mutex;
  std::condition_variable cv;
  bool release = false;
  std::atomic<int> arrived{0};
  HttpServer server;
  server.svr.Get("/held/(\\d+)", [&](const httplib::Request&, httplib::Response& res) {
    ++arrived;
    std::unique_lock lock(mutex);
    cv.wait_for(lock, 30s, [&] { return release; });
    res.set_content("late", "text/plain");
  });
  server.start();
  auto o = test_options();
  o.max_parallel = 2;  // two under way, two queued
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  o.cancel = cancel;
  auto client = make_client(o);
  std::vector<Result<Response>> results;
  std::atomic<bool> returned{false};
  std::thread caller([&] {
    results = client.get_many(
        {{server.url("/held/1")}, {server.url("/held/2")}, {server.url("/held/3")}, {server.url("/held/4")}});
    returned = true;
  });
  for (int i = 0; i < 3000 && arrived.load() < 2; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(arrived.load(), 2);
  cancel->store(true);
  for (int i = 0; i < 3000 && !returned.load(); ++i) std::this_thread::sleep_for(10ms);
  const bool before_the_server = returned.load();
  {
    std::lock_guard lock(mutex);
    release = true;
  }
  cv.notify_all();
  caller.join();
  EXPECT_TRUE(before_the_server) << "get_many waited for the server's answers";
  ASSERT_EQ(results.size(), 4U);
  for (const auto& r : results) {
    ASSERT_FALSE(r);
    EXPECT_TRUE(contains(r.error().message, "cancelled")) << r.error().message;
  }
  EXPECT_EQ(arrived.load(), 2);  // the queued two were never sent
}

TEST(GetLimits, BodyOver64MiBIsAnError) {
  HttpServer server;
  server.svr.Get("/huge", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string((std::size_t{64} << 20) + 1, 'x'), "application/octet-stream");
  });
  server.start();
  auto o = test_options();
  o.stall_timeout = 5s;
  auto client = make_client(o);
  auto r = client.get({server.url("/huge")});
  ASSERT_FALSE(r);
  EXPECT_TRUE(contains(r.error().message, "64 MiB")) << r.error().message;
}

}  // namespace
}  // namespace vwheel::http
