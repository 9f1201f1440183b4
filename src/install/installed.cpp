#include "installed.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "journal.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/interrupt.hpp"
#include "vwheel/metadata/document.hpp"
#include "vwheel/wheel/record.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::install {
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> lib_dirs(const Environment& env) {
  std::vector<fs::path> dirs{env.scheme.purelib};
  std::error_code ec;
  if (env.scheme.platlib != env.scheme.purelib && !fs::equivalent(env.scheme.platlib, env.scheme.purelib, ec)) {
    dirs.push_back(env.scheme.platlib);
  }
  return dirs;
}

std::string first_line(std::string_view text) {
  auto line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
  return std::string(line);
}

Distribution read_distribution(const fs::path& dist_info) {
  Distribution d;
  d.dist_info = dist_info;
  const auto stem = dist_info.stem().string();  // name-version
  if (auto md = read_file(dist_info / "METADATA"); md) {
    auto nv = parse_metadata_name_version(*md);
    d.name = nv.name;
    d.version = nv.version;
  }
  if (d.name.empty()) d.name = stem.substr(0, stem.find('-'));
  if (d.version.empty() && stem.find('-') != std::string::npos) d.version = stem.substr(stem.find('-') + 1);
  if (auto inst = read_file(dist_info / "INSTALLER"); inst) d.installer = first_line(*inst);
  std::error_code ec;
  if (fs::exists(dist_info / "direct_url.json", ec)) {
    if (auto text = read_file(dist_info / "direct_url.json"); text) d.direct_url = std::move(*text);
  }
  if (fs::exists(dist_info / "variant.json", ec)) {
    if (auto text = read_file(dist_info / "variant.json"); text) {
      if (auto doc = metadata::parse_json_document(*text, metadata::DocumentKind::VariantJson); doc) {
        if (!doc->metadata.variants.empty()) {
          const auto& [label, props] = *doc->metadata.variants.begin();
          d.variant_label = label;
          for (const auto& p : props) d.variant_properties.push_back(p.to_string());
        }
      }
    }
  }
  return d;
}

}  // namespace

std::vector<Distribution> list_distributions(const Environment& env) {
  std::vector<Distribution> out;
  for (const auto& dir : lib_dirs(env)) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const auto name = it->path().filename().string();
      if (name.size() > 10 && name.ends_with(".dist-info") && it->is_directory(ec)) out.push_back(read_distribution(it->path()));
    }
  }
  std::sort(out.begin(), out.end(), [](const Distribution& a, const Distribution& b) {
    return wheel_name::canonicalize_name(a.name) < wheel_name::canonicalize_name(b.name);
  });
  return out;
}

std::optional<Distribution> find_distribution(const Environment& env, std::string_view name) {
  return detail::find_in_index(detail::index_dist_infos(env), wheel_name::canonicalize_name(name));
}

namespace detail {

DistInfoIndex index_dist_infos(const Environment& env, std::vector<fs::path>* staging) {
  DistInfoIndex index;
  for (const auto& dir : lib_dirs(env)) {
    std::error_code ec;
    const bool staging_dir = staging != nullptr && dir == env.scheme.purelib;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const auto file = it->path().filename().string();
      if (staging_dir && file.starts_with(".vwheel-tmp-")) staging->push_back(it->path());
      if (file.size() <= 10 || !file.ends_with(".dist-info")) continue;
      const auto stem = file.substr(0, file.size() - 10);
      index.emplace(wheel_name::canonicalize_name(stem.substr(0, stem.find('-'))), it->path());
    }
  }
  return index;
}

std::optional<Distribution> find_in_index(const DistInfoIndex& index, std::string_view canonical_name) {
  auto [first, last] = index.equal_range(canonical_name);
  for (auto it = first; it != last; ++it) {
    auto d = read_distribution(it->second);
    if (wheel_name::canonicalize_name(d.name) == canonical_name) return d;
  }
  return std::nullopt;
}

