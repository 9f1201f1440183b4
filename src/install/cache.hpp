#pragma once
// The unpacked-wheel cache, `<cache>/unpacked/<archive sha256>/`: each planned file of the wheel
// as `<member index>`, a manifest of their sizes and modification times, and the wheel's skeleton
// (zip::write_skeleton: its `.dist-info` and central directory), from which an install is planned
// when the archive itself was not kept.

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include <atomic>

#include "prepare.hpp"
#include "vwheel/core/error.hpp"
#include "vwheel/install/install.hpp"
#include "vwheel/zip/zip.hpp"

namespace vwheel::install::detail {

/// The manifest's name in an entry: `<member index> SIZE MTIME` a line.
inline constexpr std::string_view kManifest = "manifest";
/// The skeleton's name in an entry.
inline constexpr std::string_view kSkeleton = "wheel-skeleton";

/// Where an entry keeps the file of member `entry_index` (one directory per wheel, instead of a
/// tree, spares the inodes that made up much of a cold install's time).
[[nodiscard]] std::filesystem::path cached_member(const std::filesystem::path& entry, std::size_t entry_index);

/// `SIZE MTIME` of a file, as a manifest records it; nullopt when it cannot be read.
[[nodiscard]] std::optional<std::string> size_and_mtime(const std::filesystem::path& path);

/// The manifest of an entry: member index -> `SIZE MTIME`.
[[nodiscard]] Result<std::map<std::size_t, std::string>> read_manifest(const std::filesystem::path& entry);

/// Moves a cache entry aside and removes it (others may still be reading it: they see it gone
/// and unpack for themselves).
void discard_cache_entry(const std::filesystem::path& unpacked_dir, const std::filesystem::path& entry);

/// Whether the skeleton keeps `e`: a member of a `.dist-info` directory at the top (a wheel has
/// one; the installer reads its members to plan).
[[nodiscard]] bool skeleton_keeps(const zip::Entry& e);

/// Adds a skeleton of `archive` to the existing `entry` (written aside, then renamed in, so that
/// a reader sees it whole or not at all). True when the entry has one afterwards.
bool add_skeleton(const std::filesystem::path& entry, const zip::Archive& archive);

/// Whether `path` is a download kept in the archive cache under `cache_dir`
/// (`<cache_dir>/archives/<key>/<file>`).
[[nodiscard]] bool in_archive_cache(const std::filesystem::path& path, const std::filesystem::path& cache_dir);

/// Removes a download kept in the archive cache, and its directory when that is left empty.
void remove_cached_archive(const std::filesystem::path& path);

/// A cache entry `<cache>/unpacked/<sha256>/` made while the wheel is unpacked: each staged
/// (verified, unmodified) file is linked into a temporary directory by the worker that wrote it,
/// as soon as it is written (no second pass over thousands of files after the last member), and
/// the directory is renamed into place with its manifest of sizes and modification times once
/// the whole wheel is in. The cache is an optimisation: failing to fill it is no error.
class CacheFill {
 public:
  CacheFill(const std::filesystem::path& unpacked_dir, const Prepared& p, LinkMode mode);
  CacheFill(const CacheFill&) = delete;
  CacheFill& operator=(const CacheFill&) = delete;
  ~CacheFill();

  /// Adds p.files[i], just staged; called from the unpacking workers.
  void add(std::size_t i) noexcept;
  /// Adds the skeleton of the (complete, verified) archive.
  void add_skeleton(const zip::Archive& archive) noexcept;
  /// Names the entry `sha` (the archive's sha256) once every file was added; removes it instead
  /// when a file could not be, or when another run made that entry first. True when this call
  /// made the entry.
  bool finish(const std::string& sha);

 private:
  std::filesystem::path unpacked_dir_;
  std::filesystem::path tmp_;
  const Prepared& p_;
  LinkMode mode_;
  std::vector<std::string> lines_;
  std::atomic<bool> failed_{false};
};

}  // namespace vwheel::install::detail
