// The finder against a real HTTP server on 127.0.0.1 (cpp-httplib) and a local directory: project
// pages in both formats, 404s, PEP 658 metadata with its hash checked, METADATA read from a
// remote wheel with range requests instead of downloading it, and kept for the next run.

#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/finder/finder.hpp"
#include "vwheel/zip/zip.hpp"

namespace vwheel::finder {
namespace {
namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / fmt::format("vwheel-finder-{}-{}", ::getpid(), std::random_device{}());
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

const std::string kMetadata = "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\nRequires-Dist: dep>=2\n\nA description.\n";

/// A wheel with a big incompressible member first, so that reading METADATA by ranges is cheap.
std::string make_wheel(const fs::path& path) {
  std::string noise(2 << 20, '\0');
  std::mt19937 rng(42);
  for (auto& c : noise) c = static_cast<char>(rng());
  zip::WritePlan plan;
  plan.members.push_back(zip::NewMember{"pkg/data.bin", noise, zip::Method::Store});
  plan.members.push_back(zip::NewMember{"pkg/__init__.py", "X = 1\n"});
  plan.members.push_back(zip::NewMember{"pkg-1.0.dist-info/METADATA", kMetadata});
  plan.members.push_back(zip::NewMember{"pkg-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"});
  plan.members.push_back(zip::NewMember{"pkg-1.0.dist-info/RECORD", ""});
  EXPECT_TRUE(zip::write_archive(nullptr, plan, path));
  return *read_file(path);
}

/// httplib with a listen backlog above its 5: the client's 16 connections at once would otherwise
/// wait for SYN retransmissions (a second each).
class BigBacklog : public httplib::Server {
 public:
  void raise_backlog(int backlog) { (void)::listen(svr_sock_, backlog); }
};

struct Server {
  BigBacklog http;
  std::thread thread;
  int port = 0;
  std::atomic<std::uint64_t> bytes_sent{0};
  std::atomic<int> requests{0};
  std::atomic<int> heads{0};
  std::atomic<int> ranges{0};
  std::atomic<int> in_flight{0};
  std::atomic<int> most_in_flight{0};  ///< the most requests being answered at once
  /// Each answer held this long first, as a distant server's round trip would: requests made
  /// together are then answered together.
  std::chrono::milliseconds delay{0};
  std::map<std::string, std::string> files;  // path -> body
  std::map<std::string, std::string> etags;  // path -> ETag sent with it (none when absent)
  /// Answers Range requests with 200 and the whole file, as a server without range support does.
  std::atomic<bool> ignore_ranges{false};
  std::mutex log_mutex;
  std::vector<std::pair<std::string, bool>> log;  ///< (path, had a Range header) of each GET

  int gets(const std::string& path, bool ranged) {
    std::lock_guard lock(log_mutex);
    return static_cast<int>(std::count(log.begin(), log.end(), std::make_pair(path, ranged)));
  }

