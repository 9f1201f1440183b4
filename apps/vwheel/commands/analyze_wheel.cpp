// `vwheel analyze-wheel WHEEL... [--json] [--target PROFILE] [selection options]`

#include <fmt/format.h>

#include "command.hpp"
#include "index_options.hpp"
#include "vwheel/api/maintain.hpp"

namespace vwheel::cli {

void add_analyze_wheel_command(CLI::App& app, Dispatch& dispatch) {
  struct Options {
    std::vector<std::string> wheels;
    SelectionOptions selection;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "analyze-wheel",
      "Describe wheels: file-name parts, variant label, properties, providers, and whether and how well the "
      "target supports each among the given wheels");
  cmd->add_option("wheels", o->wheels, "Wheels to describe")->required();
  add_selection_options(*cmd, o->selection);
  cmd->add_flag("--json", o->json, "Print JSON");
  cmd->add_flag("--no-cache", o->selection.request.no_cache, "Do not use the detection cache");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      api::AnalyzeRequest req;
      req.wheels.assign(o->wheels.begin(), o->wheels.end());
      req.selection = o->selection.to_request();
      auto report = api::analyze_wheels(req);
      if (!report) return report_failure(report.error());
      for (const auto& w : report->warnings) report_warning(w);
      fmt::print("{}", o->json ? api::format_analyze_json(*report) : api::format_analyze_plain(*report));
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
