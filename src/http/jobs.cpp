#include "http/jobs.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "http/cache.hpp"
#include "http/curl_api.hpp"
#include "http/headers.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/interrupt.hpp"
#include "vwheel/core/text.hpp"

namespace vwheel::http::detail {

namespace fs = std::filesystem;

namespace {

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

}  // namespace

std::string url_authority(std::string_view url) {
  const auto sep = url.find("://");
  if (sep == std::string_view::npos) return {};
  auto authority = url.substr(sep + 3);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) authority = authority.substr(at + 1);
  return ascii_lower(authority);
}

bool is_trusted_host(std::string_view url, const std::vector<std::string>& trusted) {
  if (trusted.empty()) return false;
  const auto authority = url_authority(url);
  // The host alone: up to the port's `:`, unless that is inside an IPv6 literal.
  std::string_view host = authority;
  if (const auto colon = host.rfind(':');
      colon != std::string_view::npos && host.find(']', colon) == std::string_view::npos) {
    host = host.substr(0, colon);
  }
  for (const auto& t : trusted) {
    const auto lower = ascii_lower(t);
    if (lower == authority || lower == host) return true;
  }
  return false;
}

std::optional<std::string> tls_failure(CURLcode code, std::string_view host, std::string_view detail) {
  switch (code) {
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
      break;
    default:
      return std::nullopt;
  }
  const auto has = [&](std::string_view what) { return detail.find(what) != std::string_view::npos; };
  std::string reason;
  if (code == CURLE_SSL_CACERT_BADFILE) {
    reason = "cannot read the CA bundle (--cert, $SSL_CERT_FILE, $REQUESTS_CA_BUNDLE or $PIP_CERT)";
  } else if (code == CURLE_SSL_CERTPROBLEM) {
    reason = "cannot use the client certificate (--client-cert: a PEM file with the certificate and its key)";
  } else if (has("expired")) {
    reason = "its certificate has expired";
  } else if (has("not yet valid")) {
    reason = "its certificate is not valid yet";
  } else if (has("subject name") || has("does not match") || has("hostname mismatch")) {
    reason = "its certificate is for another name";
  } else if (has("local issuer") || has("self-signed") || has("self signed") || has("unknown ca") ||
             has("unable to get issuer")) {
    reason = "its certificate is signed by an unknown CA (give the CA with --cert FILE, or --trusted-host HOST)";
  } else {
    reason = "its certificate cannot be verified";
  }
  return fmt::format("TLS error with {}: {} ({})", host, reason, detail);
}

bool is_file_url(std::string_view url) { return ascii_istarts_with(url, "file:"); }

void Job::give_up() {
  set_error(cause_error(
      fmt::format("{}: {} (gave up after {} attempt{})", url_, cause_, attempts_, attempts_ == 1 ? "" : "s")));
}

Verdict Job::judge_status(long status) {
  cause_ = headers_.status == status ? headers_.status_text() : fmt::format("HTTP {}", status);
  if (status == 401 || status == 403) {
    // What the user needs to fix it: where credentials were looked for (never what they are).
    std::string reason = headers_.status == status ? headers_.reason : "";
    if (reason.empty()) reason = status == 401 ? "Unauthorized" : "Forbidden";
    whole_message_ = fmt::format("{} {} from {} ({})", status, reason, url_, credentials_hint(plain_url_));
    return Verdict::fail;
  }
  if (!retryable_status(status)) return Verdict::fail;
  note_retry_after();
  return Verdict::retry;
}

