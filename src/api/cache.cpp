// `vwheel cache`: what each part of the cache holds, and taking it back (api/cache.hpp).
#include "vwheel/core/cache_layout.hpp"
#include "vwheel/api/cache.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vwheel/core/file_lock.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/plan/plan.hpp"
#include "vwheel/wheel_name/names.hpp"
#include "vwheel/wheel_name/wheel_name.hpp"
#include "vwheel/zip/zip.hpp"

namespace vwheel::api {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kAside = ".trash-";

/// Whether `name` is one of the cache's areas (CacheLayout): `clean` removes only those.
bool is_known(const std::string& name) {
  return std::any_of(kCacheAreas.begin(), kCacheAreas.end(), [&](const CacheAreaInfo& k) { return name == k.name; });
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

/// What prune removes (see cache_prune), each path once.
std::vector<fs::path> prunable(const fs::path& root) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& p : children(root)) {
    if (starts_with(p, kAside)) out.push_back(p);
  }
  for (const auto& p : children(CacheLayout(root).area(vwheel::CacheArea::tmp))) out.push_back(p);
  // Temporaries a killed run left anywhere: write_file_atomic's `.NAME.tmp-*`, the unpacked
  // cache's `.tmp-*` directories and `.wheel-skeleton-*` files (no run is writing: prune holds the
  // exclusive lock).
  auto temporary = [](const fs::path& p) {
    const auto name = p.filename().string();
    return name.starts_with('.') &&
           (name.find(".tmp-") != std::string::npos || name.starts_with(".wheel-skeleton-"));
  };
  for (const auto& k : kCacheAreas) {
    if (k.area == vwheel::CacheArea::tmp || k.area == vwheel::CacheArea::git) continue;  // (git keeps its own)
    for (fs::recursive_directory_iterator it(CacheLayout(root).area(k.area), fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
      if (!temporary(it->path())) continue;
      out.push_back(it->path());
      if (it->is_directory(ec) && !it->is_symlink(ec)) it.disable_recursion_pending();
    }
    ec.clear();
  }
  const auto archives = CacheLayout(root).area(vwheel::CacheArea::archives);
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
      const auto sha = plan::origin_record_sha256(f).value_or("");
      const bool copy = fs::exists(dir / file, ec) ||
                        (!sha.empty() && (fs::exists(archives / sha / file, ec) || fs::exists(CacheLayout(root).unpacked(sha), ec)));
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

/// Moves each path aside (`<root>/.trash-*`, one rename each), then removes them: a removal
/// killed midway leaves only `.trash-*`, which the next clean or prune takes, never a
/// half-removed entry that a run could take for a whole one.
Result<void> remove_aside(const fs::path& root, const std::vector<fs::path>& doomed) {
  std::error_code ec;
  std::vector<fs::path> aside;
  for (const auto& p : doomed) {
    if (p.parent_path() == root && starts_with(p, kAside)) {
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
  return {};
}

/// Removes the directories under `area` that are left empty.
void remove_empty_dirs(const fs::path& area) {
  std::error_code ec;
  for (const auto& dir : children(area)) {
    if (fs::is_directory(dir, ec) && !fs::is_symlink(dir, ec) && fs::is_empty(dir, ec)) fs::remove(dir, ec);
  }
}

// --- Which project a cache file belongs to (cache_clean_projects) ---

/// The normalized project of a wheel file name, possibly followed by a suffix of vwheel's
/// (`.part`, `.origin.json`) or PEP 658's (`.metadata`); "" for anything else.
std::string wheel_file_project(std::string_view file) {
  const auto end = file.find(".whl");
  if (end == std::string_view::npos) return {};
  auto name = wheel_name::parse_wheel_name(file.substr(0, end + 4));
  return name ? wheel_name::canonicalize_name(name->name) : std::string();
}

/// The normalized project a URL is about: a wheel (or its `.metadata`), a `*-variants.json`, or
/// a project page (`.../simple/NAME/`); "" when it names none.
std::string url_project(std::string_view url) {
  url = url.substr(0, std::min(url.find('#'), url.find('?')));
  while (url.ends_with('/')) url.remove_suffix(1);
  const auto slash = url.rfind('/');
  if (slash == std::string_view::npos) return {};
  const auto last = url.substr(slash + 1);
  if (auto project = wheel_file_project(last); !project.empty()) return project;
  if (last.ends_with("-variants.json")) {
    const auto namever = last.substr(0, last.size() - std::string_view("-variants.json").size());
    const auto dash = namever.find('-');
    const auto name = namever.substr(0, dash);
    return dash != std::string_view::npos && wheel_name::is_valid_project_name(name) ? wheel_name::canonicalize_name(name)
                                                                                      : std::string();
  }
  return wheel_name::is_valid_project_name(last) ? wheel_name::canonicalize_name(last) : std::string();
}

/// The first line of a file (at most 64 KiB), or "".
std::string first_line(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(64 * 1024, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  head.resize(std::min(head.find('\n'), head.size()));
  return head;
}

/// The `url` of vwheel's JSON first line (index pages in `http/`, members in `wheel-members/`).
std::string recorded_url(const fs::path& path) {
  const auto j = nlohmann::json::parse(first_line(path), nullptr, false);
  if (!j.is_object() || !j.contains("url") || !j["url"].is_string()) return {};
  return j["url"].get<std::string>();
}

/// The normalized `Name:` of a METADATA file's headers, or "".
std::string metadata_project(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  for (int n = 0; n < 200 && std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) break;  // the end of the headers
    if (line.size() > 5 && (line.compare(0, 5, "Name:") == 0 || line.compare(0, 5, "name:") == 0)) {
      auto name = std::string_view(line).substr(5);
      while (!name.empty() && (name.front() == ' ' || name.front() == '\t')) name.remove_prefix(1);
      while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.remove_suffix(1);
      return wheel_name::is_valid_project_name(name) ? wheel_name::canonicalize_name(name) : std::string();
    }
  }
  return {};
}

/// The normalized project of an unpacked wheel `<cache>/unpacked/<sha256>/`: its skeleton's
/// `NAME-VERSION.dist-info/`, else the wheel kept in `<cache>/archives/<sha256>/`; "" when neither.
std::string unpacked_project(const fs::path& root, const fs::path& entry) {
  if (auto skeleton = zip::Archive::open(entry / "wheel-skeleton")) {
    for (const auto& e : skeleton->entries()) {
      const auto top = std::string_view(e.name).substr(0, e.name.find('/'));
      if (top.size() == e.name.size() || !top.ends_with(".dist-info")) continue;
      const auto name = top.substr(0, top.find('-'));
      if (wheel_name::is_valid_project_name(name)) return wheel_name::canonicalize_name(name);
    }
  }
  for (const auto& f : children(CacheLayout(root).archive_dir(entry.filename().string()))) {
    if (auto project = wheel_file_project(f.filename().string()); !project.empty()) return project;
  }
  return {};
}

/// Every file or entry of the cache that belongs to one of `wanted` (normalized names), by project.
std::map<std::string, std::vector<fs::path>> project_files(const fs::path& root, const std::set<std::string>& wanted) {
  std::map<std::string, std::vector<fs::path>> out;
  auto take = [&](const std::string& project, const fs::path& p) {
    if (!project.empty() && wanted.count(project) != 0) out[project].push_back(p);
  };
  std::error_code ec;
  auto hidden = [](const fs::path& p) { return p.filename().string().starts_with('.'); };
  for (const auto& entry : children(CacheLayout(root).area(vwheel::CacheArea::unpacked))) {
    if (!hidden(entry) && fs::is_directory(entry, ec)) take(unpacked_project(root, entry), entry);
  }
  for (const auto& dir : children(CacheLayout(root).area(vwheel::CacheArea::archives))) {
    for (const auto& f : children(dir)) take(wheel_file_project(f.filename().string()), f);
  }
  for (const auto& f : children(CacheLayout(root).area(vwheel::CacheArea::metadata))) {
    if (!hidden(f)) take(metadata_project(f), f);
  }
  for (const auto& dir : children(CacheLayout(root).area(vwheel::CacheArea::wheel_members))) {
    for (const auto& f : children(dir)) {
      if (!hidden(f)) take(url_project(recorded_url(f)), f);
    }
  }
  for (const auto& f : children(CacheLayout(root).area(vwheel::CacheArea::http))) {
    if (!hidden(f)) take(url_project(recorded_url(f)), f);
  }
  return out;
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
  for (const auto& k : kCacheAreas) {
    const auto dir = CacheLayout(info.root).area(k.area);
    if (!fs::exists(dir, ec)) continue;
    UsageCounter one;
    one.add(dir);
    total.add(dir);
    info.areas.push_back({std::string(k.name), std::string(k.what), one.usage()});
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
  std::vector<fs::path> doomed;
  for (const auto& p : children(root)) {
    if (is_known(p.filename().string()) || starts_with(p, kAside)) doomed.push_back(p);
  }
  UsageCounter counter;
  for (const auto& p : doomed) counter.add(p);
  if (auto ok = remove_aside(root, doomed); !ok) return fail(ok.error());
  return counter.usage();
}

Result<std::vector<ProjectUsage>> cache_clean_projects(const CacheRequest& request,
                                                       const std::vector<std::string>& projects) {
  std::set<std::string> wanted;
  std::vector<ProjectUsage> out;  // a name given twice (in any spelling) once
  for (const auto& name : projects) {
    if (!wheel_name::is_valid_project_name(name)) {
      return fail(fmt::format("{}: not a valid project name (expected letters, digits and . _ - inside, such as torch)", name));
    }
    if (wanted.insert(wheel_name::canonicalize_name(name)).second) out.push_back({name, {}});
  }
  const auto root = cache_dir(request);
  auto lock = lock_for_removal(request, root);
  if (!lock) return fail(lock.error());
  if (!*lock) return out;
  auto found = project_files(root, wanted);
  std::vector<fs::path> doomed;
  for (auto& r : out) {
    const auto it = found.find(wheel_name::canonicalize_name(r.project));
    if (it == found.end()) continue;
    UsageCounter counter;
    for (const auto& p : it->second) counter.add(p);
    r.usage = counter.usage();
    doomed.insert(doomed.end(), it->second.begin(), it->second.end());
  }
  if (auto ok = remove_aside(root, doomed); !ok) return fail(ok.error());
  remove_empty_dirs(CacheLayout(root).area(vwheel::CacheArea::archives));
  remove_empty_dirs(CacheLayout(root).area(vwheel::CacheArea::wheel_members));
  return out;
}

Result<Usage> cache_prune(const CacheRequest& request) {
  const auto root = cache_dir(request);
  auto lock = lock_for_removal(request, root);
  if (!lock) return fail(lock.error());
  if (!*lock) return Usage{};
  const auto doomed = prunable(root);
  UsageCounter counter;
  for (const auto& p : doomed) counter.add(p);
  for (const auto& p : doomed) {
    if (auto ok = remove_tree(p); !ok) return fail(ok.error());
  }
  remove_empty_dirs(CacheLayout(root).area(vwheel::CacheArea::archives));  // directories of the archive cache left empty
  return counter.usage();
}

}  // namespace vwheel::api
