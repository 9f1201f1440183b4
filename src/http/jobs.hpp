#pragma once
// Private to the http component: the transfers that Client's loop runs. A Job prepares an attempt
// on an easy handle (begin) and judges its outcome (end: done, retry after a backoff, retry at
// once, fail); GetJob fetches a body (through the cache), DownloadJob writes a file (resumable,
// hash-checked).

#include <chrono>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/cache.hpp"
#include "http/curl_api.hpp"
#include "http/headers.hpp"
#include "http/spool.hpp"
#include "vwheel/core/error.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/http/credentials.hpp"
#include "vwheel/http/client.hpp"

namespace vwheel::http::detail {

using Clock = std::chrono::steady_clock;

/// The largest body get() keeps in memory.
inline constexpr std::size_t kMaxBody = std::size_t{64} << 20;

/// curl's read size for downloads and ranges: with its default 16 KiB, a wheel of a GB is 60,000
/// turns of the transfer loop (poll, perform, the stall checks); 512 KiB is the most every libcurl
/// since 7.10 accepts.
inline constexpr long kReadBuffer = 512L << 10;

/// `url` is a file: URL (answered by curl without HTTP status or cache).
[[nodiscard]] bool is_file_url(std::string_view url);

/// `host[:port]` of `url`, lower case, without userinfo; empty without `://`.
[[nodiscard]] std::string url_authority(std::string_view url);

/// Whether `url`'s host (`HOST`), or host and port (`HOST:PORT`), is among `trusted` (--trusted-host).
[[nodiscard]] bool is_trusted_host(std::string_view url, const std::vector<std::string>& trusted);

/// A TLS verification failure (`code`) with `host` as one line: `TLS error with HOST: REASON
/// (DETAIL)`, the reason (expired, unknown CA, another name...) read from curl's error text
/// `detail`; nullopt when `code` is not one.
[[nodiscard]] std::optional<std::string> tls_failure(CURLcode code, std::string_view host, std::string_view detail);

/// What the loop does after an attempt.
enum class Verdict { done, retry, again, fail };

// The least average rate (bytes/s) an attempt must keep once it has run for --timeout seconds: the
// overall deadline against a server that drips a byte every few seconds (never a stall).
inline constexpr std::uint64_t kMinimumRate = 1024;

class Job {
 public:
  Job(const CurlApi& api, const Options& options, std::string url)
      : url_(redact_url(url)), plain_url_(url_without_userinfo(url)), api_(api), options_(options) {
    remember_credentials(url);
  }
  virtual ~Job() {
    if (slist_ != nullptr) api_.slist_free_all(slist_);
  }
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  /// Prepares an attempt on a reset easy handle: true to run it, false when the job finished
  /// without a transfer (its result is set); an error ends the job.
  virtual Result<bool> begin(CURL* easy) = 0;
  /// Judges an attempt; sets cause_ for retry and fail.
  virtual Verdict end(CURL* easy, CURLcode code) = 0;
  /// Ends the job with an error.
  virtual void set_error(Error error) = 0;
  /// Called once when the job has its result.
  virtual void completed() {}
  /// Called on every turn of the loop while an attempt runs.
  virtual void progress() {}

  /// Ends the job after the last attempt failed with a retryable cause.
  virtual void give_up();

  /// Ends the job after an attempt failed for good.
  void fail_now() {
    set_error(cause_error(whole_message_.empty() ? fmt::format("{}: {}", url_, cause_) : whole_message_));
  }
  /// `message` as the job's error: an environment error when the cause is this machine's.
  [[nodiscard]] Error cause_error(std::string message) const {
    Error e(std::move(message));
    if (local_failure_) e.kind = ErrorKind::environment;
    return e;
  }

  /// A non-2xx answer: names it in cause_; retried when another attempt may get a better one.
  Verdict judge_status(long status);

  /// Options every attempt shares.
  void common_setup(CURL* easy);

  /// Sets the request headers (replacing earlier ones).
  void set_headers(CURL* easy, const std::vector<std::string>& lines);

  /// For an attempt under --trusted-host, when its body starts: false (abort_reason_ set) when a
  /// redirect took it to an https host not trusted, whose certificate was not verified either.
  bool stays_on_trusted_hosts();

  /// curl's description of a failed attempt.
  [[nodiscard]] std::string describe(CURLcode code) const;

  [[nodiscard]] long response_status(CURL* easy) const;

  [[nodiscard]] std::string effective_url(CURL* easy) const;

  /// The length of the body being received, when known.
  [[nodiscard]] std::optional<std::uint64_t> content_length(CURL* easy) const;

  /// Judges a failed curl code or an HTTP status after a completed transfer: retry or fail, with cause_ set.
  Verdict judge_failure(CURLcode code);

  template <class T>
  void set(CURL* easy, CURLoption option, T value) {
    api_.easy_setopt(easy, option, value);
  }

  /// Bytes of the body; returning less than `data.size()` aborts the attempt (set abort_reason_).
  virtual bool on_body(std::string_view data) = 0;

  /// curl's header and write callbacks (`self` is the Job). An exception thrown below them (an
  /// allocation that fails) must not unwind through libcurl's C frames: it is kept in `escaped_`
  /// and the attempt aborted; the loop rethrows it once curl has returned.
  static std::size_t header_cb(char* data, std::size_t size, std::size_t n, void* self) noexcept;
  static std::size_t write_cb(char* data, std::size_t size, std::size_t n, void* self) noexcept;
  std::exception_ptr escaped_;

