// `vwheel sync pylock.toml [--target PROFILE] [--python PY]` and
// `vwheel export pylock.toml --format requirements.txt [--target PROFILE]`: the wheels of a lock
// chosen for one machine, installed exactly or written out.

#include <variant>

#include <fmt/format.h>

#include "command.hpp"
#include "index_options.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/install/install.hpp"
#include "vwheel/lock/pylock.hpp"
#include "vwheel/plan/plan.hpp"
#include "vwheel/python/interpreter.hpp"

namespace vwheel::cli {
namespace fs = std::filesystem;

namespace {

struct LockOptions {
  std::string lock_file;
  std::string target;
  std::string python;
  std::string report;
  std::string format = "requirements.txt";
  std::string output;
  bool dry_run = false;
  bool explain = false;
  bool compile = false;
  IndexOptions index;
};

/// Parses the lock and chooses its wheels for the target. Returns an exit code on failure.
std::variant<plan::Plan, int> choose_from_lock(const LockOptions& o, const python::Interpreter* interpreter,
                                               const std::vector<std::pair<std::string, std::string>>& installed,
                                               plan::Settings& settings) {
  auto text = read_file(o.lock_file);
  if (!text) {
    report_error(text.error());
    return kUserError;
  }
  auto lock = lock::parse_pylock(*text, o.lock_file);
  if (!lock) {
    // One line: the first problem, and how many more there are.
    Error e(lock.error().message);
    if (!lock.error().details.empty()) {
      e.message += fmt::format(" (and {} more problem{})", lock.error().details.size(),
                               lock.error().details.size() == 1 ? "" : "s");
    }
    report_error(e);
    return kUserError;
  }
  plan::TargetRequest tr;
  if (!o.target.empty()) tr.profile = fs::path(o.target);
  tr.interpreter = interpreter;
  tr.installed = installed;
  tr.no_cache = o.index.no_cache;
  auto target = plan::make_target(tr);
  if (!target) {
    report_error(target.error());
    return kUserError;
  }
  auto p = plan::plan_from_lock(*lock, fs::absolute(o.lock_file).parent_path(), *target, settings);
  if (!p) {
    report_error(p.error().with_context(o.lock_file));
    return kUserError;
  }
  return std::move(*p);
}

}  // namespace

void add_sync_command(CLI::App& app, Dispatch& dispatch) {
  auto o = std::make_shared<LockOptions>();
  CLI::App* cmd = app.add_subcommand(
      "sync", "Make an environment match a pylock.toml: the best variant of each package for this machine, nothing else");
  cmd->add_option("lock", o->lock_file, "The lock file (pylock.toml)")->required();
  cmd->add_option("--target", o->target, "Target profile (JSON) instead of this machine");
  cmd->add_option("--python", o->python, "Interpreter whose environment to sync (default: $VIRTUAL_ENV, else python3)");
  cmd->add_flag("--dry-run", o->dry_run, "Print what would change; change nothing");
  cmd->add_option("--report", o->report, "Write a JSON report of the choice");
  cmd->add_flag("--explain", o->explain, "Explain each variant choice");
  cmd->add_flag("--compile", o->compile, "Compile .py files to bytecode");
  cmd->add_flag("--no-cache", o->index.no_cache, "Use no cache");
  add_index_options(*cmd, o->index, false);
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      auto opened = install::open_environment(o->python.empty() ? std::nullopt : std::optional<fs::path>(o->python));
      if (!opened) {
        report_error(opened.error());
        return kEnvironment;
      }
      auto settings = make_settings(o->index);
      if (!settings) {
        report_error(settings.error());
        return kUsage;
      }
      std::vector<std::pair<std::string, std::string>> installed;
      for (const auto& d : install::list_distributions(opened->env)) installed.emplace_back(d.name, d.version);
      auto chosen = choose_from_lock(*o, &opened->interpreter, installed, *settings);
      if (auto* code = std::get_if<int>(&chosen)) return *code;
      const auto& p = std::get<plan::Plan>(chosen);
      if (!o->index.quiet) print_plan(p, o->explain);
      if (!o->report.empty()) {
        if (auto ok = write_file_atomic(o->report, plan::report_json(p, nullptr)); !ok) {
          report_error(ok.error());
          return kEnvironment;
        }
      }
      if (o->dry_run) return kOk;
      install::InstallOptions options;
      options.compile = o->compile;
      if (!o->index.no_cache) options.cache_dir = cache_root(o->index);
      auto applied = plan::apply_plan(p, opened->env, *settings, options, true, o->index.quiet);
      if (!applied) {
        report_error(applied.error());
        return kUserError;
      }
      if (!o->index.quiet) {
        for (const auto& d : applied->installed) fmt::print("installed {} {}\n", d.name, d.version);
        for (const auto& u : applied->removed) fmt::print("removed {} {}\n", u.name, u.version);
        if (applied->installed.empty() && applied->removed.empty()) {
          fmt::print("nothing to do: {} packages already as locked\n", applied->unchanged.size());
        }
      }
      return kOk;
    };
  });
}

void add_export_command(CLI::App& app, Dispatch& dispatch) {
  auto o = std::make_shared<LockOptions>();
  CLI::App* cmd = app.add_subcommand(
      "export", "Write the wheels a pylock.toml gives one target as a requirements.txt with hashes");
  cmd->add_option("lock", o->lock_file, "The lock file (pylock.toml)")->required();
  cmd->add_option("--format", o->format, "Output format (requirements.txt)")->check(CLI::IsMember({"requirements.txt"}));
  cmd->add_option("--target", o->target, "Target profile (JSON) instead of this machine");
  cmd->add_option("--python", o->python, "Interpreter whose markers and tags to use (default: $VIRTUAL_ENV, else python3)");
  cmd->add_option("-o,--output", o->output, "File to write (default: stdout)");
  add_index_options(*cmd, o->index, false);
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      std::optional<python::Interpreter> interpreter;
      if (auto exe = python::find_interpreter(o->python.empty() ? std::nullopt : std::optional<fs::path>(o->python))) {
        auto q = python::query_interpreter(*exe);
        if (!q) {
          report_error(q.error());
          return kEnvironment;
        }
        interpreter = std::move(*q);
      }
      auto settings = make_settings(o->index);
      if (!settings) {
        report_error(settings.error());
        return kUsage;
      }
      auto chosen = choose_from_lock(*o, interpreter ? &*interpreter : nullptr, {}, *settings);
      if (auto* code = std::get_if<int>(&chosen)) return *code;
      const auto text = plan::requirements_txt(std::get<plan::Plan>(chosen));
      if (o->output.empty()) {
        fmt::print("{}", text);
      } else if (auto ok = write_file_atomic(o->output, text); !ok) {
        report_error(ok.error());
        return kEnvironment;
      }
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
