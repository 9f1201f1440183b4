// `vwheel add-wheel-to-index-json WHEEL [--input JSON] -o OUTDIR [--overwrite] [--format ...]`

#include <system_error>

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/wheel/index_json.hpp"

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
  cmd->add_option("--format", o->format, "Output format: v0.0.3, v0.1.1 or auto (default)")
      ->check(CLI::IsMember({"auto", "v0.0.3", "v0.1.1"}));
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      const std::filesystem::path out_dir = o->output_dir;
      std::error_code ec;
      if (!std::filesystem::is_directory(out_dir, ec)) {
        report_error(Error(fmt::format("output directory `{}` does not exist", out_dir.string())));
        return kUserError;
      }
      std::optional<std::filesystem::path> input;
      if (!o->input.empty()) input = o->input;
      auto file = wheel::add_wheel_to_index_json(o->wheel, input, wheel::parse_variant_json_format(o->format));
      if (!file) {
        report_error(file.error());
        return kUserError;
      }
      const auto out = out_dir / file->filename;
      const bool replaces_input = input && std::filesystem::equivalent(*input, out, ec);
      if (!o->overwrite && !replaces_input && std::filesystem::exists(out, ec)) {
        report_error(Error(fmt::format("{} already exists; pass --overwrite to replace it", out.string())));
        return kUserError;
      }
      if (auto ok = write_file_atomic(out, file->text); !ok) {
        report_error(ok.error());
        return kEnvironment;
      }
      fmt::print("{}\n", out.string());
      return kOk;
    };
  });
}

}  // namespace vwheel::cli
