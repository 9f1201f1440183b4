// `vwheel add-wheel-to-index-json WHEEL [--input JSON] -o OUTDIR [--overwrite] [--format ...]`

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/api/index.hpp"

namespace vwheel::cli {

void add_add_wheel_to_index_json_command(CLI::App& app, Dispatch& dispatch) {
  struct Options {
    std::string wheel;
    std::string input;
    std::string output_dir;
    bool overwrite = false;
    std::string format = "auto";
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "add-wheel-to-index-json",
      "Merge one variant wheel's variant.json into a {name}-{version}-variants.json (new, or --input)");
  cmd->add_option("wheel", o->wheel, "Variant wheel")->required();
  cmd->add_option("-i,--input", o->input, "Existing {name}-{version}-variants.json to merge into");
  cmd->add_option("-o,--output-dir", o->output_dir, "Where to write {name}-{version}-variants.json (must exist)")
      ->required();
  cmd->add_flag("-w,--overwrite", o->overwrite, "Replace the output file when it exists");
  cmd->add_option("--format", o->format, "Output format: v0.0.3, v0.1.1, v0.2.0 or auto (default)")
      ->check(CLI::IsMember({"auto", "v0.0.3", "v0.1.1", "v0.2.0"}));
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      api::AddWheelToIndexJsonRequest req;
      req.wheel = o->wheel;
      if (!o->input.empty()) req.input = o->input;
      req.output_dir = o->output_dir;
      req.overwrite = o->overwrite;
      req.format = wheel::parse_variant_json_format(o->format);
      auto out = api::add_wheel_to_index_json(req);
      if (!out) return report_failure(out.error());
      fmt::print("{}\n", out->string());
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
