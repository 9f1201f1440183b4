#pragma once
/// \file
/// An HTTP client for the installer, on libcurl: cached GETs of index pages and metadata, byte
/// ranges, and concurrent, verified, resumable downloads of wheels.
///
/// libcurl is loaded with dlopen("libcurl.so.4") by the first request that needs the network, so
/// programs that link this component, and runs answered from the cache, never load it (nor the TLS
/// libraries it pulls in). A Client is not thread-safe: use it from
/// one thread at a time; every callback runs on the calling thread. Transfers of one call run
/// concurrently on a curl multi handle, which the Client keeps, so connections are reused across
/// calls (and multiplexed over HTTP/2 when the server offers it). Supported schemes: http, https
/// and file; redirects (at most 10) are followed to http and https only.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/core/growing_file.hpp"
#include "vwheel/http/credentials.hpp"
#include "vwheel/http/progress.hpp"

namespace vwheel::http {

/// How a Client behaves.
struct Options {
  unsigned max_parallel = 16;             ///< concurrent transfers per call
  unsigned retries = 3;                   ///< extra attempts on connection errors, timeouts, 5xx, 408, 429, truncated bodies
  std::chrono::milliseconds backoff{250};  ///< first retry delay; doubles each retry (+ up to 25% jitter)
  std::chrono::seconds connect_timeout{15};
  std::chrono::seconds stall_timeout{30};  ///< abort an attempt that receives nothing for this long
  std::string user_agent;                 ///< empty: "vwheel/<version>"
  std::optional<std::filesystem::path> cache_dir;  ///< HTTP cache for get(): <cache_dir>/http/
  bool offline = false;                   ///< get(): only the cache (and file:// URLs); download(): an error
  bool refresh = false;                   ///< revalidate every cached answer, even one still fresh
  /// When set, and once it holds true: the transfers under way end within a tick (250 ms), and
  /// those queued or waiting to be retried at once, each with the error "URL: cancelled"; none
  /// is retried. For work whose result nobody waits for any more (plan::HeadStart).
  std::shared_ptr<const std::atomic<bool>> cancel;
  /// The indexes whose origins credentials are looked up for (`.netrc`, keyring, environment);
  /// registered, process-wide, by create().
  CredentialSettings credentials;
  /// A CA bundle (PEM) to verify servers with instead of the system's (`--cert`); empty: the system's.
  std::string ca_file;
  /// A client certificate, PEM with its private key (`--client-cert`); empty: none.
  std::string client_cert;
  /// The proxy for every request (`--proxy`); empty: libcurl's `http_proxy`, `https_proxy`,
  /// `all_proxy` and `no_proxy` variables.
  std::string proxy;
  /// `HOST` or `HOST:PORT` (`--trusted-host`) whose certificate is not verified, as pip does. Plain
  /// http is allowed to every host; this is for an https server whose certificate cannot be.
  std::vector<std::string> trusted_hosts;
};

/// The answer to a GET.
struct Response {
  long status = 0;           ///< 200..299 (the cached status on a 304), 404 with not_found_ok; 0 for file:// URLs
  std::string body;
  std::string content_type;  ///< the Content-Type header, empty when absent
  std::string url;           ///< the effective URL, after redirects
  bool from_cache = false;   ///< the body came from the cache (a 304, or offline)
  std::string etag;          ///< the ETag header (from the network only), empty when absent
  std::string last_modified;  ///< the Last-Modified header (from the network only), empty when absent
  std::optional<std::uint64_t> content_length;  ///< Content-Length (from the network only), when given
};

/// A GET.
struct Request {
  std::string url;
  std::vector<std::string> headers;  ///< extra header lines, e.g. "Accept: application/vnd.pypi.simple.v1+json"
  bool use_cache = true;             ///< read and store Options::cache_dir (when set)
  /// A 404 answer is a Response with status 404 (not retried, not cached) instead of an error:
  /// for asking an index whether it has a project.
  bool not_found_ok = false;
  /// A HEAD request: only the headers (Response::etag, last_modified, content_length), the body
  /// empty; never cached, never offline. For asking whether a file downloaded before changed.
  /// A server that refuses HEAD (405, 501, or 403 as S3's URLs signed for GET answer) is asked
  /// again with a GET of the first byte, whose answer gives the same headers, and the file's size
  /// from its Content-Range; a server that ignores the range is cut off after its headers.
  bool head = false;

