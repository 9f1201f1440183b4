// `vwheel index serve`: httplib's server with every GET/HEAD answered in the pre-routing handler
// (no regex router on the hot path, our own range and conditional handling), and POST uploads
// streamed through httplib's multipart reader.

#include "vwheel/server/server.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>

#include <fmt/format.h>

#include "server/auth.hpp"
#include "server/connection.hpp"
#include "server/files.hpp"
#include "server/http.hpp"
#include "server/multipart.hpp"
#include "server/tls.hpp"
#include "server/upload.hpp"
#include "server/upstream.hpp"
#include "vwheel/core/fd.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/parallel.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/index/site.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::server {
namespace {

namespace fs = std::filesystem;

// Limits on what a client may send (httplib already refuses request lines over 8 KiB with 414
// and header lines over 8 KiB with 400).
constexpr std::size_t kMaxHeaderCount = 100;
constexpr std::size_t kMaxHeaderBytes = std::size_t{32} * 1024;
constexpr std::uint64_t kMaxFieldBytes = 16ULL << 20;  // all non-file form fields of an upload
constexpr std::size_t kMaxParts = 256;
// Files up to this size are kept in memory (index pages, core metadata); larger ones stream.
constexpr std::uint64_t kCacheFileMax = 1ULL << 20;
constexpr std::uint64_t kCacheTotalMax = 64ULL << 20;
constexpr std::size_t kStreamChunk = std::size_t{256} * 1024;

constexpr const char* kTextPlain = "text/plain; charset=utf-8";

// The user the request being handled on this thread authenticated as (for the access log).
thread_local std::string t_user;

void set_error(httplib::Response& res, int status, std::string_view message) {
  res.status = status;
  res.set_content(fmt::format("{} {}\n", status, message), kTextPlain);
}

// Starts a response over (dropping headers set so far, such as a file's validators).
void reset(httplib::Response& res) {
  const std::string version = res.version;
  res = httplib::Response();
  res.version = version;
}

// For answers sent before a request body was read: the client must not reuse the connection.
void close_after(httplib::Response& res) { res.set_header("Connection", "close"); }

bool has_request_body(const httplib::Request& req) {
  if (req.has_header("Transfer-Encoding")) return true;
  const auto length = req.get_header_value("Content-Length");
  return !length.empty() && length != "0";
}

std::size_t header_bytes(const httplib::Request& req) {
  std::size_t total = 0;
  for (const auto& [key, value] : req.headers) total += key.size() + value.size() + 4;
  return total;
}

bool is_upload_path(const http::TargetPath& target) {
  return target.segments.empty() || (target.segments.size() == 1 && target.segments[0] == "legacy");
}

std::string canonical_dir(const fs::path& path, std::string& error) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) == nullptr) {
    error = fmt::format("{}: {}", path.string(), errno_text(errno));
    return {};
  }
  struct stat st {};
  if (::stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) {
    error = fmt::format("{}: not a directory", path.string());
    return {};
  }
  return buf;
}

class ServerImpl final : public Server {
 public:
  ServerImpl(ServeOptions options, std::string root, std::unique_ptr<Uploader> uploader,
             std::unique_ptr<Authenticator> readers, std::shared_ptr<const TlsContext> tls)
      : options_(std::move(options)),
        root_(std::move(root)),
        uploader_(std::move(uploader)),
        readers_(std::move(readers)) {
    if (tls) http_.set_tls(std::move(tls));
    if (options_.upstream) upstream_ = std::make_unique<UpstreamProxy>(*options_.upstream);
  }

  ~ServerImpl() override {
    ServerImpl::stop();
    ServerImpl::wait();
  }

