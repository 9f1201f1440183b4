// The HTTP client: one curl multi handle per Client, driven on the calling thread. Each transfer is
// a Job that prepares an attempt on an easy handle and judges its outcome (done, retry after a
// backoff, retry at once, fail); the loop in Client::Impl::run schedules the attempts. The on-disk
// cache is in cache.cpp, header parsing in headers.cpp.

#include "vwheel/http/client.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <random>
#include <string_view>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "http/cache.hpp"
#include "http/curl_api.hpp"
#include "http/headers.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/text.hpp"

namespace vwheel::http {

using detail::cached_response;
using detail::CacheEntry;
using detail::ContentRange;
using detail::CurlApi;
using detail::fresh_until;
using detail::Headers;
using detail::parse_content_range;
using detail::parse_u64;
using detail::read_cache;
using detail::unix_now;
using detail::write_cache;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxBody = std::size_t{64} << 20;

bool is_file_url(std::string_view url) { return ascii_istarts_with(url, "file:"); }

bool is_2xx(long s) { return s >= 200 && s < 300; }
bool retryable_status(long s) { return s == 408 || s == 429 || (s >= 500 && s < 600); }

bool retryable_code(CURLcode c) {
  switch (c) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP3:
    case CURLE_QUIC_CONNECT_ERROR:
      return true;
    default:
      return false;
  }
}

enum class Verdict { done, retry, again, fail };

}  // namespace

// ---------------------------------------------------------------------------------------------
// Jobs

namespace {

class Job {
 public:
  Job(const CurlApi& api, const Options& options, std::string url)
      : url_(std::move(url)), api_(api), options_(options) {}
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
  virtual void give_up() {
    set_error(Error(fmt::format("{}: {} (gave up after {} attempt{})", url_, cause_, attempts_,
                                attempts_ == 1 ? "" : "s")));
  }

  /// Ends the job after an attempt failed for good.
  void fail_now() { set_error(Error(fmt::format("{}: {}", url_, cause_))); }

  /// A non-2xx answer: names it in cause_; retried when another attempt may get a better one.
  Verdict judge_status(long status) {
    cause_ = headers_.status == status ? headers_.status_text() : fmt::format("HTTP {}", status);
    if (!retryable_status(status)) return Verdict::fail;
    note_retry_after();
    return Verdict::retry;
  }

  /// Options every attempt shares.
  void common_setup(CURL* easy) {
    easy_ = easy;
    errbuf_[0] = '\0';
    headers_.reset();
    abort_reason_.clear();
    set(easy, CURLOPT_PRIVATE, static_cast<void*>(this));
    set(easy, CURLOPT_URL, url_.c_str());
    set(easy, CURLOPT_NOSIGNAL, 1L);
    set(easy, CURLOPT_FOLLOWLOCATION, 1L);
    set(easy, CURLOPT_MAXREDIRS, 10L);
    if (api_.easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https,file") != CURLE_OK) {
      set(easy, CURLOPT_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS | CURLPROTO_FILE));
    }
    if (api_.easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") != CURLE_OK) {
      set(easy, CURLOPT_REDIR_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
    }
    set(easy, CURLOPT_USERAGENT, options_.user_agent.c_str());
    set(easy, CURLOPT_CONNECTTIMEOUT_MS,
        static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(options_.connect_timeout).count()));
    // Stalls are detected by the loop (curl's LOW_SPEED_* averages over several seconds).
    last_activity_ = Clock::now();
    stalled_ = false;
    set(easy, CURLOPT_ERRORBUFFER, errbuf_);
    set(easy, CURLOPT_HEADERFUNCTION, &Job::header_cb);
    set(easy, CURLOPT_HEADERDATA, static_cast<void*>(this));
    set(easy, CURLOPT_WRITEFUNCTION, &Job::write_cb);
    set(easy, CURLOPT_WRITEDATA, static_cast<void*>(this));
    if (ascii_istarts_with(url_, "https:")) set(easy, CURLOPT_PIPEWAIT, 1L);
  }