void Job::common_setup(CURL* easy) {
  easy_ = easy;
  errbuf_[0] = '\0';
  headers_.reset();
  abort_reason_.clear();
  whole_message_.clear();
  local_failure_ = false;
  set(easy, CURLOPT_PRIVATE, static_cast<void*>(this));
  // The request carries its origin's credentials; nothing shown or stored does.
  curl_url_ = with_credentials(plain_url_);
  set(easy, CURLOPT_URL, curl_url_.c_str());
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
  if (!options_.ca_file.empty()) set(easy, CURLOPT_CAINFO, options_.ca_file.c_str());
  if (!options_.client_cert.empty()) {
    set(easy, CURLOPT_SSLCERT, options_.client_cert.c_str());
    set(easy, CURLOPT_SSLCERTTYPE, "PEM");
    set(easy, CURLOPT_SSLKEY, options_.client_cert.c_str());  // the key is in the same file
  }
  if (!options_.proxy.empty()) set(easy, CURLOPT_PROXY, options_.proxy.c_str());
  unverified_ = is_trusted_host(plain_url_, options_.trusted_hosts);
  redirect_checked_ = false;
  if (unverified_) {
    set(easy, CURLOPT_SSL_VERIFYPEER, 0L);
    set(easy, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  set(easy, CURLOPT_CONNECTTIMEOUT_MS,
      static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(options_.connect_timeout).count()));
  // Stalls are detected by the loop (curl's LOW_SPEED_* averages over several seconds).
  last_activity_ = Clock::now();
  stalled_ = false;
  attempt_start_ = last_activity_;
  attempt_bytes_ = 0;
  too_slow_ = false;
  set(easy, CURLOPT_ERRORBUFFER, errbuf_);
  set(easy, CURLOPT_HEADERFUNCTION, &Job::header_cb);
  set(easy, CURLOPT_HEADERDATA, static_cast<void*>(this));
  set(easy, CURLOPT_WRITEFUNCTION, &Job::write_cb);
  set(easy, CURLOPT_WRITEDATA, static_cast<void*>(this));
  if (ascii_istarts_with(plain_url_, "https:")) set(easy, CURLOPT_PIPEWAIT, 1L);
}

void Job::set_headers(CURL* easy, const std::vector<std::string>& lines) {
  if (slist_ != nullptr) api_.slist_free_all(slist_);
  slist_ = nullptr;
  for (const auto& l : lines) slist_ = api_.slist_append(slist_, l.c_str());
  if (slist_ != nullptr) set(easy, CURLOPT_HTTPHEADER, slist_);
}

std::string Job::describe(CURLcode code) const {
  if (cancelled_) return "cancelled";
  if (stalled_) {
    return fmt::format("stalled: nothing received for {} s", options_.stall_timeout.count());
  }
  if (too_slow_) {
    return fmt::format("too slow: {} bytes in {} s, under the {} bytes/s required once --timeout ({} s) has passed",
                       attempt_bytes_, std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - attempt_start_).count(),
                       kMinimumRate, options_.stall_timeout.count());
  }
  if (errbuf_[0] != '\0') return errbuf_;
  return api_.easy_strerror(code);
}

long Job::response_status(CURL* easy) const {
  long code = 0;
  api_.easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &code);
  return code;
}

std::string Job::effective_url(CURL* easy) const {
  char* u = nullptr;
  api_.easy_getinfo(easy, CURLINFO_EFFECTIVE_URL, &u);
  return u != nullptr ? url_without_userinfo(u) : plain_url_;
}

std::optional<std::uint64_t> Job::content_length(CURL* easy) const {
  curl_off_t cl = -1;
  if (api_.easy_getinfo(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) != CURLE_OK || cl < 0) return std::nullopt;
  return static_cast<std::uint64_t>(cl);
}

bool Job::stays_on_trusted_hosts() {
  // Verification is off for the whole transfer, redirects included: a body from an https host
  // that was not trusted is refused before any of it is taken.
  redirect_checked_ = true;
  const auto at = effective_url(easy_);
  if (!ascii_istarts_with(at, "https:") || is_trusted_host(at, options_.trusted_hosts)) return true;
  abort_reason_ = fmt::format(
      "redirected to {}, whose certificate was not verified (--trusted-host {} only): give "
      "--trusted-host {} too, or its CA with --cert",
      redact_url(at), url_authority(plain_url_), url_authority(at));
  return false;
}

Verdict Job::judge_failure(CURLcode code) {
  cause_ = describe(code);
  if (auto tls = tls_failure(code, url_authority(plain_url_), cause_)) {
    cause_ = std::move(*tls);
    return Verdict::fail;
  }
  return retryable_code(code) ? Verdict::retry : Verdict::fail;
}

void Job::note_retry_after() {
  std::uint64_t s = 0;
  if (!headers_.retry_after.empty() && parse_u64(headers_.retry_after, s)) {
    retry_after_ = std::chrono::milliseconds(std::min<std::uint64_t>(s, 60) * 1000);
  } else {
    retry_after_.reset();
  }
}

std::size_t Job::header_cb(char* data, std::size_t size, std::size_t n, void* self) noexcept {
  auto* job = static_cast<Job*>(self);
  try {
    job->last_activity_ = Clock::now();
    job->attempt_bytes_ += size * n;
    job->headers_.add_line(std::string_view(data, size * n));
    return size * n;
  } catch (...) {
    job->escaped_ = std::current_exception();
    return 0;  // not the size given: curl aborts the attempt (CURLE_WRITE_ERROR)
  }
}

std::size_t Job::write_cb(char* data, std::size_t size, std::size_t n, void* self) noexcept {
  auto* job = static_cast<Job*>(self);
  try {
    job->last_activity_ = Clock::now();
    job->attempt_bytes_ += size * n;
    if (job->unverified_ && !job->redirect_checked_ && !job->stays_on_trusted_hosts()) return 0;
    return job->on_body(std::string_view(data, size * n)) ? size * n : 0;
  } catch (...) {
    job->escaped_ = std::current_exception();
    return 0;
  }
}

