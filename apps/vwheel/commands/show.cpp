// `vwheel show NAME... [--python PATH]`

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/api/environment.hpp"

namespace vwheel::cli {

void add_show_command(CLI::App& app, Dispatch& dispatch) {
  struct Options {
    std::vector<std::string> names;
    std::string python;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("show", "Describe installed distributions: metadata, location, files, variant");
  cmd->add_option("names", o->names, "Distribution names")->required();
  cmd->add_option("--python", o->python, "Interpreter whose environment to look in (default: $VIRTUAL_ENV, else python3)");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      api::ShowRequest req;
      if (!o->python.empty()) req.environment.python = o->python;
      req.names = o->names;
      auto report = api::show_distributions(req);
      if (!report) return report_failure(report.error());
      int rc = kOk;
      for (const auto& entry : report->entries) {
        if (!entry) {
          report_error(entry.error());
          rc = kUserError;
        }
      }
      fmt::print("{}", api::format_show(*report));
      return rc;
    };
  });
}

}  // namespace vwheel::cli
