// `vwheel show NAME [--python PATH]`

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/install/install.hpp"
#include "vwheel/wheel/record.hpp"

namespace vwheel::cli {

void add_show_command(CLI::App& app, Dispatch& dispatch) {
  struct Options {
    std::vector<std::string> names;
    std::string python;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("show", "Describe installed distributions: metadata, location, files, variant");
  cmd->add_option("names", o->names, "Distribution names")->required();
  cmd->add_option("--python", o->python, "Interpreter whose environment to look in (default: $VIRTUAL_ENV, else python3)");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      auto opened = install::open_environment(o->python.empty() ? std::nullopt : std::optional<std::filesystem::path>(o->python));
      if (!opened) {
        report_error(opened.error());
        return kEnvironment;
      }
      int rc = kOk;
      bool first = true;
      for (const auto& name : o->names) {
        auto d = install::find_distribution(opened->env, name);
        if (!d) {
          report_error(Error(fmt::format("{}: not installed in {}", name, opened->env.scheme.purelib.string())));
          rc = kUserError;
          continue;
        }
        if (!first) fmt::print("---\n");
        first = false;
        auto metadata = read_file(d->dist_info / "METADATA");
        fmt::print("Name: {}\nVersion: {}\n", d->name, d->version);
        if (metadata) {
          for (const char* field : {"Summary", "Home-page", "Author", "Author-email", "License", "Requires-Python"}) {
            if (auto v = install::header_value(*metadata, field); v && !v->empty()) fmt::print("{}: {}\n", field, *v);
          }
          std::vector<std::string> requires_dist;
          std::size_t pos = 0;
          while (pos < metadata->size()) {
            auto end = metadata->find('\n', pos);
            if (end == std::string::npos) end = metadata->size();
            std::string_view line(metadata->data() + pos, end - pos);
            pos = end + 1;
            if (line.empty() || line == "\r") break;
            if (line.starts_with("Requires-Dist:")) requires_dist.emplace_back(line.substr(14));
          }
          std::string joined;
          for (auto& r : requires_dist) {
            while (!r.empty() && (r.front() == ' ')) r.erase(0, 1);
            if (!joined.empty()) joined += ", ";
            joined += r;
          }
          fmt::print("Requires: {}\n", joined);
        }
        fmt::print("Location: {}\n", d->dist_info.parent_path().string());
        fmt::print("Installer: {}\n", d->installer);
        if (auto record = read_file(d->dist_info / "RECORD"); record) {
          auto rows = wheel::parse_record(*record);
          fmt::print("Files: {}\n", rows ? rows->size() : 0);
        }
        if (d->variant_label) {
          fmt::print("Variant: {}{}\n", *d->variant_label, d->variant_properties.empty() ? " (null variant)" : "");
          for (const auto& p : d->variant_properties) fmt::print("  {}\n", p);
        }
      }
      return rc;
    };
  });
}

}  // namespace vwheel::cli