Result<bool> GetJob::begin(CURL* easy) {
  common_setup(easy);
  body_.clear();
  too_large_ = false;
  std::vector<std::string> lines = request_.headers;
  if (cached_) {
    if (!cached_->etag.empty()) lines.push_back("If-None-Match: " + cached_->etag);
    if (!cached_->last_modified.empty()) lines.push_back("If-Modified-Since: " + cached_->last_modified);
  }
  set_headers(easy, lines);
  head_answered_ = false;
  if (request_.head && !head_refused_) {
    // No Accept-Encoding: the Content-Length asked about is the file's, not a compressed body's.
    set(easy, CURLOPT_NOBODY, 1L);
  } else if (request_.head) {
    set(easy, CURLOPT_HTTPGET, 1L);  // the handle's NOBODY from the refused attempt goes
    set(easy, CURLOPT_RANGE, "0-0");
  } else if (range_.empty()) {
    set(easy, CURLOPT_ACCEPT_ENCODING, "");  // whatever curl can decode (gzip, deflate, br, zstd)
  } else {
    set(easy, CURLOPT_RANGE, range_.c_str());
    // A range is often megabytes (a large wheel's central directory and .dist-info, read before
    // its download): in 16 KiB reads, curl drains one answer in 100-read turns while the others
    // wait for their turn.
    set(easy, CURLOPT_BUFFERSIZE, kReadBuffer);
  }
  return true;
}

bool GetJob::on_body(std::string_view data) {
  const long s = headers_.status;
  if (s != 0 && !is_2xx(s)) return true;  // an error page: not kept
  if (head_refused_) {
    // Standing in for a HEAD: the headers are the answer; no body is read, not even a 2 GB one
    // sent whole by a server that ignores the range.
    head_answered_ = true;
    return false;
  }
  if (!range_.empty() && s != 206) {
    const auto cl = content_length(easy_);
    if (!whole_limit_) {
      abort_reason_ = fmt::format("the server ignores Range requests (HTTP {})", s);
      return false;
    }
    if ((cl && *cl > *whole_limit_) || body_.size() + data.size() > *whole_limit_) {
      too_large_ = true;  // an answer (RangeResponse::too_large), not an error
      return false;
    }
  }
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

Verdict GetJob::end(CURL* easy, CURLcode code) {
  if (head_answered_) return answer_refused_head(easy);
  if (too_large_) {
    // Cut off after the headers: what they said is the answer.
    Response r;
    r.status = headers_.status;
    r.url = effective_url(easy);
    r.etag = headers_.etag;
    r.last_modified = headers_.last_modified;
    r.content_length = content_length(easy);
    response_ = std::move(r);
    return Verdict::done;
  }
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
      write_cache(*cache_file_, plain_url_, *cached_);
    }
    response_ = cached_response(std::move(*cached_), plain_url_);
    return Verdict::done;
  }
  if (status == 404 && request_.not_found_ok) {
    Response r;
    r.status = status;
    r.url = effective_url(easy);
    response_ = std::move(r);
    return Verdict::done;
  }
  if (request_.head && !head_refused_ && (status == 405 || status == 501 || status == 403)) {
    head_refused_ = true;
    return Verdict::again;
  }
  if (status != 0 && !is_2xx(status)) return judge_status(status);
  if (head_refused_) return answer_refused_head(easy);  // an empty file's answer had no body
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
  r.etag = headers_.etag;
  r.last_modified = headers_.last_modified;
  r.content_length = content_length(easy);
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
    write_cache(*cache_file_, plain_url_, e);
  }
  response_ = std::move(r);
  return Verdict::done;
}

Verdict GetJob::answer_refused_head(CURL* easy) {
  Response r;
  r.status = headers_.status;
  r.url = effective_url(easy);
  r.etag = headers_.etag;
  r.last_modified = headers_.last_modified;
  r.content_type = headers_.content_type;
  if (headers_.status == 206) {
    const auto cr = parse_content_range(headers_.content_range);
    if (!cr || !cr->total) {
      cause_ = fmt::format("HTTP 206 without the file's size in its Content-Range (`{}`)", headers_.content_range);
      return Verdict::fail;
    }
    r.content_length = cr->total;
  } else {
    r.content_length = content_length(easy);  // the range ignored: the whole file's length
  }
  response_ = std::move(r);
  return Verdict::done;
}