  Request() = default;
  Request(std::string url_, std::vector<std::string> headers_ = {}, bool use_cache_ = true)  // NOLINT: implicit
      : url(std::move(url_)), headers(std::move(headers_)), use_cache(use_cache_) {}
};

/// Part of a file.
struct RangeResponse {
  std::string body;
  std::uint64_t offset = 0;                  ///< where `body` starts in the file
  std::optional<std::uint64_t> total_size;   ///< the file's size, when the server said (Content-Range)
  bool whole = false;                        ///< the server ignored the range: `body` is the whole file
  /// get_ranges() only: the server ignored the range (`whole`) and the file is over the limit
  /// given; its body was not read (`body` is empty, `total_size` is the size the server announced,
  /// when it did). The validators are the answer's.
  bool too_large = false;
  std::string etag;           ///< the ETag header (from the network only), empty when absent
  std::string last_modified;  ///< the Last-Modified header (from the network only), empty when absent
};

/// A part of a file to fetch: `length` (> 0) bytes from `offset`, or the last `length` bytes of
/// the file (all of it when it is shorter) when `offset` is nullopt.
struct RangeRequest {
  std::string url;
  std::optional<std::uint64_t> offset;
  std::uint64_t length = 0;
};

/// A file to download.
struct DownloadRequest {
  std::string url;
  std::filesystem::path dest;          ///< written as `<dest>.part`, renamed to `dest` once verified
  std::optional<std::string> sha256;   ///< expected lowercase hex digest (upper case accepted); verified while streaming
  std::optional<std::uint64_t> size;   ///< expected size in bytes
  /// When set, told how much of `<dest>.part` is written as the bytes arrive, when the part file
  /// is started again, and (by the caller, who also verifies the wheel) when the file is done:
  /// readers can unpack the first members of a wheel while the rest still downloads.
  std::shared_ptr<GrowingFile> growing;

  DownloadRequest() = default;
  DownloadRequest(std::string url_, std::filesystem::path dest_, std::optional<std::string> sha256_ = std::nullopt,
                  std::optional<std::uint64_t> size_ = std::nullopt)
      : url(std::move(url_)), dest(std::move(dest_)), sha256(std::move(sha256_)), size(size_) {}
};

/// A verified file at its destination.
struct Downloaded {
  std::filesystem::path path;  ///< = DownloadRequest::dest
  std::string sha256;          ///< lowercase hex of the file
  std::uint64_t size = 0;
  unsigned attempts = 1;       ///< HTTP attempts made (1 when the first succeeded)
  bool resumed = false;        ///< some bytes came from an earlier attempt or an existing `<dest>.part`
  std::string etag;            ///< the last answer's ETag header, empty when absent
  std::string last_modified;   ///< the last answer's Last-Modified header, empty when absent
};

/// Progress of download `index`: `done` bytes of `total` (when known).
struct Progress {
  std::size_t index = 0;
  std::uint64_t done = 0;
  std::optional<std::uint64_t> total;
};

/// The HTTP client. Movable, not copyable.
class Client {
 public:
  /// Makes a client. libcurl is loaded (once per process) by the first transfer; when it cannot be,
  /// that transfer fails with "cannot load libcurl.so.4 (...): install the libcurl4 package".
  static Result<Client> create(Options options = {});

  Client(Client&&) noexcept;
  Client& operator=(Client&&) noexcept;
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  ~Client();

  [[nodiscard]] const Options& options() const noexcept;

  /// GETs one URL. Only 2xx answers succeed: any other status is an error naming the URL and the
  /// status (404 included). With a cache, a stored answer is returned as it is while its
  /// Cache-Control max-age lasts (unless `refresh`), else revalidated (If-None-Match,
  /// If-Modified-Since) and a 304 returns it with `from_cache`; offline, the stored answer is
  /// returned or the error is "offline: URL is not in the cache". Bodies over 64 MiB are errors.
  [[nodiscard]] Result<Response> get(const Request& request);

  /// get() for many URLs at once (up to Options::max_parallel concurrently); results in request order.
  [[nodiscard]] std::vector<Result<Response>> get_many(const std::vector<Request>& requests);

  /// `length` bytes of `url` from `offset` (an HTTP Range request; not cached). A server that ignores
  /// the range answers the whole file (`whole`, at most 64 MiB). `length` must be positive.
  [[nodiscard]] Result<RangeResponse> get_range(const std::string& url, std::uint64_t offset, std::uint64_t length);

  /// The last `length` bytes of `url` (the whole file when it is shorter), e.g. a zip's central directory.
  [[nodiscard]] Result<RangeResponse> get_suffix(const std::string& url, std::uint64_t length);

  /// get_range() and get_suffix() for several parts at once (up to Options::max_parallel
  /// concurrently); results in request order. As there, a server that ignores a range answers the
  /// whole file (`whole`), taken up to `whole_limit` bytes (at most 64 MiB; 0: none): a larger one
  /// is cut off before its body is read and answered `too_large`, so that many answers together
  /// stay within a bound and the caller can download such a file to disk instead.
  [[nodiscard]] std::vector<Result<RangeResponse>> get_ranges(const std::vector<RangeRequest>& requests,
                                                              std::size_t whole_limit = std::size_t{64} << 20);