  Server() {
    // A thread for each of the client's connections (16 at most): with fewer, a connection kept
    // alive holds a thread for the server's keep-alive time while other requests wait.
    http.new_task_queue = [] { return new httplib::ThreadPool(32); };
    http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response&) {
      ++requests;
      if (req.method == "HEAD") ++heads;
      if (req.has_header("Range")) ++ranges;
      if (req.method == "GET") {
        std::lock_guard lock(log_mutex);
        log.emplace_back(req.path, req.has_header("Range"));
      }
      const int now = ++in_flight;
      for (int most = most_in_flight.load(); now > most && !most_in_flight.compare_exchange_weak(most, now);) {
      }
      if (delay.count() > 0) std::this_thread::sleep_for(delay);
      return httplib::Server::HandlerResponse::Unhandled;
    });
    http.set_post_routing_handler([this](const httplib::Request&, httplib::Response&) { --in_flight; });
    http.Get(".*", [this](const httplib::Request& req, httplib::Response& res) {
      auto it = files.find(req.path);
      if (it == files.end()) {
        res.status = 404;
        return;
      }
      const auto& body = it->second;
      if (auto e = etags.find(req.path); e != etags.end()) res.set_header("ETag", e->second);
      std::string type = req.path.ends_with(".json") || req.path.ends_with("/") ? "application/vnd.pypi.simple.v1+json"
                                                                                 : "application/octet-stream";
      if (ignore_ranges) const_cast<httplib::Request&>(req).ranges.clear();
      // cpp-httplib answers Range requests itself (206 and Content-Range); count what it sends.
      if (req.has_header("Range") && !ignore_ranges) {
        auto range = req.get_header_value("Range").substr(6);
        if (range.starts_with("-")) {
          bytes_sent += std::min<std::uint64_t>(std::stoull(range.substr(1)), body.size());
        } else {
          auto dash = range.find('-');
          const auto start = std::stoull(range.substr(0, dash));
          const auto end = dash + 1 < range.size() ? std::stoull(range.substr(dash + 1)) + 1 : body.size();
          bytes_sent += std::min<std::uint64_t>(end, body.size()) - start;
        }
        res.set_content(body, type);
        return;
      }
      res.set_content(body, type);
      bytes_sent += body.size();
    });
    port = http.bind_to_any_port("127.0.0.1");
    http.raise_backlog(128);
    thread = std::thread([this] { http.listen_after_bind(); });
    for (int i = 0; i < 500 && !http.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ~Server() {
    http.stop();
    thread.join();
  }
  std::string url(std::string_view path) const { return fmt::format("http://127.0.0.1:{}{}", port, path); }
};

std::string json_page(const std::string& filename, const std::string& sha256, bool core_metadata,
                      const std::string& metadata_sha = "") {
  std::string cm = core_metadata ? (metadata_sha.empty() ? ", \"core-metadata\": true"
                                                          : fmt::format(", \"core-metadata\": {{\"sha256\": \"{}\"}}", metadata_sha))
                                 : "";
  return fmt::format(
      R"({{"meta": {{"api-version": "1.1"}}, "name": "pkg", "files": [{{"filename": "{0}", "url": "../../files/{0}", "hashes": {{"sha256": "{1}"}}{2}}},
          {{"filename": "pkg-1.0-variants.json", "url": "../../files/pkg-1.0-variants.json", "hashes": {{}}}},
          {{"filename": "pkg-1.0.tar.gz", "url": "../../files/pkg-1.0.tar.gz", "hashes": {{}}}}]}})",
      filename, sha256, cm);
}

struct Fixture {
  TempDir tmp;
  Server server;
  std::string wheel;
  http::Client client = *http::Client::create(http::Options{});
  Fixture() {
    wheel = make_wheel(tmp.path / "pkg-1.0-py3-none-any.whl");
    server.files["/files/pkg-1.0-py3-none-any.whl"] = wheel;
    server.files["/files/pkg-1.0-py3-none-any.whl.metadata"] = kMetadata;
    server.files["/files/pkg-1.0-variants.json"] = "{}";
  }
  Finder finder() { return Finder(client, {{Source::Kind::index, server.url("/simple/")}}, {tmp.path / "cache"}); }
};

TEST(Finder, ReadsMetadataWithRangeRequestsWhenTheIndexHasNoMetadataFile) {
  Fixture fx;
  fx.server.files["/simple/pkg/"] = json_page("pkg-1.0-py3-none-any.whl", sha256_hex(fx.wheel), false);
  auto finder = fx.finder();
  auto files = finder.files("PKG");
  ASSERT_TRUE(files) << files.error().message;
  ASSERT_EQ((*files)->size(), 2U);  // the wheel and the variants.json; the sdist is ignored
  const auto& w = (*files)->front();
  ASSERT_TRUE(w.is_wheel());
  EXPECT_EQ(w.url, fx.server.url("/files/pkg-1.0-py3-none-any.whl"));
  EXPECT_EQ(w.sha256(), sha256_hex(fx.wheel));
  EXPECT_FALSE((*files)->back().is_wheel());
  const auto before = fx.server.bytes_sent.load();
  auto md = finder.core_metadata(w);
  ASSERT_TRUE(md) << md.error().message;
  EXPECT_EQ(*md, kMetadata);
  const auto read = fx.server.bytes_sent.load() - before;
  EXPECT_LT(read, 100U * 1024) << "read " << read << " bytes of a " << fx.wheel.size() << "-byte wheel";
  auto missing = finder.dist_info_member(w, "variant.json");
  ASSERT_TRUE(missing) << missing.error().message;
  EXPECT_FALSE(*missing);
  // Scratch files are removed.
  std::size_t left = 0;
  for (auto it = fs::recursive_directory_iterator(fx.tmp.path / "cache" / "tmp"); it != fs::recursive_directory_iterator();
       ++it) {
    left += it->is_regular_file() ? 1 : 0;
  }
  EXPECT_EQ(left, 0U);
}

