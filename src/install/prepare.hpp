#pragma once
// A wheel checked and unpacked into the run's staging directory (installer.cpp), ready for
// the commit (commit.cpp) to move into place.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "installed.hpp"
#include "vwheel/core/error.hpp"
#include "vwheel/core/worker_pool.hpp"
#include "vwheel/install/install.hpp"
#include "vwheel/wheel/wheel.hpp"

namespace vwheel::install::detail {

/// The scheme directories a wheel installs into, in the order they are moved.
inline constexpr SchemeKey kKeys[] = {SchemeKey::Purelib, SchemeKey::Platlib, SchemeKey::Scripts, SchemeKey::Headers,
                                      SchemeKey::Data};

/// One file to install.
struct PlannedFile {
  std::size_t entry = 0;  ///< index into the archive's entries; SIZE_MAX for generated files
  SchemeKey key = SchemeKey::Purelib;
  std::string relative;
  std::string hash;  ///< RECORD hash (verified, or computed for generated files)
  std::string size;
  unsigned mode = 0644;
};

/// A wheel checked and unpacked into its staging directory.
struct Prepared {
  std::filesystem::path wheel_path;
  std::string name;     ///< METADATA Name (else the file name's)
  std::string version;  ///< METADATA Version (else the file name's)
  std::string dist_info;
  SchemeKey root = SchemeKey::Purelib;
  /// The run's staging directory `<purelib>/.vwheel-tmp-.../`, shared by its wheels: this one
  /// stages into `<tag>-<key>/...` (one level of directories per wheel: each directory made and
  /// removed costs an ext4 journal update, which showed in the time of 50 small installs); what
  /// the run's transaction moves aside goes to `backup/` there, named by the journal.
  std::filesystem::path staging;
  std::string tag;
  std::vector<PlannedFile> files;
  std::vector<std::filesystem::path> extra_record;  ///< installed files listed without hash (bytecode)
  bool from_cache = false;
  bool skipped = false;
  std::optional<Distribution> existing;
  std::vector<std::string> warnings;
  detail::Removal removal;  ///< what replacing `existing` moved aside (its parents are cleaned up after the commit)

  [[nodiscard]] std::filesystem::path stage(SchemeKey k) const {
    return staging / fmt::format("{}-{}", tag, to_string(k));
  }
  [[nodiscard]] std::filesystem::path backup() const { return staging / (tag + "-backup"); }
};

/// Checks the wheel's member names, modes and sizes against `options.limits`, its dist-info name,
/// WHEEL, METADATA and RECORD (every member listed with a hash of a known algorithm and its size,
/// nothing listed that is not there); fills `p.root`, `p.name`, `p.version`, `p.warnings` and
/// `p.files`, the destination of every member (plan_files.cpp).
[[nodiscard]] Result<void> plan(const wheel::Wheel& w, const InstallOptions& options, Prepared& p);

/// Longest path component (NAME_MAX) and longest path, terminating NUL included (PATH_MAX), that
/// Linux file systems take: a member beyond them could not be written (ENAMETOOLONG).
inline constexpr std::size_t kNameMax = 255;
inline constexpr std::size_t kPathMax = 4096;

/// `name` as an error shows it: whole when short, else its start and end around `…` (valid UTF-8
/// when `name` is).
[[nodiscard]] std::string abbreviated(std::string_view name);

/// Fails, naming the member (abbreviated), when a component of its name is longer than kNameMax
/// bytes or the name itself could never fit in a path (kPathMax).
[[nodiscard]] Result<void> check_member_length(std::string_view name);

/// Fails, naming both members, when one of `p.files` goes below another of the same scheme (`x`
/// and `x/y`): `x` cannot be a file and a directory. One hash look-up per directory of each file.
[[nodiscard]] Result<void> check_member_paths(const Prepared& p);

/// Fails, naming the member (abbreviated), when the path of a file of `p` in the environment or in
/// its staging directory (`p.staging` set) would be longer than a path may be (kPathMax).
[[nodiscard]] Result<void> check_path_lengths(const Environment& env, const Prepared& p);

/// One wheel of a run, for check_between_wheels: `label` names it in errors (its file name).
struct RunWheel {
  const Prepared* prepared = nullptr;
  std::string label;
};

/// Fails when the run's wheels (or one wheel's files of two schemes that share a directory) would
/// make one path both a file and a directory: names the path, both wheels and both files. Linear:
/// every directory of the run's files is looked up once.
[[nodiscard]] Result<void> check_between_wheels(const Environment& env, const std::vector<RunWheel>& wheels);

/// Where files of scheme `key` go (headers: in a directory named after the project).
[[nodiscard]] std::filesystem::path scheme_dir(const Environment& env, const Prepared& p, SchemeKey key);

/// What a prepared wheel's file comes from, for errors: its member, or a file vwheel writes.
[[nodiscard]] std::string file_label(const Prepared& p, const PlannedFile& f);

/// Whether the wheel has a staging directory for `key`: it installs files there (or it is the
/// root, which holds the dist-info directory).
[[nodiscard]] bool stages(const Prepared& p, SchemeKey key);

/// Removes a wheel's staging directories: after a commit, empty ones, removed with one rmdir
/// each (no listing); anything else with `remove_all`.
void remove_staging(const Prepared& p);

/// Rewrites the staged scripts' `#!python` shebangs and makes them executable, then writes the
/// entry points' launchers and the dist-info files vwheel adds (INSTALLER, REQUESTED when
/// `request.requested`, direct_url.json for a direct request, with `archive_sha`), each added
/// to `p.files` with its hash (generated.cpp).
[[nodiscard]] Result<void> finish_staging(const wheel::Wheel& w, const Environment& env, const WheelRequest& request,
                                          const std::string& archive_sha, Prepared& p);

/// Compiles the staged `.py` files of purelib/platlib with the environment's interpreter, as if
/// they were at their final place, and lists the `.pyc` files in `p.extra_record`.
[[nodiscard]] Result<void> compile(const Environment& env, Prepared& p);

/// Writes the staged RECORD: every file of `p.files` with its hash and size, `p.extra_record`
/// and RECORD itself without; fails on a path that would install outside its scheme directory.
[[nodiscard]] Result<void> write_record(const Environment& env, const Prepared& p);

/// Everything up to the move into place, for one wheel: a task of `pool`, whose members are
/// items any of the pool's idle threads takes (WorkerPool::for_each).
[[nodiscard]] Result<Prepared> prepare(const Environment& env, const WheelRequest& request,
                                       const InstallOptions& options, WorkerPool& pool, const DistInfoIndex& installed,
                                       const std::filesystem::path& run_dir, std::size_t index);

}  // namespace vwheel::install::detail
