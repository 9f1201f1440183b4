// `vwheel build [SRC|SDIST] [-o DIST] [--sdist] [--variant LABEL]... [--all-variants] [--null] [-p PROP]...
//  [-C KEY=VALUE]... [--no-isolation | -i URL -f DIR --no-index --cert CA --proxy URL ...] [--no-variants-json]
//  [--python PY] [--timeout S] [-j N]
//  [--timings]`

#include <chrono>

#include <fmt/format.h>

#include "command.hpp"
#include "index_options.hpp"
#include "vwheel/api/build.hpp"

namespace vwheel::cli {

void add_build_command(CLI::App& app, Dispatch& dispatch) {
  struct Options {
    std::string source = ".";
    std::string output_dir;
    std::vector<std::string> labels;
    bool all_variants = false;
    bool null_variant = false;
    bool sdist = false;
    std::vector<std::string> properties;
    std::vector<std::string> config_settings;
    bool no_isolation = false;
    std::string python = "python3";
    double timeout = 1800;
    std::string format = "v0.0.3";
    bool skip_validation = false;
    std::vector<std::string> allow_python;
    bool no_index = false;
    unsigned jobs = 1;
    api::SourceRequest sources;
    bool timings = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "build",
      "Build a project's wheels with its PEP 517 backend: the variants of [variant.variants] (or --variant with "
      "-p), the null variant, or the plain wheel; then write the index's variants.json");
  cmd->add_option("source", o->source, "Source tree with pyproject.toml, or an sdist (.tar.gz) (default: .)");
  cmd->add_flag("--sdist", o->sdist, "Build the sdist first, then the wheels from it");
  cmd->add_option("-o,--output-dir", o->output_dir, "Where the wheels go (default: SRC/dist, or the sdist's folder; created)");
  // One value per occurrence, so `--variant v1 SRC` keeps SRC the source.
  cmd->add_option("--variant", o->labels, "Build this variant label (repeatable)")->allow_extra_args(false);
  cmd->add_flag("--all-variants", o->all_variants, "Build every label of [variant.variants]");
  cmd->add_flag("--null", o->null_variant, "Build the null variant");
  cmd->add_option("-p,--property", o->properties,
                  "Property `ns :: feature :: value` of the one --variant label, when the project has no "
                  "[variant.variants] table (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("-C,--config-setting", o->config_settings, "KEY=VALUE passed to the backend (repeatable)")
      ->allow_extra_args(false);
  cmd->add_flag("--no-isolation", o->no_isolation,
                "Use the interpreter's own environment for the build requirements (checked, not installed); by "
                "default each build gets a fresh venv that vwheel installs them into");
  cmd->add_option("-i,--index-url", o->sources.index_url, "Package index for the build requirements (as for install)");
  cmd->add_option("--extra-index-url", o->sources.extra_index_urls, "Further indexes for the build requirements")
      ->allow_extra_args(false);
  add_named_index_option(*cmd, o->sources,
                         "NAME=URL: a named index for the build requirements (as for install; its credentials may "
                         "come from VWHEEL_INDEX_<NAME>_USERNAME and _PASSWORD)");
  cmd->add_option("-f,--find-links", o->sources.find_links,
                  "A directory of wheels, or an HTML page of links, for the build requirements")
      ->allow_extra_args(false);
  cmd->add_flag("--no-index", o->sources.no_index, "Build requirements only from --find-links (as for install)");
  cmd->add_flag("--offline", o->sources.offline, "Build requirements only from --find-links and the cache");
  add_connection_options(*cmd, o->sources);
  cmd->add_option("--cache-dir", o->sources.cache_dir,
                  "Cache root for the build requirements (default: $XDG_CACHE_HOME/vwheel)");
  cmd->add_option("--python", o->python, "Interpreter that runs the backend (default: python3)");
  cmd->add_option("--timeout", o->timeout, "Seconds each backend hook may run (default: 1800)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--format", o->format, "variant.json format of the variants vwheel makes: v0.0.3 (default) or v0.1.1")
      ->check(CLI::IsMember({"v0.0.3", "v0.1.1"}));
  cmd->add_flag("--skip-provider-validation", o->skip_validation, "Do not check the properties against the providers");
  cmd->add_option("--allow-python-provider", o->allow_python,
                  "Run the pyproject's Python provider of this namespace to check its properties (repeatable)");
  cmd->add_flag("--no-variants-json", o->no_index, "Do not write {name}-{version}-variants.json into the output folder");
  cmd->add_flag("--timings", o->timings,
                "Print each build's time, and how much of it the backend's hooks took, to stderr");
  cmd->add_option("-j,--jobs", o->jobs, "Builds run in parallel (default: 1)")->check(CLI::PositiveNumber);
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      api::BuildRequest req;
      req.source = o->source;
      req.sdist = o->sdist;
      if (!o->output_dir.empty()) {
        req.output_dir = o->output_dir;
      } else {
        // Next to the sdist, or in the source tree's dist/.
        std::error_code ec;
        req.output_dir = std::filesystem::is_regular_file(req.source, ec) ? req.source.parent_path() : req.source / "dist";
        if (req.output_dir.empty()) req.output_dir = ".";
      }
      req.selection.labels = o->labels;
      req.selection.all_variants = o->all_variants;
      req.selection.null_variant = o->null_variant;
      req.selection.properties = o->properties;
      req.selection.config_settings = o->config_settings;
      req.no_isolation = o->no_isolation;
      req.sources = o->sources;
      req.python = o->python;
      req.timeout = std::chrono::milliseconds(static_cast<long long>(o->timeout * 1000));
      req.format = wheel::parse_variant_json_format(o->format).value_or(wheel::VariantJsonFormat::Draft003);
      req.validation.skip = o->skip_validation;
      req.validation.allow_python_providers = o->allow_python;
      req.index = !o->no_index;
      req.jobs = o->jobs;
      auto report = api::build(req);
      if (!report) return report_failure(report.error());
      for (const auto& w : report->warnings) report_warning(w);
      std::vector<std::string> failed;
      for (const auto& outcome : report->outcomes) {
        if (outcome.wheel) {
          fmt::print("{}\n", outcome.wheel->string());
          continue;
        }
        report_error(outcome.wheel.error());
        if (!outcome.backend_tail.empty()) {
          fmt::print(stderr, "  backend output (last lines):\n");
          std::string_view tail = outcome.backend_tail;
          while (!tail.empty()) {
            const auto nl = tail.find('\n');
            fmt::print(stderr, "    {}\n", tail.substr(0, nl));
            if (nl == std::string_view::npos) break;
            tail.remove_prefix(nl + 1);
          }
        }
        failed.push_back(outcome.job.sdist ? "(sdist)" : outcome.job.label.empty() ? "(plain wheel)" : outcome.job.label);
      }
      for (const auto& file : report->index_files) fmt::print("{}\n", file.string());
      if (o->timings) {
        // Seconds per build: the whole build, and the part spent in the backend's hooks.
        double total = 0;
        double backend = 0;
        for (const auto& outcome : report->outcomes) {
          const double t = static_cast<double>(outcome.total_time.count()) / 1000.0;
          const double b = static_cast<double>(outcome.backend_time.count()) / 1000.0;
          if (outcome.job.sdist) continue;
          total += t;
          backend += b;
          fmt::print(stderr, "vwheel: timings: {}: {:.3f} s, backend hooks {:.3f} s\n", outcome.job.describe(), t, b);
        }
        fmt::print(stderr, "vwheel: timings: all builds: {:.3f} s, backend hooks {:.3f} s, vwheel {:.3f} s ({:.1f}%)\n",
                   total, backend, total - backend, total > 0 ? 100.0 * (total - backend) / total : 0.0);
      }
      if (!failed.empty()) {
        fmt::print(stderr, "vwheel: {} of {} builds failed: {}\n", failed.size(), report->outcomes.size(),
                   fmt::join(failed, ", "));
        return kUserError;
      }
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
