#pragma once
/// \file
/// `vwheel index serve`: a local HTTP server for a built index SITE (or a folder of wheels,
/// indexed on start and after each upload), with PEP 691 content negotiation, ETag /
/// If-None-Match, Range requests, and optional uploads compatible with `twine upload`.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "vwheel/core/error.hpp"

namespace vwheel::server {

/// How to serve.
struct ServeOptions {
  /// A SITE built by `index::build_site`; exclusive with `wheels`.
  std::optional<std::filesystem::path> site;
  /// A folder of wheels: indexed into `site_dir` on start and after every upload.
  std::optional<std::filesystem::path> wheels;
  /// Where the index of `wheels` is built (default: `{wheels}/.vwheel-site`).
  std::optional<std::filesystem::path> site_dir;
  std::string host = "127.0.0.1";
  int port = 0;  ///< 0: any free port
  /// Uploads are accepted only with `wheels` and this token (HTTP basic auth password, or a
  /// `Bearer` token).
  std::optional<std::string> upload_token;
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
  /// Log one line per request to stderr (`ADDR "METHOD TARGET VERSION" STATUS LENGTH`).
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