  Result<void> listen() {
    configure();
    port_ = options_.port == 0 ? http_.bind_to_any_port(options_.host)
                               : (http_.bind_to_port(options_.host, options_.port) ? options_.port : -1);
    if (port_ <= 0) {
      return fail(fmt::format("cannot listen on {}:{} (address in use, or not an address of this host)", options_.host,
                              options_.port));
    }
    http_.raise_backlog(SOMAXCONN);
    thread_ = std::thread([this] { http_.listen_after_bind(); });
    // httplib's stop() does nothing until the accept loop runs.
    for (int i = 0; i < 5000 && !http_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return {};
  }

  [[nodiscard]] int port() const override { return port_; }

  void wait() override {
    std::lock_guard lock(wait_mutex_);
    if (thread_.joinable()) thread_.join();
    http_.close_waiting();
  }

  void stop() override { http_.stop_all(); }

 private:
  void configure();
  httplib::Server::HandlerResponse pre_route(const httplib::Request& req, httplib::Response& res);
  bool reject_post(const httplib::Request& req, httplib::Response& res);
  void handle_get(const httplib::Request& req, httplib::Response& res);
  void handle_upstream(const httplib::Request& req, httplib::Response& res, const http::TargetPath& target, bool head);
  [[nodiscard]] std::string cache_control(bool page) const;
  void serve_file(const httplib::Request& req, httplib::Response& res, const ResolvedPath& file,
                  std::string_view content_type, bool head);
  void handle_upload(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader);

  ServeOptions options_;
  std::string root_;  // canonical
  std::unique_ptr<Uploader> uploader_;
  std::unique_ptr<Authenticator> readers_;  // null: reading is open to all
  std::unique_ptr<UpstreamProxy> upstream_;
  FileCache cache_{kCacheFileMax, kCacheTotalMax};
  ConnectionServer http_{options_.connections, std::max(1U, options_.threads)};
  std::thread thread_;
  std::mutex wait_mutex_;
  int port_ = 0;
};

void ServerImpl::configure() {
  // Worker threads, keep-alive and deadlines are set up by ConnectionServer.
  // Headers and body go out in separate writes: without TCP_NODELAY the body waits for the
  // client's delayed ACK (40 ms), which caps a keep-alive connection at 25 requests a second.
  http_.set_tcp_nodelay(true);
  http_.set_payload_max_length(static_cast<std::size_t>(options_.max_upload_size + kMaxFieldBytes + (1U << 20)));
  http_.set_pre_routing_handler(
      [this](const httplib::Request& req, httplib::Response& res) { return pre_route(req, res); });
  http_.set_expect_100_continue_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (req.method == "POST" && reject_post(req, res)) return res.status;
    return 100;
  });
  http_.Post(".*", [this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
    try {
      handle_upload(req, res, reader);
    } catch (const std::exception& e) {
      set_error(res, 500, e.what());
      close_after(res);
    }
  });
  http_.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.body.empty() && res.status >= 400) res.set_content(fmt::format("{}\n", res.status), kTextPlain);
  });
  if (options_.verbose) {
    http_.set_logger([](const httplib::Request& req, const httplib::Response& res) {
      const auto line = fmt::format("{} \"{} {} {}\" {} {}{}{}\n", req.remote_addr, printable(req.method),
                                    printable(req.target), printable(req.version), res.status,
                                    res.get_header_value("Content-Length"), t_user.empty() ? "" : " user=",
                                    printable(t_user));
      std::fwrite(line.data(), 1, line.size(), stderr);
      t_user.clear();  // a request httplib refuses before routing names no user
    });
  }
}

httplib::Server::HandlerResponse ServerImpl::pre_route(const httplib::Request& req, httplib::Response& res) {
  using R = httplib::Server::HandlerResponse;
  // httplib 0.11 applies the Range header to every response itself, and gets ranges past the end
  // wrong: it is evaluated here instead. (The Request object is not const; httplib hands it out
  // as const only.)
  // Likewise it would gzip text bodies after that (slicing a range, then compressing it) under
  // the same strong ETag: responses are sent as stored.
  auto& mutable_req = const_cast<httplib::Request&>(req);
  mutable_req.ranges.clear();
  mutable_req.headers.erase("Accept-Encoding");
  if (req.headers.size() > kMaxHeaderCount || header_bytes(req) > kMaxHeaderBytes) {
    set_error(res, 431, "Request Header Fields Too Large");
    close_after(res);
    return R::Handled;
  }
  t_user.clear();
  if (req.method == "GET" || req.method == "HEAD") {
    if (has_request_body(req)) {
      set_error(res, 400, "a GET or HEAD request has no body");
      close_after(res);
      return R::Handled;
    }
    // Inside a request of an admitted connection: the per-address connection caps apply to
    // failed attempts as well. The answer says nothing about which users exist.
    if (readers_) {
      auto user = readers_->check(req.get_header_value("Authorization"));
      if (!user) {
        set_error(res, 401, "Unauthorized");
        res.set_header("WWW-Authenticate", "Basic realm=\"vwheel\"");
        return R::Handled;
      }
      t_user = std::move(*user);
    }
    try {
      handle_get(req, res);
    } catch (const std::exception& e) {
      reset(res);
      set_error(res, 500, e.what());
    }
    return R::Handled;
  }
  if (req.method == "POST") return reject_post(req, res) ? R::Handled : R::Unhandled;
  set_error(res, 405, "Method Not Allowed");
  res.set_header("Allow", uploader_ ? "GET, HEAD, POST" : "GET, HEAD");
  close_after(res);
  return R::Handled;
}

