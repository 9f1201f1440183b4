// vwheel: the command-line interface of libvwheel. Parses options, runs one subcommand, and
// turns errors into a message and an exit code.

#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "vwheel/core/text.hpp"

#include "command.hpp"

namespace {

using namespace vwheel::cli;

// What `vwheel --version` prints.
constexpr const char* kVersionLine = "vwheel " VWHEEL_VERSION;

using AddCommand = void (*)(CLI::App&, Dispatch&);
struct CommandEntry {
  std::string_view name;
  AddCommand add;
};

// In `vwheel --help` order. `index` is the parent of `index build|serve` (see add_index_commands).
void add_index_commands(CLI::App& app, Dispatch& dispatch) {
  CLI::App* index = app.add_subcommand("index", "Build a static variant-aware package index, or serve one");
  index->require_subcommand(1);
  add_index_build_command(*index, dispatch);
  add_index_serve_command(*index, dispatch);
  add_index_mirror_command(*index, dispatch);
}

constexpr CommandEntry kCommands[] = {
    {"label", add_label_command},
    {"rank", add_rank_command},
    {"validate", add_validate_command},
    {"analyze-platform", add_analyze_platform_command},
    {"providers", add_providers_command},
    {"make-variant", add_make_variant_command},
    {"unmake-variant", add_unmake_variant_command},
    {"analyze-wheel", add_analyze_wheel_command},
    {"generate-index-json", add_generate_index_json_command},
    {"add-wheel-to-index-json", add_add_wheel_to_index_json_command},
    {"pyproject", add_pyproject_command},
    {"install", add_install_command},
    {"download", add_download_command},
    {"uninstall", add_uninstall_command},
    {"repair", add_repair_command},
    {"list", add_list_command},
    {"show", add_show_command},
    {"venv", add_venv_command},
    {"lock", add_lock_command},
    {"sync", add_sync_command},
    {"export", add_export_command},
    {"build", add_build_command},
    {"index", add_index_commands},
    {"cache", add_cache_commands},
};

// `vwheel help [COMMAND [SUBCOMMAND]]`: only registered with all the others, since it describes them.
void add_help_command(CLI::App& app, Dispatch& dispatch) {
  CLI::App* help = app.add_subcommand("help", "Show help for vwheel or one of its subcommands");
  auto topic = std::make_shared<std::vector<std::string>>();
  help->add_option("command", *topic, "Subcommand to describe (`index build`: one of its subcommands)");
  help->callback([&app, &dispatch, topic] {
    dispatch.action = [&app, topic]() -> int {
      if (topic->empty()) {
        // Not app.help(): with `help` selected, CLI11 delegates that to the selected subcommand.
        fmt::print("{}", app.get_formatter()->make_help(&app, "vwheel", CLI::AppFormatMode::Normal));
        return kOk;
      }
      // The words before the last as the prefix: the usage line names the whole command
      // (`vwheel index build`), as `vwheel index build --help` does.
      std::string path = "vwheel";
      std::string prefix;
      const CLI::App* command = &app;
      for (const auto& word : *topic) {
        try {
          command = command->get_subcommand(word);
        } catch (const CLI::OptionNotFound&) {
          report_error(vwheel::Error(
              fmt::format("unknown subcommand `{}`; run `{} --help`", vwheel::printable(word), path)));
          return kUsage;
        }
        prefix = path;
        path += " " + command->get_name();
      }
      fmt::print("{}", command->help(prefix));
      return kOk;
    };
  });
}

// Which subcommands to register: all of them, only one, or none (`vwheel --version`).
struct Chosen {
  bool all = true;
  const CommandEntry* one = nullptr;
};

// The subcommand the command line names, when it can be told before parsing: the first argument,
// if it is a known name (`vwheel label --help-all` describes `label` only). Otherwise (no
// subcommand, a global option first, a typo, `help`, `completion`) all are registered, so that help texts and
// error messages list every one; `--version` first needs none.
Chosen chosen_command(int argc, char** argv) {
  if (argc < 2) return {};
  const std::string_view first = argv[1];
  if (first == "-V" || first == "--version") return {.all = false};
  for (const auto& entry : kCommands) {
    if (entry.name == first) return {.all = false, .one = &entry};
  }
  return {};
}

// Registers only the chosen subcommand when there is one. Why: building every subcommand's
// CLI11 option tree (a few hundred Option objects, each with strings, std::functions and
// validators) was most of what `vwheel label` did: 2.06 ms median where /bin/true takes 0.85 ms,
// 1.33 ms with only `label` registered (bench/startup.sh, hyperfine -N, 300 runs; callgrind: the
// rest is the kernel's exec and page faults, ld.so and about 0.6 M instructions of ours).
void register_commands(CLI::App& app, Dispatch& dispatch, Chosen chosen) {
  if (chosen.one != nullptr) chosen.one->add(app, dispatch);
  if (!chosen.all) return;
  for (const auto& entry : kCommands) entry.add(app, dispatch);
  add_help_command(app, dispatch);
  add_completion_command(app, dispatch);
}

// Levenshtein distance, for suggesting the subcommand a typo meant (names are short: O(n*m) is fine).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// `vwheel labl`: CLI11 would only say "A subcommand is required"; name the word and the nearest
// subcommand instead. Returns an empty string when the first argument is an option or a known name
// (`chosen`, from chosen_command(): the usual case, where no distance is computed).
std::string unknown_subcommand(int argc, char** argv, const Chosen& chosen) {
  if (argc < 2 || chosen.one != nullptr || !chosen.all) return {};
  const std::string_view first = argv[1];
  if (first.empty() || first.front() == '-' || first == "help" || first == "completion") return {};
  const CommandEntry* nearest = nullptr;
  std::size_t best = 3;  // suggest only within two edits
  for (const auto& entry : kCommands) {
    const std::size_t d = edit_distance(first, entry.name);
    if (d < best) best = d, nearest = &entry;
  }
  return nearest != nullptr
             ? fmt::format("unknown subcommand `{}` (did you mean `{}`?)", vwheel::printable(first), nearest->name)
             : fmt::format("unknown subcommand `{}`", vwheel::printable(first));
}

// `vwheel install --index-url --offline torch`: CLI11 gives an option that needs a value the next
// word, whatever it is, so that run would have looked for the host `--offline`. Like clap and
// argparse, refuse a value that is another of the command's options, and say which option lost
// its value (a value that does start with '-' can still be given as --option=VALUE). A scan of
// the words, not a validator on every option: validators would add to every command's start-up.
std::string option_missing_its_value(CLI::App& app, int argc, char** argv) {
  CLI::App* command = &app;
  int i = 1;
  for (; i < argc; ++i) {  // down the subcommands the first words name (`index build`)
    const std::string_view word = argv[i];
    // A filter, not get_subcommand(): that throws for a word that is no subcommand, and short
    // commands (`label`, `rank`) would pay for an exception, unwinder tables and all, at every start.
    const auto named =
        command->get_subcommands([word](CLI::App* sub) { return !word.empty() && sub->check_name(std::string(word)); });
    if (named.empty()) break;
    command = named.front();
  }
  const auto known_option = [command](std::string_view word) -> const CLI::Option* {
    if (word.size() < 2 || word.front() != '-') return nullptr;
    return command->get_option_no_throw(std::string(word.substr(0, word.find('='))));
  };
  for (; i + 1 < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--") break;
    const CLI::Option* option = word.find('=') == std::string_view::npos ? known_option(word) : nullptr;
    if (option == nullptr || option->get_positional() || option->get_items_expected_min() == 0) continue;
    if (known_option(argv[i + 1]) != nullptr) {
      const auto& longs = option->get_lnames();
      return fmt::format(
          "{} needs a value, but the word after it is the option {} (for a value that starts with "
          "'-', write {})",
          vwheel::printable(word), vwheel::printable(argv[i + 1]),
          longs.empty() ? vwheel::printable(word) + "VALUE" : "--" + longs.front() + "=VALUE");
    }
    ++i;  // its value: never read as an option
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  using namespace vwheel::cli;
  // `vwheel --version` alone, as scripts run it, answers before CLI11: CLI11 reports the version
  // by throwing, and that first exception maps the unwinder and its tables: 95 page faults, more
  // than all of `label` (90); answered here, 77. The same words CLI11 prints; `--version` with
  // more arguments goes through CLI11 as before.
  if (argc == 2 && (std::string_view(argv[1]) == "--version" || std::string_view(argv[1]) == "-V")) {
    fmt::print("{}\n", kVersionLine);
    return kOk;
  }
  // A write past the file-size limit (`ulimit -f`, RLIMIT_FSIZE, set by some batch systems and
  // containers) fails with EFBIG, reported as an error and rolled back like a full disk, instead of
  // SIGXFSZ killing the process halfway (as Python, and so pip, does too). Children get the
  // default action back (core/process.cpp).
  ::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{"vwheel: wheel variants (PEP 825) for package maintainers, index operators and installers", "vwheel"};
  app.set_version_flag("-V,--version", kVersionLine);
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show help for every subcommand");

  const Chosen chosen = chosen_command(argc, argv);
  if (const std::string unknown = unknown_subcommand(argc, argv, chosen); !unknown.empty()) {
    fmt::print(stderr, "vwheel: error: {}\nRun `vwheel --help` for usage.\n", unknown);
    return kUsage;
  }
  Dispatch dispatch;
  register_commands(app, dispatch, chosen);
  // `vwheel` alone prints the overview `vwheel --help` prints, and succeeds, as `pip` does (`uv`
  // exits 2): asking what the tool does is not a mistake.
  if (argc < 2) {
    fmt::print("{}", app.help());
    return kOk;
  }
  if (const std::string missing = option_missing_its_value(app, argc, argv); !missing.empty()) {
    fmt::print(stderr, "vwheel: error: {}\nRun `vwheel --help` for usage.\n", missing);
    return kUsage;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return exit_for(app, e);
  } catch (const CLI::CallForAllHelp& e) {
    return exit_for(app, e);
  } catch (const CLI::CallForVersion& e) {
    return exit_for(app, e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "vwheel: error: {}\n", vwheel::printable(e.what()));
    fmt::print(stderr, "Run `vwheel --help` for usage.\n");
    return kUsage;
  }

  try {
    return dispatch.action ? dispatch.action() : kUsage;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "vwheel: error: out of memory\n");
  } catch (const std::filesystem::filesystem_error& e) {
    fmt::print(stderr, "vwheel: error: {}\n", vwheel::printable(e.what()));
  } catch (const std::exception& e) {
    fmt::print(stderr, "vwheel: error: {}\n", vwheel::printable(e.what()));
  }
  return kEnvironment;
}
