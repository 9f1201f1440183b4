// `vwheel lock REQ... | -r FILE [-o pylock.toml] [--target PROFILE]...`

#include <fmt/format.h>

#include "command.hpp"
#include "index_options.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/lock/pylock.hpp"
#include "vwheel/plan/plan.hpp"
#include "vwheel/python/interpreter.hpp"

namespace vwheel::cli {
namespace fs = std::filesystem;

void add_lock_command(CLI::App& app, Dispatch& dispatch) {
  struct Options {
    std::vector<std::string> items;
    std::vector<std::string> requirement_files;
    std::vector<std::string> constraint_files;
    std::vector<std::string> targets;
    std::string output = "pylock.toml";
    std::string python;
    IndexOptions index;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "lock", "Resolve requirements and write a pylock.toml listing every variant wheel, with [packages.variants-json]");
  cmd->add_option("items", o->items, "Requirements (PEP 508)");
  cmd->add_option("-r,--requirement", o->requirement_files, "Requirements file")
        ->allow_extra_args(false);
  cmd->add_option("-c,--constraint", o->constraint_files, "Constraints file")
        ->allow_extra_args(false);
  cmd->add_option("-o,--output", o->output, "Lock file to write (default pylock.toml)");
  cmd->add_option("--target", o->targets,
                  "Target profiles: lock only the wheels one of them can use (default: every variant)")
        ->allow_extra_args(false);
  cmd->add_option("--python", o->python, "Interpreter whose markers the lock is for (default: $VIRTUAL_ENV, else python3)");
  add_index_options(*cmd, o->index, true);
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      auto settings = make_settings(o->index);
      if (!settings) {
        report_error(settings.error());
        return kUsage;
      }
      plan::Requirements requirements;
      std::vector<fs::path> rfiles(o->requirement_files.begin(), o->requirement_files.end());
      std::vector<fs::path> cfiles(o->constraint_files.begin(), o->constraint_files.end());
      if (auto ok = plan::load_requirements(o->items, rfiles, cfiles, requirements, *settings); !ok) {
        report_error(ok.error());
        return kUserError;
      }
      if (requirements.roots.empty()) {
        report_error(Error("nothing to lock: give requirements or -r FILE"));
        return kUsage;
      }
      std::optional<python::Interpreter> interpreter;
      auto exe = python::find_interpreter(o->python.empty() ? std::nullopt : std::optional<fs::path>(o->python));
      if (exe) {
        auto q = python::query_interpreter(*exe);
        if (!q) {
          report_error(q.error());
          return kEnvironment;
        }
        interpreter = std::move(*q);
      } else if (o->targets.empty()) {
        report_error(Error("no Python interpreter found for the lock's markers: give --python or --target"));
        return kEnvironment;
      }
      std::vector<plan::Target> targets;
      for (const auto& t : o->targets) {
        plan::TargetRequest tr;
        tr.profile = fs::path(t);
        tr.interpreter = interpreter ? &*interpreter : nullptr;
        auto target = plan::make_target(tr);
        if (!target) {
          report_error(target.error());
          return kUserError;
        }
        targets.push_back(std::move(*target));
      }
      auto lock = plan::make_lock(requirements, *settings, targets,
                                  interpreter ? interpreter->environment
                                              : std::map<std::string, std::string, std::less<>>{});
      if (!lock) {
        report_explained_error(lock.error());
        return kUserError;
      }
      const auto text = lock::write_pylock(*lock);
      if (auto ok = write_file_atomic(o->output, text); !ok) {
        report_error(ok.error());
        return kEnvironment;
      }
      if (!o->index.quiet) {
        std::size_t wheels = 0;
        for (const auto& p : lock->packages) wheels += p.wheels.size();
        fmt::print("locked {} packages ({} wheels) in {}\n", lock->packages.size(), wheels, o->output);
      }
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