// Answers a POST that cannot be an upload (before its body is read); false when it may be one.
bool ServerImpl::reject_post(const httplib::Request& req, httplib::Response& res) {
  auto target = http::parse_target(req.target);
  if (!target || !is_upload_path(*target)) {
    set_error(res, 404, "Not Found (uploads go to / or /legacy/)");
  } else if (!uploader_) {
    set_error(res, 405, "uploads are disabled (serve a folder with --wheels and set --upload-token)");
    res.set_header("Allow", "GET, HEAD");
  } else if (const int auth = uploader_->check_auth(req.get_header_value("Authorization")); auth == 401) {
    set_error(res, 401, "authentication required: the upload token as the HTTP basic auth password, or a Bearer token");
    res.set_header("WWW-Authenticate", "Basic realm=\"vwheel\"");
  } else if (auth == 403) {
    set_error(res, 403, "invalid upload token");
  } else if (!req.is_multipart_form_data()) {
    set_error(res, 400, "expected a multipart/form-data body");
  } else if (const auto length = req.get_header_value("Content-Length");
             !length.empty() &&
             std::strtoull(length.c_str(), nullptr, 10) > options_.max_upload_size + kMaxFieldBytes) {
    set_error(res, 413, fmt::format("the upload is larger than the limit of {} bytes", options_.max_upload_size));
  } else {
    return false;
  }
  close_after(res);
  return true;
}

void ServerImpl::handle_get(const httplib::Request& req, httplib::Response& res) {
  const bool head = req.method == "HEAD";
  auto target = http::parse_target(req.target);
  if (!target) {
    if (target.error() == http::TargetError::BadRequest) {
      set_error(res, 400, "Bad Request");
    } else {
      set_error(res, 404, "Not Found");
    }
    return;
  }
  const auto& segments = target->segments;
  const std::string query = target->query.empty() ? std::string() : "?" + target->query;
  if (segments.empty()) {
    res.set_redirect("/simple/" + query, 301);
    return;
  }
  const bool simple = segments[0] == "simple";
  if (simple && segments.size() == 2 && !wheel_name::is_normalized_name(segments[1])) {
    // PEP 503: the normalized name is the project's URL.
    res.set_redirect(http::encode_path({"simple", wheel_name::canonicalize_name(segments[1])}, true) + query, 301);
    return;
  }
  if (upstream_) {
    handle_upstream(req, res, *target, head);
    return;
  }
  auto found = resolve_inside(root_, segments);
  if (!found) {
    set_error(res, 404, "Not Found");
    return;
  }
  std::string_view content_type;
  if (found->is_directory()) {
    if (!target->trailing_slash) {
      res.set_redirect(http::encode_path(segments, true) + query, 301);
      return;
    }
    if (simple && segments.size() <= 2) {
      res.set_header("Vary", "Accept");
      // A site built by another tool may have one of the two files only. Each is resolved once,
      // and the one negotiated is served.
      const auto page_path = [&](http::PageFormat f) -> std::optional<ResolvedPath> {
        auto with = segments;
        with.emplace_back(http::page_file(f));
        auto r = resolve_inside(root_, with);
        return r && r->is_regular() ? std::move(r) : std::nullopt;
      };
      auto html = page_path(http::PageFormat::TextHtml);
      auto json = page_path(http::PageFormat::SimpleJson);
      const http::PageFiles files{html.has_value(), json.has_value()};
      if (!files.html && !files.json) {
        set_error(res, 404, "Not Found");
        return;
      }
      // PEP 691's `?format=` overrides the Accept header, also when the page lacks that file.
      auto format = http::format_from_query(target->query);
      if (!format) {
        format = http::negotiate(req.get_header_value("Accept"), files);
      } else if (!files.has(*format)) {
        format.reset();
      }
      if (!format) {
        set_error(res, 406, "Not Acceptable: this page is served as " + http::served_types(files));
        return;
      }
      found = *format == http::PageFormat::SimpleJson ? std::move(json) : std::move(html);
      content_type = http::content_type(*format);
    } else {
      std::vector<std::string> page = segments;
      page.emplace_back("index.html");
      content_type = http::file_content_type("index.html");
      found = resolve_inside(root_, page);
      if (!found || !found->is_regular()) {
        set_error(res, 404, "Not Found");
        return;
      }
    }
  } else {
    if (target->trailing_slash || !found->is_regular()) {
      set_error(res, 404, "Not Found");
      return;
    }
    content_type = http::file_content_type(segments.back());
  }
  // Distribution files never change under their name; pages and everything else may.
  const auto& last = segments.back();
  const bool immutable = !target->trailing_slash && (last.ends_with(".whl") || last.ends_with(".whl.metadata"));
  res.set_header("Cache-Control", cache_control(!immutable));
  serve_file(req, res, *found, content_type, head);
}

