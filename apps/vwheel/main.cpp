// vwheel: the command-line interface of libvwheel. Parses options, runs one subcommand, and
// turns errors into a message and an exit code.

#include <cstdio>
#include <exception>
#include <filesystem>
#include <new>

#include <fmt/format.h>

#include "command.hpp"

int main(int argc, char** argv) {
  using namespace vwheel::cli;
  CLI::App app{"vwheel: wheel variants (PEP 825) for package maintainers, index operators and installers",
               "vwheel"};
  app.set_version_flag("-V,--version", "vwheel " VWHEEL_VERSION);
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show help for every subcommand");

  Dispatch dispatch;
  add_label_command(app, dispatch);
  add_rank_command(app, dispatch);
  add_validate_command(app, dispatch);
  add_analyze_platform_command(app, dispatch);
  add_providers_command(app, dispatch);
  add_make_variant_command(app, dispatch);
  add_unmake_variant_command(app, dispatch);
  add_analyze_wheel_command(app, dispatch);
  add_generate_index_json_command(app, dispatch);
  add_add_wheel_to_index_json_command(app, dispatch);
  add_pyproject_command(app, dispatch);
  add_install_command(app, dispatch);
  add_uninstall_command(app, dispatch);
  add_repair_command(app, dispatch);
  add_list_command(app, dispatch);
  add_show_command(app, dispatch);
  add_venv_command(app, dispatch);
  add_lock_command(app, dispatch);
  add_sync_command(app, dispatch);
  add_export_command(app, dispatch);
  CLI::App* index = app.add_subcommand("index", "Build a static variant-aware package index, or serve one");
  index->require_subcommand(1);
  add_index_build_command(*index, dispatch);
  add_index_serve_command(*index, dispatch);

  CLI::App* help = app.add_subcommand("help", "Show help for vwheel or one of its subcommands");
  std::string help_topic;
  help->add_option("command", help_topic, "Subcommand to describe");
  help->callback([&] {
    dispatch.action = [&]() -> int {
      if (help_topic.empty()) {
        fmt::print("{}", app.help());
        return kOk;
      }
      try {
        fmt::print("{}", app.get_subcommand(help_topic)->help());
        return kOk;
      } catch (const CLI::OptionNotFound&) {
        report_error(vwheel::Error(fmt::format("unknown subcommand `{}`; run `vwheel --help`", help_topic)));
        return kUsage;
      }
    };
  });

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "vwheel: error: {}\n", e.what());
    fmt::print(stderr, "Run `vwheel --help` for usage.\n");
    return kUsage;
  }

  try {
    return dispatch.action ? dispatch.action() : kUsage;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "vwheel: error: out of memory\n");
  } catch (const std::filesystem::filesystem_error& e) {
    fmt::print(stderr, "vwheel: error: {}\n", e.what());
  } catch (const std::exception& e) {
    fmt::print(stderr, "vwheel: error: {}\n", e.what());
  }
  return kEnvironment;
}
