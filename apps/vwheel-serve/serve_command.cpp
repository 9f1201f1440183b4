// `vwheel index serve (SITE | --wheels DIR) [--site-dir PATH] [--host H] [--port N]
//  [--upload-token T] [--max-upload-size SIZE] [--threads N] [--max-age S] [--header-timeout S]
//  [--body-timeout S] [--keep-alive-timeout S] [--keep-alive-requests N] [--max-connections-per-ip N]
//  [--max-waiting-per-ip N] [--read-auth FILE] [--tls-cert FILE --tls-key FILE] [-v]` and `vwheel index serve
//  --upstream URL [--cache-dir DIR] [--upstream-ttl S] [--upstream-cert PEM] ...` (a caching proxy): built into the separate
// `vwheel-serve` executable (see apps/vwheel-serve/main.cpp), which `vwheel index serve` runs.

#include <pthread.h>
#include <signal.h>

#include <cctype>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/server/server.hpp"

namespace vwheel::cli {

namespace {

// 127.0.0.0/8, ::1 and localhost: Basic credentials sent there do not leave the machine.
bool is_loopback(const std::string& host) { return host.starts_with("127.") || host == "::1" || host == "localhost"; }

std::string url_host(const std::string& host) { return host.find(':') != std::string::npos ? "[" + host + "]" : host; }

// `500M`, `2G`, `1048576`: powers of 1024, an optional `B`/`iB`.
std::optional<std::uint64_t> parse_size(std::string text) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 19) return std::nullopt;
  const std::uint64_t value = std::stoull(text.substr(0, digits));
  std::string suffix = ascii_lower(std::string_view(text).substr(digits));
  if (suffix.size() > 1 && suffix.back() == 'b') suffix.pop_back();
  if (suffix.size() > 1 && suffix.back() == 'i') suffix.pop_back();
  unsigned shift = 0;
  if (suffix == "k")
    shift = 10;
  else if (suffix == "m")
    shift = 20;
  else if (suffix == "g")
    shift = 30;
  else if (suffix == "t")
    shift = 40;
  else if (!suffix.empty() && suffix != "b")
    return std::nullopt;
  if (shift > 0 && value > (UINT64_MAX >> shift)) return std::nullopt;
  return value << shift;
}

}  // namespace

