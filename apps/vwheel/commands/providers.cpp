// `vwheel providers [--json]`: every provider, its version, whether it is enabled here and why.

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/api/platform.hpp"

namespace vwheel::cli {

void add_providers_command(CLI::App& app, Dispatch& dispatch) {
  struct Options {
    bool json = false;
    bool no_cache = false;
    std::string config;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("providers", "List every variant provider and whether it is enabled here");
  cmd->add_flag("--json", o->json, "Print JSON");
  cmd->add_flag("--no-cache", o->no_cache, "Detect again instead of reading the detection cache");
  cmd->add_option("--config", o->config, "User configuration (its allow_python_providers list)");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      api::ProvidersRequest req;
      if (!o->config.empty()) req.config = o->config;
      req.no_cache = o->no_cache;
      auto report = api::list_providers(req);
      if (!report) {
        report_error(report.error());
        return kUserError;
      }
      fmt::print("{}", o->json ? api::format_providers_json(*report) : api::format_providers_text(*report));
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
