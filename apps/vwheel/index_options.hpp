#pragma once
// Option groups shared by the commands: the machine to choose for (every command that chooses:
// rank, analyze-wheel, install, lock, sync, export) and the package sources, network and cache
// (install, lock, sync, export). Each binds command-line options to an `api` request.

#include <string>
#include <vector>

#include "cli11.hpp"

#include "vwheel/api/install.hpp"
#include "vwheel/api/selection.hpp"

namespace vwheel::cli {

/// `--target`, `--config`, `--enable-optional-provider(s)`, `--allow-python-provider`,
/// `--abi-dependency`, `--variant`, `--no-variants`.
struct SelectionOptions {
  /// `--target` files: one machine described in layers (later files win per namespace), or with
  /// `many_targets` (lock) one machine each.
  std::vector<std::string> targets;
  bool many_targets = false;
  std::string config;
  api::SelectionRequest request;

  /// The request with the profiles (unless `many_targets`) and `config` filled in.
  [[nodiscard]] api::SelectionRequest to_request() const;
};

/// Adds the selection options to `cmd` as one group. `--target` may always repeat: without
/// `many_targets` the files describe one machine together, with it (lock) each is one machine.
void add_selection_options(CLI::App& cmd, SelectionOptions& o, bool many_targets = false);

/// The package sources, network and cache options, and `--quiet`.
struct IndexOptions {
  api::SourceRequest request;
  bool quiet = false;
};

/// `--index NAME=URL` (repeatable), checked as api::parse_named_index reads it.
void add_named_index_option(CLI::App& cmd, api::SourceRequest& r, const std::string& help);

/// How to reach the indexes: `--keyring-provider`, `--cert`, `--client-cert`, `--proxy`,
/// `--trusted-host` (every command that downloads: install, lock, sync, export, build).
void add_connection_options(CLI::App& cmd, api::SourceRequest& r);

/// Adds the options to `cmd`; `sources` false (sync/export) leaves out --find-links, --no-index
/// and --pre, and has --index-url, --extra-index-url and --index name only the hosts that
/// credentials are looked up for.
void add_index_options(CLI::App& cmd, IndexOptions& o, bool sources);

/// `--keep-archives` and `--link-mode` (install, sync): what the wheel cache keeps, and how its
/// files reach the environment.
struct WheelCacheOptions {
  bool keep_archives = false;
  std::string link_mode = "auto";

  /// Sets both on `options` (`link_mode` was checked by the option's validator).
  void apply(install::InstallOptions& options) const;
};

/// Adds `--keep-archives` and `--link-mode` to `cmd`.
void add_wheel_cache_options(CLI::App& cmd, WheelCacheOptions& o);

/// Prints one line per chosen wheel (`NAME VERSION: FILE (WHY)`), with the variant explanation
/// under each variant choice when `explain`, and flushes stdout (download progress goes to stderr).
void print_plan(const plan::Plan& plan, bool explain);

}  // namespace vwheel::cli
