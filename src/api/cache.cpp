// `vwheel cache`: what each part of the cache holds, and taking it back (api/cache.hpp).
#include "vwheel/api/cache.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vwheel/core/file_lock.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"

namespace vwheel::api {
namespace fs = std::filesystem;

namespace {

/// The parts of the cache vwheel makes, in the order `info` lists them. `clean` removes only
/// these (and what a killed clean left aside): a `--cache-dir` that names another folder by
/// mistake loses nothing vwheel did not put there.
struct Known {
  const char* name;
  const char* what;
};
constexpr Known kAreas[] = {
    {"unpacked", "installed wheels, unpacked (hard-linked into environments)"},
    {"archives", "downloads kept (--keep-archives, lock) and records of wheels without a sha256"},
    {"http", "index pages"},
    {"metadata", "PEP 658 METADATA files"},
    {"wheel-members", "METADATA and variant.json read by range requests"},
    {"interpreters", "interpreter queries"},
    {"detect", "platform detection"},
    {"python-providers", "environments of Python variant providers (opted in)"},
    {"tmp", "scratch space of running commands"},
};

constexpr std::string_view kAside = ".trash-";

bool is_known(const std::string& name) {
  return std::any_of(std::begin(kAreas), std::end(kAreas), [&](const Known& k) { return name == k.name; });
}

/// Adds up files under the given paths (each a file or a directory), each inode once.
class UsageCounter {
 public:
  void add(const fs::path& path) {
    std::error_code ec;
    if (fs::is_symlink(path, ec) || !fs::is_directory(path, ec)) {
      add_file(path);
      return;
    }
    for (fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
      if (!it->is_directory(ec) || it->is_symlink(ec)) add_file(it->path());
    }
  }
  [[nodiscard]] Usage usage() const {
    Usage u = usage_;
    for (const auto& [id, seen] : names_) {
      if (seen.second < seen.first.nlink) u.shared_bytes += seen.first.bytes;
    }
    return u;
  }