void add_index_serve_command(CLI::App& index, Dispatch& dispatch) {
  struct Options {
    std::string site;
    std::string wheels;
    std::string site_dir;
    std::string host = "127.0.0.1";
    int port = 8000;
    std::string upload_token;
    std::string max_upload_size = "2G";
    unsigned threads = 16;
    std::optional<unsigned> max_age;
    double header_timeout = 10;
    double body_timeout = 30;
    double keep_alive_timeout = 5;
    std::size_t keep_alive_requests = 100;
    std::size_t per_ip = 8;
    std::size_t per_ip_waiting = 256;
    std::string read_auth;
    std::string tls_cert;
    std::string tls_key;
    bool verbose = false;
    std::string upstream;
    std::string cache_dir;
    unsigned upstream_ttl = 60;
    std::string upstream_cert;
    std::string upstream_client_cert;
    std::string upstream_proxy;
    std::vector<std::string> upstream_trusted_hosts;
    std::string upstream_keyring = "disabled";
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = index.add_subcommand(
      "serve",
      "Serve a built index SITE (or a folder of wheels, indexed on start and after each upload) over HTTP: PEP 503/691 "
      "pages with content negotiation, ETag/If-None-Match, Range requests, and `twine upload` with --upload-token");
  auto* site_opt = cmd->add_option("site", o->site, "A SITE built by `vwheel index build`");
  auto* wheels_opt = cmd->add_option("--wheels", o->wheels,
                                     "Serve this folder of wheels instead: it is indexed into --site-dir on start and "
                                     "after every upload (files that cannot be indexed are left out with a warning)");
  site_opt->excludes(wheels_opt);
  auto* upstream_opt = cmd->add_option(
      "--upstream", o->upstream,
      "Serve this index (simple-API URL) through this server instead, as a caching proxy for a cluster: its project "
      "pages are passed on with file URLs pointing here, each file is fetched once, checked against the page's "
      "sha256 and kept in --cache-dir; while the upstream is unreachable, what is cached is still served");
  upstream_opt->excludes(site_opt)->excludes(wheels_opt);
  cmd->add_option("--cache-dir", o->cache_dir, "--upstream: where files and pages are kept (default: the vwheel cache's proxy/)")
      ->needs(upstream_opt);
  cmd->add_option("--upstream-ttl", o->upstream_ttl,
                  "--upstream: seconds a project page is served before the upstream is asked again (revalidated "
                  "with its ETag / Last-Modified; default: 60)")
      ->needs(upstream_opt);
  cmd->add_option("--upstream-cert", o->upstream_cert,
                  "--upstream: CA bundle (PEM) to verify the upstream with (default: $SSL_CERT_FILE, "
                  "$REQUESTS_CA_BUNDLE, else the system's)")
      ->needs(upstream_opt);
  cmd->add_option("--upstream-client-cert", o->upstream_client_cert,
                  "--upstream: client certificate for TLS to the upstream, a PEM file with its key")
      ->needs(upstream_opt);
  cmd->add_option("--upstream-proxy", o->upstream_proxy, "--upstream: HTTP proxy to reach the upstream through")
      ->needs(upstream_opt);
  cmd->add_option("--upstream-trusted-host", o->upstream_trusted_hosts,
                  "--upstream: HOST or HOST:PORT whose https certificate is not verified (repeatable)")
      ->needs(upstream_opt)
      ->allow_extra_args(false);
  cmd->add_option("--upstream-keyring-provider", o->upstream_keyring,
                  "--upstream: where else to look for the upstream's password: disabled (default) or subprocess "
                  "(besides the URL's userinfo, .netrc and $VWHEEL_INDEX_UPSTREAM_USERNAME / _PASSWORD)")
      ->needs(upstream_opt)
      ->check(CLI::IsMember({"disabled", "subprocess"}));
  cmd->add_option("--site-dir", o->site_dir, "Where the index of --wheels is built (default: DIR/.vwheel-site)")
      ->needs(wheels_opt);
  cmd->add_option("--host", o->host, "Address to listen on (default: 127.0.0.1)");
  cmd->add_option("-p,--port", o->port, "Port to listen on; 0 picks a free one (default: 8000)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--upload-token", o->upload_token,
                  "Accept `twine upload` into the --wheels folder with this token as the password (any user name, "
                  "e.g. __token__) or as a Bearer token; default: $VWHEEL_UPLOAD_TOKEN (with --wheels), which "
                  "keeps it out of the process list")
      ->needs(wheels_opt);
  cmd->add_option("--max-upload-size", o->max_upload_size,
                  "Largest file an upload may carry, with an optional K, M or G suffix (default: 2G)");
  cmd->add_option("-t,--threads", o->threads,
                  "Worker threads; each serves one connection at a time, keep-alive included (default: 16)")
      ->check(CLI::Range(1U, 1024U));
  cmd->add_option("--max-age", o->max_age,
                  "Seconds clients may reuse the index pages and *-variants.json files without asking again (0: "
                  "revalidate every time; default: 600 for a SITE, as PyPI, and 0 with --wheels); wheels and "
                  "their .metadata are always sent as immutable")
      ->check(CLI::Range(0U, 31536000U));
  // Each worker serves one connection at a time: these keep slow or idle clients from holding them.
  const auto seconds = CLI::Range(0.001, 86400.0);
  cmd->add_option("--header-timeout", o->header_timeout,
                  "Seconds a client has, from a request's first byte, to send its request line and headers; "
                  "slower connections are closed (default: 10)")
      ->check(seconds);
  cmd->add_option("--body-timeout", o->body_timeout,
                  "Longest pause, in seconds, while a request body is read or a response is sent (default: 30)")
      ->check(seconds);
  cmd->add_option("--keep-alive-timeout", o->keep_alive_timeout,
                  "Seconds a connection may wait for its next request (default: 5; 0.1 while other connections "
                  "wait for a worker)")
      ->check(seconds);
  cmd->add_option("--keep-alive-requests", o->keep_alive_requests,
                  "Requests per connection; the last is answered with `Connection: close` (default: 100)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
  cmd->add_option("--max-connections-per-ip", o->per_ip,
                  "Connections one client address may have served at once (0: no limit; default: 8)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{100000}));
  cmd->add_option("--max-waiting-per-ip", o->per_ip_waiting,
                  "Connections of one address over --max-connections-per-ip that wait for one of its connections "
                  "to end; further ones get 503 with `Connection: close` (default: 256)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{100000}));
  cmd->add_option("--read-auth", o->read_auth,
                  "An htpasswd file (`user:hash` lines, bcrypt from `htpasswd -B` or SHA-256/512 crypt from "
                  "`openssl passwd -5`/`-6`): every GET and HEAD then needs one of its users' HTTP Basic "
                  "credentials; uploads still need --upload-token");
  auto* cert_opt = cmd->add_option("--tls-cert", o->tls_cert, "Serve HTTPS with this PEM certificate (chain)");
  auto* key_opt = cmd->add_option("--tls-key", o->tls_key, "The unencrypted PEM private key of --tls-cert");
  cert_opt->needs(key_opt);
  key_opt->needs(cert_opt);
  cmd->add_flag("-v,--verbose", o->verbose,
                "Log one line per request to stderr (with --read-auth, the user; never a password)");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      if (int{!o->site.empty()} + int{!o->wheels.empty()} + int{!o->upstream.empty()} != 1) {
        report_error(Error("give one of a SITE, --wheels DIR or --upstream URL"));
        return kUsage;
      }
      server::ServeOptions options;
      if (!o->site.empty()) options.site = o->site;
      if (!o->wheels.empty()) options.wheels = o->wheels;
      if (!o->site_dir.empty()) options.site_dir = o->site_dir;
      options.host = o->host;
      options.port = o->port;
      if (!o->upload_token.empty()) {
        options.upload_token = o->upload_token;
      } else if (const char* env = std::getenv("VWHEEL_UPLOAD_TOKEN");
                 env != nullptr && *env != '\0' && options.wheels) {
        options.upload_token = env;
      }
      if (!o->read_auth.empty()) options.read_auth = o->read_auth;
      if (!o->tls_cert.empty()) options.tls_cert = o->tls_cert;
      if (!o->tls_key.empty()) options.tls_key = o->tls_key;
      options.threads = o->threads;
      options.verbose = o->verbose;
      options.page_max_age = o->max_age;
      const auto ms = [](double s) { return std::chrono::milliseconds(static_cast<long long>(s * 1000.0 + 0.5)); };
      options.connections.header_timeout = ms(o->header_timeout);
      options.connections.body_timeout = ms(o->body_timeout);
      options.connections.keep_alive_timeout = ms(o->keep_alive_timeout);
      options.connections.keep_alive_requests = o->keep_alive_requests;
      options.connections.per_ip = o->per_ip;
      options.connections.per_ip_waiting = o->per_ip_waiting;
      options.on_warning = [](const std::string& w) { report_warning(w); };
      if (!o->upstream.empty()) {
        server::UpstreamOptions up;
        up.url = o->upstream;
        up.cache_dir = o->cache_dir.empty() ? default_cache_dir() / "proxy" : std::filesystem::path(o->cache_dir);
        up.page_ttl = std::chrono::seconds(o->upstream_ttl);
        // Credentials for the upstream: its URL's userinfo, .netrc, VWHEEL_INDEX_UPSTREAM_*, the keyring.
        up.http.credentials.indexes.push_back({o->upstream, "upstream"});
        if (o->upstream_keyring == "subprocess") up.http.credentials.keyring = http::KeyringProvider::subprocess;
        up.http.ca_file = o->upstream_cert;
        for (const char* name : {"SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"}) {
          const char* value = std::getenv(name);
          if (up.http.ca_file.empty() && value != nullptr) up.http.ca_file = value;
        }
        up.http.client_cert = o->upstream_client_cert;
        up.http.proxy = o->upstream_proxy;
        up.http.trusted_hosts = o->upstream_trusted_hosts;
        up.on_log = [](const std::string& line) { report_warning(line); };
        options.upstream = std::move(up);
      }
      const auto limit = parse_size(o->max_upload_size);
      if (!limit || *limit == 0) {
        report_error(
            Error(fmt::format("--max-upload-size `{}`: expected a size such as 500M or 2G", o->max_upload_size)));
        return kUsage;
      }
      options.max_upload_size = *limit;
      if (options.read_auth && !options.tls_cert && !is_loopback(o->host)) {
        report_warning(fmt::format("--read-auth without --tls-cert on {}: passwords cross the network in clear text "
                                   "(serve HTTPS, or put a TLS proxy in front)",
                                   o->host));
      }

      // SIGINT and SIGTERM are taken by one thread (sigwait), so every server thread inherits them blocked.
      sigset_t signals;
      sigemptyset(&signals);
      sigaddset(&signals, SIGINT);
      sigaddset(&signals, SIGTERM);
      pthread_sigmask(SIG_BLOCK, &signals, nullptr);

      auto server = server::Server::start(options);
      if (!server) {
        report_error(server.error());
        return kUserError;
      }
      const std::string site = !o->site.empty()       ? o->site
                               : !o->upstream.empty() ? redact_url(o->upstream)
                               : !o->site_dir.empty() ? o->site_dir
                                                      : (std::filesystem::path(o->wheels) / ".vwheel-site").string();
      fmt::print("Serving {} on {}://{}:{}/simple/\n", site, o->tls_cert.empty() ? "http" : "https", url_host(o->host),
                 (*server)->port());
      std::fflush(stdout);

      std::thread waiter([&signals, &server] {
        int sig = 0;
        sigwait(&signals, &sig);
        (*server)->stop();
      });
      (*server)->wait();
      // The server stopped on its own: wake the waiter.
      pthread_kill(waiter.native_handle(), SIGTERM);
      waiter.join();
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
