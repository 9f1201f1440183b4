// `vwheel repair [--python PATH]`

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/api/environment.hpp"

namespace vwheel::cli {

void add_repair_command(CLI::App& app, Dispatch& dispatch) {
  struct Options {
    std::string python;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "repair", "Undo an install, upgrade or uninstall that was interrupted (or finish it when it had committed)");
  cmd->add_option("--python", o->python, "Interpreter whose environment to repair (default: $VIRTUAL_ENV, else python3)");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      api::EnvironmentRequest req;
      if (!o->python.empty()) req.python = o->python;
      auto repaired = api::repair(req);
      if (!repaired) return report_failure(repaired.error());
      fmt::print("{}", api::format_repaired(*repaired));
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
