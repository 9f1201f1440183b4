#pragma once
/// \file
/// `vwheel download`: the files an install would take, saved into a folder (pip's `download`),
/// for one or several target machines, so that `vwheel install --no-index --find-links DIR`
/// installs from that folder alone (an air-gapped cluster, a container build without network).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "vwheel/api/install.hpp"
#include "vwheel/api/selection.hpp"
#include "vwheel/core/error.hpp"
#include "vwheel/plan/plan.hpp"

namespace vwheel::api {

/// What to download, for which machines, from where, into where.
struct DownloadRequest {
  /// Requirements (PEP 508) and requirement files, resolved as `vwheel install` resolves them;
  /// exclusive with `lock_file`.
  std::vector<std::string> items;
  std::vector<std::filesystem::path> requirement_files;
  std::vector<std::filesystem::path> constraint_files;
  /// A pylock.toml: its files that some target would install (PEP 751 "Installation", as
  /// `vwheel sync` chooses them), with `lock_selection`'s extras and groups.
  std::optional<std::filesystem::path> lock_file;
  plan::LockSelection lock_selection;
  /// The folder to fill (made when missing).
  std::filesystem::path dest;
  /// The interpreter whose environment and tags stand for this machine when no profile is given
  /// (a profile's own `environment` and `tags` take precedence).
  std::optional<std::filesystem::path> python;
  /// The target machines, each chosen for on its own (the folder gets the union of their files):
  /// one selection each (`vwheel download --target A --target B`: one profile each; `vwheel sync
  /// --download-only --target A --target B`: one machine described by both). At least one.
  std::vector<SelectionRequest> targets;
  SourceRequest sources;
  bool no_deps = false;
  bool require_hashes = false;
  bool quiet = false;  ///< no progress display
};

/// One file of the folder.
struct DownloadedFile {
  std::string filename;
  std::uint64_t size = 0;
  /// False when the folder had it already, with the expected sha256 (nothing was fetched).
  bool fetched = false;
};

/// What `download` did.
struct DownloadReport {
  /// One plan per target, in the order of the profiles (this machine's alone without any).
  std::vector<plan::Plan> plans;
  /// Every file the targets need, in name order: wheels, the `*-variants.json` of variant wheels'
  /// versions, and sdists a lock installs from.
  std::vector<DownloadedFile> files;
  /// Lock entries left out: archives, directories and VCS checkouts (a folder of files cannot
  /// hold them), one line each.
  std::vector<std::string> skipped;
};

/// Resolves (or reads the lock) for each target and saves the chosen files into `dest`. Each
/// download goes to `<dest>/<file>.part` and is renamed once its size and sha256 (when the index
/// or lock gives one) are verified; a file already in `dest` with the expected sha256 is kept as
/// it is. Local files (find-links folders, paths in a lock) are copied the same way. A variant
/// wheel's version gets its `{name}-{version}-variants.json` (the index's file, or written from
/// the lock's `variants-json`). Only wheels are taken from indexes (as pip's `download` does for
/// another platform): a version whose only fitting file is an sdist is not a candidate. Two
/// targets that need different files of the same name are an input error.
[[nodiscard]] Result<DownloadReport> download(const DownloadRequest& request);

}  // namespace vwheel::api
