// `vwheel uninstall NAME... [--python PATH]`

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/install/install.hpp"

namespace vwheel::cli {

void add_uninstall_command(CLI::App& app, Dispatch& dispatch) {
  struct Options {
    std::vector<std::string> names;
    std::string python;
    bool yes = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("uninstall", "Remove installed distributions (files from RECORD), whoever installed them");
  cmd->add_option("names", o->names, "Distribution names")->required();
  cmd->add_option("--python", o->python, "Interpreter whose environment to change (default: $VIRTUAL_ENV, else python3)");
  cmd->add_flag("-y,--yes", o->yes, "Accepted for pip compatibility; vwheel never asks");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      auto opened = install::open_environment(o->python.empty() ? std::nullopt : std::optional<std::filesystem::path>(o->python));
      if (!opened) {
        report_error(opened.error());
        return kEnvironment;
      }
      int rc = kOk;
      for (const auto& name : o->names) {
        auto done = install::uninstall(opened->env, name);
        if (!done) {
          report_error(done.error());
          rc = kUserError;
          continue;
        }
        for (const auto& w : done->warnings) report_warning(w);
        fmt::print("uninstalled {} {} ({} files)\n", done->name, done->version, done->files);
      }
      return rc;
    };
  });
}

}  // namespace vwheel::cli
