#pragma once
// Options shared by the commands that read package indexes or locks (install, lock, sync,
// export): sources, target, variant choices, network and cache. Registered on a subcommand and
// turned into plan::Settings.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "vwheel/plan/plan.hpp"

namespace vwheel::cli {

struct IndexOptions {
  std::string index_url;
  std::vector<std::string> extra_index_urls;
  std::vector<std::string> find_links;
  bool no_index = false;
  bool offline = false;
  bool refresh = false;
  unsigned retries = 3;
  unsigned timeout = 30;
  unsigned jobs = 16;
  std::string cache_dir;
  bool no_cache = false;
  bool no_variants = false;
  std::vector<std::string> variants;  // NAME=LABEL
  bool pre = false;
  bool quiet = false;
};


/// Adds the options to `cmd`; `sources` false leaves out the index/find-links options (sync/export).
void add_index_options(CLI::App& cmd, IndexOptions& o, bool sources);

/// The settings the options describe. Without --index-url, --find-links or --no-index the index
/// is $VWHEEL_INDEX_URL, else $PIP_INDEX_URL, else https://pypi.org/simple.
[[nodiscard]] Result<plan::Settings> make_settings(const IndexOptions& o);

/// The cache root: --cache-dir, else $XDG_CACHE_HOME/vwheel (~/.cache/vwheel).
[[nodiscard]] std::filesystem::path cache_root(const IndexOptions& o);

/// Prints one line per chosen wheel (`NAME VERSION: FILE (WHY)`), with the variant explanation
/// under each variant choice when `explain`, and flushes stdout (download progress goes to stderr).
void print_plan(const plan::Plan& plan, bool explain);

}  // namespace vwheel::cli
