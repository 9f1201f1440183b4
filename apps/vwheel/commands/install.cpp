// `vwheel install WHEEL...` (local wheel files, no dependencies) and
// `vwheel install REQ... [-r FILE] [-c FILE]` (resolved against indexes and --find-links).

#include <unistd.h>

#include <fmt/format.h>

#include "command.hpp"
#include "index_options.hpp"
#include "interruptible.hpp"
#include "vwheel/api/install.hpp"
#include "vwheel/http/client.hpp"

namespace vwheel::cli {
namespace fs = std::filesystem;

namespace {

struct InstallCommandOptions {
  std::vector<std::string> items;
  std::vector<std::string> editables;
  std::vector<std::string> requirement_files;
  std::vector<std::string> constraint_files;
  std::string python;
  std::string report;
  SelectionOptions selection;
  IndexOptions index;
  bool compile = false;
  bool force_reinstall = false;
  bool ignore_variant = false;
  bool no_build_isolation = false;
  std::vector<std::string> no_binary;
  std::vector<std::string> only_binary;
  bool prefer_binary = false;
  bool no_build = false;
  bool verbose = false;
  unsigned build_timeout = 1800;
  bool no_deps = false;
  bool require_hashes = false;
  bool dry_run = false;
  bool explain = false;
  bool json = false;
  bool no_cache = false;
  WheelCacheOptions wheel_cache;
  unsigned jobs = 0;
  std::uint64_t max_total_size = std::uint64_t{8} << 30;
  std::uint64_t max_ratio = 1000;
};

Result<api::InstallRequest> make_request(const InstallCommandOptions& o) {
  api::InstallRequest r;
  // Each option's values in order, --no-binary's before --only-binary's: a name given to both is binary-only.
  for (const auto& [values, no_binary] : {std::pair{&o.no_binary, true}, std::pair{&o.only_binary, false}}) {
    for (const auto& v : *values) {
      if (auto ok = plan::add_format_option(r.formats, no_binary, v); !ok) {
        return fail(with_kind(ok.error(), ErrorKind::usage));
      }
    }
  }
  r.formats.prefer_binary = o.prefer_binary;
  r.no_build = o.no_build;
  r.verbose = o.verbose;
  if (o.build_timeout == 0) {
    return fail(with_kind(Error("--build-timeout 0: expected a number of seconds above 0"), ErrorKind::usage));
  }
  r.build_timeout = std::chrono::seconds(o.build_timeout);
  r.items = o.items;
  r.requirement_files.assign(o.requirement_files.begin(), o.requirement_files.end());
  r.constraint_files.assign(o.constraint_files.begin(), o.constraint_files.end());
  if (!o.python.empty()) r.python = o.python;
  r.selection = o.selection.to_request();
  r.selection.no_cache = o.no_cache;
  r.sources = o.index.request;
  r.sources.no_cache = o.no_cache;
  r.no_deps = o.no_deps;
  r.require_hashes = o.require_hashes;
  r.dry_run = o.dry_run;
  r.ignore_variant = o.ignore_variant;
  r.no_build_isolation = o.no_build_isolation;
  r.editables = o.editables;
  r.quiet = o.index.quiet || o.json;
  if (!o.report.empty()) r.report_file = o.report;
  r.want_report = o.json;
  r.options.compile = o.compile;
  o.wheel_cache.apply(r.options);
  r.options.force_reinstall = o.force_reinstall;
  r.options.jobs = o.jobs;
  r.options.limits.max_total_size = o.max_total_size;
  r.options.limits.max_ratio = o.max_ratio;
  return r;
}

void print_installed(const std::vector<install::Installed>& done) {
  for (const auto& d : done) {
    for (const auto& w : d.warnings) report_warning(w);
    if (d.skipped) {
      fmt::print("{} {} already installed (--force-reinstall reinstalls it)\n", d.name, d.version);
    } else if (d.replaced && *d.replaced != d.version) {
      fmt::print("installed {} {} (replacing {}){}\n", d.name, d.version, *d.replaced, d.from_cache ? " from cache" : "");
    } else {
      fmt::print("installed {} {}{}\n", d.name, d.version, d.from_cache ? " from cache" : "");
    }
  }
}

}  // namespace

void add_install_command(CLI::App& app, Dispatch& dispatch) {
  auto o = std::make_shared<InstallCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "install",
      "Install packages (resolved from indexes and --find-links, choosing the best variant for the target), or wheel "
      "files as given");
  cmd->add_option("items", o->items,
                  "Requirements (PEP 508, e.g. 'torch>=2.12'), and wheel files, project directories, sdists, "
                  "'name @ URL' and 'name @ git+URL@REV' references (built, their dependencies resolved with the "
                  "requirements)");
  cmd->add_option("-e,--editable", o->editables,
                  "Install the project directory PATH editable (PEP 660): its modules are imported from PATH")
        ->type_name("PATH")
        ->allow_extra_args(false);
  cmd->add_option("-r,--requirement", o->requirement_files, "Install from a requirements file")
        ->allow_extra_args(false);
  cmd->add_option("-c,--constraint", o->constraint_files, "Constrain versions with a constraints file")
        ->allow_extra_args(false);
  cmd->add_option("--python", o->python, "Interpreter whose environment to install into (default: $VIRTUAL_ENV, else python3)");
  add_selection_options(*cmd, o->selection);
  add_index_options(*cmd, o->index, true);
  cmd->add_flag("--no-deps", o->no_deps,
                "Do not install dependencies (wheel files: install even what breaks a requirement of an installed "
                "distribution, with a warning)");
  cmd->add_flag("--require-hashes", o->require_hashes, "Require a --hash in the requirement files for every package");
  cmd->add_flag("--dry-run", o->dry_run, "Resolve and print what would be installed; change nothing");
  cmd->add_option("--report", o->report, "Write a JSON report: packages, wheels, variants and why");
  cmd->add_flag("--explain", o->explain, "Explain each variant choice");
  cmd->add_flag("--json", o->json, "Print the JSON report on stdout instead of lines");
  cmd->add_flag("--compile", o->compile, "Compile .py files to bytecode (listed in RECORD)");
  cmd->add_flag("--force-reinstall", o->force_reinstall, "Reinstall when the same version is installed");
  cmd->add_flag("--no-build-isolation", o->no_build_isolation,
                "Project directories and sdists: build in the target environment, which has the build requirements, "
                "instead of a fresh one");
  cmd->add_option("--no-binary", o->no_binary,
                  "Do not use wheels of these projects (comma-separated names, :all: or :none:): build their sdists")
      ->type_name("NAMES")
      ->allow_extra_args(false);
  cmd->add_option("--only-binary", o->only_binary,
                  "Do not build sdists of these projects (comma-separated names, :all: or :none:): wheels only")
      ->type_name("NAMES")
      ->allow_extra_args(false);
  cmd->add_flag("--prefer-binary", o->prefer_binary,
                "Prefer an older version with a compatible wheel over a newer one that only an sdist gives");
  cmd->add_flag("--no-build", o->no_build,
                "Never build an sdist from an index or --find-links (fail naming it instead)");
  cmd->add_option("--build-timeout", o->build_timeout,
                  "Stop a build backend that runs longer than SECONDS (default 1800); nothing is installed")
      ->type_name("SECONDS");
  cmd->add_flag("-v,--verbose", o->verbose, "A failed build of an sdist: show the backend's last 20 lines");
  cmd->add_flag("--ignore-variant", o->ignore_variant,
                "Wheel files: install a variant wheel even when the target does not support its variant");
  cmd->add_flag("--no-cache", o->no_cache, "Use no cache (HTTP, wheels, detection)");
  add_wheel_cache_options(*cmd, o->wheel_cache);
  cmd->add_option("-j,--jobs", o->jobs, "Worker threads, and sdist builds at once (default: the number of CPUs)");
  cmd->add_option("--max-total-size", o->max_total_size, "Largest total uncompressed size of one wheel, bytes (default 8 GiB)");
  cmd->add_option("--max-ratio", o->max_ratio, "Largest compression ratio of a member over 1 MiB (default 1000)");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      return run_interruptible([o]() -> int {
        const bool lines = !o->index.quiet && !o->json;
        api::Observer observer;
        observer.on_warning = report_warning;
        if (lines) observer.on_plan = [o](const plan::Plan& p) { print_plan(p, o->explain); };
        // Builds take seconds: on a terminal (or with VWHEEL_PROGRESS=lines|bars), a line as each
        // begins and ends, on stderr beside the downloads' progress.
        const bool forced = http::ProgressDisplay::style_for(false) != http::ProgressDisplay::Style::automatic;
        if (lines && (forced || ::isatty(STDERR_FILENO) != 0)) {
          observer.on_build = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
        }
        auto request = make_request(*o);
        if (!request) return report_failure(request.error());
        auto done = api::install(*request, observer);
        if (!done) return report_failure(done.error());
        if (o->json) fmt::print("{}", done->report_json);
        if (!lines && !(done->from_files && o->dry_run)) return kOk;
        for (const auto& w : done->would_install) fmt::print("would install {}\n", w.filename().string());
        if (!lines) return kOk;
        print_installed(done->installed);
        for (const auto& u : done->unchanged) fmt::print("{} already installed\n", u);
        return kOk;
      });
    };
  });
}

}  // namespace vwheel::cli
