// `vwheel analyze-platform [--json] [--namespace NS] [--no-cache] [--python PATH]`

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/api/platform.hpp"

namespace vwheel::cli {

void add_analyze_platform_command(CLI::App& app, Dispatch& dispatch) {
  struct Options {
    bool json = false;
    std::vector<std::string> namespaces;
    bool no_cache = false;
    std::string python;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "analyze-platform", "Show what this machine supports, per variant namespace, in preference order");
  cmd->add_flag("--json", o->json,
                "Print a target profile (properties, plus environment and tags of the Python interpreter) "
                "that every --target accepts");
  cmd->add_option("--namespace", o->namespaces,
                  "Only this namespace (repeatable); with --json, a partial profile: those namespaces and "
                  "\"detect\": true, for --target next to other files or detection")
      ->allow_extra_args(false);
  cmd->add_flag("--no-cache", o->no_cache, "Detect again instead of reading the detection cache");
  cmd->add_option("--python", o->python, "Interpreter whose environment and tags go into --json");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      api::PlatformRequest req;
      req.no_cache = o->no_cache;
      req.namespaces = o->namespaces;
      // A partial profile (--namespace) carries no environment or tags: no interpreter is asked.
      req.with_interpreter = o->json && o->namespaces.empty();
      if (!o->python.empty()) req.python = o->python;
      auto report = api::analyze_platform(req);
      if (!report) {
        report_error(report.error());
        return kUserError;
      }
      if (o->json) {
        if (!report->interpreter_note.empty()) report_warning(report->interpreter_note);
        fmt::print("{}", api::format_platform_profile(*report));
      } else {
        fmt::print("{}", api::format_platform_text(*report));
      }
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
