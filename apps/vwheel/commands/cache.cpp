// `vwheel cache dir|info|clean|prune [--cache-dir DIR]`: where the cache is, what it holds, and
// taking the space back (api/cache.hpp).

#include <cstdio>

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/api/cache.hpp"
#include "vwheel/http/client.hpp"

namespace vwheel::cli {

namespace {

std::string usage_text(const api::Usage& u) {
  auto text = fmt::format("{} ({} file{})", http::format_size(u.bytes), u.files, u.files == 1 ? "" : "s");
  if (u.shared_bytes > 0) text += fmt::format(", {} of it also linked from environments", http::format_size(u.shared_bytes));
  return text;
}

/// Adds `--cache-dir` to a cache subcommand; the request it fills.
std::shared_ptr<api::CacheRequest> cache_request(CLI::App& cmd) {
  auto r = std::make_shared<api::CacheRequest>();
  cmd.add_option("--cache-dir", r->cache_dir, "Cache root (default: $XDG_CACHE_HOME/vwheel)");
  r->on_wait = [](const std::filesystem::path& root) {
    std::fputs(fmt::format("waiting for the vwheel runs using {} to finish\n", root.string()).c_str(), stderr);
    std::fflush(stderr);
  };
  return r;
}

/// Prints what clean or prune removed.
int report_cache_removed(const Result<api::Usage>& removed, const api::CacheRequest& request, bool quiet) {
  if (!removed) return report_failure(removed.error());
  if (!quiet) fmt::print("removed {} from {}\n", usage_text(*removed), api::cache_dir(request).string());
  return kOk;
}

}  // namespace

void add_cache_commands(CLI::App& app, Dispatch& dispatch) {
  CLI::App* cache = app.add_subcommand("cache", "Show where the cache is and what it holds, or take its space back");
  cache->require_subcommand(1);

  CLI::App* dir = cache->add_subcommand("dir", "Print the cache directory");
  auto dir_request = cache_request(*dir);
  dir->callback([dir_request, &dispatch] {
    dispatch.action = [dir_request]() -> int {
      fmt::print("{}\n", api::cache_dir(*dir_request).string());
      return kOk;
    };
  });

  CLI::App* info = cache->add_subcommand("info", "Show what each part of the cache holds (space on disk) and what prune would free");
  auto info_request = cache_request(*info);
  auto json = std::make_shared<bool>(false);
  info->add_flag("--json", *json, "Print JSON (byte counts as numbers)");
  info->callback([info_request, json, &dispatch] {
    dispatch.action = [info_request, json]() -> int {
      auto got = api::cache_info(*info_request);
      if (!got) return report_failure(got.error());
      if (*json) {
        fmt::print("{}", api::cache_info_json(*got));
        return kOk;
      }
      fmt::print("cache: {}\n", got->root.string());
      for (const auto& a : got->areas) fmt::print("  {:<17} {}: {}\n", a.name, usage_text(a.usage), a.what);
      fmt::print("total: {}\n", usage_text(got->total));
      if (got->prunable.files > 0) fmt::print("`vwheel cache prune` would free {}\n", usage_text(got->prunable));
      return kOk;
    };
  });

  auto quiet = std::make_shared<bool>(false);
  CLI::App* clean = cache->add_subcommand(
      "clean",
      "Remove everything vwheel put in the cache, or only what it holds for the projects named (after the runs using it "
      "end; runs that start meanwhile wait)");
  auto clean_request = cache_request(*clean);
  auto projects = std::make_shared<std::vector<std::string>>();
  clean->add_option("projects", *projects,
                    "Projects whose unpacked wheels, downloads, metadata and index pages to remove (default: everything)");
  clean->add_flag("-q,--quiet", *quiet, "Print nothing");
  clean->callback([clean_request, projects, quiet, &dispatch] {
    dispatch.action = [clean_request, projects, quiet]() -> int {
      if (projects->empty()) return report_cache_removed(api::cache_clean(*clean_request), *clean_request, *quiet);
      auto removed = api::cache_clean_projects(*clean_request, *projects);
      if (!removed) return report_failure(removed.error());
      if (*quiet) return kOk;
      const auto root = api::cache_dir(*clean_request).string();
      for (const auto& r : *removed) {
        if (r.usage.files == 0) {
          fmt::print("{}: nothing cached in {}\n", r.project, root);
        } else {
          fmt::print("{}: removed {} from {}\n", r.project, usage_text(r.usage), root);
        }
      }
      return kOk;
    };
  });

  CLI::App* prune = cache->add_subcommand(
      "prune",
      "Remove what no run will use: leftovers of interrupted runs, downloads with holes, records of downloads that are gone");
  auto prune_request = cache_request(*prune);
  prune->add_flag("-q,--quiet", *quiet, "Print nothing");
  prune->callback([prune_request, quiet, &dispatch] {
    dispatch.action = [prune_request, quiet]() -> int {
      return report_cache_removed(api::cache_prune(*prune_request), *prune_request, *quiet);
    };
  });
}

}  // namespace vwheel::cli
