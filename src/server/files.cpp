#include "server/files.hpp"

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>

#include "vwheel/core/fd.hpp"

namespace vwheel::server {
namespace {

// True when `path` is `root` or below it, and no component below `root` is hidden.
bool inside_root(std::string_view root, std::string_view path) {
  if (path == root) return true;
  if (path.size() <= root.size() || path.substr(0, root.size()) != root || path[root.size()] != '/') return false;
  const auto rest = path.substr(root.size());
  for (std::size_t i = 0; i + 1 < rest.size(); ++i) {
    if (rest[i] == '/' && rest[i + 1] == '.') return false;
  }
  return true;
}

}  // namespace

std::optional<ResolvedPath> resolve_inside(const std::string& root, std::span<const std::string> segments) {
  ResolvedPath out;
  out.path = root;
  out.path.reserve(root.size() + 64);
  for (const auto& segment : segments) {
    out.path.push_back('/');
    out.path += segment;
    if (::lstat(out.path.c_str(), &out.st) != 0) return std::nullopt;
    if (S_ISLNK(out.st.st_mode)) {
      char buf[PATH_MAX];
      if (::realpath(out.path.c_str(), buf) == nullptr) return std::nullopt;
      out.path = buf;
      if (!inside_root(root, out.path)) return std::nullopt;
      if (::stat(out.path.c_str(), &out.st) != 0) return std::nullopt;
    }
  }
  if (segments.empty() && ::stat(out.path.c_str(), &out.st) != 0) return std::nullopt;
  return out;
}

FileIdentity FileIdentity::of(const struct stat& st) noexcept {
  FileIdentity id;
  id.dev = static_cast<std::uint64_t>(st.st_dev);
  id.ino = static_cast<std::uint64_t>(st.st_ino);
  id.size = static_cast<std::uint64_t>(st.st_size);
  id.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
  return id;
}

std::shared_ptr<const CachedFile> FileCache::find(const std::string& path, const FileIdentity& identity) const {
  std::shared_lock lock(mutex_);
  auto it = files_.find(path);
  if (it == files_.end() || !(it->second->identity == identity)) return nullptr;
  return it->second;
}

void FileCache::put(const std::string& path, std::shared_ptr<const CachedFile> file) {
  const std::uint64_t size = file->body.size();
  if (size > max_file_) return;
  std::unique_lock lock(mutex_);
  auto it = files_.find(path);
  if (it != files_.end()) {
    total_ -= it->second->body.size();
    files_.erase(it);
  }
  if (total_ + size > max_total_) {
    files_.clear();
    total_ = 0;
  }
  total_ += size;
  files_.emplace(path, std::move(file));
}

std::optional<std::string> read_exact(int fd, std::uint64_t expected) {
  std::string out;
  out.resize(static_cast<std::size_t>(expected) + 1);
  const long long done = pread_all(fd, out.data(), out.size(), 0);
  if (done < 0 || static_cast<std::uint64_t>(done) != expected) return std::nullopt;
  out.resize(static_cast<std::size_t>(done));
  return out;
}

}  // namespace vwheel::server
