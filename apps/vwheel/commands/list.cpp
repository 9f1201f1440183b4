// `vwheel list [--json] [--python PATH]`

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "vwheel/install/install.hpp"

namespace vwheel::cli {

void add_list_command(CLI::App& app, Dispatch& dispatch) {
  struct Options {
    std::string python;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("list", "List installed distributions with their installer and variant");
  cmd->add_option("--python", o->python, "Interpreter whose environment to list (default: $VIRTUAL_ENV, else python3)");
  cmd->add_flag("--json", o->json, "Print JSON");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      auto opened = install::open_environment(o->python.empty() ? std::nullopt : std::optional<std::filesystem::path>(o->python));
      if (!opened) {
        report_error(opened.error());
        return kEnvironment;
      }
      const auto dists = install::list_distributions(opened->env);
      if (o->json) {
        auto list = nlohmann::ordered_json::array();
        for (const auto& d : dists) {
          nlohmann::ordered_json j;
          j["name"] = d.name;
          j["version"] = d.version;
          j["installer"] = d.installer;
          j["variant"] = d.variant_label ? nlohmann::ordered_json(*d.variant_label) : nlohmann::ordered_json();
          j["variant_properties"] = d.variant_properties;
          list.push_back(std::move(j));
        }
        fmt::print("{}\n", list.dump(2));
        return kOk;
      }
      std::size_t wn = 7, wv = 7, wi = 9;
      for (const auto& d : dists) {
        wn = std::max(wn, d.name.size());
        wv = std::max(wv, d.version.size());
        wi = std::max(wi, d.installer.size());
      }
      fmt::print("{:<{}}  {:<{}}  {:<{}}  {}\n", "Package", wn, "Version", wv, "Installer", wi, "Variant");
      for (const auto& d : dists) {
        std::string variant;
        if (d.variant_label) {
          variant = d.variant_properties.empty() ? *d.variant_label + " (null variant)"
                                                 : fmt::format("{} ({})", *d.variant_label, fmt::join(d.variant_properties, ", "));
        }
        fmt::print("{:<{}}  {:<{}}  {:<{}}  {}\n", d.name, wn, d.version, wv, d.installer, wi, variant);
      }
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