  /// Sets the request headers (replacing earlier ones).
  void set_headers(CURL* easy, const std::vector<std::string>& lines) {
    if (slist_ != nullptr) api_.slist_free_all(slist_);
    slist_ = nullptr;
    for (const auto& l : lines) slist_ = api_.slist_append(slist_, l.c_str());
    if (slist_ != nullptr) set(easy, CURLOPT_HTTPHEADER, slist_);
  }

  /// curl's description of a failed attempt.
  [[nodiscard]] std::string describe(CURLcode code) const {
    if (stalled_) {
      return fmt::format("stalled: nothing received for {} s", options_.stall_timeout.count());
    }
    if (errbuf_[0] != '\0') return errbuf_;
    return api_.easy_strerror(code);
  }

  [[nodiscard]] long response_status(CURL* easy) const {
    long code = 0;
    api_.easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &code);
    return code;
  }

  [[nodiscard]] std::string effective_url(CURL* easy) const {
    char* u = nullptr;
    api_.easy_getinfo(easy, CURLINFO_EFFECTIVE_URL, &u);
    return u != nullptr ? std::string(u) : url_;
  }

  /// The length of the body being received, when known.
  [[nodiscard]] std::optional<std::uint64_t> content_length(CURL* easy) const {
    curl_off_t cl = -1;
    if (api_.easy_getinfo(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) != CURLE_OK || cl < 0) return std::nullopt;
    return static_cast<std::uint64_t>(cl);
  }

  /// Judges a failed curl code or an HTTP status after a completed transfer: retry or fail, with cause_ set.
  Verdict judge_failure(CURLcode code) {
    cause_ = describe(code);
    return retryable_code(code) ? Verdict::retry : Verdict::fail;
  }

  template <class T>
  void set(CURL* easy, CURLoption option, T value) {
    api_.easy_setopt(easy, option, value);
  }

  /// Bytes of the body; returning less than `data.size()` aborts the attempt (set abort_reason_).
  virtual bool on_body(std::string_view data) = 0;

  unsigned attempts_ = 0;
  Clock::time_point last_activity_;  // of the running attempt: its start, or the last bytes received
  bool stalled_ = false;             // the loop aborted the running attempt
  CURL* easy_ = nullptr;             // the handle of the running attempt
  std::string cause_;
  std::optional<std::chrono::milliseconds> retry_after_;
  std::string url_;

 protected:
  const CurlApi& api_;
  const Options& options_;
  Headers headers_;
  std::string abort_reason_;
  char errbuf_[CURL_ERROR_SIZE] = {};
  curl_slist* slist_ = nullptr;

  /// Reads Retry-After (seconds only) from the last response.
  void note_retry_after() {
    std::uint64_t s = 0;
    if (!headers_.retry_after.empty() && parse_u64(headers_.retry_after, s)) {
      retry_after_ = std::chrono::milliseconds(std::min<std::uint64_t>(s, 60) * 1000);
    } else {
      retry_after_.reset();
    }
  }

 private:
  static std::size_t header_cb(char* data, std::size_t size, std::size_t n, void* self) {
    auto* job = static_cast<Job*>(self);
    job->last_activity_ = Clock::now();
    job->headers_.add_line(std::string_view(data, size * n));
    return size * n;
  }
  static std::size_t write_cb(char* data, std::size_t size, std::size_t n, void* self) {
    auto* job = static_cast<Job*>(self);
    job->last_activity_ = Clock::now();
    return job->on_body(std::string_view(data, size * n)) ? size * n : 0;
  }
};

/// A GET of a whole body (get(), get_many()) or of a range (get_range(), get_suffix()).
class GetJob final : public Job {
 public:
  GetJob(const CurlApi& api, const Options& options, const Request& request, std::optional<fs::path> cache_file,
         std::optional<CacheEntry> cached, std::string range)
      : Job(api, options, request.url),
        request_(request),
        cache_file_(std::move(cache_file)),
        cached_(std::move(cached)),
        range_(std::move(range)) {}

