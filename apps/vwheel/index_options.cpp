#include "index_options.hpp"

#include <cstdio>

#include <fmt/format.h>

#include "vwheel/core/text.hpp"

namespace vwheel::cli {

api::SelectionRequest SelectionOptions::to_request() const {
  api::SelectionRequest r = request;
  if (!many_targets) r.profiles.assign(targets.begin(), targets.end());
  if (!config.empty()) r.config = config;
  return r;
}

void add_selection_options(CLI::App& cmd, SelectionOptions& o, bool many_targets) {
  auto* g = cmd.add_option_group("Selection", "The machine to choose for, and how");
  o.many_targets = many_targets;
  if (many_targets) {
    g->add_option("--target", o.targets,
                  "Target profiles (JSON), one machine each (repeatable): lock only the wheels one of them can use "
                  "(default: every variant)")
        ->allow_extra_args(false);
  } else {
    g->add_option("--target", o.targets,
                  "Target profile (JSON): choose for that machine (variants, tags, markers) instead of this one; "
                  "repeatable: later files replace earlier ones per namespace (and their environment, tags, detect)")
        ->allow_extra_args(false);
  }
  g->add_option("--config", o.config, "User configuration (variants.toml) with priority overrides");
  auto* all = g->add_flag("--enable-optional-providers", o.request.enable_all_optional, "Enable every optional provider");
  g->add_option("--enable-optional-provider", o.request.enabled_optional,
                "Enable the optional provider of this namespace")
      ->allow_extra_args(false)
      ->excludes(all);
  g->add_option("--allow-python-provider", o.request.allow_python_providers,
                "Allow the package's Python provider for this namespace to run, in an isolated virtual environment "
                "(repeatable; never without this option or the configuration's allow-list)")
      ->allow_extra_args(false);
  g->add_option("--abi-dependency", o.request.abi_dependencies,
                "Installed distribution NAME==VERSION for the abi_dependency namespace")
      ->allow_extra_args(false);
  g->add_flag("--no-variants", o.request.no_variants, "Use only non-variant wheels");
  g->add_option("--variant", o.request.variants,
                "NAME=LABEL: choose this variant of NAME (only when it is compatible with the target)")
      ->allow_extra_args(false);
}

void add_named_index_option(CLI::App& cmd, api::SourceRequest& r, const std::string& help) {
  cmd.add_option("--index", r.indexes, help)
      ->allow_extra_args(false)
      ->check(CLI::Validator(
          [](const std::string& v) -> std::string {
            return api::parse_named_index(v) ? "" : "expected NAME=URL (NAME of letters, digits, -, _ and .)";
          },
          "NAME=URL"));
}

void add_connection_options(CLI::App& cmd, api::SourceRequest& r) {
  cmd.add_option("--keyring-provider", r.keyring_provider,
                 "Where else to look for an index's password: disabled (default), or subprocess (runs `keyring get "
                 "URL USERNAME`, the keyring executable on PATH, for the username in the URL or the environment)")
      ->check(CLI::IsMember({"disabled", "subprocess"}));
  cmd.add_option("--cert", r.cert,
                 "CA bundle (PEM) to verify servers with (default: $SSL_CERT_FILE, $REQUESTS_CA_BUNDLE, $PIP_CERT, "
                 "else the system's)");
  cmd.add_option("--client-cert", r.client_cert,
                 "Client certificate for TLS: a PEM file with the certificate and its key");
  cmd.add_option("--proxy", r.proxy,
                 "Proxy URL for every request (default: $http_proxy, $https_proxy, $all_proxy, except $no_proxy)");
  cmd.add_option("--trusted-host", r.trusted_hosts,
                 "HOST or HOST:PORT whose https certificate is not verified (repeatable; plain http is always allowed)")
      ->allow_extra_args(false);
}

void add_index_options(CLI::App& cmd, IndexOptions& o, bool sources) {
  auto& r = o.request;
  if (sources) {
    cmd.add_option("-i,--index-url", r.index_url,
                   "Package index (simple API) base URL (default: $VWHEEL_INDEX_URL, $PIP_INDEX_URL, else PyPI; not "
                   "used with only --find-links)");
    cmd.add_option("--extra-index-url", r.extra_index_urls, "Further indexes, searched after --index-url")
        ->allow_extra_args(false);
    cmd.add_option("-f,--find-links", r.find_links, "A directory of wheels, or the URL of an HTML page of links")
        ->allow_extra_args(false);
    cmd.add_flag("--no-index", r.no_index, "Ignore package indexes (only --find-links)");
    cmd.add_flag("--pre", r.pre, "Allow pre-release versions");
  } else {
    // The lock's `url`s name their files; these name the hosts credentials are looked up for.
    cmd.add_option("-i,--index-url", r.index_url,
                   "The index the lock was made from: credentials are looked up for its host (the URL, .netrc, "
                   "keyring, environment) and sent with the lock's URLs on that scheme, host and port");
    cmd.add_option("--extra-index-url", r.extra_index_urls, "Further indexes the lock was made from (as --index-url)")
        ->allow_extra_args(false);
  }
  add_named_index_option(
      cmd, r,
      sources ? "NAME=URL: a named index, searched first (repeatable; the default index is then not used); its "
                "credentials may come from VWHEEL_INDEX_<NAME>_USERNAME and _PASSWORD"
              : "NAME=URL: a named index the lock was made from (as --index-url); its credentials may come from "
                "VWHEEL_INDEX_<NAME>_USERNAME and _PASSWORD");
  add_connection_options(cmd, r);
  cmd.add_flag("--offline", r.offline, "Use only the HTTP cache; no network");
  cmd.add_flag("--refresh", r.refresh,
               "Ask the index again for every page, even those its Cache-Control max-age lets us reuse");
  cmd.add_option("--retries", r.retries, "Extra attempts per request on network errors and 5xx (default 3)");
  cmd.add_option("--timeout", r.timeout, "Seconds without data before an attempt fails, and after which it must average 1 KiB/s (default 30)");
  cmd.add_option("--cache-dir", r.cache_dir, "Cache root (default: $XDG_CACHE_HOME/vwheel)");
  cmd.add_flag("-q,--quiet", o.quiet, "Print only errors");
}

void WheelCacheOptions::apply(install::InstallOptions& options) const {
  options.keep_archives = keep_archives;
  options.link_mode = install::parse_link_mode(link_mode).value_or(install::LinkMode::automatic);
}

void add_wheel_cache_options(CLI::App& cmd, WheelCacheOptions& o) {
  cmd.add_flag("--keep-archives", o.keep_archives,
               "Keep downloaded wheels in the cache beside their unpacked files (by default only the unpacked files)");
  cmd.add_option("--link-mode", o.link_mode,
                 "How files come from the wheel cache: auto (reflink where the file system can, else hardlink), "
                 "hardlink, copy, reflink")
      ->check(CLI::IsMember({"auto", "hardlink", "copy", "reflink"}));
}

void print_plan(const plan::Plan& plan, bool explain) {
  for (const auto& s : plan.packages) {
    fmt::print("{}\n", redact_url(plan::describe(s)));
    if (explain && (s.label || !s.other_variants.empty())) {
      for (const auto& line : s.explain) fmt::print("{}\n", redact_url(line));
    }
  }
  std::fflush(stdout);
}

}  // namespace vwheel::cli