// `--upstream`: pages passed through, files from the cache (by sha256: immutable).
void ServerImpl::handle_upstream(const httplib::Request& req, httplib::Response& res, const http::TargetPath& target,
                                 bool head) {
  auto answer = upstream_->answer(target, req.get_header_value("Accept"));
  if (answer.status >= 400) {
    set_error(res, answer.status, answer.message);
    return;
  }
  if (answer.file) {
    ResolvedPath file{answer.file->string(), {}};
    if (::stat(file.path.c_str(), &file.st) != 0) {
      set_error(res, 404, "Not Found");
      return;
    }
    res.set_header("Cache-Control", cache_control(false));
    serve_file(req, res, file, http::file_content_type(target.segments.back()), head);
    return;
  }
  res.set_header("Vary", "Accept");
  res.set_header("Cache-Control", cache_control(true));
  res.set_header("ETag", answer.etag);
  if (const auto inm = req.get_header_value("If-None-Match"); !inm.empty() && http::if_none_match(inm, answer.etag)) {
    res.status = 304;
    return;
  }
  res.status = 200;
  if (head) {
    res.set_header("Content-Type", answer.content_type);
    res.set_header("Content-Length", std::to_string(answer.body.size()));
    return;
  }
  res.set_content(std::move(answer.body), answer.content_type);
}

std::string ServerImpl::cache_control(bool page) const {
  if (!page) return "max-age=31536000, immutable, public";
  const unsigned age = options_.page_max_age.value_or(options_.wheels || options_.upstream ? 0U : 600U);
  return age == 0 ? "no-cache" : fmt::format("max-age={}, public", age);
}