  Result<bool> begin(CURL* easy) override {
    common_setup(easy);
    body_.clear();
    std::vector<std::string> lines = request_.headers;
    if (cached_) {
      if (!cached_->etag.empty()) lines.push_back("If-None-Match: " + cached_->etag);
      if (!cached_->last_modified.empty()) lines.push_back("If-Modified-Since: " + cached_->last_modified);
    }
    set_headers(easy, lines);
    if (range_.empty()) {
      set(easy, CURLOPT_ACCEPT_ENCODING, "");  // whatever curl can decode (gzip, deflate, br, zstd)
    } else {
      set(easy, CURLOPT_RANGE, range_.c_str());
    }
    return true;
  }

  bool on_body(std::string_view data) override {
    const long s = headers_.status;
    if (s != 0 && !is_2xx(s)) return true;  // an error page: not kept
    if (body_.empty()) {
      const auto cl = content_length(easy_);
      if (cl && *cl > kMaxBody) {
        abort_reason_ = fmt::format("the response is larger than {} MiB ({} bytes)", kMaxBody >> 20, *cl);
        return false;
      }
      if (cl) body_.reserve(static_cast<std::size_t>(*cl));
    }
    if (body_.size() + data.size() > kMaxBody) {
      abort_reason_ = fmt::format("the response is larger than {} MiB", kMaxBody >> 20);
      return false;
    }
    body_.append(data);
    return true;
  }

  Verdict end(CURL* easy, CURLcode code) override {
    if (!abort_reason_.empty()) {
      cause_ = abort_reason_;
      return Verdict::fail;
    }
    if (code != CURLE_OK) return judge_failure(code);
    const long status = is_file_url(effective_url(easy)) ? 0 : response_status(easy);
    if (status == 304 && cached_) {
      // The 304 may extend the entry's freshness (RFC 9111 section 4.3.4): store it again then.
      if (const auto until = fresh_until(headers_, unix_now()); cache_file_ && (until != 0 || cached_->expires != 0)) {
        cached_->expires = until;
        write_cache(*cache_file_, url_, *cached_);
      }
      response_ = cached_response(std::move(*cached_), url_);
      return Verdict::done;
    }
    if (status == 404 && request_.not_found_ok) {
      Response r;
      r.status = status;
      r.url = effective_url(easy);
      response_ = std::move(r);
      return Verdict::done;
    }
    if (status != 0 && !is_2xx(status)) return judge_status(status);
    Response r;
    r.status = status;
    r.body = std::move(body_);
    r.content_type = headers_.content_type;
    if (r.content_type.empty()) {
      char* ct = nullptr;
      api_.easy_getinfo(easy, CURLINFO_CONTENT_TYPE, &ct);
      if (ct != nullptr) r.content_type = ct;
    }
    r.url = effective_url(easy);
    content_range_ = headers_.content_range;
    if (cache_file_ && status == 200 && detail::may_store(headers_)) {
      CacheEntry e;
      e.etag = headers_.etag;
      e.last_modified = headers_.last_modified;
      e.content_type = r.content_type;
      e.effective_url = r.url;
      e.status = status;
      e.expires = fresh_until(headers_, unix_now());
      e.body = r.body;
      write_cache(*cache_file_, url_, e);
    }
    response_ = std::move(r);
    return Verdict::done;
  }

  void set_error(Error error) override { response_ = tl::unexpected(std::move(error)); }

  Result<Response> response_ = fail("not run");
  std::string content_range_;

