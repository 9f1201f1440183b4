// `vwheel lock REQ... | -r FILE [-o pylock.toml] [--target PROFILE]...`

#include <fmt/format.h>

#include "command.hpp"
#include "index_options.hpp"
#include "vwheel/api/install.hpp"

namespace vwheel::cli {

void add_lock_command(CLI::App& app, Dispatch& dispatch) {
  struct Options {
    std::vector<std::string> items;
    std::vector<std::string> editables;
    std::vector<std::string> requirement_files;
    std::vector<std::string> constraint_files;
    std::string output = "pylock.toml";
    std::string python;
    std::string python_version;
    bool upgrade = false;
    std::vector<std::string> upgrade_packages;
    bool no_build_isolation = false;
    SelectionOptions selection;
    IndexOptions index;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "lock", "Resolve requirements and write a pylock.toml listing every variant wheel, with [packages.variants-json]");
  cmd->add_option("items", o->items, "Requirements (PEP 508)");
  cmd->add_option("-e,--editable", o->editables, "Lock a local project directory as an editable `directory` entry")
      ->allow_extra_args(false);
  cmd->add_option("-r,--requirement", o->requirement_files, "Requirements file")
        ->allow_extra_args(false);
  cmd->add_option("-c,--constraint", o->constraint_files, "Constraints file")
        ->allow_extra_args(false);
  cmd->add_option("-o,--output", o->output, "Lock file to write (default pylock.toml)");
  cmd->add_flag("-U,--upgrade", o->upgrade, "Re-resolve every project (default: keep an existing lock's versions)");
  cmd->add_option("-P,--upgrade-package", o->upgrade_packages,
                  "Re-resolve this project (repeatable); the others keep the existing lock's versions")
        ->allow_extra_args(false);
  add_selection_options(*cmd, o->selection, true);
  cmd->add_option("--python", o->python, "Interpreter whose markers the lock is for (default: $VIRTUAL_ENV, else python3)");
  cmd->add_option("--python-version", o->python_version,
                  "Pythons the lock covers, a PEP 440 specifier set (e.g. '>=3.11'); written as its requires-python");
  cmd->add_flag("--no-build-isolation", o->no_build_isolation,
                "Read the metadata of sdist-only versions with the interpreter's own packages as build requirements");
  add_index_options(*cmd, o->index, true);
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      api::LockRequest r;
      r.items = o->items;
      r.editables = o->editables;
      r.requirement_files.assign(o->requirement_files.begin(), o->requirement_files.end());
      r.constraint_files.assign(o->constraint_files.begin(), o->constraint_files.end());
      r.output = o->output;
      if (!o->python.empty()) r.python = o->python;
      if (!o->python_version.empty()) r.python_version = o->python_version;
      r.selection = o->selection.to_request();
      r.profiles.assign(o->selection.targets.begin(), o->selection.targets.end());
      r.sources = o->index.request;
      r.upgrade = o->upgrade;
      r.upgrade_packages = o->upgrade_packages;
      r.no_build_isolation = o->no_build_isolation;
      r.quiet = o->index.quiet;
      auto done = api::lock(r);
      if (!done) return report_failure(done.error());
      for (const auto& w : done->warnings) report_warning(w);
      if (!o->index.quiet) {
        fmt::print("locked {} packages ({} wheels) in {}\n", done->lock.packages.size(), done->wheels, o->output);
      }
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