/// A project page listing the wheel without any hash (as an index without hashes does).
std::string hashless_page(const std::string& filename) {
  return fmt::format(R"({{"meta": {{"api-version": "1.1"}}, "name": "pkg", "files": [{{"filename": "{0}", "url": "../../files/{0}", "hashes": {{}}}}]}})",
                     filename);
}

TEST(Finder, MembersReadByRangeAreKeptByTheWheelsSha256) {
  Fixture fx;
  fx.server.files["/simple/pkg/"] = json_page("pkg-1.0-py3-none-any.whl", sha256_hex(fx.wheel), false);
  {
    auto finder = fx.finder();
    auto files = finder.files("pkg");
    ASSERT_TRUE(files) << files.error().message;
    ASSERT_TRUE(finder.core_metadata((*files)->front()));
    ASSERT_TRUE(finder.dist_info_member((*files)->front(), "variant.json"));
  }
  // The next run: the same digest is the same file, so nothing is asked for but the page.
  const int ranges = fx.server.ranges.load();
  auto finder = fx.finder();
  auto files = finder.files("pkg");
  ASSERT_TRUE(files) << files.error().message;
  const auto& w = (*files)->front();
  auto md = finder.core_metadata(w);
  ASSERT_TRUE(md) << md.error().message;
  EXPECT_EQ(*md, kMetadata);
  auto missing = finder.dist_info_member(w, "variant.json");  // kept as absent, too
  ASSERT_TRUE(missing) << missing.error().message;
  EXPECT_FALSE(*missing);
  EXPECT_EQ(fx.server.ranges.load(), ranges);
  EXPECT_EQ(fx.server.heads.load(), 0);
  EXPECT_TRUE(fs::is_regular_file(fx.tmp.path / "cache" / "wheel-members" / sha256_hex(fx.wheel) / "METADATA"));
}

