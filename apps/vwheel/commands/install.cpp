// `vwheel install WHEEL... | --find-links DIR NAME...`

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/install/install.hpp"
#include "vwheel/install/select.hpp"
#include "vwheel/provider/registry.hpp"

namespace vwheel::cli {

void add_install_command(CLI::App& app, Dispatch& dispatch) {
  struct Options {
    std::vector<std::string> items;
    std::string python;
    std::string target;
    std::string find_links;
    std::string cache_dir;
    bool compile = false;
    bool force_reinstall = false;
    bool ignore_variant = false;
    bool pre = false;
    bool no_cache = false;
    bool no_deps = false;
    unsigned jobs = 0;
    std::uint64_t max_total_size = std::uint64_t{8} << 30;
    std::uint64_t max_ratio = 1000;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "install",
      "Install wheel files (or the best local candidates with --find-links) into a Python environment, without "
      "dependencies");
  cmd->add_option("items", o->items, "Wheel files, or project names (NAME or NAME==VERSION) with --find-links")->required();
  cmd->add_option("--python", o->python, "Interpreter whose environment to install into (default: $VIRTUAL_ENV, else python3)");
  cmd->add_option("--target", o->target,
                  "Target profile (JSON) for variant support and, when it has them, tags, instead of this machine");
  cmd->add_option("--find-links", o->find_links, "Choose among the wheels in this directory");
  cmd->add_flag("--pre", o->pre, "With --find-links: allow pre-release versions");
  cmd->add_flag("--compile", o->compile, "Compile .py files to bytecode (listed in RECORD)");
  cmd->add_flag("--force-reinstall", o->force_reinstall, "Reinstall when the same version is installed");
  cmd->add_flag("--ignore-variant", o->ignore_variant,
                "Install a variant wheel even when its variant is not supported by the target (tags are still checked)");
  cmd->add_flag("--no-deps", o->no_deps, "Accepted for compatibility; dependencies are never installed");
  cmd->add_flag("--no-cache", o->no_cache, "Do not use the unpacked-wheel cache (nor the detection cache)");
  cmd->add_option("--cache-dir", o->cache_dir, "Cache root (default: $XDG_CACHE_HOME/vwheel)");
  cmd->add_option("-j,--jobs", o->jobs, "Worker threads (default: the number of CPUs)");
  cmd->add_option("--max-total-size", o->max_total_size, "Largest total uncompressed size of one wheel, bytes (default 8 GiB)");
  cmd->add_option("--max-ratio", o->max_ratio, "Largest compression ratio of a member over 1 MiB (default 1000)");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      auto opened = install::open_environment(o->python.empty() ? std::nullopt : std::optional<std::filesystem::path>(o->python));
      if (!opened) {
        report_error(opened.error());
        return kEnvironment;
      }
      auto compat = install::make_compatibility(opened->interpreter.tags,
                                                o->target.empty() ? std::nullopt : std::optional<std::filesystem::path>(o->target),
                                                o->no_cache);
      if (!compat) {
        report_error(compat.error());
        return kUserError;
      }
      std::vector<install::WheelRequest> requests;
      for (const auto& item : o->items) {
        if (!o->find_links.empty()) {
          auto choice = install::choose_wheel(o->find_links, item, *compat, o->pre);
          if (!choice) {
            report_error(choice.error());
            return kUserError;
          }
          fmt::print("{}\n", install::describe_choice(*choice));
          requests.push_back({choice->wheel, true, false});
        } else {
          if (auto ok = install::check_wheel(item, *compat, o->ignore_variant); !ok) {
            report_error(ok.error());
            return kUserError;
          }
          requests.push_back({item, true, true});
        }
      }
      install::InstallOptions options;
      options.compile = o->compile;
      options.force_reinstall = o->force_reinstall;
      options.jobs = o->jobs;
      options.limits.max_total_size = o->max_total_size;
      options.limits.max_ratio = o->max_ratio;
      if (!o->no_cache) {
        options.cache_dir = o->cache_dir.empty() ? provider::default_cache_dir() : std::filesystem::path(o->cache_dir);
      }
      auto done = install::install_wheels(opened->env, requests, options);
      if (!done) {
        report_error(done.error());
        return kUserError;
      }
      for (const auto& d : *done) {
        if (d.skipped) {
          fmt::print("{} {} already installed (--force-reinstall reinstalls it)\n", d.name, d.version);
        } else if (d.replaced) {
          fmt::print("installed {} {} (replacing {}){}\n", d.name, d.version, *d.replaced, d.from_cache ? " from cache" : "");
        } else {
          fmt::print("installed {} {}{}\n", d.name, d.version, d.from_cache ? " from cache" : "");
        }
      }
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
