// `vwheel venv PATH [--python PATH]`

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/core/process.hpp"
#include "vwheel/python/interpreter.hpp"

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
      // The active virtual environment is not the default base here: python3 on PATH is.
      std::optional<std::filesystem::path> exe;
      if (!o->python.empty()) {
        exe = o->python;
      } else {
        const char* path_env = std::getenv("PATH");
        exe = find_executable("python3", path_env != nullptr ? path_env : "/usr/bin:/bin");
      }
      if (!exe) {
        report_error(Error("no Python interpreter found (give --python PATH or put python3 on PATH)"));
        return kEnvironment;
      }
      ProcessRequest req;
      req.argv = {exe->string(), "-m", "venv"};
      if (!o->with_pip) req.argv.emplace_back("--without-pip");
      req.argv.push_back(o->path);
      req.env = current_environment();
      std::erase_if(req.env, [](const std::string& e) { return e.starts_with("VIRTUAL_ENV=") || e.starts_with("PYTHONHOME="); });
      req.timeout = std::chrono::minutes(5);
      auto run = run_process(req);
      if (!run) {
        report_error(run.error());
        return kEnvironment;
      }
      if (run->exit_code != 0) {
        report_error(Error(fmt::format("{} -m venv {}: failed (exit {}): {}", exe->string(), o->path, run->exit_code,
                                       last_line(run->err + run->out))));
        return kUserError;
      }
      fmt::print("created virtual environment {} ({})\n", o->path, exe->string());
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
