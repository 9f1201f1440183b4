// `vwheel install WHEEL...` (local wheel files, no dependencies) and
// `vwheel install REQ... [-r FILE] [-c FILE]` (resolved against indexes and --find-links).

#include <fmt/format.h>

#include "command.hpp"
#include "index_options.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/install/install.hpp"
#include "vwheel/install/select.hpp"
#include "vwheel/plan/plan.hpp"
#include "vwheel/provider/registry.hpp"

namespace vwheel::cli {
namespace fs = std::filesystem;

namespace {

struct Options {
  std::vector<std::string> items;
  std::vector<std::string> requirement_files;
  std::vector<std::string> constraint_files;
  std::string python;
  std::string target;
  std::string report;
  IndexOptions index;
  bool compile = false;
  bool force_reinstall = false;
  bool ignore_variant = false;
  bool no_deps = false;
  bool require_hashes = false;
  bool dry_run = false;
  bool explain = false;
  bool json = false;
  unsigned jobs = 0;
  std::uint64_t max_total_size = std::uint64_t{8} << 30;
  std::uint64_t max_ratio = 1000;
};

install::InstallOptions install_options(const Options& o) {
  install::InstallOptions options;
  options.compile = o.compile;
  options.force_reinstall = o.force_reinstall;
  options.jobs = o.jobs;
  options.limits.max_total_size = o.max_total_size;
  options.limits.max_ratio = o.max_ratio;
  if (!o.index.no_cache) options.cache_dir = cache_root(o.index);
  return options;
}

void print_installed(const std::vector<install::Installed>& done) {
  for (const auto& d : done) {
    if (d.skipped) {
      fmt::print("{} {} already installed (--force-reinstall reinstalls it)\n", d.name, d.version);
    } else if (d.replaced && *d.replaced != d.version) {
      fmt::print("installed {} {} (replacing {}){}\n", d.name, d.version, *d.replaced, d.from_cache ? " from cache" : "");
    } else {
      fmt::print("installed {} {}{}\n", d.name, d.version, d.from_cache ? " from cache" : "");
    }
  }
}

int install_files(const Options& o, const install::OpenedEnvironment& opened) {
  auto compat = install::make_compatibility(opened.interpreter,
                                            o.target.empty() ? std::nullopt : std::optional<fs::path>(o.target),
                                            o.index.no_cache);
  if (!compat) {
    report_error(compat.error());
    return kUserError;
  }
  std::vector<install::WheelRequest> requests;
  for (const auto& item : o.items) {
    if (auto ok = install::check_wheel(item, *compat, o.ignore_variant); !ok) {
      report_error(ok.error());
      return kUserError;
    }
    requests.push_back({item, true, true});
  }
  if (o.dry_run) {
    for (const auto& r : requests) fmt::print("would install {}\n", r.path.filename().string());
    return kOk;
  }
  auto done = install::install_wheels(opened.env, requests, install_options(o));
  if (!done) {
    report_error(done.error());
    return kUserError;
  }
  if (!o.index.quiet) print_installed(*done);
  return kOk;
}

int install_requirements(const Options& o, const install::OpenedEnvironment& opened) {
  auto settings = make_settings(o.index);
  if (!settings) {
    report_error(settings.error());
    return kUsage;
  }
  settings->no_deps = o.no_deps;
  settings->require_hashes = o.require_hashes;
  plan::Requirements requirements;
  std::vector<fs::path> rfiles(o.requirement_files.begin(), o.requirement_files.end());
  std::vector<fs::path> cfiles(o.constraint_files.begin(), o.constraint_files.end());
  if (auto ok = plan::load_requirements(o.items, rfiles, cfiles, requirements, *settings); !ok) {
    report_error(ok.error());
    return kUserError;
  }
  if (requirements.roots.empty()) {
    report_error(Error("nothing to install: give requirements, wheel files, or -r FILE"));
    return kUsage;
  }
  plan::TargetRequest tr;
  if (!o.target.empty()) tr.profile = fs::path(o.target);
  tr.interpreter = &opened.interpreter;
  for (const auto& d : install::list_distributions(opened.env)) tr.installed.emplace_back(d.name, d.version);
  tr.no_cache = o.index.no_cache;
  auto target = plan::make_target(tr);
  if (!target) {
    report_error(target.error());
    return kUserError;
  }
  auto p = plan::resolve_plan(requirements, *settings, *target);
  if (!p) {
    report_explained_error(p.error());
    return kUserError;
  }
  for (const auto& w : p->warnings) report_warning(w);
  if (!o.index.quiet && !o.json) print_plan(*p, o.explain);
  auto write_report = [&](const std::vector<install::Installed>* installed) -> bool {
    if (o.report.empty() && !o.json) return true;
    const auto text = plan::report_json(*p, installed);
    if (o.json) fmt::print("{}", text);
    if (!o.report.empty()) {
      if (auto ok = write_file_atomic(o.report, text); !ok) {
        report_error(ok.error());
        return false;
      }
    }
    return true;
  };
  if (o.dry_run) return write_report(nullptr) ? kOk : kEnvironment;
  auto applied = plan::apply_plan(*p, opened.env, *settings, install_options(o), false, o.index.quiet || o.json);
  if (!applied) {
    report_error(applied.error());
    return kUserError;
  }
  if (!o.index.quiet && !o.json) {
    print_installed(applied->installed);
    for (const auto& u : applied->unchanged) fmt::print("{} already installed\n", u);
  }
  return write_report(&applied->installed) ? kOk : kEnvironment;
}

bool all_wheel_files(const std::vector<std::string>& items) {
  if (items.empty()) return false;
  for (const auto& i : items) {
    if (!i.ends_with(".whl")) return false;
    std::error_code ec;
    if (!fs::is_regular_file(i, ec)) return false;
  }
  return true;
}

}  // namespace

void add_install_command(CLI::App& app, Dispatch& dispatch) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "install",
      "Install packages (resolved from indexes and --find-links, choosing the best variant for the target), or wheel "
      "files as given");
  cmd->add_option("items", o->items, "Requirements (PEP 508, e.g. 'torch>=2.12'), or wheel files");
  cmd->add_option("-r,--requirement", o->requirement_files, "Install from a requirements file")
        ->allow_extra_args(false);
  cmd->add_option("-c,--constraint", o->constraint_files, "Constrain versions with a constraints file")
        ->allow_extra_args(false);
  cmd->add_option("--python", o->python, "Interpreter whose environment to install into (default: $VIRTUAL_ENV, else python3)");
  cmd->add_option("--target", o->target,
                  "Target profile (JSON): choose variants, tags and markers for that machine instead of this one");
  add_index_options(*cmd, o->index, true);
  cmd->add_flag("--no-deps", o->no_deps, "Do not install dependencies");
  cmd->add_flag("--require-hashes", o->require_hashes, "Require a --hash in the requirement files for every package");
  cmd->add_flag("--dry-run", o->dry_run, "Resolve and print what would be installed; change nothing");
  cmd->add_option("--report", o->report, "Write a JSON report: packages, wheels, variants and why");
  cmd->add_flag("--explain", o->explain, "Explain each variant choice");
  cmd->add_flag("--json", o->json, "Print the JSON report on stdout instead of lines");
  cmd->add_flag("--compile", o->compile, "Compile .py files to bytecode (listed in RECORD)");
  cmd->add_flag("--force-reinstall", o->force_reinstall, "Reinstall when the same version is installed");
  cmd->add_flag("--ignore-variant", o->ignore_variant,
                "Wheel files: install a variant wheel even when the target does not support its variant");
  cmd->add_flag("--no-cache", o->index.no_cache, "Use no cache (HTTP, wheels, detection)");
  cmd->add_option("-j,--jobs", o->jobs, "Worker threads (default: the number of CPUs)");
  cmd->add_option("--max-total-size", o->max_total_size, "Largest total uncompressed size of one wheel, bytes (default 8 GiB)");
  cmd->add_option("--max-ratio", o->max_ratio, "Largest compression ratio of a member over 1 MiB (default 1000)");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      auto opened = install::open_environment(o->python.empty() ? std::nullopt : std::optional<fs::path>(o->python));
      if (!opened) {
        report_error(opened.error());
        return kEnvironment;
      }
      if (all_wheel_files(o->items) && o->requirement_files.empty()) return install_files(*o, *opened);
      return install_requirements(*o, *opened);
    };
  });
}

}  // namespace vwheel::cli
