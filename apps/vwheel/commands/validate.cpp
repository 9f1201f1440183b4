// `vwheel validate [--strict] [--json] FILE...`: one line per finding; exit 1 when there is an
// error (with --strict: any finding) or an unreadable file, else 0.

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/api/validate.hpp"

namespace vwheel::cli {

void add_validate_command(CLI::App& app, Dispatch& dispatch) {
  struct Options {
    std::vector<std::string> files;
    bool strict = false;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Check variant.json, *-variants.json or pyproject.toml files; one line per error or warning, exit 1 on errors");
  cmd->add_option("files", o->files, "Files to check")->required();
  cmd->add_flag("--strict", o->strict, "Treat warnings as errors (exit 1 on any finding)");
  cmd->add_flag("--json", o->json, "Print the findings as a JSON array (file, pointer, severity, rule, message)");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      const auto report = api::validate_files({o->files.begin(), o->files.end()});
      if (o->json) {
        fmt::print("{}\n", api::findings_json(report));
      } else {
        for (const auto& e : report.errors) report_error(e.error);
        for (const auto& f : report.findings) fmt::print("{}\n", api::format_finding(f));
      }
      return report.valid(o->strict) ? kOk : kUserError;
    };
  });
}

}  // namespace vwheel::cli