 private:
  const Request& request_;
  std::optional<fs::path> cache_file_;
  std::optional<CacheEntry> cached_;
  std::string range_;
  std::string body_;
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
  }
  ~DownloadJob() override { close_file(); }

  Result<bool> begin(CURL* easy) override {
    if (attempts_ == 1) {
      if (auto r = prepare(); !r) return tl::unexpected(r.error());
      if (request_.size && have_ == *request_.size && have_ > 0) {
        // The part file is complete already: verify it without a transfer.
        if (finish_file() == Verdict::done) return false;
        reset_part();
        mismatches_ = 0;
      }
    }
    common_setup(easy);
    std::vector<std::string> lines;
    if (have_ > 0) {
      range_ = fmt::format("{}-", have_);
      set(easy, CURLOPT_RANGE, range_.c_str());
      if (!etag_.empty() && !ascii_istarts_with(etag_, "W/")) lines.push_back("If-Range: " + etag_);
    }
    set_headers(easy, lines);
    file_ = std::fopen(part_.c_str(), have_ > 0 ? "ab" : "wb");
    if (file_ == nullptr) return fail(fmt::format("{}: cannot write {}: {}", url_, part_.string(), std::strerror(errno)));
    attempt_offset_ = have_;
    first_write_ = true;
    discard_ = false;
    restart_ = false;
    return true;
  }

  bool on_body(std::string_view data) override {
    if (first_write_) {
      first_write_ = false;
      if (!start_body()) return false;
    }
    if (discard_) return true;
    if (request_.size && have_ + data.size() > *request_.size) {
      abort_reason_ = fmt::format("size mismatch: more than the expected {} bytes", *request_.size);
      mismatch_ = true;
      return false;
    }
    if (std::fwrite(data.data(), 1, data.size(), file_) != data.size()) {
      abort_reason_ = fmt::format("cannot write {}: {}", part_.string(), std::strerror(errno));
      return false;
    }
    hasher_.update(data);
    have_ += data.size();
    dirty_ = true;
    return true;
  }

  Verdict end(CURL* easy, CURLcode code) override {
    if (!close_file()) {
      cause_ = fmt::format("cannot write {}: {}", part_.string(), std::strerror(errno));
      return Verdict::fail;
    }
    if (restart_) {
      reset_part();
      cause_ = abort_reason_;
      return Verdict::retry;
    }
    if (mismatch_) return mismatch(abort_reason_);
    if (!abort_reason_.empty()) {
      cause_ = abort_reason_;
      return Verdict::fail;
    }
    if (!headers_.etag.empty()) etag_ = headers_.etag;
    if (code != CURLE_OK) return judge_failure(code);
    const long status = is_file_url(effective_url(easy)) ? 0 : response_status(easy);
    if (status == 416 && attempt_offset_ > 0) {
      // The part file is as long as the file or longer: start again from the beginning.
      reset_part();
      cause_ = "the server refused to resume (HTTP 416)";
      return Verdict::again;
    }
    if (status != 0 && !is_2xx(status)) return judge_status(status);
    return finish_file();
  }

  void progress() override {
    if (dirty_ && on_progress_) on_progress_(Progress{index_, have_, total_});
    dirty_ = false;
  }

  void set_error(Error error) override {
    close_file();
    if (!keep_part_on_error_) remove_part();
    result_ = tl::unexpected(std::move(error));
  }

  void completed() override {
    if (result_ && on_progress_) on_progress_(Progress{index_, result_->size, result_->size});
    if (on_done_) on_done_(index_, result_);
  }

  /// A final failure after retryable causes keeps the part file, so a later run can resume it.
  void give_up() override {
    keep_part_on_error_ = true;
    Job::give_up();
  }

  Result<Downloaded> result_ = fail("not run");

 private:
  Result<void> prepare() {
    std::error_code ec;
    if (request_.dest.has_parent_path()) {
      fs::create_directories(request_.dest.parent_path(), ec);
      if (ec) {
        return fail(fmt::format("{}: cannot create {}: {}", url_, request_.dest.parent_path().string(), ec.message()));
      }
    }
    have_ = 0;
    if (!fs::exists(part_, ec)) return {};
    if (!request_.sha256) {
      // Without a digest a stale part file could not be told from the right one: start afresh.
      remove_part();
      return {};
    }
    std::ifstream in(part_, std::ios::binary);
    std::string buf(1 << 20, '\0');
    while (in) {
      in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
      const auto n = static_cast<std::size_t>(in.gcount());
      if (n == 0) break;
      hasher_.update(std::string_view(buf.data(), n));
      have_ += n;
    }
    if (in.bad() || (request_.size && have_ > *request_.size)) {
      reset_part();
    } else if (have_ > 0) {
      resumed_ = true;
    }
    return {};
  }

  /// The first bytes of an attempt's body: decides whether the range was honoured.
  bool start_body() {
    const long s = headers_.status;
    discard_ = s != 0 && !is_2xx(s);
    if (discard_) return true;
    if (attempt_offset_ > 0) {
      if (s == 206) {
        const auto cr = parse_content_range(headers_.content_range);
        if (!cr || cr->start != attempt_offset_) {
          abort_reason_ = fmt::format("unexpected Content-Range `{}` for a resume at byte {}", headers_.content_range,
                                      attempt_offset_);
          restart_ = true;
          return false;
        }
        if (cr->total) total_ = *cr->total;
        resumed_ = true;
      } else if (s == 200) {
        // The server ignored the range: the whole file follows.
        reset_part();
        file_ = std::fopen(part_.c_str(), "wb");
        if (file_ == nullptr) {
          abort_reason_ = fmt::format("cannot write {}: {}", part_.string(), std::strerror(errno));
          return false;
        }
      } else {
        resumed_ = true;  // file:// honours ranges
      }
    }
    if (!total_ && s != 206) {
      if (const auto cl = content_length(easy_); cl) total_ = have_ + *cl;
    }
    if (request_.size && total_ && *total_ != *request_.size) {
      abort_reason_ =
          fmt::format("size mismatch: expected {} bytes, the server announced {}", *request_.size, *total_);
      mismatch_ = true;
      return false;
    }
    return true;
  }

  Verdict finish_file() {
    const std::string actual = to_hex(hasher_.finish());
    if (request_.size && have_ != *request_.size) {
      return mismatch(fmt::format("size mismatch: expected {} bytes, got {}", *request_.size, have_));
    }
    if (expected_hash_ && *expected_hash_ != actual) {
      return mismatch(fmt::format("sha256 mismatch: expected {}, got {}", *expected_hash_, actual));
    }
    std::error_code ec;
    fs::rename(part_, request_.dest, ec);
    if (ec) {
      cause_ = fmt::format("cannot rename {} to {}: {}", part_.string(), request_.dest.string(), ec.message());
      remove_part();
      return Verdict::fail;
    }
    Downloaded d;
    d.path = request_.dest;
    d.sha256 = actual;
    d.size = have_;
    d.attempts = attempts_;
    d.resumed = resumed_;
    result_ = std::move(d);
    return Verdict::done;
  }

  Verdict mismatch(std::string what) {
    reset_part();
    cause_ = std::move(what);
    if (mismatches_++ == 0) return Verdict::again;
    return Verdict::fail;
  }

  void reset_part() {
    close_file();
    remove_part();
    hasher_ = Sha256();
    have_ = 0;
    resumed_ = false;
    total_ = request_.size;
    mismatch_ = false;
    etag_.clear();
  }

  void remove_part() {
    std::error_code ec;
    fs::remove(part_, ec);
  }

  bool close_file() {
    if (file_ == nullptr) return true;
    const bool ok = std::fclose(file_) == 0;
    file_ = nullptr;
    return ok;
  }

  const DownloadRequest& request_;
  std::size_t index_;
  const std::function<void(const Progress&)>& on_progress_;
  const std::function<void(std::size_t, const Result<Downloaded>&)>& on_done_;
  fs::path part_;
  std::optional<std::string> expected_hash_;
  std::optional<std::uint64_t> total_;
  std::FILE* file_ = nullptr;
  Sha256 hasher_;
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

}  // namespace

