#pragma once
// The CLI's plumbing: every subcommand lives in commands/<name>.cpp and registers itself with
// `add_<name>_command`. A command's callback returns the process exit code; user errors are
// reported as one line on stderr by `report_error`.

#include <functional>
#include <string>

#include "cli11.hpp"

#include "vwheel/core/error.hpp"

namespace vwheel::api {
struct DownloadRequest;
}  // namespace vwheel::api

namespace vwheel::cli {

/// Exit codes shared by every subcommand.
enum ExitCode : int { kOk = 0, kUserError = 1, kUsage = 2, kEnvironment = 3 };

/// Holds the action chosen on the command line; main() runs it after parsing.
struct Dispatch {
  std::function<int()> action;
};

/// Prints `vwheel: error: <message>` (and every detail on its own line) to stderr.
void report_error(const Error& error);
/// Prints `vwheel: error: <message>`, then every detail indented on its own line: for errors
/// whose details explain the one-line message (resolution conflicts).
void report_explained_error(const Error& error);
/// Reports a failed use case (explained or not, see `Error::explained`) and returns the exit code
/// its kind calls for (1 input, 2 usage, 3 environment).
int report_failure(const Error& error);
/// Prints `vwheel: warning: <message>` to stderr.
void report_warning(const std::string& message);
/// What `CLI::App::exit` does for help, version and parse errors (the text on stdout or stderr,
/// and the exit code it returns), without the standard streams (see cli11.hpp).
int exit_for(const CLI::App& app, const CLI::Error& error);

// One registration function per subcommand (commands/<name>.cpp).
void add_label_command(CLI::App& app, Dispatch& dispatch);
void add_rank_command(CLI::App& app, Dispatch& dispatch);
void add_validate_command(CLI::App& app, Dispatch& dispatch);
void add_analyze_platform_command(CLI::App& app, Dispatch& dispatch);
void add_providers_command(CLI::App& app, Dispatch& dispatch);
void add_make_variant_command(CLI::App& app, Dispatch& dispatch);
void add_unmake_variant_command(CLI::App& app, Dispatch& dispatch);
void add_analyze_wheel_command(CLI::App& app, Dispatch& dispatch);
void add_generate_index_json_command(CLI::App& app, Dispatch& dispatch);
void add_add_wheel_to_index_json_command(CLI::App& app, Dispatch& dispatch);
void add_pyproject_command(CLI::App& app, Dispatch& dispatch);
void add_install_command(CLI::App& app, Dispatch& dispatch);
void add_download_command(CLI::App& app, Dispatch& dispatch);
// `vwheel download` and `vwheel sync --download-only`: downloads and prints the summary (none when quiet).
int run_download(const api::DownloadRequest& request, bool quiet);
void add_uninstall_command(CLI::App& app, Dispatch& dispatch);
void add_repair_command(CLI::App& app, Dispatch& dispatch);
void add_list_command(CLI::App& app, Dispatch& dispatch);
void add_show_command(CLI::App& app, Dispatch& dispatch);
void add_venv_command(CLI::App& app, Dispatch& dispatch);
void add_lock_command(CLI::App& app, Dispatch& dispatch);
void add_sync_command(CLI::App& app, Dispatch& dispatch);
void add_export_command(CLI::App& app, Dispatch& dispatch);
void add_build_command(CLI::App& app, Dispatch& dispatch);
// `vwheel index build|serve`: the parent is made in main(), each subcommand in its own file.
void add_index_build_command(CLI::App& index, Dispatch& dispatch);
void add_index_serve_command(CLI::App& index, Dispatch& dispatch);
void add_index_mirror_command(CLI::App& index, Dispatch& dispatch);
// `vwheel cache dir|info|clean|prune`, all in commands/cache.cpp.
void add_cache_commands(CLI::App& app, Dispatch& dispatch);
// `vwheel completion SHELL`: registered after all the others, since it describes them.
void add_completion_command(CLI::App& app, Dispatch& dispatch);

}  // namespace vwheel::cli