  unsigned attempts_ = 0;
  Clock::time_point last_activity_;  // of the running attempt: its start, or the last bytes received
  bool stalled_ = false;             // the loop aborted the running attempt
  // A trickle (a byte every few seconds) never stalls: the attempt's average rate is checked too.
  Clock::time_point attempt_start_;
  std::uint64_t attempt_bytes_ = 0;  // header and body bytes of the running attempt
  bool too_slow_ = false;            // the loop aborted the running attempt for its average rate
  bool cancelled_ = false;           // the loop aborted the running attempt: Options::cancel
  /// Whether the running attempt averaged less than kMinimumRate since it started.
  [[nodiscard]] bool below_minimum_rate(Clock::time_point now) const {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - attempt_start_).count();
    return ms > 0 && attempt_bytes_ * 1000 < kMinimumRate * static_cast<std::uint64_t>(ms);
  }
  CURL* easy_ = nullptr;             // the handle of the running attempt
  std::string cause_;
  /// cause_ is this machine's (a write or rename failed: a full disk, `ulimit -f`), not the
  /// server's: the job's error is an environment error (exit 3), as for a write while unpacking.
  bool local_failure_ = false;
  std::optional<std::chrono::milliseconds> retry_after_;
  std::string url_;        ///< the URL as messages show it: its userinfo redacted (`alice:****@`)
  std::string plain_url_;  ///< the URL without userinfo, as the cache stores it

 protected:
  const CurlApi& api_;
  const Options& options_;
  Headers headers_;
  std::string abort_reason_;
  char errbuf_[CURL_ERROR_SIZE] = {};
  // --trusted-host: this attempt does not verify certificates; the host it ends on must be trusted too.
  bool unverified_ = false;
  bool redirect_checked_ = false;
  std::string whole_message_;  // a failure's message as it is (401/403), not after the URL
  std::string curl_url_;  // plain_url_ with its origin's credentials, for curl alone
  curl_slist* slist_ = nullptr;

  /// Reads Retry-After (seconds only) from the last response.
  void note_retry_after();

};

/// A GET of a whole body (get(), get_many()) or of a range (get_range(), get_suffix()).
class GetJob final : public Job {
 public:
  GetJob(const CurlApi& api, const Options& options, const Request& request,
         std::optional<std::filesystem::path> cache_file, std::optional<CacheEntry> cached, std::string range)
      : Job(api, options, request.url),
        request_(request),
        cache_file_(std::move(cache_file)),
        cached_(std::move(cached)),
        range_(std::move(range)) {}

  Result<bool> begin(CURL* easy) override;

  bool on_body(std::string_view data) override;

  Verdict end(CURL* easy, CURLcode code) override;

  void set_error(Error error) override { response_ = tl::unexpected(std::move(error)); }

  Result<Response> response_ = fail("not run");
  std::string content_range_;
  /// The most a range request takes of a server that ignores the range (a 200 answer, the whole
  /// file): a larger answer is cut off before more is read (too_large_); nullopt: any 200 answer
  /// is an error at once.
  std::optional<std::size_t> whole_limit_ = kMaxBody;
  /// The answer was cut off for whole_limit_: response_ holds its headers, and no body.
  bool too_large_ = false;

 private:
  const Request& request_;
  std::optional<std::filesystem::path> cache_file_;
  std::optional<CacheEntry> cached_;
  std::string range_;
  std::string body_;
  /// The answer of the GET standing in for a refused HEAD, from its headers.
  Verdict answer_refused_head(CURL* easy);
  /// The server refused the HEAD request: it is asked again with a GET of the first byte.
  bool head_refused_ = false;
  /// That GET's headers arrived (2xx): the transfer was cut off there, the answer is complete.
  bool head_answered_ = false;
};

/// One file of download().
class DownloadJob final : public Job {
 public:
  DownloadJob(const CurlApi& api, const Options& options, const DownloadRequest& request, std::size_t index,
              const std::function<void(const Progress&)>& on_progress,
              const std::function<void(std::size_t, const Result<Downloaded>&)>& on_done)
      : Job(api, options, request.url),
        request_(request),
        index_(index),
        on_progress_(on_progress),
        on_done_(on_done),
        part_(request.dest.string() + ".part") {
    if (request.sha256) expected_hash_ = ascii_lower(*request.sha256);
    total_ = request.size;
    spool_.publish_to(request.growing.get());
  }
  ~DownloadJob() override { close_file(); }

  Result<bool> begin(CURL* easy) override;

  bool on_body(std::string_view data) override;

  Verdict end(CURL* easy, CURLcode code) override;

  void progress() override;

  void set_error(Error error) override;

  void completed() override;

  /// A final failure after retryable causes keeps the part file, so a later run can resume it.
  void give_up() override;

  Result<Downloaded> result_ = fail("not run");

 private:
  Result<void> prepare();

  /// The first bytes of an attempt's body: decides whether the range was honoured.
  bool start_body();

  Verdict finish_file();

  Verdict mismatch(std::string what);

  void reset_part();

  void remove_part();

  bool close_file();

  const DownloadRequest& request_;
  std::size_t index_;
  const std::function<void(const Progress&)>& on_progress_;
  const std::function<void(std::size_t, const Result<Downloaded>&)>& on_done_;
  std::filesystem::path part_;
  std::optional<std::string> expected_hash_;
  std::optional<std::uint64_t> total_;
  Spool spool_;  // the part file of the running attempt, and the hash of its bytes
  std::uint64_t have_ = 0;
  std::uint64_t attempt_offset_ = 0;
  std::string range_;
  std::string etag_;
  bool first_write_ = true;
  bool discard_ = false;
  bool restart_ = false;
  bool mismatch_ = false;
  bool resumed_ = false;
  bool dirty_ = false;
  bool keep_part_on_error_ = false;
  unsigned mismatches_ = 0;
};

}  // namespace vwheel::http::detail
