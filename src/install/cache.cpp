#include "cache.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <system_error>

#include <fmt/format.h>

#include "place.hpp"
#include "vwheel/core/cache_layout.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"

namespace vwheel::install {
namespace fs = std::filesystem;

namespace detail {

fs::path cached_member(const fs::path& entry, std::size_t entry_index) { return entry / std::to_string(entry_index); }

std::optional<std::string> size_and_mtime(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return fmt::format("{} {}.{:09}", st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

Result<std::map<std::size_t, std::string>> read_manifest(const fs::path& entry) {
  auto manifest = read_file(entry / kManifest);
  if (!manifest) return fail(manifest.error());
  std::map<std::size_t, std::string> recorded;
  std::string_view rest = *manifest;
  while (!rest.empty()) {
    const auto end = std::min(rest.find('\n'), rest.size());
    const auto line = rest.substr(0, end);
    rest.remove_prefix(std::min(end + 1, rest.size()));
    const auto space = line.find(' ');
    std::size_t index = 0;
    if (space == std::string_view::npos) continue;
    const auto [ptr, ec] = std::from_chars(line.data(), line.data() + space, index);
    if (ec != std::errc() || ptr != line.data() + space) continue;
    recorded.emplace(index, std::string(line.substr(space + 1)));
  }
  return recorded;
}

void discard_cache_entry(const fs::path& unpacked_dir, const fs::path& entry) {
  std::error_code ec;
  const auto aside = unpacked_dir / fmt::format(".tmp-{}", unique_token());
  if (::rename(entry.c_str(), aside.c_str()) == 0) fs::remove_all(aside, ec);
}

bool skeleton_keeps(const zip::Entry& e) {
  const auto top = std::string_view(e.name).substr(0, e.name.find('/'));
  return top.size() < e.name.size() && top.size() > std::string_view(".dist-info").size() && top.ends_with(".dist-info");
}

bool add_skeleton(const fs::path& entry, const zip::Archive& archive) {
  std::error_code ec;
  const auto at = entry / kSkeleton;
  if (fs::is_regular_file(at, ec)) return true;
  const auto tmp = entry / fmt::format(".{}-{}", kSkeleton, unique_token());
  if (!zip::write_skeleton(archive, skeleton_keeps, tmp)) return false;
  if (::rename(tmp.c_str(), at.c_str()) == 0) return true;
  (void)::unlink(tmp.c_str());
  return false;
}

bool in_archive_cache(const fs::path& path, const fs::path& cache_dir) {
  return CacheLayout(cache_dir).area(CacheArea::archives).lexically_normal() == path.parent_path().parent_path().lexically_normal();
}

void remove_cached_archive(const fs::path& path) {
  if (::unlink(path.c_str()) == 0) (void)::rmdir(path.parent_path().c_str());
}

CacheFill::CacheFill(const fs::path& unpacked_dir, const Prepared& p, LinkMode mode)
    : unpacked_dir_(unpacked_dir), tmp_(unpacked_dir / fmt::format(".tmp-{}", unique_token())), p_(p), mode_(mode),
      lines_(p.files.size()) {
  failed_ = !make_dir(tmp_);
}

CacheFill::~CacheFill() {
  if (!tmp_.empty()) {
    std::error_code ec;
    fs::remove_all(tmp_, ec);
  }
}

void CacheFill::add(std::size_t i) noexcept {
  if (failed_) return;
  try {
    const auto& f = p_.files[i];
    const auto member = cached_member(tmp_, f.entry);
    auto stamp = place_file(p_.stage(f.key) / f.relative, member, mode_) ? size_and_mtime(member) : std::nullopt;
    if (!stamp) {
      failed_ = true;
      return;
    }
    lines_[i] = fmt::format("{} {}\n", f.entry, *stamp);
  } catch (...) {
    failed_ = true;
  }
}

void CacheFill::add_skeleton(const zip::Archive& archive) noexcept {
  if (failed_) return;
  try {
    if (!zip::write_skeleton(archive, skeleton_keeps, tmp_ / kSkeleton)) failed_ = true;
  } catch (...) {
    failed_ = true;
  }
}

bool CacheFill::finish(const std::string& sha) {
  std::error_code ec;
  if (failed_ || fs::exists(unpacked_dir_ / sha, ec)) return false;
  std::string manifest;
  for (const auto& l : lines_) manifest += l;
  if (!write_new_file(tmp_ / kManifest, manifest, 0644)) return false;
  if (::rename(tmp_.c_str(), (unpacked_dir_ / sha).c_str()) != 0) return false;
  tmp_.clear();
  return true;
}

}  // namespace detail

std::optional<fs::path> cached_skeleton(const fs::path& cache_dir, std::string_view sha256, bool check_files) {
  if (!is_sha256_hex(sha256)) return std::nullopt;
  const auto entry = CacheLayout(cache_dir).unpacked(sha256);
  const auto skeleton = entry / detail::kSkeleton;
  struct stat st {};
  if (::stat(skeleton.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  if (!check_files) return skeleton;
  auto manifest = detail::read_manifest(entry);
  if (!manifest) return std::nullopt;
  for (const auto& [index, stamp] : *manifest) {
    if (detail::size_and_mtime(detail::cached_member(entry, index)) != stamp) return std::nullopt;
  }
  // What the install will read of it, read (CRC-checked) now: a damaged skeleton is dropped here,
  // so the wheel is downloaded again, rather than failing the install. Costs a few milliseconds
  // for torch (its central directory and RECORD are 1.5 MB each) on a warm install of ~250 ms.
  auto archive = zip::Archive::open(skeleton);
  bool sound = archive.has_value();
  if (sound) {
    for (const auto& e : archive->entries()) {
      if (!detail::skeleton_keeps(e)) continue;
      if (!archive->read_streamed(e, [](std::string_view) -> Result<void> { return {}; })) {
        sound = false;
        break;
      }
    }
  }
  if (!sound) {
    detail::discard_cache_entry(CacheLayout(cache_dir).area(CacheArea::unpacked), entry);
    return std::nullopt;
  }
  return skeleton;
}

}  // namespace vwheel::install
