// `vwheel uninstall NAME... [--python PATH]`

#include <fmt/format.h>

#include "command.hpp"
#include "interruptible.hpp"
#include "vwheel/api/environment.hpp"

namespace vwheel::cli {

void add_uninstall_command(CLI::App& app, Dispatch& dispatch) {
  struct Options {
    std::vector<std::string> names;
    std::string python;
    bool yes = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("uninstall", "Remove installed distributions (files from RECORD), whoever installed them");
  cmd->footer(
      "All or nothing: the names are removed in one transaction, and a name that is not installed\n"
      "fails the run (exit 1, naming it) before anything is removed (pip skips it with a warning).\n"
      "Interrupted (Ctrl-C, SIGTERM, SIGHUP, or killed): the environment is as it was, or, when the\n"
      "interruption came during the commit, as the run finished it.");
  cmd->add_option("names", o->names, "Distribution names")->required();
  cmd->add_option("--python", o->python, "Interpreter whose environment to change (default: $VIRTUAL_ENV, else python3)");
  cmd->add_flag("-y,--yes", o->yes, "Accepted for pip compatibility; vwheel never asks");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      return run_interruptible([o]() -> int {
        api::UninstallRequest req;
        if (!o->python.empty()) req.environment.python = o->python;
        req.names = o->names;
        auto report = api::uninstall(req);
        if (!report) return report_failure(report.error());
        for (const auto& done : report->entries) {
          fmt::print("{}", api::format_uninstalled(done));
        }
        return kOk;
      });
    };
  });
}

}  // namespace vwheel::cli
