// `vwheel index build WHEELDIR -o SITE [--base-url URL] [--yanked FILE] [--skip-invalid] [-j N] [-q]`

#include <fmt/format.h>

#include "../command.hpp"
#include "vwheel/api/index.hpp"

namespace vwheel::cli {

void add_index_build_command(CLI::App& index, Dispatch& dispatch) {
  struct Options {
    std::string wheel_dir;
    std::string site;
    std::string base_url;
    std::string yanked;
    bool skip_invalid = false;
    bool quiet = false;
    unsigned jobs = 0;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = index.add_subcommand(
      "build",
      "Build or update a static simple index (PEP 503 HTML, PEP 691 JSON, PEP 658 metadata, PEP 825 "
      "*-variants.json) in SITE from the wheels and sdists in WHEELDIR; only what changed is rewritten");
  cmd->add_option("wheeldir", o->wheel_dir, "Directory of wheels (*.whl) and sdists (*.tar.gz), top level only")
      ->required();
  cmd->add_option("-o,--output", o->site, "The site to build or update (created when missing)")->required();
  cmd->add_option("--base-url", o->base_url,
                  "Absolute URL of SITE (e.g. https://example.org/pypi) for absolute links (default: relative)");
  cmd->add_option("--yanked", o->yanked,
                  "File of yanked files or versions, one a line: FILENAME[: reason] or PROJECT==VERSION[: reason]");
  cmd->add_flag("--skip-invalid", o->skip_invalid,
                "Skip files that cannot be indexed with a warning instead of failing without changing anything");
  cmd->add_option("-j,--jobs", o->jobs, "Files read in parallel (default: the number of CPUs)");
  cmd->add_flag("-q,--quiet", o->quiet, "Print nothing but errors and warnings");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      api::BuildIndexRequest req;
      req.options.wheel_dir = o->wheel_dir;
      req.options.site = o->site;
      req.options.base_url = o->base_url;
      if (!o->yanked.empty()) req.options.yanked = o->yanked;
      req.options.skip_invalid = o->skip_invalid;
      req.options.jobs = o->jobs;
      auto report = api::build_index(req);
      if (!report) {
        report_error(report.error());
        return kUserError;
      }
      for (const auto& w : report->build.warnings) report_warning(w);
      if (!o->quiet) fmt::print(stderr, "{}", api::format_build_summary(*report));
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