TEST(Finder, MembersOfAWheelWithoutSha256AreKeptWhileAHeadRequestSaysItIsUnchanged) {
  Fixture fx;
  const std::string path = "/files/pkg-1.0-py3-none-any.whl";
  fx.server.files["/simple/pkg/"] = hashless_page("pkg-1.0-py3-none-any.whl");
  fx.server.etags[path] = "\"first\"";
  const auto read_metadata = [&](http::Client& client) -> Result<std::string> {
    Finder finder(client, {{Source::Kind::index, fx.server.url("/simple/")}}, {fx.tmp.path / "cache"});
    auto files = finder.files("pkg");
    if (!files) return fail(files.error());
    auto variant = finder.dist_info_member((*files)->front(), "variant.json");
    if (!variant) return fail(variant.error());
    return finder.core_metadata((*files)->front());
  };
  auto first = read_metadata(fx.client);
  ASSERT_TRUE(first) << first.error().message;
  const int ranges = fx.server.ranges.load();
  EXPECT_GT(ranges, 0);

  // Unchanged: one HEAD request for both members, no range.
  auto second = read_metadata(fx.client);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(*second, kMetadata);
  EXPECT_EQ(fx.server.heads.load(), 1);
  EXPECT_EQ(fx.server.ranges.load(), ranges);

  // Offline: taken as it is, with no request at all.
  const int requests = fx.server.requests.load();
  http::Options offline;
  offline.offline = true;
  auto offline_client = *http::Client::create(offline);
  Finder finder(offline_client, {{Source::Kind::index, fx.server.url("/simple/")}}, {fx.tmp.path / "cache"});
  finder::File kept_wheel;
  kept_wheel.filename = "pkg-1.0-py3-none-any.whl";
  kept_wheel.url = fx.server.url(path);
  auto kept = finder.core_metadata(kept_wheel);
  ASSERT_TRUE(kept) << kept.error().message;
  EXPECT_EQ(*kept, kMetadata);
  EXPECT_EQ(fx.server.requests.load(), requests);

  // Another file under the same URL: read again, and the new METADATA is the one returned.
  const std::string changed = "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\nRequires-Dist: dep>=3\n";
  zip::WritePlan plan;
  plan.members.push_back(zip::NewMember{"pkg-1.0.dist-info/METADATA", changed});
  plan.members.push_back(zip::NewMember{"pkg-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"});
  plan.members.push_back(zip::NewMember{"pkg-1.0.dist-info/RECORD", ""});
  ASSERT_TRUE(zip::write_archive(nullptr, plan, fx.tmp.path / "changed.whl"));
  fx.server.files[path] = *read_file(fx.tmp.path / "changed.whl");
  fx.server.etags[path] = "\"second\"";
  auto third = read_metadata(fx.client);
  ASSERT_TRUE(third) << third.error().message;
  EXPECT_EQ(*third, changed);
  EXPECT_GT(fx.server.ranges.load(), ranges);

  // A damaged file is only a range request again.
  const auto kept_path = fx.tmp.path / "cache" / "wheel-members" / ("url-" + sha256_hex(fx.server.url(path))) / "METADATA";
  ASSERT_TRUE(fs::is_regular_file(kept_path));
  std::ofstream(kept_path) << "{not json\n" << changed;
  const int before_damage = fx.server.ranges.load();
  auto fourth = read_metadata(fx.client);
  ASSERT_TRUE(fourth) << fourth.error().message;
  EXPECT_EQ(*fourth, changed);
  EXPECT_GT(fx.server.ranges.load(), before_damage);
}

TEST(Finder, PrefetchAsksForWhatRankingReadsNextInOneGo) {
  // A version with only variant wheels: ranking reads its `*-variants.json`, then the chosen
  // wheel's METADATA (kept from an earlier run under the wheel's URL: a HEAD says it is current).
  Fixture fx;
  const std::string wheel = "pkg-1.0-py3-none-any-cu12.whl";
  fx.server.files["/files/" + wheel] = fx.wheel;
  fx.server.etags["/files/" + wheel] = "\"v1\"";
  fx.server.files["/simple/pkg/"] = fmt::format(
      R"({{"meta": {{"api-version": "1.1"}}, "name": "pkg", "files": [{{"filename": "{0}", "url": "../../files/{0}", "hashes": {{}}}},
          {{"filename": "pkg-1.0-variants.json", "url": "../../files/pkg-1.0-variants.json", "hashes": {{}}}}]}})",
      wheel);
  {
    auto first = fx.finder();
    auto files = first.files("pkg");
    ASSERT_TRUE(files) << files.error().message;
    ASSERT_TRUE(first.core_metadata((*files)->front()));
  }
  auto finder = fx.finder();
  const int before = fx.server.requests.load();
  finder.prefetch({"pkg", "PKG"});
  // The page, then the variants.json and the HEAD together (once each, whatever the spelling).
  EXPECT_EQ(fx.server.requests.load() - before, 3);
  EXPECT_EQ(fx.server.heads.load(), 1);
  const int prefetched = fx.server.requests.load();
  auto files = finder.files("pkg");
  ASSERT_TRUE(files) << files.error().message;
  ASSERT_EQ((*files)->size(), 2U);
  const auto& w = (*files)->front().is_wheel() ? (*files)->front() : (*files)->back();
  const auto& json = (*files)->front().is_wheel() ? (*files)->back() : (*files)->front();
  auto text = finder.text(json);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(*text, "{}");
  auto again = finder.text(json);  // kept for the run (a universal lock reads it in every fork)
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(*again, "{}");
  auto md = finder.core_metadata(w);
  ASSERT_TRUE(md) << md.error().message;
  EXPECT_EQ(*md, kMetadata);
  EXPECT_EQ(fx.server.requests.load(), prefetched);
  EXPECT_EQ(fx.server.ranges.load(), 1);  // only the first run's read of the wheel's last bytes
}

