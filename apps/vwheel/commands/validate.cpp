// `vwheel validate FILE...`: exit 0 when every file is valid, else one line per problem.

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/api/validate.hpp"

namespace vwheel::cli {

void add_validate_command(CLI::App& app, Dispatch& dispatch) {
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "Check variant.json, *-variants.json or pyproject.toml files; one line per problem");
  cmd->add_option("files", *files, "Files to check")->required();
  cmd->callback([files, &dispatch] {
    dispatch.action = [files]() -> int {
      const auto report = api::validate_files({files->begin(), files->end()});
      for (const auto& e : report.errors) report_error(e);
      for (const auto& p : report.problems) fmt::print("{}\n", p);
      return report.valid() ? kOk : kUserError;
    };
  });
}

}  // namespace vwheel::cli
