#include "index_options.hpp"

#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "vwheel/provider/registry.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::cli {

void add_index_options(CLI::App& cmd, IndexOptions& o, bool sources) {
  if (sources) {
    cmd.add_option("-i,--index-url", o.index_url,
                   "Package index (simple API) base URL (default: $VWHEEL_INDEX_URL, $PIP_INDEX_URL, else PyPI; not "
                   "used with only --find-links)");
    cmd.add_option("--extra-index-url", o.extra_index_urls, "Further indexes, searched after --index-url")
        ->allow_extra_args(false);
    cmd.add_option("-f,--find-links", o.find_links, "A directory of wheels, or the URL of an HTML page of links")
        ->allow_extra_args(false);
    cmd.add_flag("--no-index", o.no_index, "Ignore package indexes (only --find-links)");
    cmd.add_flag("--pre", o.pre, "Allow pre-release versions");
    cmd.add_flag("--no-variants", o.no_variants, "Use only non-variant wheels");
    cmd.add_option("--variant", o.variants,
                   "NAME=LABEL: install this variant of NAME (only when it is compatible with the target)")
        ->allow_extra_args(false);
  } else {
    cmd.add_flag("--no-variants", o.no_variants, "Use only the lock's non-variant wheels");
    cmd.add_option("--variant", o.variants, "NAME=LABEL: choose this (compatible) variant of NAME")
        ->allow_extra_args(false);
  }
  cmd.add_flag("--offline", o.offline, "Use only the HTTP cache; no network");
  cmd.add_flag("--refresh", o.refresh,
               "Ask the index again for every page, even those its Cache-Control max-age lets us reuse");
  cmd.add_option("--retries", o.retries, "Extra attempts per request on network errors and 5xx (default 3)");
  cmd.add_option("--timeout", o.timeout, "Seconds without data before an attempt fails (default 30)");
  cmd.add_option("--cache-dir", o.cache_dir, "Cache root (default: $XDG_CACHE_HOME/vwheel)");
  cmd.add_flag("-q,--quiet", o.quiet, "Print only errors");
}

std::filesystem::path cache_root(const IndexOptions& o) {
  return o.cache_dir.empty() ? provider::default_cache_dir() : std::filesystem::path(o.cache_dir);
}

Result<plan::Settings> make_settings(const IndexOptions& o) {
  plan::Settings s;
  using Kind = finder::Source::Kind;
  if (!o.no_index) {
    std::string index = o.index_url;
    if (index.empty() && o.find_links.empty()) {
      if (const char* v = std::getenv("VWHEEL_INDEX_URL"); v && *v) {
        index = v;
      } else if (const char* p = std::getenv("PIP_INDEX_URL"); p && *p) {
        index = p;
      } else {
        index = "https://pypi.org/simple";
      }
    }
    if (!index.empty()) s.sources.push_back({Kind::index, index});
    for (const auto& u : o.extra_index_urls) s.sources.push_back({Kind::index, u});
  }
  for (const auto& f : o.find_links) s.sources.push_back({Kind::find_links, f});
  for (const auto& v : o.variants) {
    auto eq = v.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == v.size()) {
      return fail(fmt::format("--variant `{}`: expected NAME=LABEL (e.g. torch=cu128)", v));
    }
    s.variant_choices[wheel_name::canonicalize_name(v.substr(0, eq))] = v.substr(eq + 1);
  }
  s.no_variants = o.no_variants;
  s.pre = o.pre;
  s.cache_dir = cache_root(o);
  s.http.retries = o.retries;
  s.http.stall_timeout = std::chrono::seconds(o.timeout);
  s.http.offline = o.offline;
  s.http.refresh = o.refresh;
  s.http.max_parallel = o.jobs == 0 ? 16 : o.jobs;
  if (!o.no_cache) s.http.cache_dir = s.cache_dir;
  return s;
}

void print_plan(const plan::Plan& plan, bool explain) {
  for (const auto& s : plan.packages) {
    fmt::print("{}\n", plan::describe(s));
    if (explain && (s.label || !s.other_variants.empty())) {
      for (const auto& line : s.explain) fmt::print("{}\n", line);
    }
  }
  std::fflush(stdout);
}

}  // namespace vwheel::cli
