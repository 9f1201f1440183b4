// `vwheel download REQ... [-r FILE] -d DIR [--target PROFILE]...` and
// `vwheel download --lock pylock.toml -d DIR [--target PROFILE]...`: the files an install would
// take, saved into a folder for `vwheel install --no-index --find-links DIR` without network.

#include <fmt/format.h>

#include "command.hpp"
#include "index_options.hpp"
#include "interruptible.hpp"
#include "vwheel/api/download.hpp"
#include "vwheel/http/client.hpp"

namespace vwheel::cli {

namespace {

struct DownloadOptions {
  std::vector<std::string> items;
  std::vector<std::string> requirement_files;
  std::vector<std::string> constraint_files;
  std::string lock_file;
  std::string dest;
  std::string python;
  bool no_deps = false;
  bool require_hashes = false;
  bool no_cache = false;
  plan::LockSelection asked;
  SelectionOptions selection;
  IndexOptions index;

  [[nodiscard]] api::DownloadRequest request() const {
    api::DownloadRequest r;
    r.items = items;
    r.requirement_files.assign(requirement_files.begin(), requirement_files.end());
    r.constraint_files.assign(constraint_files.begin(), constraint_files.end());
    if (!lock_file.empty()) r.lock_file = lock_file;
    r.lock_selection = asked;
    r.dest = dest;
    if (!python.empty()) r.python = python;
    // Each --target is one machine; without any, this one.
    auto base = selection.to_request();
    base.no_cache = no_cache;
    if (selection.targets.empty()) r.targets.push_back(base);
    for (const auto& profile : selection.targets) {
      auto one = base;
      one.profiles = {profile};
      r.targets.push_back(std::move(one));
    }
    r.sources = index.request;
    r.sources.no_cache = no_cache;
    r.no_deps = no_deps;
    r.require_hashes = require_hashes;
    r.quiet = index.quiet;
    return r;
  }
};

}  // namespace

int run_download(const api::DownloadRequest& request, bool quiet) {
  auto done = api::download(request);
  if (!done) return report_failure(done.error());
  for (const auto& line : done->skipped) report_warning(line);
  if (quiet) return kOk;
  std::size_t fetched = 0;
  std::uint64_t bytes = 0;
  for (const auto& f : done->files) {
    fmt::print("{} {} ({})\n", f.fetched ? "saved" : "already there:", f.filename, http::format_size(f.size));
    if (f.fetched) {
      ++fetched;
      bytes += f.size;
    }
  }
  fmt::print("{} file{} in {}: {} saved ({}), {} already there\n", done->files.size(),
             done->files.size() == 1 ? "" : "s", request.dest.string(), fetched, http::format_size(bytes),
             done->files.size() - fetched);
  return kOk;
}

void add_download_command(CLI::App& app, Dispatch& dispatch) {
  auto o = std::make_shared<DownloadOptions>();
  CLI::App* cmd = app.add_subcommand(
      "download",
      "Save the wheels (and variants.json files) an install would take for each --target into a folder, for "
      "`vwheel install --no-index --find-links DIR` without network; or the files a pylock.toml gives them (--lock)");
  cmd->add_option("items", o->items, "Requirements (PEP 508, e.g. 'torch>=2.12')");
  cmd->add_option("-r,--requirement", o->requirement_files, "Download what a requirements file needs")
      ->allow_extra_args(false);
  cmd->add_option("-c,--constraint", o->constraint_files, "Constrain versions with a constraints file")
      ->allow_extra_args(false);
  auto* lock = cmd->add_option("--lock", o->lock_file,
                               "A pylock.toml: download the files it lists that the targets would install");
  cmd->add_option("-d,--dest", o->dest, "The folder to save into (made when missing)")->required();
  cmd->add_option("--python", o->python,
                  "Interpreter standing for this machine when no --target is given (default: $VIRTUAL_ENV, else "
                  "python3)");
  add_selection_options(*cmd, o->selection, true);
  cmd->add_option("--extra", o->asked.extras, "--lock: the files the lock marks for this extra too (repeatable)")
      ->needs(lock);
  cmd->add_option("--group", o->asked.groups,
                  "--lock: the files the lock marks for this dependency group too (repeatable)")
      ->needs(lock);
  add_index_options(*cmd, o->index, true);
  cmd->add_flag("--no-deps", o->no_deps, "Download no dependencies");
  cmd->add_flag("--require-hashes", o->require_hashes, "Require a --hash in the requirement files for every package");
  cmd->add_flag("--no-cache", o->no_cache, "Use no cache (HTTP, detection)");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      return run_interruptible([o]() -> int { return run_download(o->request(), o->index.quiet); });
    };
  });
}

}  // namespace vwheel::cli