// ---------------------------------------------------------------------------------------------
// Client

struct Client::Impl {
  const CurlApi* api = nullptr;  ///< null until the first transfer loads libcurl
  Options options;
  CURLM* multi = nullptr;
  std::vector<CURL*> idle;
  std::minstd_rand rng{std::random_device{}()};

  explicit Impl(Options o) : options(std::move(o)) {}
  ~Impl() {
    if (api == nullptr) return;
    for (CURL* e : idle) api->easy_cleanup(e);
    if (multi != nullptr) api->multi_cleanup(multi);
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  /// libcurl, loaded on the first transfer: a run answered from the cache never loads it (nor
  /// the TLS and Kerberos libraries it pulls in).
  Result<const CurlApi*> load() {
    if (api != nullptr) return api;
    auto loaded = detail::load_curl();
    if (!loaded) return tl::unexpected(loaded.error());
    multi = (*loaded)->multi_init();
    if (multi == nullptr) return fail("cannot initialize libcurl: curl_multi_init failed");
    (*loaded)->multi_setopt(multi, CURLMOPT_PIPELINING, static_cast<long>(CURLPIPE_MULTIPLEX));
    api = *loaded;
    return api;
  }

  CURL* acquire() {
    if (!idle.empty()) {
      CURL* e = idle.back();
      idle.pop_back();
      api->easy_reset(e);
      return e;
    }
    CURL* e = api->easy_init();
    if (e == nullptr) throw std::bad_alloc();
    return e;
  }
  void release(CURL* e) { idle.push_back(e); }

  std::chrono::milliseconds delay(const Job& job) {
    const unsigned shift = std::min(job.attempts_ - 1, 16U);
    std::chrono::milliseconds d = options.backoff * (std::int64_t{1} << shift);
    if (d.count() > 0) d += std::chrono::milliseconds(static_cast<std::int64_t>(rng() % (d.count() / 4 + 1)));
    if (job.retry_after_) d = std::max(d, *job.retry_after_);
    return d;
  }

  /// Runs every job to its end; each job's completed() is called as it ends.
  void run(const std::vector<Job*>& jobs) {
    std::deque<Job*> ready(jobs.begin(), jobs.end());
    std::vector<std::pair<Clock::time_point, Job*>> waiting;
    std::vector<Job*> active;
    const std::size_t limit = std::max(1U, options.max_parallel);

    auto finish = [&](Job* job) { job->completed(); };

    while (!ready.empty() || !waiting.empty() || !active.empty()) {
      const auto now = Clock::now();
      for (auto it = waiting.begin(); it != waiting.end();) {
        if (it->first <= now) {
          ready.push_front(it->second);
          it = waiting.erase(it);
        } else {
          ++it;
        }
      }
      while (active.size() < limit && !ready.empty()) {
        Job* job = ready.front();
        ready.pop_front();
        ++job->attempts_;
        CURL* easy = acquire();
        auto started = job->begin(easy);
        if (!started || !*started) {
          if (!started) job->set_error(started.error());
          release(easy);
          finish(job);
          continue;
        }
        if (const CURLMcode mc = api->multi_add_handle(multi, easy); mc != CURLM_OK) {
          job->set_error(Error(fmt::format("{}: {}", job->url_, api->multi_strerror(mc))));
          release(easy);
          finish(job);
          continue;
        }
        active.push_back(job);
      }
      if (active.empty()) {
        if (waiting.empty()) continue;
        const auto next = std::min_element(waiting.begin(), waiting.end())->first;
        std::this_thread::sleep_until(next);
        continue;
      }

      auto complete = [&](CURL* easy, CURLcode code) {
        void* priv = nullptr;
        api->easy_getinfo(easy, CURLINFO_PRIVATE, &priv);
        auto* job = static_cast<Job*>(priv);
        api->multi_remove_handle(multi, easy);
        active.erase(std::find(active.begin(), active.end(), job));
        job->progress();
        const Verdict v = job->end(easy, code);
        release(easy);
        switch (v) {
          case Verdict::done:
            finish(job);
            break;
          case Verdict::again:
            ready.push_front(job);
            break;
          case Verdict::retry:
            if (job->attempts_ <= options.retries) {
              waiting.emplace_back(Clock::now() + delay(*job), job);
            } else {
              job->give_up();
              finish(job);
            }
            break;
          case Verdict::fail:
            job->fail_now();
            finish(job);
            break;
        }
      };

      int running = 0;
      api->multi_perform(multi, &running);
      int left = 0;
      while (CURLMsg* msg = api->multi_info_read(multi, &left)) {
        if (msg->msg == CURLMSG_DONE) complete(msg->easy_handle, msg->data.result);
      }
      const auto stall_limit = Clock::now() - options.stall_timeout;
      for (std::size_t i = 0; i < active.size();) {
        Job* job = active[i];
        if (job->last_activity_ < stall_limit) {
          job->stalled_ = true;
          complete(job->easy_, CURLE_OPERATION_TIMEDOUT);  // removes it from `active`
        } else {
          ++i;
        }
      }
      for (Job* job : active) job->progress();
      if (active.empty() && ready.empty() && waiting.empty()) break;
      if (!ready.empty() && active.size() < limit) continue;
      int timeout_ms = 250;  // also the resolution of stall detection
      if (!waiting.empty()) {
        const auto next = std::min_element(waiting.begin(), waiting.end())->first;
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now()).count();
        timeout_ms = static_cast<int>(std::clamp<std::int64_t>(ms, 0, timeout_ms));
      }
      if (!active.empty()) {
        api->multi_poll(multi, nullptr, 0, timeout_ms, nullptr);
      }
    }
  }

