// `vwheel index mirror UPSTREAM -o SITE --project NAME[SPEC] ... [--variant-filter PROP] [--target PROFILE]`

#include <fmt/format.h>

#include "../command.hpp"
#include "../index_options.hpp"
#include "vwheel/api/mirror.hpp"

namespace vwheel::cli {

void add_index_mirror_command(CLI::App& index, Dispatch& dispatch) {
  struct Options {
    std::string upstream;
    std::string site;
    std::vector<std::string> projects;
    std::vector<std::string> variant_filters;
    std::vector<std::string> targets;
    std::string config;
    unsigned jobs = 0;
    IndexOptions index;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = index.add_subcommand(
      "mirror",
      "Mirror chosen projects of an upstream simple index into SITE (the layout of `index build`): their wheels, "
      "sdists, PEP 658 metadata and PEP 825 *-variants.json, verified against the upstream's hashes; a re-run "
      "downloads only what is missing or changed");
  cmd->add_option("upstream", o->upstream, "The upstream index (simple API base URL)")->required();
  cmd->add_option("-o,--output", o->site, "The site to build or update (created when missing)")->required();
  cmd->add_option("--project", o->projects,
                  "A project name or glob over the upstream's names, with an optional version specifier, e.g. "
                  "'torch>=2.8,<2.10' or 'nvidia-*' (repeatable; at least one)")
      ->allow_extra_args(false)
      ->required();
  cmd->add_option("--variant-filter", o->variant_filters,
                  "'NAMESPACE :: FEATURE :: VALUE': keep the variant wheels with this property (repeatable; the null "
                  "variant, non-variant wheels and sdists are always kept)")
      ->allow_extra_args(false);
  cmd->add_option("--target", o->targets,
                  "Target profile (JSON), one machine each (repeatable): keep only the wheel each would choose per "
                  "version, and the null variant (no sdists)")
      ->allow_extra_args(false);
  cmd->add_option("--config", o->config, "User configuration (variants.toml) with priority overrides for --target");
  cmd->add_option("-j,--jobs", o->jobs, "Files read in parallel when the site is built (default: the number of CPUs)");
  add_index_options(*cmd, o->index, false);
  // Those options name the hosts credentials are looked up for; their help speaks of a lock's.
  cmd->get_option("--index-url")
      ->description("Another index whose host credentials are looked up for (UPSTREAM's always are)");
  cmd->get_option("--extra-index-url")->description("Further such indexes (as --index-url)");
  cmd->get_option("--index")->description(
      "NAME=URL: a named index (give UPSTREAM's URL): its credentials may come from VWHEEL_INDEX_<NAME>_USERNAME "
      "and _PASSWORD");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      api::MirrorRequest req;
      req.upstream = o->upstream;
      req.site = o->site;
      req.projects = o->projects;
      req.variant_filters = o->variant_filters;
      req.targets.assign(o->targets.begin(), o->targets.end());
      if (!o->config.empty()) req.selection.config = o->config;
      req.sources = o->index.request;
      req.quiet = o->index.quiet;
      req.jobs = o->jobs;
      auto report = api::mirror_index(req);
      if (!report) return report_failure(report.error());
      for (const auto& w : report->warnings) report_warning(w);
      if (!o->index.quiet) fmt::print(stderr, "{}", api::format_mirror_summary(*report, o->site));
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
