#include "vwheel/api/index.hpp"

#include <system_error>

#include <fmt/format.h>

#include "vwheel/core/fs.hpp"
#include "vwheel/core/parallel.hpp"
#include "vwheel/wheel/index_json.hpp"

namespace vwheel::api {
namespace {

Result<void> require_directory(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return fail(fmt::format("output directory `{}` does not exist", dir.string()));
  return {};
}

}  // namespace

Result<BuildIndexReport> build_index(const BuildIndexRequest& request) {
  auto options = request.options;
  if (options.jobs == 0) options.jobs = default_jobs();
  auto build = index::build_site(options);
  if (!build) return fail(build.error());
  return BuildIndexReport{options.site, std::move(*build)};
}

std::string format_build_summary(const BuildIndexReport& report) {
  const auto& b = report.build;
  return fmt::format(
      "vwheel: {}: {} project(s), {} file(s), {} variants.json; hashed {}, placed {} ({} copied), "
      "wrote {} variants.json and {} project page(s){}, removed {} file(s)\n",
      report.site.string(), b.projects, b.files, b.variants_files, b.files_hashed, b.files_placed, b.files_copied,
      b.variants_written, b.projects_written, b.root_written ? " and the project list" : "", b.files_removed);
}

Result<GenerateIndexJsonReport> generate_index_json(const GenerateIndexJsonRequest& request) {
  auto wheels = wheel::list_wheels(request.dir);
  if (!wheels) return fail(wheels.error());
  const std::filesystem::path out = request.output_dir.value_or(request.dir);
  if (auto ok = require_directory(out); !ok) return fail(ok.error());
  wheel::IndexJsonOptions options;
  options.format = request.format;
  options.skip_invalid = request.skip_invalid;
  options.jobs = request.jobs == 0 ? default_jobs() : request.jobs;
  auto result = wheel::build_index_json(*wheels, options);
  if (!result) return fail(result.error());
  GenerateIndexJsonReport report;
  report.warnings = std::move(result->warnings);
  report.files = result->files.size();
  report.wheels = wheels->size();
  report.variant_wheels = result->variant_wheels;
  report.bytes_read = result->bytes_read;
  report.bytes_total = result->bytes_total;
  for (const auto& f : result->files) {
    if (auto ok = write_file_atomic(out / f.filename, f.text); !ok) {
      report.write_error = ok.error();
      break;
    }
    report.written.push_back(out / f.filename);
  }
  return report;
}

std::string format_generated_files(const GenerateIndexJsonReport& report) {
  std::string out;
  for (const auto& path : report.written) out += path.string() + "\n";
  return out;
}

std::string format_generate_summary(const GenerateIndexJsonReport& report) {
  const double pct = report.bytes_total == 0
                         ? 0.0
                         : 100.0 * static_cast<double>(report.bytes_read) / static_cast<double>(report.bytes_total);
  return fmt::format("vwheel: {} file(s) from {} variant wheel(s) of {} wheel(s); read {} of {} bytes ({:.3f}%)\n",
                     report.files, report.variant_wheels, report.wheels, report.bytes_read, report.bytes_total, pct);
}

Result<std::filesystem::path> add_wheel_to_index_json(const AddWheelToIndexJsonRequest& request) {
  if (auto ok = require_directory(request.output_dir); !ok) return fail(ok.error());
  auto file = wheel::add_wheel_to_index_json(request.wheel, request.input, request.format);
  if (!file) return fail(file.error());
  const auto out = request.output_dir / file->filename;
  std::error_code ec;
  // Updating the input in place is what --input into its own folder asks for.
  const bool replaces_input = request.input && std::filesystem::equivalent(*request.input, out, ec);
  if (!request.overwrite && !replaces_input && std::filesystem::exists(out, ec)) {
    return fail(Error(fmt::format("{} already exists; pass --overwrite to replace it", out.string())));
  }
  if (auto ok = write_file_atomic(out, file->text); !ok) return fail(with_kind(ok.error(), ErrorKind::environment));
  return out;
}

}  // namespace vwheel::api