  std::optional<fs::path> cache_file(const Request& r) const { return detail::cache_file(options.cache_dir, r); }

  Result<RangeResponse> local_range(const std::string& url, std::optional<std::uint64_t> offset,
                                    std::uint64_t length);
  Result<RangeResponse> remote_range(const std::string& url, const std::string& range);
};

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Client::Client(Client&&) noexcept = default;
Client& Client::operator=(Client&&) noexcept = default;
Client::~Client() = default;

const Options& Client::options() const noexcept { return impl_->options; }

Result<Client> Client::create(Options options) {
  if (options.user_agent.empty()) options.user_agent = "vwheel/" VWHEEL_VERSION;
  return Client(std::make_unique<Impl>(std::move(options)));
}

std::vector<Result<Response>> Client::get_many(const std::vector<Request>& requests) {
  std::vector<Result<Response>> results(requests.size(), fail("not run"));
  std::vector<std::unique_ptr<GetJob>> jobs(requests.size());
  std::vector<Job*> to_run;
  const auto now = unix_now();
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const Request& r = requests[i];
    auto file = impl_->cache_file(r);
    std::optional<CacheEntry> cached;
    if (file) cached = read_cache(*file);
    const bool fresh = cached && !impl_->options.refresh && cached->expires > now;
    if (fresh || (impl_->options.offline && !is_file_url(r.url))) {
      results[i] = cached ? Result<Response>(cached_response(std::move(*cached), r.url))
                          : fail(fmt::format("offline: {} is not in the cache", r.url));
      continue;
    }
    auto api = impl_->load();
    if (!api) {
      results[i] = tl::unexpected(api.error());
      continue;
    }
    jobs[i] = std::make_unique<GetJob>(**api, impl_->options, r, std::move(file), std::move(cached), "");
    to_run.push_back(jobs[i].get());
  }
  if (!to_run.empty()) impl_->run(to_run);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (jobs[i]) results[i] = std::move(jobs[i]->response_);
  }
  return results;
}

