// `vwheel generate-index-json DIR [-o OUTDIR] [--format v0.0.3|v0.1.1|v0.2.0] [--skip-invalid] [-j N]`

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/api/index.hpp"

namespace vwheel::cli {

void add_generate_index_json_command(CLI::App& app, Dispatch& dispatch) {
  struct Options {
    std::string dir;
    std::string output_dir;
    std::string format = "auto";
    bool skip_invalid = false;
    bool quiet = false;
    unsigned jobs = 0;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "generate-index-json",
      "Write one {name}-{version}-variants.json per package version from the variant wheels in a directory "
      "(reads only their central directory and variant.json)");
  cmd->add_option("dir", o->dir, "Directory of wheels")->required();
  cmd->add_option("-o,--output-dir", o->output_dir, "Where to write the files (default: DIR)");
  cmd->add_option("--format", o->format,
                  "Output format: v0.0.3 (draft, with providers), v0.1.1 (PEP 825), v0.2.0 (Providers draft, PEP "
                  "850), or auto (v0.2.0 when the wheels' variant.json files are v0.2.x, v0.1.1 when every one is "
                  "v0.1.x, else v0.0.3; default)")
      ->check(CLI::IsMember({"auto", "v0.0.3", "v0.1.1", "v0.2.0"}));
  cmd->add_flag("--skip-invalid", o->skip_invalid,
                "Skip unreadable variant wheels with a warning instead of failing (variantlib's behaviour)");
  cmd->add_flag("-q,--quiet", o->quiet, "Print nothing but errors and warnings");
  cmd->add_option("-j,--jobs", o->jobs, "Wheels read in parallel (default: the number of CPUs)");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      api::GenerateIndexJsonRequest req;
      req.dir = o->dir;
      if (!o->output_dir.empty()) req.output_dir = o->output_dir;
      req.format = wheel::parse_variant_json_format(o->format);
      req.skip_invalid = o->skip_invalid;
      req.jobs = o->jobs;
      auto report = api::generate_index_json(req);
      if (!report) {
        report_error(report.error());
        return kUserError;
      }
      for (const auto& w : report->warnings) report_warning(w);
      if (!o->quiet) fmt::print("{}", api::format_generated_files(*report));
      if (report->write_error) {
        report_error(*report->write_error);
        return kEnvironment;
      }
      if (!o->quiet) fmt::print(stderr, "{}", api::format_generate_summary(*report));
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
