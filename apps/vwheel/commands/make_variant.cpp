// `vwheel make-variant WHEEL... -o OUTDIR (-p PROP... | --null) [--label L] [--pyproject PATH]
//  [--format v0.0.3|v0.1.1|v0.2.0] [--skip-provider-validation] [-j N]`

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/api/maintain.hpp"
#include "vwheel/core/parallel.hpp"

namespace vwheel::cli {

void add_make_variant_command(CLI::App& app, Dispatch& dispatch) {
  struct Options {
    std::vector<std::string> inputs;
    std::string output_dir;
    std::vector<std::string> properties;
    bool null_variant = false;
    std::string label;
    std::string pyproject;
    std::string format = "v0.0.3";
    bool skip_validation = false;
    std::vector<std::string> allow_python;
    unsigned jobs = 0;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "make-variant",
      "Turn wheels into variant wheels: add *.dist-info/variant.json and its RECORD line, copying every other "
      "member unchanged (no recompression)");
  cmd->add_option("wheels", o->inputs, "Input wheels (a variant wheel's label is replaced)")->required();
  cmd->add_option("-o,--output-dir", o->output_dir, "Directory for the variant wheels (must exist)")->required();
  auto* props = cmd->add_option("-p,--property", o->properties, "Variant property `namespace :: feature :: value` (repeatable)");
  auto* null = cmd->add_flag("--null", o->null_variant, "Make the null variant (no properties, label `null`)");
  props->excludes(null);
  cmd->add_option("--label", o->label, "Custom variant label (default: the 8-hex hash of the properties)");
  cmd->add_option("--pyproject", o->pyproject,
                  "pyproject.toml whose [variant] table (priorities, providers, static properties) goes into "
                  "variant.json (default: ./pyproject.toml when present)");
  cmd->add_option("--format", o->format, "variant.json format: v0.0.3 (variantlib's, default), v0.1.1 (PEP 825) or v0.2.0 (Providers draft, PEP 850)")
      ->check(CLI::IsMember({"v0.0.3", "v0.1.1", "v0.2.0"}));
  cmd->add_flag("--skip-provider-validation", o->skip_validation, "Do not check the properties against the providers");
  cmd->add_option("--allow-python-provider", o->allow_python,
                  "Run the pyproject's Python provider of this namespace (isolated) to check its properties (repeatable)");
  cmd->add_option("-j,--jobs", o->jobs, "Wheels processed in parallel (default: the number of CPUs)");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      api::MakeVariantsRequest req;
      req.inputs.assign(o->inputs.begin(), o->inputs.end());
      req.output_dir = o->output_dir;
      req.properties = o->properties;
      req.null_variant = o->null_variant;
      if (!o->label.empty()) req.label = o->label;
      if (!o->pyproject.empty()) req.pyproject = o->pyproject;
      req.format = wheel::parse_variant_json_format(o->format).value_or(wheel::VariantJsonFormat::Draft003);
      req.validation.skip = o->skip_validation;
      req.validation.allow_python_providers = o->allow_python;
      req.jobs = o->jobs == 0 ? default_jobs() : o->jobs;
      auto report = api::make_variants(req);
      if (!report) {
        report_error(report.error());
        return kUserError;
      }
      for (const auto& w : report->warnings) report_warning(w);
      int rc = kOk;
      for (const auto& r : report->results) {
        if (!r) {
          report_error(r.error());
          rc = kUserError;
          continue;
        }
        fmt::print("{}\n", r->output.string());
      }
      return rc;
    };
  });
}

}  // namespace vwheel::cli