Result<Removal> remove_distribution(const Environment& env, const Distribution& dist, Transaction& tx) {
  Removal removal;
  auto text = read_file(dist.dist_info / "RECORD");
  if (!text) return fail(fmt::format("{} {}: cannot uninstall: no RECORD in {}", dist.name, dist.version, dist.dist_info.string()));
  auto rows = wheel::parse_record(*text);
  if (!rows) return fail(rows.error().with_context((dist.dist_info / "RECORD").string()));
  const auto base = dist.dist_info.parent_path();
  const auto dist_info_n = dist.dist_info.lexically_normal();
  // What is there is removed only when it is inside the environment (its directory's real path):
  // one entry outside refuses the whole removal (a link to a checkout in site-packages must not
  // cost the checkout its files). What is not there is not removed, wherever RECORD puts it.
  Confinement confinement(env);
  // `what()` names the entry (made only for the error).
  auto confined = [&](const fs::path& p, const auto& what) -> Result<void> {
    auto ok = confinement.check(p);  // one look-up per directory; the file is looked at only when outside
    if (ok || !exists_no_follow(p)) return {};
    return fail(fmt::format("{} {}: {}: {}; nothing was removed", dist.name, dist.version, what(), ok.error().message));
  };
  // RECORD's files, then the compiled files of its modules; each `__pycache__` is listed once.
  std::vector<RemovedFile> listed;
  std::unordered_set<std::string> seen;
  std::unordered_map<std::string, std::vector<std::string>> caches;
  for (const auto& row : *rows) {
    auto p = (base / row.path).lexically_normal();
    const auto what = [&] { return fmt::format("RECORD line `{}`", row.path); };
    if (auto ok = confined(p, what); !ok) return fail(ok.error());
    if (normal_within(p.native(), dist_info_n.native())) continue;  // removed with the directory
    if (p.extension() != ".py") {
      if (seen.insert(p.native()).second) listed.push_back({std::move(p), false});
      continue;
    }
    auto cache = p.parent_path() / "__pycache__";
    const auto stem = p.stem().string();
    if (seen.insert(p.native()).second) listed.push_back({std::move(p), false});
    auto [names, first] = caches.try_emplace(cache.native());
    if (first) {
      std::error_code ec;
      for (fs::directory_iterator it(cache, ec), end; !ec && it != end; it.increment(ec)) {
        names->second.push_back(it->path().filename().string());
      }
    }
    for (const auto& n : names->second) {
      if (!compiled_from(n, stem)) continue;
      auto pyc = cache / n;
      const auto pyc_what = [&] { return "the compiled file of " + what(); };
      if (auto ok = confined(pyc, pyc_what); !ok) return fail(ok.error());
      if (seen.insert(pyc.native()).second) listed.push_back({std::move(pyc), true});
    }
  }
  const auto dist_info_what = [] { return std::string("its dist-info directory"); };
  if (auto ok = confined(dist.dist_info, dist_info_what); !ok) return fail(ok.error());
  auto plan = plan_removal(env, listed);
  // Above files that were checked, and no link: inside too; checked all the same, before any moves.
  for (const auto& dir : plan.directories) {
    const auto dir_what = [&] { return fmt::format("its directory `{}`", dir.string()); };
    if (auto ok = confined(dir, dir_what); !ok) return fail(ok.error());
  }
  for (const auto& dir : plan.directories) {
    if (auto ok = tx.remove(dir); !ok) return fail(ok.error());
    removal.parents.push_back(dir.parent_path());
  }
  for (const auto& file : plan.files) {
    if (auto ok = tx.remove(file); !ok) return fail(ok.error());
    removal.parents.push_back(file.parent_path());
  }
  removal.files = plan.counted;
  if (auto ok = tx.remove(dist.dist_info); !ok) return fail(ok.error());
  ++removal.files;
  // One sync for the distribution's removals; the next distribution's checks see them done
  // (a file two RECORDs list is then gone, and skipped).
  if (auto ok = tx.flush(); !ok) return fail(ok.error());
  return removal;
}

bool normal_within(std::string_view path, std::string_view dir) noexcept {
  while (dir.size() > 1 && dir.back() == '/') dir.remove_suffix(1);
  if (!path.starts_with(dir)) return false;
  return path.size() == dir.size() || dir == "/" || path[dir.size()] == '/';
}

std::unordered_set<std::string> owned_paths(const Environment& env, const Distribution& dist) {
  std::unordered_set<std::string> out;
  auto text = read_file(dist.dist_info / "RECORD");
  if (!text) return out;
  auto rows = wheel::parse_record(*text);
  if (!rows) return out;
  const auto base = dist.dist_info.parent_path();
  const auto prefix = env.prefix.lexically_normal();
  for (const auto& row : *rows) {
    auto p = (base / row.path).lexically_normal();
    if (normal_within(p.native(), prefix.native())) out.insert(std::move(p).native());
  }
  return out;
}

