// The HTTP client: one curl multi handle per Client, driven on the calling thread. Each transfer is
// a Job that prepares an attempt on an easy handle and judges its outcome (done, retry after a
// backoff, retry at once, fail); the loop in Client::Impl::run schedules the attempts. The jobs are
// in jobs.cpp, the on-disk cache in cache.cpp, header parsing in headers.cpp.

#include "vwheel/http/client.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <exception>
#include <random>
#include <string_view>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "http/cache.hpp"
#include "http/curl_api.hpp"
#include "http/headers.hpp"
#include "http/jobs.hpp"
#include "vwheel/core/fd.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/interrupt.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/http/credentials.hpp"

namespace vwheel::http {

using detail::cached_response;
using detail::CacheEntry;
using detail::CurlApi;
using detail::DownloadJob;
using detail::GetJob;
using detail::is_file_url;
using detail::Job;
using detail::parse_content_range;
using detail::read_cache;
using detail::unix_now;
using detail::Verdict;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

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
    // An exception out of the loop leaves no handle in the multi handle pointing at a job that
    // is about to be destroyed.
    struct Detach {
      Impl& impl;
      std::vector<Job*>& active;
      ~Detach() {
        for (Job* job : active) {
          impl.api->multi_remove_handle(impl.multi, job->easy_);
          impl.release(job->easy_);
        }
      }
    } detach{*this, active};

    const auto cancelled = [this] { return options.cancel && options.cancel->load(std::memory_order_relaxed); };
    while (!ready.empty() || !waiting.empty() || !active.empty()) {
      if (cancelled()) {  // what has not started never will
        for (auto& [at, job] : waiting) ready.push_back(job);
        waiting.clear();
        for (Job* job : ready) {
          job->set_error(Error(fmt::format("{}: cancelled", job->url_)));
          finish(job);
        }
        ready.clear();
      }
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
        std::this_thread::sleep_until(std::min(next, Clock::now() + std::chrono::milliseconds(250)));  // a tick
        continue;
      }

