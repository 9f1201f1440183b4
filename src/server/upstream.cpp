#include "server/upstream.hpp"

#include <sys/stat.h>

#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "vwheel/core/hash.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/http/client.hpp"

namespace vwheel::server {
namespace {

namespace fs = std::filesystem;

constexpr std::chrono::seconds kRestAfterFailure{10};

bool is_kept(const fs::path& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

ProxyAnswer error_answer(int status, std::string message) {
  ProxyAnswer a;
  a.status = status;
  a.message = std::move(message);
  return a;
}

}  // namespace

std::string proxied_file_path(std::string_view project, std::string_view sha256, std::string_view filename) {
  return http::encode_path({"files", std::string(project), std::string(sha256), std::string(filename)}, false);
}

ProxiedPage proxy_page(const simple::ProjectPage& upstream, const std::string& project) {
  ProxiedPage out;
  out.page.name = project;
  out.page.versions = upstream.versions;
  for (const auto& link : upstream.files) {
    const auto sha = link.hashes.find("sha256");
    if (sha == link.hashes.end() || !is_sha256_hex(sha->second)) {
      out.left_out.push_back(link.filename);
      continue;
    }
    const std::string digest = ascii_lower(sha->second);
    index::detail::PageFile f;
    f.filename = link.filename;
    f.url = proxied_file_path(project, digest, link.filename);
    f.sha256 = digest;
    f.size = link.size;
    f.requires_python = link.requires_python;
    f.yanked = link.yanked;
    f.upload_time = link.upload_time;
    UpstreamFile origin{link.filename, link.url, digest, link.size, std::nullopt};
    // A PEP 658 file is offered only with its sha256: what is kept is always checked first.
    if (link.core_metadata) {
      if (auto md = link.core_metadata->find("sha256"); md != link.core_metadata->end() && is_sha256_hex(md->second)) {
        f.core_metadata_sha256 = ascii_lower(md->second);
        origin.metadata_sha256 = f.core_metadata_sha256;
      }
    }
    out.page.files.push_back(std::move(f));
    out.files.push_back(std::move(origin));
  }
  return out;
}

UpstreamProxy::UpstreamProxy(UpstreamOptions options) : options_(std::move(options)), base_(options_.url) {
  if (!base_.ends_with('/')) base_ += '/';
  options_.http.cache_dir = options_.cache_dir;
}

void UpstreamProxy::log(const std::string& line) const {
  if (options_.on_log) options_.on_log(line);
}

ProxyAnswer UpstreamProxy::answer(const http::TargetPath& target, std::string_view accept) {
  const auto& s = target.segments;
  if (s.size() == 2 && s[0] == "simple" && target.trailing_slash) {
    ProxyAnswer a;
    auto p = page(s[1], a);
    if (!p) return a;
    auto format = http::format_from_query(target.query);
    if (!format) format = http::negotiate(accept);
    if (!format) return error_answer(406, "Not Acceptable: this page is served as " + http::served_types({}));
    a.body = *format == http::PageFormat::SimpleJson ? p->json : p->html;
    a.content_type = std::string(http::content_type(*format));
    a.etag = fmt::format("\"{}\"", sha256_hex(a.body).substr(0, 32));
    return a;
  }
  if (s.size() == 4 && s[0] == "files" && !target.trailing_slash) return file(s[1], s[2], s[3]);
  if (s.size() == 1 && s[0] == "simple") {
    return error_answer(404, "Not Found (this server passes project pages through from its upstream: /simple/NAME/)");
  }
  return error_answer(404, "Not Found");
}

std::shared_ptr<const UpstreamProxy::Page> UpstreamProxy::page(const std::string& project, ProxyAnswer& error) {
  std::shared_ptr<const Page> known;
  {
    std::lock_guard lock(mutex_);
    if (auto it = pages_.find(project); it != pages_.end()) known = it->second;
  }
  const auto now = std::chrono::steady_clock::now();
  if (known && now - known->fetched < options_.page_ttl) return known;
  // One request to the upstream per page however many nodes ask for it at once (a cluster's jobs
  // starting together): the others wait for its answer.
  std::shared_ptr<PageFlight> flight;
  bool leader = false;
  {
    std::lock_guard lock(mutex_);
    auto& slot = page_flights_[project];
    if (!slot) {
      slot = std::make_shared<PageFlight>();
      leader = true;
    }
    flight = slot;
  }
  if (!leader) {
    std::unique_lock lock(flight->mutex);
    flight->done_cv.wait(lock, [&] { return flight->done; });
    error = flight->error;
    return flight->page;
  }
  ProxyAnswer failed;
  auto got = fetch_page(project, known, now, failed);
  {
    std::lock_guard lock(flight->mutex);
    flight->page = got;
    flight->error = failed;
    flight->done = true;
  }
  flight->done_cv.notify_all();
  {
    std::lock_guard lock(mutex_);
    page_flights_.erase(project);
  }
  error = std::move(failed);
  return got;
}

std::shared_ptr<const UpstreamProxy::Page> UpstreamProxy::fetch_page(const std::string& project,
                                                                     const std::shared_ptr<const Page>& known,
                                                                     std::chrono::steady_clock::time_point now,
                                                                     ProxyAnswer& error) {
  const std::string url = base_ + project + "/";
  vwheel::http::Request request(url, {"Accept: " + std::string(simple::accept_header)});
  request.not_found_ok = true;
  // Once the page is due, the upstream is asked each time, with the validators of what the HTTP
  // cache holds (a 304 costs no body).
  auto online = options_.http;
  online.refresh = true;
  // After a failure the upstream is left alone for a while: each request would otherwise wait for
  // the client's retries (seconds) before the stale page is served.
  const bool resting = [&] {
    std::lock_guard lock(mutex_);
    return now < retry_after_;
  }();
  auto got = [&]() -> Result<vwheel::http::Response> {
    if (resting) return fail(Error("it failed less than 10 s ago"));
    auto client = vwheel::http::Client::create(online);
    if (!client) return fail(client.error());
    return client->get(request);
  }();
  if (!got && !resting) {
    std::lock_guard lock(mutex_);
    retry_after_ = now + kRestAfterFailure;
  }
  if (!got) {
    const std::string why = redact_url(got.error().message);
    if (known) {
      log(fmt::format("upstream unreachable ({}); serving the page of {} fetched before", why, project));
      return known;
    }
    auto offline = options_.http;
    offline.offline = true;
    auto client = vwheel::http::Client::create(offline);
    if (client) got = client->get(request);
    if (!client || !got) {
      log(fmt::format("upstream unreachable ({}); no cached page of {}", why, project));
      error =
          error_answer(502, fmt::format("the upstream cannot be reached and there is no cached page of {}", project));
      return nullptr;
    }
    log(fmt::format("upstream unreachable ({}); serving the cached page of {}", why, project));
  }
  if (got->status == 404) {
    error = error_answer(404, fmt::format("Not Found: the upstream has no project {}", project));
    return nullptr;
  }
  auto parsed = simple::parse_project_page(got->body, got->content_type, got->url.empty() ? url : got->url);
  if (!parsed) {
    log(redact_url(parsed.error().message));
    error = error_answer(502, fmt::format("the upstream's page of {} cannot be read (see the proxy's log)", project));
    return nullptr;
  }
  auto fresh = std::make_shared<Page>();
  fresh->proxied = proxy_page(*parsed, project);
  fresh->html = index::detail::render_project_html(fresh->proxied.page);
  fresh->json = index::detail::render_project_json(fresh->proxied.page);
  fresh->fetched = now;
  if (!fresh->proxied.left_out.empty()) {
    log(fmt::format("{}: left out {} file(s) the upstream lists without a sha256 (e.g. {})", project,
                    fresh->proxied.left_out.size(), fresh->proxied.left_out.front()));
  }
  std::lock_guard lock(mutex_);
  pages_[project] = fresh;
  return fresh;
}

ProxyAnswer UpstreamProxy::file(const std::string& project, const std::string& sha256, const std::string& name) {
  if (!is_sha256_hex(sha256) || ascii_lower(sha256) != sha256) return error_answer(404, "Not Found");
  const auto dest = options_.cache_dir / "files" / sha256 / name;
  ProxyAnswer kept;
  if (is_kept(dest)) {
    kept.file = dest;
    return kept;
  }
  const bool metadata = name.ends_with(".metadata");
  const std::string filename = metadata ? name.substr(0, name.size() - 9) : name;
  ProxyAnswer error;
  auto p = page(project, error);
  if (!p) return error;
  const UpstreamFile* origin = nullptr;
  for (const auto& f : p->proxied.files) {
    if (f.sha256 == sha256 && f.filename == filename) origin = &f;
  }
  if (origin == nullptr || (metadata && !origin->metadata_sha256)) {
    return error_answer(404, fmt::format("Not Found: the upstream's page of {} lists no such file", project));
  }
  // One download per file however many nodes ask for it at once: the others wait for it.
  std::shared_ptr<Flight> flight;
  bool leader = false;
  {
    std::lock_guard lock(mutex_);
    auto& slot = flights_[dest.string()];
    if (!slot) {
      slot = std::make_shared<Flight>();
      leader = true;
    }
    flight = slot;
  }
  if (!leader) {
    std::unique_lock lock(flight->mutex);
    flight->done_cv.wait(lock, [&] { return flight->done; });
    return flight->answer;
  }
  auto result = is_kept(dest) ? ProxyAnswer{} : fetch(*origin, metadata, dest);
  if (!result.file && result.status < 400) result.file = dest;
  {
    std::lock_guard lock(flight->mutex);
    flight->answer = result;
    flight->done = true;
  }
  flight->done_cv.notify_all();
  std::lock_guard lock(mutex_);
  flights_.erase(dest.string());
  return result;
}

ProxyAnswer UpstreamProxy::fetch(const UpstreamFile& origin, bool metadata, const fs::path& dest) {
  vwheel::http::DownloadRequest request(metadata ? origin.url + ".metadata" : origin.url, dest,
                                        metadata ? origin.metadata_sha256 : std::optional<std::string>(origin.sha256),
                                        metadata ? std::nullopt : origin.size);
  auto client = vwheel::http::Client::create(options_.http);
  if (!client) {
    log(redact_url(client.error().message));
    return error_answer(502, fmt::format("cannot get {} from the upstream (see the proxy's log)", origin.filename));
  }
  auto results = client->download({request});
  if (!results.front()) {
    const auto why = redact_url(results.front().error().message);
    log(fmt::format("{}{}: not kept: {}", origin.filename, metadata ? ".metadata" : "", why));
    // The details (the upstream's URLs, redacted) go to the log, not to the nodes.
    return error_answer(502, fmt::format("cannot get {} from the upstream (see the proxy's log)", origin.filename));
  }
  ProxyAnswer a;
  a.file = dest;
  return a;
}

}  // namespace vwheel::server