  /// The last `lengths[i]` bytes of each `urls[i]`, concurrently; results in request order. Only
  /// answers that honour the range succeed: a server that ignores it (HTTP 200) is an error at
  /// once, before its body is read (these are for files too large to fetch twice).
  [[nodiscard]] std::vector<Result<RangeResponse>> get_suffixes(const std::vector<std::string>& urls,
                                                                const std::vector<std::uint64_t>& lengths);

  /// Concurrent downloads; the results are in request order. Each file is written to `<dest>.part`
  /// (dest's parent directory is created) and renamed to `dest` only after its size (when given, or
  /// the Content-Length) and sha256 (when given) are verified: nothing partial or unverified is ever
  /// left at `dest`. An existing `<dest>.part` is resumed with a Range request when `sha256` is
  /// given. Attempts are retried with exponential backoff on connection errors, stalls, 5xx, 408,
  /// 429 and short bodies (resuming from what arrived); a hash or size mismatch is retried once from
  /// the start, then is an error naming the URL, expected and actual digest. `on_progress` and
  /// `on_done(i, result)` are called on the calling thread while the others still download.
  [[nodiscard]] std::vector<Result<Downloaded>> download(
      const std::vector<DownloadRequest>& requests, const std::function<void(const Progress&)>& on_progress = {},
      const std::function<void(std::size_t, const Result<Downloaded>&)>& on_done = {});

  struct Impl;

 private:
  explicit Client(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// A terminal display of download progress: bars with bytes/s and ETA on a terminal (and, when the
/// installer reports it, unpacking progress), one plain line per finished file otherwise
/// ("Downloaded NAME (SIZE)"), nothing when quiet. Feed it from download()'s callbacks:
///
///     ProgressDisplay display(names);
///     client.download(requests, [&](const Progress& p) { display.update(p); },
///                     [&](std::size_t i, const Result<Downloaded>& r) { display.done(i, r); });
///     display.finish();
///
/// Every member may be called from any thread (a mutex serializes them): downloads report from
/// the thread that runs download(), unpacking from the installer's worker threads.
class ProgressDisplay {
 public:
  enum class Style {
    automatic,  ///< bars when `out` is a terminal, else lines
    bars,
    lines,
    quiet,
  };

  /// The style a command's `quiet` flag and the environment ask for: quiet when `quiet`;
  /// `VWHEEL_PROGRESS=bars` or `lines` forces one (for tests of the terminal display, whose stderr
  /// is not a terminal); else automatic.
  [[nodiscard]] static Style style_for(bool quiet);

  /// `names[i]` labels download i (e.g. a wheel's file name).
  explicit ProgressDisplay(std::vector<std::string> names, Style style = Style::automatic, std::FILE* out = stderr);
  ~ProgressDisplay();
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  void update(const Progress& progress);
  void done(std::size_t index, const Result<Downloaded>& result);
  /// Unpacking progress of a downloaded file (bars only: the plain style prints nothing for it).
  void unpack_update(const UnpackProgress& progress);
  /// File `index` is unpacked: its unpacking bar goes away.
  void unpack_done(std::size_t index);
  /// File `index` is not downloaded (it is on disk already) but may be unpacked: it is left out of
  /// the summary line (`Downloaded N/M files`), which is not drawn when no file is downloaded.
  void not_downloaded(std::size_t index);
  /// Erases the bars (also done by the destructor). Idempotent.
  void finish();

  /// The style actually used (automatic resolved).
  [[nodiscard]] Style style() const noexcept { return style_; }

 private:
  struct Item {
    std::string name;
    std::uint64_t done = 0;
    std::optional<std::uint64_t> total;
    bool started = false;
    bool finished = false;
    RateMeter rate;
    // Unpacking, after the download: bytes written of the uncompressed total.
    std::uint64_t written = 0;
    std::uint64_t uncompressed = 0;
    bool unpacking = false;
    RateMeter unpack_rate;
    bool local = false;  // not downloaded
  };
  void finish_locked();
  void redraw(bool force);
  [[nodiscard]] std::uint64_t downloaded_bytes() const;

  std::vector<Item> items_;
  Style style_;
  std::FILE* out_;
  std::size_t drawn_lines_ = 0;
  std::size_t finished_count_ = 0;
  std::size_t local_count_ = 0;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point last_draw_{};
  RateMeter all_rate_;  // of all downloads together, for the summary line
};

/// "1.5 MiB", "830 KiB", "12 B": a byte count for people.
[[nodiscard]] std::string format_size(std::uint64_t bytes);

}  // namespace vwheel::http
