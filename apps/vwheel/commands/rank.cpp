// `vwheel rank VARIANTS_JSON [--target PROFILE] [--config VARIANTS_TOML] [--json] [--explain] ...`

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/api/rank.hpp"

namespace vwheel::cli {

void add_rank_command(CLI::App& app, Dispatch& dispatch) {
  struct Options {
    std::string file;
    std::string target;
    std::string config;
    bool all_optional = false;
    std::vector<std::string> optional;
    std::vector<std::string> abi;
    bool json = false;
    bool explain = false;
    bool no_cache = false;
    std::vector<std::string> allow_python;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "rank", "Print the variants of a *-variants.json file that the target supports, best first");
  cmd->add_option("variants_json", o->file, "Index-level {name}-{version}-variants.json file")->required();
  cmd->add_option("--target", o->target, "Target profile (JSON) to rank for, instead of detecting this machine");
  cmd->add_option("--config", o->config, "User configuration (variants.toml) with priority overrides");
  auto* all = cmd->add_flag("--enable-optional-providers", o->all_optional, "Enable every optional provider");
  cmd->add_option("--enable-optional-provider", o->optional, "Enable the optional provider of this namespace")
      ->excludes(all);
  cmd->add_option("--abi-dependency", o->abi, "Installed distribution NAME==VERSION for the abi_dependency namespace");
  auto* json = cmd->add_flag("--json", o->json, "Print the ranking as JSON");
  cmd->add_flag("--explain", o->explain, "Explain the rank of every label, or why it is incompatible")->excludes(json);
  cmd->add_flag("--no-cache", o->no_cache, "Do not use the detection cache");
  cmd->add_option("--allow-python-provider", o->allow_python,
                  "Allow the package's Python provider for this namespace to run, in an isolated virtual "
                  "environment (repeatable; never without this option or the configuration's allow-list)");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      api::RankRequest req;
      req.variants_json = o->file;
      if (!o->target.empty()) req.target = o->target;
      if (!o->config.empty()) req.config = o->config;
      req.enable_all_optional = o->all_optional;
      req.enabled_optional = o->optional;
      req.abi_dependencies = o->abi;
      req.no_cache = o->no_cache;
      req.allow_python_providers = o->allow_python;
      auto report = api::rank(req);
      if (!report) {
        report_error(report.error());
        return kUserError;
      }
      if (o->json) {
        fmt::print("{}", api::format_rank_json(*report));
      } else if (o->explain) {
        fmt::print("{}", api::format_rank_explain(*report));
      } else {
        fmt::print("{}", api::format_rank_plain(*report));
        if (report->ranking.order.empty()) {
          fmt::print(stderr, "vwheel: note: no variant in {} is compatible with {}{}\n", o->file,
                     report->target_description, " (run with --explain to see why)");
        }
      }
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