TEST(Finder, PrefetchMetadataReadsSeveralWheelsTogether) {
  // Three versions whose wheels have no PEP 658 file (their METADATA is read by ranges), a fourth
  // whose PEP 658 file is announced, and a fifth that is gone from the server. All are asked for
  // at once; afterwards core_metadata answers from what arrived, without a request, and reports
  // the one that failed when asked for it.
  Fixture fx;
  std::string files_json;
  for (const std::string version : {"1.0", "1.1", "1.2", "1.3", "1.4"}) {
    const auto filename = fmt::format("pkg-{}-py3-none-any.whl", version);
    const auto dist_info = fmt::format("pkg-{}.dist-info", version);
    zip::WritePlan plan;
    plan.members.push_back(zip::NewMember{"pkg/__init__.py", "X = 1\n"});
    plan.members.push_back(zip::NewMember{dist_info + "/METADATA", "Name: pkg\nVersion: " + version + "\n"});
    plan.members.push_back(
        zip::NewMember{dist_info + "/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"});
    plan.members.push_back(zip::NewMember{dist_info + "/RECORD", ""});
    ASSERT_TRUE(zip::write_archive(nullptr, plan, fx.tmp.path / filename));
    if (version != "1.4") fx.server.files["/files/" + filename] = *read_file(fx.tmp.path / filename);
    if (version == "1.3") fx.server.files["/files/" + filename + ".metadata"] = "Name: pkg\nVersion: 1.3\n";
    files_json += fmt::format(R"({}{{"filename": "{}", "url": "../../files/{}", "hashes": {{}}{}}})",
                              files_json.empty() ? "" : ", ", filename, filename,
                              version == "1.3" ? R"(, "core-metadata": true)" : "");
  }
  fx.server.files["/simple/pkg/"] =
      fmt::format(R"({{"meta": {{"api-version": "1.1"}}, "name": "pkg", "files": [{}]}})", files_json);
  auto finder = fx.finder();
  auto files = finder.files("pkg");
  ASSERT_TRUE(files) << files.error().message;
  ASSERT_EQ((*files)->size(), 5U);
  std::vector<const File*> wheels;
  for (const auto& f : **files) wheels.push_back(&f);
  fx.server.delay = std::chrono::milliseconds(100);
  fx.server.most_in_flight = 0;
  const int before = fx.server.requests.load();
  finder.prefetch_metadata(wheels);
  // The three range reads and the gone wheel's together (each wheel's last 64 KiB holds all of
  // it), then the PEP 658 file.
  EXPECT_EQ(fx.server.requests.load() - before, 5);
  EXPECT_EQ(fx.server.ranges.load(), 4);
  EXPECT_EQ(fx.server.most_in_flight.load(), 4);
  fx.server.delay = std::chrono::milliseconds(0);
  const int prefetched = fx.server.requests.load();
  // Asked again, what arrived is not fetched twice.
  std::vector<const File*> arrived;
  const File* gone = nullptr;
  for (const auto* w : wheels) (w->version.to_string() == "1.4" ? gone : arrived.emplace_back(w)) = w;
  finder.prefetch_metadata(arrived);
  EXPECT_EQ(fx.server.requests.load(), prefetched);
  for (const auto* w : arrived) {
    auto md = finder.core_metadata(*w);
    ASSERT_TRUE(md) << md.error().message;
    EXPECT_EQ(*md, "Name: pkg\nVersion: " + w->version.to_string() + "\n");
  }
  EXPECT_EQ(fx.server.requests.load(), prefetched);
  ASSERT_NE(gone, nullptr);
  auto md = finder.core_metadata(*gone);
  ASSERT_FALSE(md);
  EXPECT_NE(md.error().message.find("404"), std::string::npos) << md.error().message;
}

