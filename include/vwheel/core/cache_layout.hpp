#pragma once
/// \file
/// The cache's layout, in one place: which areas the cache root holds, what each is for, and how
/// an entry's path is made from its key. Every component that reads or writes the cache names its
/// folders through this type, and `vwheel cache info|clean|prune` enumerate `cache_areas()`, so a
/// new area is one line here (as uv's `CacheBucket`).

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string_view>
#include <utility>

namespace vwheel {

/// One area (a folder) of the cache root.
enum class CacheArea : std::uint8_t {
  unpacked,          ///< installed wheels, unpacked, by the wheel's sha256 (hard-linked into environments)
  archives,          ///< downloads kept, by sha256 (`<sha256>/FILE`) or by URL (`url-<sha256 of the URL>/`)
  http,              ///< index pages and other HTTP answers, by the request
  metadata,          ///< PEP 658 METADATA files, by their sha256
  wheel_members,     ///< METADATA and variant.json read by range requests
  interpreters,      ///< interpreter queries
  detect,            ///< platform detection
  python_providers,  ///< environments of Python variant providers (opted in)
  tmp,               ///< scratch space of running commands
  built,             ///< wheels built from sdists of indexes, by the sdist's sha256 and the build's inputs
  git,               ///< bare clones of `git+` references' repositories, by the URL without credentials
};

/// An area's folder name and a few words on what it holds (for `vwheel cache info`).
struct CacheAreaInfo {
  CacheArea area;
  std::string_view name;
  std::string_view what;
};

/// Every area, in the order `vwheel cache info` lists them. `clean` removes only these: a
/// `--cache-dir` that names another folder by mistake loses nothing vwheel did not put there.
inline constexpr std::array<CacheAreaInfo, 11> kCacheAreas{{
    {CacheArea::unpacked, "unpacked", "installed wheels, unpacked (hard-linked into environments)"},
    {CacheArea::archives, "archives", "downloads kept (--keep-archives, lock) and records of wheels without a sha256"},
    {CacheArea::http, "http", "index pages"},
    {CacheArea::metadata, "metadata", "PEP 658 METADATA files"},
    {CacheArea::wheel_members, "wheel-members", "METADATA and variant.json read by range requests"},
    {CacheArea::interpreters, "interpreters", "interpreter queries"},
    {CacheArea::detect, "detect", "platform detection"},
    {CacheArea::python_providers, "python-providers", "environments of Python variant providers (opted in)"},
    {CacheArea::tmp, "tmp", "scratch space of running commands"},
    {CacheArea::built, "built-wheels", "wheels built from sdists (and the logs of failed builds)"},
    {CacheArea::git, "git", "git repositories of git+ references (bare clones)"},
}};

static_assert(
    [] {
      for (std::size_t i = 0; i < kCacheAreas.size(); ++i) {
        if (static_cast<std::size_t>(kCacheAreas[i].area) != i) return false;
      }
      return true;
    }(),
    "kCacheAreas lists the areas in CacheArea's order");

/// The folder name of an area.
[[nodiscard]] constexpr std::string_view cache_area_name(CacheArea area) noexcept {
  return kCacheAreas[static_cast<std::size_t>(area)].name;
}

/// A cache root and the paths below it.
class CacheLayout {
 public:
  explicit CacheLayout(std::filesystem::path root) : root_(std::move(root)) {}

  [[nodiscard]] const std::filesystem::path& root() const noexcept { return root_; }
  /// The area's folder.
  [[nodiscard]] std::filesystem::path area(CacheArea area) const { return root_ / cache_area_name(area); }
  /// The area's entry `key` (a file or a folder, as the area keeps them).
  [[nodiscard]] std::filesystem::path entry(CacheArea area, std::string_view key) const {
    return this->area(area) / key;
  }
  /// The folder that keeps a download whose sha256 is known: `archives/<sha256>/`.
  [[nodiscard]] std::filesystem::path archive_dir(std::string_view sha256) const {
    return entry(CacheArea::archives, sha256);
  }
  /// An unpacked wheel: `unpacked/<sha256>/`.
  [[nodiscard]] std::filesystem::path unpacked(std::string_view sha256) const {
    return entry(CacheArea::unpacked, sha256);
  }

 private:
  std::filesystem::path root_;
};

}  // namespace vwheel
