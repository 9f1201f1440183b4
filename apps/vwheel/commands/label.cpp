// `vwheel label -p PROP [-p PROP ...] [--label CUSTOM]`: prints a variant's label.

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/variant/label.hpp"

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
      std::vector<variant::Property> props;
      for (const auto& text : opts->properties) {
        auto p = variant::parse_property(text);
        if (!p) {
          report_error(p.error().with_context("--property"));
          return kUserError;
        }
        props.push_back(std::move(*p));
      }
      auto set = variant::make_property_set(std::move(props));
      if (!set) {
        report_error(set.error());
        return kUserError;
      }
      std::optional<std::string> custom;
      if (!opts->custom.empty()) custom = opts->custom;
      auto label = variant::make_label(*set, custom);
      if (!label) {
        report_error(label.error().with_context("--label"));
        return kUserError;
      }
      if (label->size() > variant::kMaxPortableLabelLength) {
        report_warning(fmt::format("label `{}` is longer than {} characters; today's variant-enabled installers "
                                   "reject such wheels",
                                   *label, variant::kMaxPortableLabelLength));
      }
      fmt::print("{}\n", *label);
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