void ServerImpl::serve_file(const httplib::Request& req, httplib::Response& res, const ResolvedPath& file,
                            std::string_view content_type, bool head) {
  FileIdentity id = FileIdentity::of(file.st);
  auto cached = cache_.find(file.path, id);
  UniqueFd fd;
  if (!cached) {
    fd.reset(::open(file.path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    struct stat st {};
    if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
      set_error(res, 404, "Not Found");
      return;
    }
    id = FileIdentity::of(st);
  }
  const std::string etag = http::make_etag(id.ino, id.size, id.mtime_ns);
  const auto mtime = static_cast<std::time_t>(id.mtime_ns / 1000000000LL);
  const std::string last_modified = http::format_http_date(mtime);
  res.set_header("ETag", etag);
  res.set_header("Last-Modified", last_modified);
  res.set_header("Accept-Ranges", "bytes");

  bool not_modified = false;
  if (const auto inm = req.get_header_value("If-None-Match"); !inm.empty()) {
    not_modified = http::if_none_match(inm, etag);
  } else if (const auto ims = req.get_header_value("If-Modified-Since"); !ims.empty()) {
    const auto since = http::parse_http_date(ims);
    not_modified = since && mtime <= *since;
  }
  if (not_modified) {
    res.status = 304;
    // What a 200 would have carried (RFC 9110 8.6), so httplib does not add `Content-Length: 0`.
    res.set_header("Content-Length", std::to_string(id.size));
    return;
  }

  std::uint64_t first = 0;
  std::uint64_t length = id.size;
  res.status = 200;
  if (const auto range_header = req.get_header_value("Range"); !range_header.empty()) {
    auto range = http::parse_range(range_header, id.size);
    if (const auto if_range = req.get_header_value("If-Range");
        !if_range.empty() && !http::if_range_matches(if_range, etag, last_modified)) {
      range.kind = http::RangeRequest::Kind::Full;
    }
    if (range.kind == http::RangeRequest::Kind::Unsatisfiable) {
      res.status = 416;
      res.set_header("Content-Range", fmt::format("bytes */{}", id.size));
      return;
    }
    if (range.kind == http::RangeRequest::Kind::Partial) {
      res.status = 206;
      first = range.first;
      length = range.last - range.first + 1;
      res.set_header("Content-Range", http::content_range(range.first, range.last, id.size));
    }
  }
  const std::string type(content_type);
  if (head) {
    res.set_header("Content-Type", type);
    res.set_header("Content-Length", std::to_string(length));
    return;
  }
  if (!cached && id.size <= cache_.max_file()) {
    auto body = read_exact(fd.get(), id.size);
    if (!body) {
      reset(res);
      set_error(res, 503, "the file changed while it was read; retry");
      return;
    }
    auto entry = std::make_shared<CachedFile>();
    entry->identity = id;
    entry->body = std::move(*body);
    cached = entry;
    cache_.put(file.path, std::move(entry));
  }
  if (cached) {
    if (first == 0 && length == cached->body.size()) {
      res.set_content(cached->body, type);
    } else {
      res.set_content(cached->body.data() + first, static_cast<std::size_t>(length), type);
    }
    return;
  }
  // Large files stream from the open descriptor (the version that was stat'ed, even if renamed over).
  const int raw_fd = fd.release();
  auto buffer =
      std::make_shared<std::vector<char>>(std::min<std::uint64_t>(kStreamChunk, std::max<std::uint64_t>(length, 1)));
  res.set_content_provider(
      static_cast<std::size_t>(length), type,
      [raw_fd, first, buffer](std::size_t offset, std::size_t remaining, httplib::DataSink& sink) {
        const std::size_t want = std::min(remaining, buffer->size());
        const long long n = pread_all(raw_fd, buffer->data(), want, first + offset);
        if (n <= 0) return false;
        return sink.write(buffer->data(), static_cast<std::size_t>(n));
      },
      [raw_fd](bool) { ::close(raw_fd); });
}

void ServerImpl::handle_upload(const httplib::Request& req, httplib::Response& res,
                               const httplib::ContentReader& reader) {
  if (reject_post(req, res)) return;  // also checked before routing; repeated for safety
  MultipartLimits limits;
  limits.max_file_size = options_.max_upload_size;
  limits.max_field_bytes = kMaxFieldBytes;
  limits.max_parts = kMaxParts;
  MultipartReceiver receiver(uploader_->temp_root(), limits);
  const bool ok = reader(
      [&](const httplib::MultipartFormData& header) { return receiver.on_part(header.name, header.filename); },
      [&](const char* data, std::size_t n) { return receiver.on_data(data, n); });
  if (!ok && !receiver.failed()) {
    // httplib gave up on its own: a body over the payload limit (413) or not parseable.
    if (request_timed_out()) {
      receiver.refuse(408, fmt::format("the upload stalled for more than {} ms",
                                       options_.connections.body_timeout.count()));
    } else if (res.status == 413) {
      receiver.refuse(413, "the upload is too large");
    } else {
      receiver.refuse(400, "malformed multipart/form-data body");
    }
  }
  if (!receiver.finish()) {
    const auto& failure = receiver.failure();
    reset(res);
    set_error(res, failure.status, failure.message);
    if (!ok) close_after(res);  // the rest of the body was not read
    return;
  }
  const auto outcome = uploader_->commit(receiver.form());
  if (outcome.status == 200) {
    res.status = 200;
    res.set_content(outcome.message + "\n", kTextPlain);
  } else {
    set_error(res, outcome.status, outcome.message);
  }
}

}  // namespace

