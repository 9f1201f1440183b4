// `vwheel index build WHEELDIR -o SITE [--base-url URL] [--yanked FILE] [--skip-invalid] [-j N] [-q]`

#include <fmt/format.h>

#include "../command.hpp"
#include "vwheel/core/parallel.hpp"
#include "vwheel/index/site.hpp"

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
      index::BuildOptions options;
      options.wheel_dir = o->wheel_dir;
      options.site = o->site;
      options.base_url = o->base_url;
      if (!o->yanked.empty()) options.yanked = o->yanked;
      options.skip_invalid = o->skip_invalid;
      options.jobs = o->jobs == 0 ? default_jobs() : o->jobs;
      auto report = index::build_site(options);
      if (!report) {
        report_error(report.error());
        return kUserError;
      }
      for (const auto& w : report->warnings) report_warning(w);
      if (!o->quiet) {
        fmt::print(stderr,
                   "vwheel: {}: {} project(s), {} file(s), {} variants.json; hashed {}, placed {} ({} copied), "
                   "wrote {} variants.json and {} project page(s){}, removed {} file(s)\n",
                   o->site, report->projects, report->files, report->variants_files, report->files_hashed,
                   report->files_placed, report->files_copied, report->variants_written, report->projects_written,
                   report->root_written ? " and the project list" : "", report->files_removed);
      }
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
