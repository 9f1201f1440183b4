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
      int rc = kOk;
      for (const auto& f : *files) {
        auto problems = api::validate_file(f);
        if (!problems) {
          report_error(problems.error());
          rc = kUserError;
          continue;
        }
        for (const auto& p : *problems) fmt::print("{}\n", p);
        if (!problems->empty()) rc = kUserError;
      }
      return rc;
    };
  });
}

}  // namespace vwheel::cli