Result<Response> Client::get(const Request& request) { return std::move(get_many({request}).front()); }

Result<RangeResponse> Client::Impl::local_range(const std::string& url, std::optional<std::uint64_t> offset,
                                                std::uint64_t length) {
  auto loaded = load();
  if (!loaded) return tl::unexpected(loaded.error());
  const CurlApi& curl = **loaded;
  CURLU* u = curl.url();
  if (u == nullptr) throw std::bad_alloc();
  std::string path;
  if (curl.url_set(u, CURLUPART_URL, url.c_str(), 0) == CURLUE_OK) {
    char* p = nullptr;
    if (curl.url_get(u, CURLUPART_PATH, &p, CURLU_URLDECODE) == CURLUE_OK && p != nullptr) path = p;
    if (p != nullptr) curl.free(p);
  }
  curl.url_cleanup(u);
  if (path.empty()) return fail(fmt::format("{}: not a valid file URL", url));
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(fmt::format("{}: cannot open {}: {}", url, path, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail(fmt::format("{}: {} is not a regular file", url, path));
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  RangeResponse r;
  r.total_size = size;
  r.offset = offset ? std::min(*offset, size) : (size > length ? size - length : 0);
  if (offset && *offset >= size) {
    ::close(fd);
    return fail(fmt::format("{}: range starts at byte {}, beyond the end of the {}-byte file", url, *offset, size));
  }
  const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(length, size - r.offset));
  r.body.resize(n);
  std::size_t got = 0;
  while (got < n) {
    const ssize_t k = ::pread(fd, r.body.data() + got, n - got, static_cast<off_t>(r.offset + got));
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      const int err = errno;
      ::close(fd);
      return fail(fmt::format("{}: cannot read {}: {}", url, path, k < 0 ? std::strerror(err) : "unexpected end"));
    }
    got += static_cast<std::size_t>(k);
  }
  ::close(fd);
  return r;
}