/// A page of `count` small wheels pkg-1.N (N < count) without hashes or PEP 658 files, of which
/// pkg-1.0 is the fixture's 2 MiB wheel; the wheels in request order.
std::vector<const File*> many_wheels(Fixture& fx, Finder& finder, int count) {
  std::string files_json;
  for (int n = 0; n < count; ++n) {
    const auto filename = fmt::format("pkg-1.{}-py3-none-any.whl", n);
    if (n == 0) {
      fx.server.files["/files/" + filename] = fx.wheel;
    } else {
      const auto dist_info = fmt::format("pkg-1.{}.dist-info", n);
      zip::WritePlan plan;
      plan.members.push_back(zip::NewMember{dist_info + "/METADATA", fmt::format("Name: pkg\nVersion: 1.{}\n", n)});
      plan.members.push_back(
          zip::NewMember{dist_info + "/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"});
      plan.members.push_back(zip::NewMember{dist_info + "/RECORD", ""});
      EXPECT_TRUE(zip::write_archive(nullptr, plan, fx.tmp.path / filename));
      fx.server.files["/files/" + filename] = *read_file(fx.tmp.path / filename);
    }
    files_json += fmt::format(R"({}{{"filename": "{}", "url": "../../files/{}", "hashes": {{}}}})",
                              files_json.empty() ? "" : ", ", filename, filename);
  }
  fx.server.files["/simple/pkg/"] =
      fmt::format(R"({{"meta": {{"api-version": "1.1"}}, "name": "pkg", "files": [{}]}})", files_json);
  fx.server.etags["/files/pkg-1.0-py3-none-any.whl"] = "\"big\"";
  std::vector<const File*> wheels;
  auto files = finder.files("pkg");
  EXPECT_TRUE(files);
  if (files) {
    for (const auto& f : **files) wheels.push_back(&f);
  }
  return wheels;
}

