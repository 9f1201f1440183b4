// `vwheel sync pylock.toml [--target PROFILE] [--python PY] [--extra E] [--group G] ...` and
// `vwheel export pylock.toml --format requirements.txt [--target PROFILE] [--extra E] ...`: the
// wheels of a lock chosen for one machine (PEP 751's installation steps), installed exactly or
// written out.

#include <fmt/format.h>

#include "command.hpp"
#include "index_options.hpp"
#include "interruptible.hpp"
#include "vwheel/api/download.hpp"
#include "vwheel/api/install.hpp"

namespace vwheel::cli {

namespace {

struct LockOptions {
  std::string lock_file;
  std::string python;
  std::string report;
  std::string format = "requirements.txt";
  std::string output;
  bool dry_run = false;
  bool locked = false;
  bool explain = false;
  bool compile = false;
  bool no_cache = false;
  bool no_build_isolation = false;
  bool download_only = false;
  std::string dest;
  plan::LockSelection asked;
  WheelCacheOptions wheel_cache;
  SelectionOptions selection;
  IndexOptions index;

  [[nodiscard]] api::SyncRequest request() const {
    api::SyncRequest r;
    r.lock_file = lock_file;
    r.lock_selection = asked;
    if (!python.empty()) r.python = python;
    r.selection = selection.to_request();
    r.selection.no_cache = no_cache;
    r.sources = index.request;
    r.sources.no_cache = no_cache;
    r.dry_run = dry_run;
    r.locked = locked;
    r.no_build_isolation = no_build_isolation;
    r.quiet = index.quiet;
    if (!report.empty()) r.report_file = report;
    r.options.compile = compile;
    wheel_cache.apply(r.options);
    return r;
  }

  /// `sync --download-only -d DIR`: `vwheel download --lock` for the one machine the options describe.
  [[nodiscard]] api::DownloadRequest download_request() const {
    api::DownloadRequest r;
    r.lock_file = lock_file;
    r.lock_selection = asked;
    r.dest = dest;
    if (!python.empty()) r.python = python;
    r.targets.push_back(selection.to_request());
    r.targets.back().no_cache = no_cache;
    r.sources = index.request;
    r.sources.no_cache = no_cache;
    r.quiet = index.quiet;
    return r;
  }
};

/// PEP 751's `extras` and `dependency_groups`: what of the lock to install besides its default.
void add_lock_selection_options(CLI::App& cmd, plan::LockSelection& asked) {
  auto* extra = cmd.add_option("--extra", asked.extras, "Install what the lock marks for this extra (repeatable)");
  auto* all = cmd.add_flag("--all-extras", asked.all_extras, "Install what the lock marks for any of its extras");
  all->excludes(extra);
  auto* group = cmd.add_option("--group", asked.groups,
                               "Install what the lock marks for this dependency group too (repeatable)");
  auto* no_default = cmd.add_flag("--no-default-groups", asked.no_default_groups,
                                  "Leave out the lock's default-groups");
  auto* only = cmd.add_option("--only-group", asked.only_groups,
                              "Install only what the lock marks for this group (repeatable; no default groups)");
  only->excludes(group)->excludes(no_default);
}

}  // namespace

void add_sync_command(CLI::App& app, Dispatch& dispatch) {
  auto o = std::make_shared<LockOptions>();
  CLI::App* cmd = app.add_subcommand(
      "sync", "Make an environment match a pylock.toml: the best variant of each package for this machine, nothing else");
  cmd->add_option("lock", o->lock_file, "The lock file (pylock.toml)")->required();
  cmd->add_option("--python", o->python, "Interpreter whose environment to sync (default: $VIRTUAL_ENV, else python3)");
  add_selection_options(*cmd, o->selection);
  add_lock_selection_options(*cmd, o->asked);
  cmd->add_flag("--locked", o->locked,
                "Fail when the lock was made from a project whose pyproject.toml changed since (run vwheel lock)");
  cmd->add_flag("--dry-run", o->dry_run, "Print what would change; change nothing");
  cmd->add_option("--report", o->report, "Write a JSON report of the choice");
  cmd->add_flag("--explain", o->explain, "Explain each variant choice");
  cmd->add_flag("--compile", o->compile, "Compile .py files to bytecode");
  cmd->add_flag("--no-cache", o->no_cache, "Use no cache");
  cmd->add_flag("--no-build-isolation", o->no_build_isolation,
                "Build sdists, archives, directories and vcs entries in the target environment, which must have "
                "their build requirements");
  add_wheel_cache_options(*cmd, o->wheel_cache);
  add_index_options(*cmd, o->index, false);
  auto* download_only = cmd->add_flag(
      "--download-only", o->download_only,
      "Install nothing: save the files this machine (or --target) would install into -d DIR, as `vwheel download "
      "--lock` does");
  cmd->add_option("-d,--dest", o->dest, "--download-only: the folder to save into")->needs(download_only);
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      return run_interruptible([o]() -> int {
        if (o->download_only) {
          if (o->dest.empty()) {
            report_error(Error("--download-only needs -d DIR, the folder to save into"));
            return kUsage;
          }
          return run_download(o->download_request(), o->index.quiet);
        }
        api::Observer observer;
        observer.on_warning = report_warning;
        if (!o->index.quiet) observer.on_plan = [o](const plan::Plan& p) { print_plan(p, o->explain); };
        auto done = api::sync(o->request(), observer);
        if (!done) return report_failure(done.error());
        if (o->index.quiet || !done->applied) return kOk;
        const auto& applied = *done->applied;
        for (const auto& d : applied.installed) fmt::print("installed {} {}\n", d.name, d.version);
        for (const auto& u : applied.removed) fmt::print("removed {} {}\n", u.name, u.version);
        if (applied.installed.empty() && applied.removed.empty()) {
          fmt::print("nothing to do: {} packages already as locked\n", applied.unchanged.size());
        }
        return kOk;
      });
    };
  });
}

void add_export_command(CLI::App& app, Dispatch& dispatch) {
  auto o = std::make_shared<LockOptions>();
  CLI::App* cmd = app.add_subcommand(
      "export", "Write the wheels a pylock.toml gives one target as a requirements.txt with hashes");
  cmd->add_option("lock", o->lock_file, "The lock file (pylock.toml)")->required();
  cmd->add_option("--format", o->format, "Output format (requirements.txt)")->check(CLI::IsMember({"requirements.txt"}));
  cmd->add_option("--python", o->python, "Interpreter whose markers and tags to use (default: $VIRTUAL_ENV, else python3)");
  add_selection_options(*cmd, o->selection);
  add_lock_selection_options(*cmd, o->asked);
  cmd->add_flag("--locked", o->locked,
                "Fail when the lock was made from a project whose pyproject.toml changed since (run vwheel lock)");
  cmd->add_option("-o,--output", o->output, "File to write (default: stdout)");
  add_index_options(*cmd, o->index, false);
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      std::optional<std::filesystem::path> output;
      if (!o->output.empty()) output = o->output;
      auto text = api::export_lock(o->request(), output);
      if (!text) return report_failure(text.error());
      if (!output) fmt::print("{}", *text);
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
