// `vwheel list [--json] [--python PATH]`

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/api/environment.hpp"

namespace vwheel::cli {

void add_list_command(CLI::App& app, Dispatch& dispatch) {
  struct Options {
    std::string python;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("list", "List installed distributions with their installer and variant");
  cmd->add_option("--python", o->python, "Interpreter whose environment to list (default: $VIRTUAL_ENV, else python3)");
  cmd->add_flag("--json", o->json, "Print JSON");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      api::EnvironmentRequest req;
      if (!o->python.empty()) req.python = o->python;
      auto report = api::list_distributions(req);
      if (!report) return report_failure(report.error());
      fmt::print("{}", o->json ? api::format_list_json(*report) : api::format_list_text(*report));
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
