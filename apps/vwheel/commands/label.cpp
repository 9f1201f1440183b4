// `vwheel label -p PROP [-p PROP ...] [--label CUSTOM]`: prints a variant's label.

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/api/label.hpp"

namespace vwheel::cli {

void add_label_command(CLI::App& app, Dispatch& dispatch) {
  struct Options {
    std::vector<std::string> properties;
    std::string custom;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("label", "Print the label of a variant (its 8-hex hash, or `null`)");
  cmd->add_option("-p,--property", opts->properties, "Variant property `namespace :: feature :: value` (repeatable)");
  cmd->add_option("--label", opts->custom, "Validate and print this custom label instead of the hash");
  cmd->callback([opts, &dispatch] {
    dispatch.action = [opts]() -> int {
      api::LabelRequest req;
      req.properties = opts->properties;
      if (!opts->custom.empty()) req.custom = opts->custom;
      auto report = api::make_label(req);
      if (!report) {
        report_error(report.error());
        return kUserError;
      }
      for (const auto& w : report->warnings) report_warning(w);
      fmt::print("{}\n", report->label);
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