TEST(Finder, WheelsFromAServerIgnoringRangesAreFetchedOnceAndReadFromDisk) {
  // 64 wheels read together may take at most 1 MiB each of a whole answer into memory: the 2 MiB
  // one is cut off after the headers of its (ignored) range request. All 64 go to
  // FinderOptions::download together (the small ones with their bytes, to be written; the large
  // one to be downloaded), and their members are read from the files it made, then and later.
  Fixture fx;
  fx.server.ignore_ranges = true;
  std::vector<std::vector<std::string>> calls;
  FinderOptions options{fx.tmp.path / "cache"};
  options.download = [&](http::Client& client, const std::vector<WholeWheel>& wheels) {
    std::vector<std::string> urls;
    std::vector<Result<http::Downloaded>> out;
    for (const auto& [w, answer] : wheels) {
      urls.push_back(w->url);
      const auto dest = fx.tmp.path / "downloads" / w->filename;
      if (answer->too_large) {
        out.push_back(std::move(client.download({{w->url, dest}}).front()));
        continue;
      }
      fs::create_directories(dest.parent_path());
      EXPECT_TRUE(write_file_atomic(dest, answer->body, Durability::none));
      http::Downloaded d;
      d.path = dest;
      d.size = answer->body.size();
      out.push_back(std::move(d));
    }
    calls.push_back(urls);
    return out;
  };
  Finder finder(fx.client, {{Source::Kind::index, fx.server.url("/simple/")}}, options);
  const auto wheels = many_wheels(fx, finder, 64);
  ASSERT_EQ(wheels.size(), 64U);
  finder.prefetch_metadata(wheels);
  ASSERT_EQ(calls.size(), 1U);
  std::vector<std::string> urls;
  for (const auto* w : wheels) urls.push_back(w->url);
  EXPECT_EQ(calls[0], urls);
  const int before = fx.server.requests.load();
  for (const auto* w : wheels) {
    auto md = finder.core_metadata(*w);
    ASSERT_TRUE(md) << md.error().message;
    EXPECT_EQ(*md,
              w->version.to_string() == "1.0" ? kMetadata : "Name: pkg\nVersion: " + w->version.to_string() + "\n");
    EXPECT_EQ(fx.server.gets("/files/" + w->filename, true), 1);  // whole, or cut off
    EXPECT_EQ(fx.server.gets("/files/" + w->filename, false), w->version.to_string() == "1.0" ? 1 : 0);
    EXPECT_EQ(*read_file(fx.tmp.path / "downloads" / w->filename), fx.server.files["/files/" + w->filename]);
  }
  // Another member of a downloaded wheel is read from its file too.
  auto missing = finder.dist_info_member(*wheels.front(), "variant.json");
  ASSERT_TRUE(missing) << missing.error().message;
  EXPECT_FALSE(*missing);
  EXPECT_EQ(fx.server.requests.load(), before);
  EXPECT_EQ(calls.size(), 1U);
  // What the download's answer said is what a HEAD request would say now: the installer takes
  // the download without asking again.
  const auto& heads = finder.head_answers();
  auto it = heads.find(fx.server.url("/files/pkg-1.0-py3-none-any.whl"));
  ASSERT_NE(it, heads.end());
  ASSERT_TRUE(it->second);
  EXPECT_EQ(it->second->etag, "\"big\"");
  EXPECT_EQ(it->second->content_length, fx.wheel.size());

  // Without a download function, wheels are taken into memory: up to 1 MiB each of 64 read
  // together, so that the 2 MiB one goes to a scratch file, removed once read.
  Fixture other;
  other.server.ignore_ranges = true;
  auto plain = other.finder();
  const auto again = many_wheels(other, plain, 64);
  ASSERT_EQ(again.size(), 64U);
  plain.prefetch_metadata(again);
  EXPECT_EQ(other.server.gets("/files/pkg-1.0-py3-none-any.whl", false), 1);
  auto md = plain.core_metadata(*again.front());
  ASSERT_TRUE(md) << md.error().message;
  EXPECT_EQ(*md, kMetadata);
  // Alone, a wheel is taken whole up to 64 MiB (no download).
  auto dist = plain.dist_info_member(*again.front(), "variant.json");
  ASSERT_TRUE(dist) << dist.error().message;
  EXPECT_FALSE(*dist);
  EXPECT_EQ(other.server.gets("/files/pkg-1.0-py3-none-any.whl", false), 1);
  EXPECT_EQ(other.server.gets("/files/pkg-1.0-py3-none-any.whl", true), 2);
  std::size_t left = 0;
  for (auto it2 = fs::recursive_directory_iterator(other.tmp.path / "cache" / "tmp");
       it2 != fs::recursive_directory_iterator(); ++it2) {
    left += 1;
  }
  EXPECT_EQ(left, 0U);
}

TEST(Finder, MembersOfAWheelWithoutValidatorsAreNotKept) {
  // Without an ETag or a Last-Modified there is nothing to ask the server with next time.
  Fixture fx;
  fx.server.files["/simple/pkg/"] = hashless_page("pkg-1.0-py3-none-any.whl");
  auto finder = fx.finder();
  auto files = finder.files("pkg");
  ASSERT_TRUE(files) << files.error().message;
  ASSERT_TRUE(finder.core_metadata((*files)->front()));
  EXPECT_FALSE(fs::exists(fx.tmp.path / "cache" / "wheel-members"));
}

