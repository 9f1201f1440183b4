// `vwheel build`, the use case: vwheel's PEP 517 frontend (src/build/) served by the installer and
// make-variant, then the index's variants.json for what it published.

#include "vwheel/api/build.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "vwheel/api/environment.hpp"
#include "vwheel/api/index.hpp"

namespace vwheel::api {
namespace fs = std::filesystem;
namespace {

// The frontend's services from the layers above it: the installer and make-variant.
class Services final : public build::BuildServices {
 public:
  explicit Services(const BuildRequest& request) : request_(request) {}

  Result<fs::path> create_environment(const fs::path& dir, const fs::path& base) override {
    VenvRequest venv;
    venv.path = dir;
    venv.python = base;
    auto made = create_venv(venv);
    if (!made) return fail(made.error());
    return dir / "bin" / "python";
  }

  Result<void> install(const fs::path& python, const std::vector<std::string>& requirements) override {
    InstallRequest req;
    req.items = requirements;
    req.python = python;
    req.sources = request_.sources;
    req.quiet = true;
    auto installed = api::install(req, Observer{});
    if (!installed) return fail(installed.error());
    return {};
  }

  Result<fs::path> make_variant(const build::VariantWheelRequest& request,
                                std::vector<std::string>& warnings) override {
    MakeVariantsRequest mv;
    mv.inputs = {request.wheel};
    mv.output_dir = request.output_dir;
    mv.null_variant = request.job->label == variant::kNullLabel;
    for (const auto& p : request.job->properties) mv.properties.push_back(p.to_string());
    if (!mv.null_variant) mv.label = request.job->label;
    mv.pyproject = request.pyproject;
    if (request.variant_table) mv.project = Pyproject{request.pyproject, *request.variant_table};
    mv.format = request_.format;
    mv.validation = request_.validation;
    auto made = make_variants(mv);
    if (!made) return fail(made.error());
    warnings = std::move(made->warnings);
    if (!made->results.front()) return fail(made->results.front().error());
    return made->results.front()->output;
  }

 private:
  const BuildRequest& request_;
};

}  // namespace

Result<BuildReport> build(const BuildRequest& request) {
  Services services(request);
  auto built = build::build_project(request, services);
  if (!built) return fail(built.error());
  BuildReport report;
  static_cast<build::BuildReport&>(report) = std::move(*built);

  const bool any_variant = std::any_of(report.outcomes.begin(), report.outcomes.end(),
                                       [](const build::BuildOutcome& o) { return o.wheel && o.job.is_variant(); });
  if (request.index && any_variant) {
    GenerateIndexJsonRequest gen;
    gen.dir = fs::absolute(request.output_dir).lexically_normal();  // as the frontend published it
    auto generated = generate_index_json(gen);
    if (!generated)
      return fail(generated.error().with_context(fmt::format("generate-index-json {}", gen.dir.string())));
    if (generated->write_error) return fail(*generated->write_error);
    for (auto& w : generated->warnings) report.warnings.push_back(std::move(w));
    report.index_files = generated->written;
  }
  return report;
}

}  // namespace vwheel::api
