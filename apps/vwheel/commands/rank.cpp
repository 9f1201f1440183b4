// `vwheel rank VARIANTS_JSON [--json | --explain] [selection options: --target, --config, ...]`

#include <fmt/format.h>

#include "command.hpp"
#include "index_options.hpp"
#include "vwheel/api/rank.hpp"

namespace vwheel::cli {

void add_rank_command(CLI::App& app, Dispatch& dispatch) {
  struct Options {
    std::string file;
    SelectionOptions selection;
    bool json = false;
    bool explain = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "rank", "Print the variants of a *-variants.json file that the target supports, best first");
  cmd->add_option("variants_json", o->file, "Index-level {name}-{version}-variants.json file")->required();
  add_selection_options(*cmd, o->selection);
  auto* json = cmd->add_flag("--json", o->json, "Print the ranking as JSON");
  cmd->add_flag("--explain", o->explain, "Explain the rank of every label, or why it is incompatible")->excludes(json);
  cmd->add_flag("--no-cache", o->selection.request.no_cache, "Do not use the detection cache");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      auto report = api::rank(api::RankRequest{o->file, o->selection.to_request()});
      if (!report) return report_failure(report.error());
      if (o->json) {
        fmt::print("{}", api::format_rank_json(*report));
      } else if (o->explain) {
        fmt::print("{}", api::format_rank_explain(*report));
      } else {
        fmt::print("{}", api::format_rank_plain(*report));
        if (report->ranking.order.empty()) {
          fmt::print(stderr, "vwheel: note: no variant in {} is compatible with {}{}\n", o->file,
                     report->target_description, " (run with --explain to see why)");
        }
      }
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
