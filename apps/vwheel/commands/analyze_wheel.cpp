// `vwheel analyze-wheel WHEEL... [--json] [--target PROFILE]`

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/api/maintain.hpp"

namespace vwheel::cli {

void add_analyze_wheel_command(CLI::App& app, Dispatch& dispatch) {
  struct Options {
    std::vector<std::string> wheels;
    std::string target;
    std::string config;
    bool json = false;
    bool no_cache = false;
    std::vector<std::string> allow_python;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "analyze-wheel",
      "Describe wheels: file-name parts, variant label, properties, providers, and whether and how well the "
      "target supports each among the given wheels");
  cmd->add_option("wheels", o->wheels, "Wheels to describe")->required();
  cmd->add_option("--target", o->target, "Target profile (JSON) instead of detecting this machine");
  cmd->add_option("--config", o->config, "User configuration (variants.toml) with priority overrides");
  cmd->add_flag("--json", o->json, "Print JSON");
  cmd->add_flag("--no-cache", o->no_cache, "Do not use the detection cache");
  cmd->add_option("--allow-python-provider", o->allow_python,
                  "Allow the Python provider of this namespace to run (isolated; repeatable)");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      api::AnalyzeRequest req;
      req.wheels.assign(o->wheels.begin(), o->wheels.end());
      if (!o->target.empty()) req.target = o->target;
      if (!o->config.empty()) req.config = o->config;
      req.no_cache = o->no_cache;
      req.allow_python_providers = o->allow_python;
      auto report = api::analyze_wheels(req);
      if (!report) {
        report_error(report.error());
        return kUserError;
      }
      for (const auto& w : report->warnings) report_warning(w);
      fmt::print("{}", o->json ? api::format_analyze_json(*report) : api::format_analyze_plain(*report));
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