Result<std::unique_ptr<Server>> Server::start(const ServeOptions& options) {
  if (int{options.site.has_value()} + int{options.wheels.has_value()} + int{options.upstream.has_value()} != 1) {
    return fail("serve one of a built SITE, a folder of wheels (--wheels) or an upstream index (--upstream)");
  }
  if (options.port < 0 || options.port > 65535) return fail(fmt::format("port {} is out of range", options.port));
  if (options.upload_token && !options.wheels) {
    return fail("uploads (--upload-token) need a folder of wheels (--wheels)");
  }
  if (options.upload_token && options.upload_token->empty()) return fail("the upload token is empty");
  if (options.max_upload_size == 0) return fail("the upload size limit must be positive");
  const auto& limits = options.connections;
  if (limits.header_timeout.count() <= 0 || limits.body_timeout.count() <= 0 ||
      limits.keep_alive_timeout.count() <= 0) {
    return fail("the connection timeouts must be positive");
  }
  if (limits.keep_alive_requests == 0) return fail("the requests per connection must be at least 1");

  if (options.tls_cert.has_value() != options.tls_key.has_value()) {
    return fail("HTTPS needs both --tls-cert and --tls-key");
  }
  std::shared_ptr<const TlsContext> tls;
  if (options.tls_cert) {
    auto loaded = TlsContext::load(*options.tls_cert, *options.tls_key);
    if (!loaded) return fail(loaded.error());
    tls = std::move(*loaded);
  }
  std::unique_ptr<Authenticator> readers;
  if (options.read_auth) {
    auto text = read_file(*options.read_auth);
    if (!text) return fail(text.error());
    auto entries = parse_htpasswd(*text, options.read_auth->string());
    if (!entries) return fail(entries.error());
    readers = std::make_unique<Authenticator>(std::move(*entries));
  }

  std::string error;
  fs::path site;
  std::unique_ptr<Uploader> uploader;
  if (options.wheels) {
    const std::string wheel_dir = canonical_dir(*options.wheels, error);
    if (wheel_dir.empty()) return fail(error);
    site = options.site_dir.value_or(fs::path(wheel_dir) / ".vwheel-site");
    index::BuildOptions build;
    build.wheel_dir = wheel_dir;
    build.site = site;
    build.jobs = default_jobs();
    // A broken or conflicting file is left out with a warning rather than keeping the server down.
    build.skip_invalid = true;
    auto built = index::build_site(build);
    if (!built) return fail(built.error());
    if (options.on_warning) {
      for (const auto& w : built->warnings) options.on_warning(w);
    }
    if (options.upload_token) {
      UploadConfig config;
      config.wheel_dir = wheel_dir;
      config.site_dir = site;
      config.token = *options.upload_token;
      config.max_file_size = options.max_upload_size;
      config.on_warning = options.on_warning;
      uploader = std::make_unique<Uploader>(std::move(config));
      std::error_code ec;
      fs::create_directories(uploader->temp_root(), ec);
      if (ec) return fail(fmt::format("{}: cannot create: {}", uploader->temp_root().string(), ec.message()));
    }
  } else if (options.upstream) {
    site = options.upstream->cache_dir;
    std::error_code ec;
    fs::create_directories(site, ec);
    if (ec) return fail(fmt::format("{}: cannot create: {}", site.string(), ec.message()));
  } else {
    site = *options.site;
  }
  const std::string root = canonical_dir(site, error);
  if (root.empty()) return fail(error);

  auto server = std::make_unique<ServerImpl>(options, root, std::move(uploader), std::move(readers), std::move(tls));
  if (auto ok = server->listen(); !ok) return fail(ok.error());
  return std::unique_ptr<Server>(std::move(server));
}

}  // namespace vwheel::server
