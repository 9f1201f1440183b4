// `vwheel providers [--json]`: every provider, its version, whether it is enabled here and why.

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/api/platform.hpp"
#include "vwheel/config/user_config.hpp"

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
      std::optional<std::filesystem::path> cfg_path;
      if (!o->config.empty()) cfg_path = o->config;
      auto cfg = config::load_user_config(cfg_path);
      if (!cfg) {
        report_error(cfg.error());
        return kUserError;
      }
      const auto machine = provider::detect_machine(provider::DetectOptions{!o->no_cache, std::nullopt});
      fmt::print("{}", o->json ? api::format_providers_json(machine, cfg->allow_python_providers)
                               : api::format_providers_text(machine, cfg->allow_python_providers));
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