TEST(Finder, UsesTheMetadataFileAndChecksItsHash) {
  Fixture fx;
  fx.server.files["/simple/pkg/"] = json_page("pkg-1.0-py3-none-any.whl", sha256_hex(fx.wheel), true, sha256_hex(kMetadata));
  auto finder = fx.finder();
  auto files = finder.files("pkg");
  ASSERT_TRUE(files) << files.error().message;
  auto md = finder.core_metadata((*files)->front());
  ASSERT_TRUE(md) << md.error().message;
  EXPECT_EQ(*md, kMetadata);

  Fixture bad;
  bad.server.files["/simple/pkg/"] = json_page("pkg-1.0-py3-none-any.whl", sha256_hex(bad.wheel), true, std::string(64, 'a'));
  auto f2 = bad.finder();
  auto files2 = f2.files("pkg");
  ASSERT_TRUE(files2);
  auto md2 = f2.core_metadata((*files2)->front());
  ASSERT_FALSE(md2);
  EXPECT_NE(md2.error().message.find("does not match"), std::string::npos) << md2.error().message;
}

TEST(Finder, UnknownProjectHasNoFilesAndServerErrorsAreErrors) {
  Fixture fx;
  auto finder = fx.finder();
  auto files = finder.files("nothing-here");
  ASSERT_TRUE(files) << files.error().message;
  EXPECT_TRUE((*files)->empty());
  fx.server.files["/simple/broken/"] = "{not json";
  auto broken = finder.files("broken");
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().message.find("/simple/broken/"), std::string::npos) << broken.error().message;
}

TEST(Finder, FindLinksDirectory) {
  TempDir tmp;
  make_wheel(tmp.path / "pkg-1.0-py3-none-any.whl");
  std::ofstream(tmp.path / "pkg-1.0-variants.json") << "{}";
  std::ofstream(tmp.path / "other-2.0-py3-none-any.whl") << "x";
  std::ofstream(tmp.path / "pkg-notaversion-py3-none-any.whl") << "x";
  auto client = *http::Client::create(http::Options{});
  Finder finder(client, {{Source::Kind::find_links, tmp.path.string()}}, {tmp.path / "cache"});
  auto files = finder.files("pkg");
  ASSERT_TRUE(files) << files.error().message;
  ASSERT_EQ((*files)->size(), 2U);
  std::size_t wheels = 0;
  for (const auto& f : **files) {
    if (!f.is_wheel()) continue;
    ++wheels;
    ASSERT_TRUE(f.path);
    auto md = finder.core_metadata(f);
    ASSERT_TRUE(md) << md.error().message;
    EXPECT_EQ(*md, kMetadata);
  }
  EXPECT_EQ(wheels, 1U);
}

TEST(Finder, SourceDistributionsAreKeptApartFromTheFiles) {
  // files() stays wheels and `*-variants.json`; sdists() names the sdists it met, legacy names
  // with dashes and another project's sharing a prefix told apart.
  TempDir tmp;
  make_wheel(tmp.path / "pkg-1.0-py3-none-any.whl");
  std::ofstream(tmp.path / "pkg-1.0.tar.gz") << "x";
  std::ofstream(tmp.path / "pkg-2.0.zip") << "x";
  std::ofstream(tmp.path / "pkg-extra-3.0.tar.gz") << "x";
  std::ofstream(tmp.path / "pkg-notaversion!.tar.gz") << "x";
  auto client = *http::Client::create(http::Options{});
  Finder finder(client, {{Source::Kind::find_links, tmp.path.string()}}, {tmp.path / "cache"});
  EXPECT_TRUE(finder.sdists("pkg").empty()) << "known only after files()";
  auto files = finder.files("pkg");
  ASSERT_TRUE(files) << files.error().message;
  ASSERT_EQ((*files)->size(), 1U);
  std::vector<std::string> seen;
  for (const auto& f : finder.sdists("pkg")) {
    EXPECT_TRUE(f.is_sdist() && !f.is_wheel() && f.path) << f.filename;
    seen.push_back(f.filename + " " + f.version.to_string());
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<std::string>{"pkg-1.0.tar.gz 1.0", "pkg-2.0.zip 2.0"}));
  ASSERT_TRUE(finder.files("pkg-extra"));
  ASSERT_EQ(finder.sdists("pkg-extra").size(), 1U);
  EXPECT_EQ(finder.sdists("pkg-extra").front().version.to_string(), "3.0");
}

}  // namespace
}  // namespace vwheel::finder