namespace {

/// Whether every file below `dir` (outside `__pycache__`, which goes with its `.py` files) is
/// one of `replaced`.
bool only_replaced(const fs::path& dir, const std::unordered_set<std::string>& replaced) {
  std::error_code ec;
  std::size_t seen = 0;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end; !ec && it != end; it.increment(ec)) {
    if (++seen > 1000000) return false;
    const auto st = it->symlink_status(ec);
    if (fs::is_directory(st)) {
      if (it->path().filename() == "__pycache__") it.disable_recursion_pending();
      continue;
    }
    if (!replaced.contains(it->path().lexically_normal().native())) return false;
  }
  return !ec;
}

}  // namespace

Result<void> check_type_conflicts(const std::vector<Destination>& files,
                                  const std::unordered_set<std::string>& replaced, Confinement& confinement,
                                  const std::function<std::string(std::size_t)>& label) {
  // Each directory on the way is looked at once, and nothing below one that is absent: on a fresh
  // install that is one stat per top-level directory where it was one per file besides (a
  // torch-shaped wheel's 12,300 lstats and as many path look-ups took 0.15 s on one core at the
  // end of its install, after the workers had finished).
  std::unordered_map<std::string, bool> is_directory;  // false: absent, or a replaced file
  std::string path;
  std::vector<std::string_view> parts;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto& f = files[i];
    path = f.root->native();
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    // Lexically normalized, as `replaced` is (a member's name has no `.`, `..` or empty parts).
    parts.clear();
    for (std::size_t start = 0; start <= f.relative.size();) {
      const auto slash = std::min(f.relative.find('/', start), f.relative.size());
      const auto part = f.relative.substr(start, slash - start);
      if (part == "..") {
        if (!parts.empty()) parts.pop_back();
      } else if (!part.empty() && part != ".") {
        parts.push_back(part);
      }
      start = slash + 1;
    }
    if (parts.empty()) continue;
    // What goes into a directory outside the environment (a link to a checkout, a scheme
    // directory's subdirectory made a link) would be created there: refused (once per directory).
    const auto outside = [&](const std::string& dir) -> std::optional<Error> {
      auto ok = confinement.check_dir(dir);
      if (ok) return std::nullopt;
      return Error(fmt::format("{} would be installed into `{}`, which is {}", label(i), dir, ok.error().message));
    };
    if (auto bad = outside(path)) return fail(std::move(*bad));
    bool below_absent = false;
    for (std::size_t k = 0; k + 1 < parts.size() && !below_absent; ++k) {
      path += '/';
      path += parts[k];
      auto [it, inserted] = is_directory.try_emplace(path, true);
      if (!inserted) {
        below_absent = !it->second;
        continue;
      }
      struct stat st {};
      // stat follows links: a link to a directory is a directory to merge into.
      if (::stat(path.c_str(), &st) != 0) {
        it->second = false;
        below_absent = true;
      } else if (!S_ISDIR(st.st_mode)) {
        if (!replaced.contains(fs::path(path).lexically_normal().native())) {
          return fail(
              fmt::format("{} needs `{}` to be a directory, but the environment has a file there", label(i), path));
        }
        it->second = false;  // removed first, so nothing is below it
        below_absent = true;
      } else if (auto bad = outside(path)) {
        return fail(std::move(*bad));
      }
    }
    if (below_absent) continue;
    path += '/';
    path += parts.back();
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && !only_replaced(path, replaced)) {
      return fail(fmt::format("{} is a file, but the environment has a directory at `{}`", label(i), path));
    }
  }
  return {};
}

void cleanup_parents(const Environment& env, const Removal& removal) noexcept {
  std::vector<fs::path> dirs = removal.parents;
  // Deepest first, so that a parent emptied by its child's removal goes too.
  std::sort(dirs.begin(), dirs.end(), [](const fs::path& a, const fs::path& b) {
    return std::distance(a.begin(), a.end()) > std::distance(b.begin(), b.end());
  });
  dirs.erase(std::unique(dirs.begin(), dirs.end()), dirs.end());
  const std::vector<fs::path> roots{env.scheme.purelib, env.scheme.platlib, env.scheme.scripts, env.scheme.headers,
                                    env.scheme.data};
  Confinement confinement(env);
  for (const auto& d : dirs) {
    // Never a scheme directory or one of its parents; stop at the deepest scheme directory above.
    bool protected_dir = false;
    const fs::path* stop = nullptr;
    for (const auto& root : roots) {
      if (is_within(root, d)) protected_dir = true;
      if (is_within(d, root) && (stop == nullptr || is_within(root, *stop))) stop = &root;
    }
    if (protected_dir || stop == nullptr) continue;
    // Up from `d` while empty, never `stop` or anything outside it, nor a directory that is
    // really somewhere else (a link's target would be removed through it).
    const auto stop_n = stop->lexically_normal();
    std::error_code ec;
    for (auto n = d.lexically_normal(); n != stop_n && n.has_relative_path(); n = n.parent_path()) {
      const auto rel = n.lexically_relative(stop_n);
      if (rel.empty() || *rel.begin() == "..") break;
      if (!confinement.check(n) || !fs::is_empty(n, ec) || ec) break;
      if (!fs::remove(n, ec) || ec) break;
    }
  }
}

}  // namespace detail

