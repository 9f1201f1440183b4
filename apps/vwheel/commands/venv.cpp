// `vwheel venv PATH [--python PATH] [--with-pip]`

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/api/environment.hpp"

namespace vwheel::cli {

void add_venv_command(CLI::App& app, Dispatch& dispatch) {
  struct Options {
    std::string path;
    std::string python;
    bool with_pip = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("venv", "Create a virtual environment (with the interpreter's venv module, without pip)");
  cmd->add_option("path", o->path, "Directory of the new environment")->required();
  cmd->add_option("--python", o->python, "Base interpreter (default: python3 on PATH)");
  cmd->add_flag("--with-pip", o->with_pip, "Also install pip (slow: runs ensurepip)");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      api::VenvRequest req;
      req.path = o->path;
      if (!o->python.empty()) req.python = o->python;
      req.with_pip = o->with_pip;
      auto report = api::create_venv(req);
      if (!report) return report_failure(report.error());
      fmt::print("{}", api::format_venv(*report));
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