Result<bool> DownloadJob::begin(CURL* easy) {
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
  set(easy, CURLOPT_BUFFERSIZE, kReadBuffer);
  if (!spool_.open(part_, have_ > 0, have_)) {
    return fail(with_kind(Error(fmt::format("{}: cannot write {}: {}", url_, part_.string(), std::strerror(errno))),
                          ErrorKind::environment));
  }
  attempt_offset_ = have_;
  first_write_ = true;
  discard_ = false;
  restart_ = false;
  return true;
}

bool DownloadJob::on_body(std::string_view data) {
  if (interrupted()) return false;  // SIGINT/SIGTERM/SIGHUP during an install: the transfer stops
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
  if (!spool_.append(data)) {
    abort_reason_ = fmt::format("cannot write {}: {}", part_.string(), std::strerror(errno));
    local_failure_ = true;
    return false;
  }
  have_ += data.size();
  dirty_ = true;
  return true;
}

Verdict DownloadJob::end(CURL* easy, CURLcode code) {
  // The file stays open: the next attempt may resume it (finish_file or reset_part closes it).
  if (!spool_.pause()) {
    cause_ = fmt::format("cannot write {}: {}", part_.string(), std::strerror(errno));
    local_failure_ = true;
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

void DownloadJob::progress() {
  if (dirty_ && on_progress_) on_progress_(Progress{index_, have_, total_});
  dirty_ = false;
}

void DownloadJob::set_error(Error error) {
  close_file();
  if (!keep_part_on_error_) remove_part();
  result_ = tl::unexpected(std::move(error));
}

void DownloadJob::completed() {
  if (result_ && on_progress_) on_progress_(Progress{index_, result_->size, result_->size});
  if (on_done_) on_done_(index_, result_);
}

void DownloadJob::give_up() {
  keep_part_on_error_ = true;
  Job::give_up();
}

Result<void> DownloadJob::prepare() {
  std::error_code ec;
  if (request_.dest.has_parent_path()) {
    fs::create_directories(request_.dest.parent_path(), ec);
    if (ec) {
      return fail(with_kind(
          Error(fmt::format("{}: cannot create {}: {}", url_, request_.dest.parent_path().string(), ec.message())),
          ErrorKind::environment));
    }
  }
  have_ = 0;
  if (!fs::exists(part_, ec)) return {};
  if (!request_.sha256 || has_hole_before_end(part_)) {
    // Without a digest a stale part file could not be told from the right one, and one with holes
    // (bytes an install unpacked from memory, or punched out, before it was killed) lacks bytes:
    // start afresh.
    remove_part();
    return {};
  }
  std::ifstream in(part_, std::ios::binary);
  std::string buf(1 << 20, '\0');
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const auto n = static_cast<std::size_t>(in.gcount());
    if (n == 0) break;
    spool_.hash_only(std::string_view(buf.data(), n));
    have_ += n;
  }
  if (in.bad() || (request_.size && have_ > *request_.size)) {
    reset_part();
  } else if (have_ > 0) {
    resumed_ = true;
  }
  return {};
}

bool DownloadJob::start_body() {
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
      if (!spool_.open(part_, false)) {
        abort_reason_ = fmt::format("cannot write {}: {}", part_.string(), std::strerror(errno));
        local_failure_ = true;
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
    abort_reason_ = fmt::format("size mismatch: expected {} bytes, the server announced {}", *request_.size, *total_);
    mismatch_ = true;
    return false;
  }
  return true;
}

Verdict DownloadJob::finish_file() {
  if (!close_file()) {
    cause_ = fmt::format("cannot write {}: {}", part_.string(), std::strerror(errno));
    local_failure_ = true;
    remove_part();
    return Verdict::fail;
  }
  const std::string actual = to_hex(spool_.finish());
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
    local_failure_ = true;
    remove_part();
    return Verdict::fail;
  }
  Downloaded d;
  d.path = request_.dest;
  d.sha256 = actual;
  d.size = have_;
  d.attempts = attempts_;
  d.resumed = resumed_;
  d.etag = headers_.etag;
  d.last_modified = headers_.last_modified;
  result_ = std::move(d);
  return Verdict::done;
}

Verdict DownloadJob::mismatch(std::string what) {
  reset_part();
  cause_ = std::move(what);
  if (mismatches_++ == 0) return Verdict::again;
  return Verdict::fail;
}

void DownloadJob::reset_part() {
  // Readers of the growing file opened the part file about to be removed (and nothing they hold
  // in memory is to be written into it).
  if (request_.growing) request_.growing->restart();
  close_file();
  remove_part();
  spool_.reset();
  have_ = 0;
  resumed_ = false;
  total_ = request_.size;
  mismatch_ = false;
  etag_.clear();
}

void DownloadJob::remove_part() {
  std::error_code ec;
  fs::remove(part_, ec);
}

bool DownloadJob::close_file() { return spool_.close(); }

}  // namespace vwheel::http::detail