 private:
  struct Inode {
    std::uint64_t bytes = 0;
    std::uint64_t nlink = 0;
  };
  void add_file(const fs::path& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return;
    auto [it, first] = names_.try_emplace({st.st_dev, st.st_ino}, Inode{}, 0);
    ++it->second.second;
    if (!first) return;
    const auto bytes = static_cast<std::uint64_t>(st.st_blocks) * 512;
    it->second.first = {bytes, static_cast<std::uint64_t>(st.st_nlink)};
    ++usage_.files;
    usage_.bytes += bytes;
  }
  Usage usage_;
  std::map<std::pair<dev_t, ino_t>, std::pair<Inode, std::uint64_t>> names_;  // inode -> (it, names seen)
};

std::vector<fs::path> children(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

bool starts_with(const fs::path& p, std::string_view prefix) { return p.filename().string().starts_with(prefix); }

/// The sha256 a record of a download without one names (archives/url-*/NAME.origin.json), or "".
std::string recorded_sha256(const fs::path& record) {
  auto text = read_file(record);
  if (!text) return {};
  const auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object() || !j.contains("sha256") || !j["sha256"].is_string()) return {};
  auto sha = j["sha256"].get<std::string>();
  return is_sha256_hex(sha) ? sha : std::string();
}

/// What prune removes (see cache_prune), each path once.
std::vector<fs::path> prunable(const fs::path& root) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& p : children(root)) {
    if (starts_with(p, kAside)) out.push_back(p);
  }
  for (const auto& p : children(root / "tmp")) out.push_back(p);
  // Temporaries a killed run left anywhere: write_file_atomic's `.NAME.tmp-*`, the unpacked
  // cache's `.tmp-*` directories and `.wheel-skeleton-*` files (no run is writing: prune holds the
  // exclusive lock).
  auto temporary = [](const fs::path& p) {
    const auto name = p.filename().string();
    return name.starts_with('.') &&
           (name.find(".tmp-") != std::string::npos || name.starts_with(".wheel-skeleton-"));
  };
  for (const auto& k : kAreas) {
    if (std::string_view(k.name) == "tmp") continue;
    for (fs::recursive_directory_iterator it(root / k.name, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
      if (!temporary(it->path())) continue;
      out.push_back(it->path());
      if (it->is_directory(ec) && !it->is_symlink(ec)) it.disable_recursion_pending();
    }
    ec.clear();
  }
  const auto archives = root / "archives";
  for (const auto& dir : children(archives)) {
    if (!fs::is_directory(dir, ec)) continue;
    const bool by_url = starts_with(dir, "url-");
    for (const auto& f : children(dir)) {
      const auto name = f.filename().string();
      if (name.ends_with(".part") || (!name.ends_with(".origin.json") && has_hole_before_end(f))) {
        out.push_back(f);
        continue;
      }
      if (!by_url || !name.ends_with(".origin.json")) continue;
      // A record serves only while a copy of the file it describes is there.
      const auto file = name.substr(0, name.size() - std::string_view(".origin.json").size());
      const auto sha = recorded_sha256(f);
      const bool copy = fs::exists(dir / file, ec) ||
                        (!sha.empty() && (fs::exists(archives / sha / file, ec) || fs::exists(root / "unpacked" / sha, ec)));
      if (!copy) out.push_back(f);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

/// Removes a file or a directory tree; the first error, naming it.
Result<void> remove_tree(const fs::path& p) {
  std::error_code ec;
  fs::remove_all(p, ec);
  if (ec) return fail(with_kind(Error(fmt::format("{}: cannot remove: {}", p.string(), ec.message())), ErrorKind::environment));
  return {};
}

/// A cache that is a file is an input error.
Result<void> check_root(const fs::path& root) {
  std::error_code ec;
  if (fs::exists(root, ec) && !fs::is_directory(root, ec)) {
    return fail(fmt::format("{}: not a directory (expected the vwheel cache)", root.string()));
  }
  return {};
}

/// The exclusive lock on the cache, to remove from it; nullopt when there is no cache yet.
Result<std::optional<CacheLock>> lock_for_removal(const CacheRequest& request, const fs::path& root) {
  if (auto ok = check_root(root); !ok) return fail(ok.error());
  std::error_code ec;
  if (!fs::exists(root, ec)) return std::optional<CacheLock>();
  auto lock = CacheLock::exclusive(root, [&] {
    if (request.on_wait) request.on_wait(root);
  });
  if (!lock) return fail(with_kind(lock.error(), ErrorKind::environment));
  return std::optional<CacheLock>(std::move(*lock));
}

}  // namespace

fs::path cache_dir(const CacheRequest& request) {
  return request.cache_dir.empty() ? default_cache_dir() : request.cache_dir;
}

Result<CacheInfo> cache_info(const CacheRequest& request) {
  CacheInfo info;
  info.root = cache_dir(request);
  if (auto ok = check_root(info.root); !ok) return fail(ok.error());
  std::error_code ec;
  UsageCounter total;
  for (const auto& k : kAreas) {
    const auto dir = info.root / k.name;
    if (!fs::exists(dir, ec)) continue;
    UsageCounter one;
    one.add(dir);
    total.add(dir);
    info.areas.push_back({k.name, k.what, one.usage()});
  }
  for (const auto& p : children(info.root)) {
    const auto name = p.filename().string();
    if (is_known(name) || name == ".lock") continue;
    UsageCounter one;
    one.add(p);
    total.add(p);
    info.areas.push_back({name, starts_with(p, kAside) ? "left aside by an interrupted clean" : "not made by vwheel",
                          one.usage()});
  }
  info.total = total.usage();
  UsageCounter prune;
  for (const auto& p : prunable(info.root)) prune.add(p);
  info.prunable = prune.usage();
  return info;
}

std::string cache_info_json(const CacheInfo& info) {
  auto usage = [](const Usage& u) {
    return nlohmann::ordered_json{{"files", u.files}, {"bytes", u.bytes}, {"shared_bytes", u.shared_bytes}};
  };
  nlohmann::ordered_json doc;
  doc["cache"] = info.root.string();
  doc["areas"] = nlohmann::ordered_json::array();
  for (const auto& a : info.areas) {
    auto one = nlohmann::ordered_json{{"name", a.name}, {"what", a.what}};
    one.update(usage(a.usage));
    doc["areas"].push_back(std::move(one));
  }
  doc["total"] = usage(info.total);
  doc["prunable"] = usage(info.prunable);
  return doc.dump(2) + "\n";
}

Result<Usage> cache_clean(const CacheRequest& request) {
  const auto root = cache_dir(request);
  auto lock = lock_for_removal(request, root);
  if (!lock) return fail(lock.error());
  if (!*lock) return Usage{};
  std::error_code ec;
  std::vector<fs::path> doomed;
  for (const auto& p : children(root)) {
    if (is_known(p.filename().string()) || starts_with(p, kAside)) doomed.push_back(p);
  }
  UsageCounter counter;
  for (const auto& p : doomed) counter.add(p);
  // Aside first (one rename each), then removed: a clean killed midway leaves only `.trash-*`.
  std::vector<fs::path> aside;
  for (const auto& p : doomed) {
    if (starts_with(p, kAside)) {
      aside.push_back(p);
      continue;
    }
    auto to = root / fmt::format("{}{}-{}", kAside, unique_token(), p.filename().string());
    fs::rename(p, to, ec);
    if (ec) return fail(with_kind(Error(fmt::format("{}: cannot move it aside to remove it: {}", p.string(), ec.message())),
                                  ErrorKind::environment));
    aside.push_back(std::move(to));
  }
  for (const auto& p : aside) {
    if (auto ok = remove_tree(p); !ok) return fail(ok.error());
  }
  return counter.usage();
}

Result<Usage> cache_prune(const CacheRequest& request) {
  const auto root = cache_dir(request);
  auto lock = lock_for_removal(request, root);
  if (!lock) return fail(lock.error());
  if (!*lock) return Usage{};
  std::error_code ec;
  const auto doomed = prunable(root);
  UsageCounter counter;
  for (const auto& p : doomed) counter.add(p);
  for (const auto& p : doomed) {
    if (auto ok = remove_tree(p); !ok) return fail(ok.error());
  }
  // Directories of the archive cache left empty.
  for (const auto& dir : children(root / "archives")) {
    if (fs::is_directory(dir, ec) && fs::is_empty(dir, ec)) fs::remove(dir, ec);
  }
  return counter.usage();
}

}  // namespace vwheel::api
