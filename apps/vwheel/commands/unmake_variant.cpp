// `vwheel unmake-variant WHEEL... -o OUTDIR`

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/api/maintain.hpp"

namespace vwheel::cli {

void add_unmake_variant_command(CLI::App& app, Dispatch& dispatch) {
  struct Options {
    std::vector<std::string> inputs;
    std::string output_dir;
    unsigned jobs = 0;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "unmake-variant", "Turn variant wheels back into plain wheels: drop variant.json and its RECORD line");
  cmd->add_option("wheels", o->inputs, "Variant wheels")->required();
  cmd->add_option("-o,--output-dir", o->output_dir, "Directory for the plain wheels (must exist)")->required();
  cmd->add_option("-j,--jobs", o->jobs, "Wheels processed in parallel (default: the number of CPUs)");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      api::UnmakeVariantsRequest req;
      req.inputs.assign(o->inputs.begin(), o->inputs.end());
      req.output_dir = o->output_dir;
      req.jobs = o->jobs;
      const auto report = api::unmake_variants(req);
      const auto& results = report.results;
      int rc = kOk;
      for (std::size_t i = 0; i < results.size(); ++i) {
        if (!results[i]) {
          report_error(results[i].error());
          rc = kUserError;
        } else if (!*results[i]) {
          fmt::print(stderr, "vwheel: note: {} is not a variant wheel; nothing written\n", o->inputs[i]);
        } else {
          fmt::print("{}\n", (*results[i])->string());
        }
      }
      return rc;
    };
  });
}

}  // namespace vwheel::cli