Result<std::vector<Uninstalled>> uninstall(const Environment& env, const std::vector<std::string>& names) {
  auto lock = EnvironmentLock::acquire(env.lock_dir, [&] { print_lock_wait(env); });
  if (!lock) return fail(lock.error());
  if (auto recovered = detail::recover(env); !recovered) return fail(recovered.error());
  Cancellable cancellable;  // a signal now is recorded; nothing has moved yet
  // Every name is looked up before anything moves: one unknown name fails the run, nothing removed.
  std::vector<Distribution> dists;
  std::set<std::string> seen;
  for (const auto& name : names) {
    auto dist = find_distribution(env, name);
    if (!dist) {
      return fail(fmt::format("{}: not installed in {}{}", name, env.scheme.purelib.string(),
                              names.size() > 1 ? " (nothing was uninstalled)" : ""));
    }
    if (seen.insert(dist->dist_info.lexically_normal().string()).second) dists.push_back(std::move(*dist));
  }
  // The backups go where the installer stages (same file system as what is removed), under a
  // name recovery and the next run recognise.
  // The commit phase (short): a signal from here on is deferred until the run has finished.
  CommitPhase commit_phase;
  if (interrupted()) return fail(interrupted_error());
  const auto run_dir = env.scheme.purelib / fmt::format(".vwheel-tmp-{}", unique_token());
  auto journal = detail::Journal::create(detail::journal_path(env), run_dir);
  if (!journal) return fail(with_kind(journal.error(), ErrorKind::environment));
  std::vector<detail::Removal> removals;
  auto removed = [&]() -> Result<void> {
    // One transaction for every name: all are removed, or none.
    detail::Transaction tx(run_dir / "backup", {}, &*journal);
    for (const auto& dist : dists) {
      auto r = detail::remove_distribution(env, dist, tx);
      if (!r) return fail(r.error());
      for (const auto& parent : r->parents) {
        if (auto ok = tx.prune_later(parent); !ok) return fail(ok.error());
      }
      removals.push_back(std::move(*r));
    }
    detail::test_pause_at_commit();
    return tx.commit();
  }();
  if (!removed) {
    // Rolled back by the transaction; the journal goes unless a backup could not be put back.
    std::error_code ec;
    if (!fs::exists(run_dir / "backup", ec)) {
      fs::remove_all(run_dir, ec);
      journal->finish();
    }
    return fail(removed.error());
  }
  commit_phase.committed();
  std::vector<Uninstalled> out;
  for (std::size_t i = 0; i < dists.size(); ++i) {
    detail::cleanup_parents(env, removals[i]);
    out.push_back({dists[i].name, dists[i].version, removals[i].files});
  }
  std::error_code ec;
  fs::remove_all(run_dir, ec);
  journal->finish();
  return out;
}

Result<Uninstalled> uninstall(const Environment& env, std::string_view name) {
  auto done = uninstall(env, std::vector<std::string>{std::string(name)});
  if (!done) return fail(done.error());
  return std::move(done->front());
}

}  // namespace vwheel::install

namespace vwheel::install {

Result<Repaired> repair(const Environment& env) {
  auto lock = EnvironmentLock::acquire(env.lock_dir, [&] { print_lock_wait(env); });
  if (!lock) return fail(with_kind(lock.error(), ErrorKind::environment));
  auto recovered = detail::recover(env);
  if (!recovered) return fail(recovered.error());
  Repaired out{recovered->found, recovered->rolled_forward, recovered->steps, 0};
  std::vector<fs::path> stale;
  (void)detail::index_dist_infos(env, &stale);
  for (const auto& dir : stale) {
    std::error_code ec;
    fs::remove_all(dir, ec);
    ++out.stale;
  }
  return out;
}

}  // namespace vwheel::install