Result<RangeResponse> Client::Impl::remote_range(const std::string& url, const std::string& range) {
  if (options.offline) return fail(fmt::format("offline: cannot fetch {}", url));
  auto loaded = load();
  if (!loaded) return tl::unexpected(loaded.error());
  Request req{url, {}, false};
  GetJob job(**loaded, options, req, std::nullopt, std::nullopt, range);
  run({&job});
  if (!job.response_) return tl::unexpected(job.response_.error());
  RangeResponse r;
  r.body = std::move(job.response_->body);
  if (job.response_->status == 206) {
    const auto cr = parse_content_range(job.content_range_);
    if (!cr) return fail(fmt::format("{}: HTTP 206 without a valid Content-Range (`{}`)", url, job.content_range_));
    r.offset = cr->start;
    r.total_size = cr->total;
    if (cr->end - cr->start + 1 != r.body.size()) {
      return fail(fmt::format("{}: Content-Range `{}` does not match the {} bytes received", url, job.content_range_,
                              r.body.size()));
    }
  } else {
    r.whole = true;
    r.offset = 0;
    r.total_size = r.body.size();
  }
  return r;
}

Result<RangeResponse> Client::get_range(const std::string& url, std::uint64_t offset, std::uint64_t length) {
  if (length == 0) return fail(fmt::format("{}: a range of 0 bytes was requested", url));
  if (is_file_url(url)) return impl_->local_range(url, offset, length);
  return impl_->remote_range(url, fmt::format("{}-{}", offset, offset + length - 1));
}

Result<RangeResponse> Client::get_suffix(const std::string& url, std::uint64_t length) {
  if (length == 0) return fail(fmt::format("{}: a range of 0 bytes was requested", url));
  if (is_file_url(url)) return impl_->local_range(url, std::nullopt, length);
  return impl_->remote_range(url, fmt::format("-{}", length));
}

std::vector<Result<Downloaded>> Client::download(
    const std::vector<DownloadRequest>& requests, const std::function<void(const Progress&)>& on_progress,
    const std::function<void(std::size_t, const Result<Downloaded>&)>& on_done) {
  std::vector<Result<Downloaded>> results(requests.size(), fail("not run"));
  if (impl_->options.offline) {
    for (std::size_t i = 0; i < requests.size(); ++i) {
      results[i] = fail(fmt::format("offline: cannot download {}", requests[i].url));
      if (on_done) on_done(i, results[i]);
    }
    return results;
  }
  if (requests.empty()) return results;
  auto api = impl_->load();
  if (!api) {
    for (std::size_t i = 0; i < requests.size(); ++i) {
      results[i] = tl::unexpected(api.error());
      if (on_done) on_done(i, results[i]);
    }
    return results;
  }
  std::vector<std::unique_ptr<DownloadJob>> jobs;
  std::vector<Job*> to_run;
  jobs.reserve(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    jobs.push_back(std::make_unique<DownloadJob>(**api, impl_->options, requests[i], i, on_progress, on_done));
    to_run.push_back(jobs.back().get());
  }
  impl_->run(to_run);
  for (std::size_t i = 0; i < requests.size(); ++i) results[i] = std::move(jobs[i]->result_);
  return results;
}

}  // namespace vwheel::http
