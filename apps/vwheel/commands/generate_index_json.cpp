// `vwheel generate-index-json DIR [-o OUTDIR] [--format v0.0.3|v0.1.1] [--skip-invalid] [-j N]`

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/parallel.hpp"
#include "vwheel/wheel/index_json.hpp"

namespace vwheel::cli {

void add_generate_index_json_command(CLI::App& app, Dispatch& dispatch) {
  struct Options {
    std::string dir;
    std::string output_dir;
    std::string format = "auto";
    bool skip_invalid = false;
    bool quiet = false;
    unsigned jobs = 0;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "generate-index-json",
      "Write one {name}-{version}-variants.json per package version from the variant wheels in a directory "
      "(reads only their central directory and variant.json)");
  cmd->add_option("dir", o->dir, "Directory of wheels")->required();
  cmd->add_option("-o,--output-dir", o->output_dir, "Where to write the files (default: DIR)");
  cmd->add_option("--format", o->format,
                  "Output format: v0.0.3 (draft, with providers), v0.1.1 (PEP 825), or auto (v0.1.1 when every "
                  "wheel's variant.json is v0.1.x; default)")
      ->check(CLI::IsMember({"auto", "v0.0.3", "v0.1.1"}));
  cmd->add_flag("--skip-invalid", o->skip_invalid,
                "Skip unreadable variant wheels with a warning instead of failing (variantlib's behaviour)");
  cmd->add_flag("-q,--quiet", o->quiet, "Print nothing but errors and warnings");
  cmd->add_option("-j,--jobs", o->jobs, "Wheels read in parallel (default: the number of CPUs)");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      auto wheels = wheel::list_wheels(o->dir);
      if (!wheels) {
        report_error(wheels.error());
        return kUserError;
      }
      const std::filesystem::path out = o->output_dir.empty() ? o->dir : o->output_dir;
      std::error_code ec;
      if (!std::filesystem::is_directory(out, ec)) {
        report_error(Error(fmt::format("output directory `{}` does not exist", out.string())));
        return kUserError;
      }
      wheel::IndexJsonOptions options;
      options.format = wheel::parse_variant_json_format(o->format);
      options.skip_invalid = o->skip_invalid;
      options.jobs = o->jobs == 0 ? default_jobs() : o->jobs;
      auto result = wheel::build_index_json(*wheels, options);
      if (!result) {
        report_error(result.error());
        return kUserError;
      }
      for (const auto& w : result->warnings) report_warning(w);
      for (const auto& f : result->files) {
        if (auto ok = write_file_atomic(out / f.filename, f.text); !ok) {
          report_error(ok.error());
          return kEnvironment;
        }
        if (!o->quiet) fmt::print("{}\n", (out / f.filename).string());
      }
      if (!o->quiet) {
        const double pct = result->bytes_total == 0 ? 0.0 : 100.0 * static_cast<double>(result->bytes_read) /
                                                                 static_cast<double>(result->bytes_total);
        fmt::print(stderr, "vwheel: {} file(s) from {} variant wheel(s) of {} wheel(s); read {} of {} bytes ({:.3f}%)\n",
                   result->files.size(), result->variant_wheels, wheels->size(), result->bytes_read,
                   result->bytes_total, pct);
      }
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
