#pragma once
// `vwheel index serve --upstream URL`: a caching pass-through index for a cluster. Project pages
// are fetched from the upstream index (through vwheel's HTTP client: its credentials, TLS and
// proxy settings, and its HTTP cache, which revalidates with the upstream's ETag/Last-Modified),
// kept in memory for a short while, and served with every file URL rewritten to this server:
// `/files/<project>/<sha256>/<filename>` (and `<filename>.metadata`). A file is fetched from the
// upstream once, checked against the sha256 the upstream's page gives, and kept in the cache
// folder by that hash; every later request is answered from there. Files the upstream page lists
// without a sha256 are left out (they could not be checked). While the upstream cannot be reached,
// the pages in the HTTP cache (stale or not) and the files already kept are still served.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "index/pages.hpp"
#include "server/http.hpp"
#include "vwheel/server/server.hpp"
#include "vwheel/simple/project_page.hpp"

namespace vwheel::server {

/// Where a file of a rewritten page comes from upstream.
struct UpstreamFile {
  std::string filename;
  std::string url;  ///< the upstream's (may hold the upstream's credentials: never sent to clients)
  std::string sha256;
  std::optional<std::uint64_t> size;
  std::optional<std::string> metadata_sha256;  ///< PEP 658 file, served only when its sha256 is known
};

/// An upstream project page as this server serves it.
struct ProxiedPage {
  index::detail::ProjectPage page;    ///< links to `/files/<project>/<sha256>/<filename>`
  std::vector<UpstreamFile> files;    ///< the upstream origin of each link, by position
  std::vector<std::string> left_out;  ///< files listed without a sha256
};

/// Rewrites a parsed upstream page of `project` (canonical) for this server. Pure.
[[nodiscard]] ProxiedPage proxy_page(const simple::ProjectPage& upstream, const std::string& project);

/// The path (URL-encoded) this server serves a file of `project` under.
[[nodiscard]] std::string proxied_file_path(std::string_view project, std::string_view sha256,
                                            std::string_view filename);

/// What to answer to a GET of the proxy.
struct ProxyAnswer {
  int status = 200;
  std::string message;  ///< the error's text (status >= 400)
  /// A page: its body, Content-Type and ETag.
  std::string body;
  std::string content_type;
  std::string etag;
  /// A file kept in the cache, to serve as a static file.
  std::optional<std::filesystem::path> file;
};

class UpstreamProxy {
 public:
  explicit UpstreamProxy(UpstreamOptions options);

  /// Answers `/simple/<project>/` and `/files/<project>/<sha256>/<filename>[.metadata]`.
  [[nodiscard]] ProxyAnswer answer(const http::TargetPath& target, std::string_view accept);

 private:
  struct Page {
    ProxiedPage proxied;
    std::string html;
    std::string json;
    std::chrono::steady_clock::time_point fetched;
  };
  struct Flight {
    std::mutex mutex;
    std::condition_variable done_cv;
    bool done = false;
    ProxyAnswer answer;
  };

  struct PageFlight {
    std::mutex mutex;
    std::condition_variable done_cv;
    bool done = false;
    std::shared_ptr<const Page> page;
    ProxyAnswer error;
  };

  /// The page of `project`: from memory while fresh, else from the upstream (one request at a
  /// time per page), else stale; nullptr with `error` set when there is none.
  [[nodiscard]] std::shared_ptr<const Page> page(const std::string& project, ProxyAnswer& error);
  [[nodiscard]] std::shared_ptr<const Page> fetch_page(const std::string& project,
                                                       const std::shared_ptr<const Page>& known,
                                                       std::chrono::steady_clock::time_point now, ProxyAnswer& error);
  [[nodiscard]] ProxyAnswer file(const std::string& project, const std::string& sha256, const std::string& name);
  [[nodiscard]] ProxyAnswer fetch(const UpstreamFile& origin, bool metadata, const std::filesystem::path& dest);
  void log(const std::string& line) const;

  UpstreamOptions options_;
  std::string base_;  ///< the upstream URL, ending in `/`
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const Page>> pages_;
  std::map<std::string, std::shared_ptr<Flight>> flights_;
  std::map<std::string, std::shared_ptr<PageFlight>> page_flights_;
  /// Until then, pages come from what was fetched before, without asking the upstream.
  std::chrono::steady_clock::time_point retry_after_{};
};

}  // namespace vwheel::server
