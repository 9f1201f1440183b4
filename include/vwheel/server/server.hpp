#pragma once
/// \file
/// `vwheel index serve`: a local HTTP server for a built index SITE (or a folder of wheels,
/// indexed on start and after each upload), with PEP 691 content negotiation, ETag /
/// If-None-Match, Range requests, and optional uploads compatible with `twine upload`.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "vwheel/core/error.hpp"
#include "vwheel/http/client.hpp"

namespace vwheel::server {

/// How long a connection may hold a worker thread, so that slow or idle clients cannot starve
/// the others (each worker serves one connection at a time).
struct ConnectionLimits {
  /// From a request's first byte to the end of its headers, in total (a client sending one byte at
  /// a time is cut off here); the connection is closed.
  std::chrono::milliseconds header_timeout{10'000};
  /// The longest pause while a request body is read or a response is sent.
  std::chrono::milliseconds body_timeout{30'000};
  /// How long a connection may wait for its next request (also for its first). After a first
  /// request, shortened to 100 ms while other connections wait for a worker.
  std::chrono::milliseconds keep_alive_timeout{5'000};
  /// Requests per connection; the last one is answered with `Connection: close`.
  std::size_t keep_alive_requests = 100;
  /// Connections one client address may have served at once (0: no limit).
  std::size_t per_ip = 8;
  /// Connections of one address over `per_ip` that wait, without a worker, until one of its
  /// connections ends (an idle one then gives its worker up); beyond that a connection is
  /// answered `503` with `Connection: close` and `Retry-After: 1`.
  std::size_t per_ip_waiting = 256;
};

/// `--upstream URL`: serve another index through this server, caching its files (see
/// src/server/upstream.hpp).
struct UpstreamOptions {
  /// The upstream's simple-API base URL; credentials in it, or for it from `.netrc`, the keyring
  /// or the environment (`http.credentials`), are used towards the upstream only.
  std::string url;
  /// Files kept by sha256 under `files/`, and the HTTP cache of the upstream's pages under `http/`.
  std::filesystem::path cache_dir;
  /// TLS, proxy, timeouts and credentials for the upstream (its `cache_dir`, `refresh` and
  /// `offline` are set here).
  vwheel::http::Options http;
  /// How long a page fetched from the upstream is served without asking the upstream again; after
  /// that it is revalidated (If-None-Match / If-Modified-Since with the upstream's validators).
  std::chrono::seconds page_ttl{60};
  /// Receives one line for each stale page served while the upstream is unreachable, and each
  /// file refused (hash mismatch) or left out (no sha256 on the upstream's page).
  std::function<void(const std::string&)> on_log;
};

/// How to serve.
struct ServeOptions {
  /// A SITE built by `index::build_site`; exclusive with `wheels` and `upstream`.
  std::optional<std::filesystem::path> site;
  /// Another index, served through this one (exclusive with `site` and `wheels`).
  std::optional<UpstreamOptions> upstream;
  /// A folder of wheels: indexed into `site_dir` on start and after every upload.
  std::optional<std::filesystem::path> wheels;
  /// Where the index of `wheels` is built (default: `{wheels}/.vwheel-site`).
  std::optional<std::filesystem::path> site_dir;
  std::string host = "127.0.0.1";
  int port = 0;  ///< 0: any free port
  /// Uploads are accepted only with `wheels` and this token (HTTP basic auth password, or a
  /// `Bearer` token).
  std::optional<std::string> upload_token;
  /// An htpasswd file (`user:hash` lines, bcrypt or SHA-256/512 crypt): every GET and HEAD then
  /// needs one of its users' HTTP Basic credentials (401 otherwise). Uploads keep to
  /// `upload_token` alone.
  std::optional<std::filesystem::path> read_auth;
  /// Serve HTTPS with this PEM certificate chain and its unencrypted PEM key (both or neither).
  std::optional<std::filesystem::path> tls_cert;
  std::optional<std::filesystem::path> tls_key;
  /// Worker threads; each serves one connection at a time (keep-alive included).
  unsigned threads = 8;
  /// The largest distribution file an upload may carry (413 above it); the non-file form fields
  /// may add up to 16 MiB more.
  std::uint64_t max_upload_size = std::uint64_t{2} << 30;
  /// How long (seconds) clients may use the index pages and `*-variants.json` files without asking
  /// again (Cache-Control `max-age`; 0 sends `no-cache`: revalidate every time). Unset: 600, as
  /// PyPI, for a SITE; 0 for a folder of wheels, whose pages change with each upload. Wheels and
  /// their `.metadata` never change under one name (an upload cannot replace a file): they are sent
  /// as `immutable` for a year.
  std::optional<unsigned> page_max_age;
  /// Deadlines and caps per connection.
  ConnectionLimits connections;
  /// Log one line per request to stderr (`ADDR "METHOD TARGET VERSION" STATUS LENGTH`, then
  /// ` user=NAME` for a request that authenticated with `read_auth`; never a password).
  bool verbose = false;
  /// Receives the one-line warnings of the index builds of `wheels` (on start and after uploads).
  std::function<void(const std::string&)> on_warning;
};

/// A running server.
class Server {
 public:
  /// Binds and starts serving on background threads.
  [[nodiscard]] static Result<std::unique_ptr<Server>> start(const ServeOptions& options);
  virtual ~Server() = default;
  /// The bound port.
  [[nodiscard]] virtual int port() const = 0;
  /// Blocks until `stop()` (or SIGINT/SIGTERM handled by the caller).
  virtual void wait() = 0;
  virtual void stop() = 0;
};

}  // namespace vwheel::server