      auto complete = [&](CURL* easy, CURLcode code) {
        void* priv = nullptr;
        api->easy_getinfo(easy, CURLINFO_PRIVATE, &priv);
        auto* job = static_cast<Job*>(priv);
        api->multi_remove_handle(multi, easy);
        active.erase(std::find(active.begin(), active.end(), job));
        if (job->escaped_) {  // thrown inside curl's callback, kept until curl had returned
          release(easy);
          std::rethrow_exception(std::exchange(job->escaped_, nullptr));
        }
        job->progress();
        Verdict v = job->end(easy, code);
        if ((interrupted() || cancelled()) && v != Verdict::done) v = Verdict::fail;  // SIGINT/SIGTERM/SIGHUP: no retry
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
      const auto checked = Clock::now();
      const auto stall_limit = checked - options.stall_timeout;
      // A transfer that has gone quiet for over half the timeout is left to the stall check, which
      // fires within the other half: otherwise one that stalls right after its first bytes is called
      // "too slow" or "stalled" depending on where the 250 ms tick falls (a CI run saw both).
      const auto still_receiving = checked - std::chrono::milliseconds(options.stall_timeout) / 2;
      for (std::size_t i = 0; i < active.size();) {
        Job* job = active[i];
        if (cancelled()) {
          job->cancelled_ = true;
          complete(job->easy_, CURLE_ABORTED_BY_CALLBACK);
        } else if (job->last_activity_ < stall_limit || interrupted()) {  // interrupted: ended within a tick
          job->stalled_ = true;
          complete(job->easy_, CURLE_OPERATION_TIMEDOUT);  // removes it from `active`
        } else if (job->attempt_start_ < stall_limit && job->last_activity_ >= still_receiving &&
                   job->below_minimum_rate(checked)) {
          job->too_slow_ = true;
          complete(job->easy_, CURLE_OPERATION_TIMEDOUT);
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

  /// The local path a file: URL names (percent-decoded, as libcurl reads it).
  Result<fs::path> file_url_path(const std::string& url);
  /// For a file: URL, that it names a regular file (open_regular_file): libcurl opens such a file
  /// with a blocking open(2), where a FIFO would hang the run beyond any timeout, so it is refused
  /// before libcurl sees it. Other URLs pass.
  Result<void> check_file_url(const std::string& url);
  Result<RangeResponse> local_range(const std::string& url, std::optional<std::uint64_t> offset,
                                    std::uint64_t length);
  /// get_ranges(): file: URLs read here, the others fetched together (`whole_limit`: the most
  /// taken of an answer that ignores the range, cut off past it and answered too_large;
  /// nullopt: such an answer is an error at once).
  std::vector<Result<RangeResponse>> ranges(const std::vector<RangeRequest>& requests,
                                            std::optional<std::size_t> whole_limit);
  std::vector<Result<RangeResponse>> remote_ranges(const std::vector<std::string>& urls,
                                                   const std::vector<std::string>& ranges,
                                                   std::optional<std::size_t> whole_limit);
};

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Client::Client(Client&&) noexcept = default;
Client& Client::operator=(Client&&) noexcept = default;
Client::~Client() = default;

const Options& Client::options() const noexcept { return impl_->options; }

Result<Client> Client::create(Options options) {
  if (options.user_agent.empty()) options.user_agent = "vwheel/" VWHEEL_VERSION;
  use_credential_settings(options.credentials);
  return Client(std::make_unique<Impl>(std::move(options)));
}

std::vector<Result<Response>> Client::get_many(const std::vector<Request>& requests) {
  std::vector<Result<Response>> results(requests.size(), fail("not run"));
  std::vector<std::unique_ptr<GetJob>> jobs(requests.size());
  std::vector<Job*> to_run;
  const auto now = unix_now();
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const Request& r = requests[i];
    // Known before any answer: the URLs an answer from the cache links may need them.
    remember_credentials(r.url);
    auto file = impl_->cache_file(r);
    std::optional<CacheEntry> cached;
    if (file) cached = read_cache(*file);
    const bool fresh = cached && !impl_->options.refresh && cached->expires > now;
    if (fresh || (impl_->options.offline && !is_file_url(r.url))) {
      results[i] = cached ? Result<Response>(cached_response(std::move(*cached), url_without_userinfo(r.url)))
                          : fail(fmt::format("offline: {} is not in the cache", redact_url(r.url)));
      continue;
    }
    auto api = impl_->load();
    if (!api) {
      results[i] = tl::unexpected(api.error());
      continue;
    }
    if (auto ok = impl_->check_file_url(r.url); !ok) {
      results[i] = fail(ok.error());
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

Result<fs::path> Client::Impl::file_url_path(const std::string& url) {
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
  if (path.empty()) return fail(fmt::format("{}: not a valid file URL", redact_url(url)));
  return fs::path(path);
}

Result<void> Client::Impl::check_file_url(const std::string& url) {
  if (!is_file_url(url)) return {};
  auto path = file_url_path(url);
  if (!path) return fail(path.error());
  auto opened = open_regular_file(*path);
  if (!opened) return fail(opened.error());
  return {};
}

Result<RangeResponse> Client::Impl::local_range(const std::string& url, std::optional<std::uint64_t> offset,
                                                std::uint64_t length) {
  auto path = file_url_path(url);
  if (!path) return fail(path.error());
  auto opened = open_regular_file(*path);
  if (!opened) return fail(opened.error());
  const int fd = opened->fd.get();
  const auto size = static_cast<std::uint64_t>(opened->info.st_size);
  RangeResponse r;
  r.total_size = size;
  r.offset = offset ? std::min(*offset, size) : (size > length ? size - length : 0);
  if (offset && *offset >= size) {
    return fail(fmt::format("{}: range starts at byte {}, beyond the end of the {}-byte file", redact_url(url), *offset,
                            size));
  }
  const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(length, size - r.offset));
  r.body.resize(n);
  const long long got = pread_all(fd, r.body.data(), n, r.offset);
  if (got != static_cast<long long>(n)) {
    return fail(fmt::format("{}: cannot read {}: {}", redact_url(url), path->string(),
                            got < 0 ? errno_text(errno) : "unexpected end"));
  }
  return r;
}

std::vector<Result<RangeResponse>> Client::Impl::remote_ranges(const std::vector<std::string>& urls,
                                                               const std::vector<std::string>& ranges,
                                                               std::optional<std::size_t> whole_limit) {
  std::vector<Result<RangeResponse>> out;
  out.reserve(urls.size());
  if (options.offline) {
    for (const auto& url : urls) out.push_back(fail(fmt::format("offline: cannot fetch {}", redact_url(url))));
    return out;
  }
  auto loaded = load();
  if (!loaded) {
    for (std::size_t i = 0; i < urls.size(); ++i) out.push_back(tl::unexpected(loaded.error()));
    return out;
  }
  std::vector<Request> requests;
  requests.reserve(urls.size());
  for (const auto& url : urls) requests.push_back(Request{url, {}, false});
  std::vector<std::unique_ptr<GetJob>> jobs;
  std::vector<Job*> running;
  for (std::size_t i = 0; i < urls.size(); ++i) {
    jobs.push_back(std::make_unique<GetJob>(**loaded, options, requests[i], std::nullopt, std::nullopt, ranges[i]));
    jobs.back()->whole_limit_ = whole_limit;
    running.push_back(jobs.back().get());
  }
  run(running);
  for (std::size_t i = 0; i < urls.size(); ++i) {
    auto& job = *jobs[i];
    const auto& url = urls[i];
    if (!job.response_) {
      out.push_back(tl::unexpected(job.response_.error()));
      continue;
    }
    RangeResponse r;
    r.body = std::move(job.response_->body);
    r.etag = std::move(job.response_->etag);
    r.last_modified = std::move(job.response_->last_modified);
    if (job.too_large_) {
      r.whole = true;
      r.too_large = true;
      r.total_size = job.response_->content_length;
    } else if (job.response_->status == 206) {
      const auto cr = parse_content_range(job.content_range_);
      if (!cr) {
        out.push_back(fail(fmt::format("{}: HTTP 206 without a valid Content-Range (`{}`)", redact_url(url), job.content_range_)));
        continue;
      }
      r.offset = cr->start;
      r.total_size = cr->total;
      if (cr->end - cr->start + 1 != r.body.size()) {
        out.push_back(fail(fmt::format("{}: Content-Range `{}` does not match the {} bytes received", redact_url(url),
                                       job.content_range_, r.body.size())));
        continue;
      }
    } else {
      r.whole = true;
      r.offset = 0;
      r.total_size = r.body.size();
    }
    out.push_back(std::move(r));
  }
  return out;
}

namespace {

/// The HTTP Range of `r` (`bytes=` is the job's): `A-B` or `-N`.
std::string range_text(const RangeRequest& r) {
  return r.offset ? fmt::format("{}-{}", *r.offset, *r.offset + r.length - 1) : fmt::format("-{}", r.length);
}

}  // namespace

std::vector<Result<RangeResponse>> Client::Impl::ranges(const std::vector<RangeRequest>& requests,
                                                        std::optional<std::size_t> whole_limit) {
  std::vector<Result<RangeResponse>> out(requests.size(), fail("not run"));
  std::vector<std::string> remote;
  std::vector<std::string> texts;
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const auto& r = requests[i];
    if (r.length == 0) {
      out[i] = fail(fmt::format("{}: a range of 0 bytes was requested", redact_url(r.url)));
    } else if (is_file_url(r.url)) {
      out[i] = local_range(r.url, r.offset, r.length);
    } else {
      remote.push_back(r.url);
      texts.push_back(range_text(r));
      at.push_back(i);
    }
  }
  if (remote.empty()) return out;
  auto got = remote_ranges(remote, texts, whole_limit);
  for (std::size_t k = 0; k < at.size(); ++k) out[at[k]] = std::move(got[k]);
  return out;
}

namespace {

/// get_range() and get_suffix() take a whole file only up to the body limit.
Result<RangeResponse> refuse_too_large(Result<RangeResponse> r, const std::string& url) {
  if (r && r->too_large) {
    return fail(fmt::format("{}: the server ignores Range requests (HTTP 200) and the file is over {} MiB", redact_url(url),
                            detail::kMaxBody >> 20));
  }
  return r;
}

}  // namespace

Result<RangeResponse> Client::get_range(const std::string& url, std::uint64_t offset, std::uint64_t length) {
  return refuse_too_large(std::move(impl_->ranges({{url, offset, length}}, detail::kMaxBody).front()), url);
}

Result<RangeResponse> Client::get_suffix(const std::string& url, std::uint64_t length) {
  return refuse_too_large(std::move(impl_->ranges({{url, std::nullopt, length}}, detail::kMaxBody).front()), url);
}

std::vector<Result<RangeResponse>> Client::get_ranges(const std::vector<RangeRequest>& requests,
                                                      std::size_t whole_limit) {
  return impl_->ranges(requests, std::min(whole_limit, detail::kMaxBody));
}

std::vector<Result<RangeResponse>> Client::get_suffixes(const std::vector<std::string>& urls,
                                                        const std::vector<std::uint64_t>& lengths) {
  std::vector<RangeRequest> requests;
  requests.reserve(urls.size());
  for (std::size_t i = 0; i < urls.size(); ++i)
    requests.push_back({urls[i], std::nullopt, i < lengths.size() ? lengths[i] : 0});
  return impl_->ranges(requests, std::nullopt);
}

std::vector<Result<Downloaded>> Client::download(
    const std::vector<DownloadRequest>& requests, const std::function<void(const Progress&)>& on_progress,
    const std::function<void(std::size_t, const Result<Downloaded>&)>& on_done) {
  std::vector<Result<Downloaded>> results(requests.size(), fail("not run"));
  if (impl_->options.offline) {
    for (std::size_t i = 0; i < requests.size(); ++i) {
      results[i] = fail(fmt::format("offline: cannot download {}", redact_url(requests[i].url)));
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
    if (auto ok = impl_->check_file_url(requests[i].url); !ok) {
      results[i] = fail(ok.error());
      if (on_done) on_done(i, results[i]);
      jobs.push_back(nullptr);
      continue;
    }
    jobs.push_back(std::make_unique<DownloadJob>(**api, impl_->options, requests[i], i, on_progress, on_done));
    to_run.push_back(jobs.back().get());
  }
  if (!to_run.empty()) impl_->run(to_run);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (jobs[i]) results[i] = std::move(jobs[i]->result_);
  }
  return results;
}

}  // namespace vwheel::http
