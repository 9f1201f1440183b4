// Preparing one wheel: its plan (plan_files.cpp), then extraction (or the cache) into the run's
// staging directory, then the files the installer writes itself and RECORD (generated.cpp).
// Moving it into place is commit.cpp's.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "cache.hpp"
#include "digest.hpp"
#include "place.hpp"
#include "extract.hpp"
#include "installed.hpp"
#include "prepare.hpp"
#include "vwheel/core/cache_layout.hpp"
#include "vwheel/core/fd.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/interrupt.hpp"
#include "vwheel/install/install.hpp"
#include "vwheel/pep440/version.hpp"
#include "vwheel/wheel/wheel.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::install::detail {
namespace fs = std::filesystem;

namespace {

/// Archives from this size on are hashed on a thread of their own while they are extracted.
constexpr std::uint64_t kHashThreadMinSize = std::uint64_t{4} << 20;

/// Members whose span is this large or larger are punched out of a download unpacked as it
/// arrives (extract): the shared libraries that are most of a torch wheel's bytes, not its
/// thousands of small files.
constexpr std::uint64_t kPunchMin = std::uint64_t{1} << 20;

}  // namespace

fs::path scheme_dir(const Environment& env, const Prepared& p, SchemeKey key) {
  if (key == SchemeKey::Headers) return env.scheme.headers / p.name;
  return env.scheme.dir(key);
}

namespace {

/// `dev:ino:size:mtime` of a file: names the cached sha256 of an unchanged file.
std::optional<std::string> stat_key(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return sha256_hex(fmt::format("{}:{}:{}:{}.{}:{}", st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec,
                                st.st_mtim.tv_nsec, fs::absolute(path).string()));
}

Result<void> make_dirs(const std::vector<PlannedFile>& files, const Prepared& p) {
  // Every directory from each staging root down, made parents first (a set of paths sorts a
  // parent before its children): one mkdir each, none failing.
  std::set<fs::path> dirs;
  for (const auto& f : files) {
    const auto root = p.stage(f.key);
    dirs.insert(root);
    fs::path d = root;
    const fs::path rel = fs::path(f.relative).parent_path();
    for (const auto& part : rel) dirs.insert(d /= part);
  }
  for (const auto& d : dirs) {
    if (::mkdir(d.c_str(), 0755) != 0 && errno != EEXIST) {
      return fail(fmt::format("{}: cannot create: {}", d.string(), errno_text(errno)));
    }
  }
  return {};
}

/// Makes the staging directories, then runs `fn(file)` for every planned file on the pool's
/// threads, starting them in `order` (indexes into p.files) when given; the first error (in file
/// order) stops the others from starting. `arriving`: the files are read from a download still
/// arriving (WorkerPool::for_each's `may_wait`).
template <class Fn>
Result<void> for_each_file(Prepared& p, WorkerPool& pool, Fn&& fn, const std::vector<std::size_t>* order = nullptr,
                           bool arriving = false) {
  if (auto ok = make_dirs(p.files, p); !ok) return ok;
  std::vector<std::optional<Error>> errors(p.files.size());
  std::atomic<bool> failed{false};
  std::atomic<bool> unreported{false};  // an exception whose error could not even be allocated
  // Nothing may escape a worker thread (std::terminate): exceptions become errors here.
  pool.for_each(
      p.files.size(),
      [&](std::size_t k) noexcept {
        const std::size_t i = order != nullptr ? (*order)[k] : k;
        if (failed || interrupted()) return;
        try {
          try {
            if (Result<void> ok = fn(p.files[i]); !ok) errors[i] = ok.error();
          } catch (...) {
            errors[i] = detail::error_from_exception(p.files[i].relative);
          }
        } catch (...) {
          unreported = true;
        }
        if (errors[i] || unreported) failed = true;
      },
      arriving);
  if (interrupted()) return fail(interrupted_error());
  for (auto& e : errors) {
    if (e) return fail(*e);
  }
  if (unreported) return fail(with_kind(Error("out of memory"), ErrorKind::environment));
  return {};
}

/// Unpacks every planned file into staging, verifying each against its RECORD hash.
/// Members larger than `whole_member_max` stream through bounded buffers (extract.cpp), all of
/// them within the process's buffer budget.
/// `written(i)`, when given, is called by the worker that unpacked p.files[i] once it is verified.
/// `meter`, when given, counts the bytes written, chunk by chunk for streamed members.
/// `punched`, when given (a download unpacked as it arrives, not to be kept), is set once a
/// large member's bytes were punched out of the download (zip::Archive::punch_out) after it
/// checked out.
Result<void> extract(const wheel::Wheel& w, Prepared& p, WorkerPool& pool, const InstallOptions& options,
                     const std::function<void(std::size_t)>& written, detail::UnpackMeter* meter, bool arriving = false,
                     std::atomic<bool>* punched = nullptr) {
  detail::ExtractSettings settings;
  settings.whole_member_max = options.whole_member_max;
  if (meter != nullptr) settings.on_written = [meter](std::uint64_t bytes) { meter->add(bytes); };
  // The largest members first: a big shared library started last would leave one worker
  // inflating it alone while the others have nothing left (a torch wheel's largest member is a
  // good part of its bytes).
  const auto& entries = w.archive.entries();
  std::vector<std::size_t> order(p.files.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  // A wheel still downloading is unpacked in file order instead: its members as they arrive.
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto& ea = entries[p.files[a].entry];
    const auto& eb = entries[p.files[b].entry];
    if (arriving) return ea.local_header_offset < eb.local_header_offset;
    return ea.uncompressed_size > eb.uncompressed_size;
  });
  // Members that are not unpacked (directories) are never read: what the download holds of them
  // in memory goes now (Archive::read_once), else each would keep its buffer to the end.
  std::vector<bool> planned(entries.size());
  for (const auto& f : p.files) {
    if (f.entry < planned.size()) planned[f.entry] = true;
  }
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (!planned[i]) w.archive.release(entries[i]);
  }
  return for_each_file(
      p, pool,
      [&](const PlannedFile& f) -> Result<void> {
        const auto& e = entries[f.entry];
        auto ok = detail::extract_member(w.archive, e, p.stage(f.key) / f.relative, f.mode, f.hash,
                                         detail::extraction_budget(), settings);
        if (ok && written) written(static_cast<std::size_t>(&f - p.files.data()));
        if (ok) w.archive.release(e);
        // Its pages go back to the kernel at once, for the files still to be written: on a VM
        // whose host takes back memory the guest frees (balloon free-page reporting), pages
        // reused within seconds cost a tenth of new ones. Only large members: a syscall each.
        if (ok && punched != nullptr && e.span_end - e.local_header_offset >= kPunchMin && !skeleton_keeps(e) &&
            w.archive.punch_out(e)) {
          punched->store(true, std::memory_order_relaxed);
        }
        return ok;
      },
      &order, arriving);
}

/// Places every planned file from the cache entry into staging, after checking each against the
/// manifest. An error (an entry without a manifest, or with an edited file) makes the caller
/// unpack the wheel again.
/// `checked`: cached_skeleton has just compared every file of the entry with the manifest (the
/// wheel is planned from the entry's skeleton), so the 12,000 stats of a torch wheel are not
/// done twice.
Result<void> link_from_cache(const fs::path& entry, Prepared& p, WorkerPool& pool, LinkMode mode, bool checked) {
  if (checked) {
    return for_each_file(p, pool, [&](const PlannedFile& f) -> Result<void> {
      return detail::place_file(cached_member(entry, f.entry), p.stage(f.key) / f.relative, mode);
    });
  }
  auto recorded = read_manifest(entry);
  if (!recorded) return fail(recorded.error());
  return for_each_file(p, pool, [&](const PlannedFile& f) -> Result<void> {
    const auto from = cached_member(entry, f.entry);
    const auto it = recorded->find(f.entry);
    if (it == recorded->end() || size_and_mtime(from) != it->second) {
      return fail(fmt::format("{}: changed since it was cached", from.string()));
    }
    return detail::place_file(from, p.stage(f.key) / f.relative, mode);
  });
}

}  // namespace

/// What a prepared wheel's file comes from, for errors: its member, or a file vwheel writes.
std::string file_label(const Prepared& p, const PlannedFile& f) {
  if (f.entry == SIZE_MAX) return fmt::format("`{}` (written by the installer)", f.relative);
  if (f.key == p.root) return fmt::format("member `{}`", f.relative);
  const auto stem = p.dist_info.substr(0, p.dist_info.size() - std::string_view(".dist-info").size());
  return fmt::format("member `{}.data/{}/{}`", stem, to_string(f.key), f.relative);
}


/// Whether the wheel has a staging directory for `key`: it installs files there (or it is the
/// root, which holds the dist-info directory).
bool stages(const Prepared& p, SchemeKey key) {
  return key == p.root || std::any_of(p.files.begin(), p.files.end(), [&](const PlannedFile& f) { return f.key == key; });
}


/// Removes a wheel's staging directories: after a commit, empty ones, removed with one rmdir
/// each (no listing); anything else with `remove_all`.
void remove_staging(const Prepared& p) {
  auto remove = [](const fs::path& dir) {
    if (::rmdir(dir.c_str()) != 0 && errno != ENOENT) {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  };
  // Only the directories that can exist: one per scheme the wheel's files use, the backup only
  // when an installed version is replaced (each missing one would still cost a syscall).
  for (auto key : kKeys) {
    if (stages(p, key)) remove(p.stage(key));
  }
  if (p.existing) remove(p.backup());
}

/// After a member of the wheel failed its checks (an input error: corrupt data, a hash that is
/// not RECORD's): the archive, when it is the download cache's copy
/// (`<cache>/archives/<key>/<file>`), is removed, so that the cache keeps nothing of a wheel that
/// cannot be installed and a later run downloads it again.
void forget_bad_archive(const fs::path& archive, const InstallOptions& options, const Error& error) {
  if (error.kind != ErrorKind::input || !options.cache_dir || !in_archive_cache(archive, *options.cache_dir)) return;
  remove_cached_archive(archive);
}

/// Checks, once the download of an arriving wheel has finished, that what was unpacked came from
/// the file now verified: the download succeeded (its sha256 and size), was not started again
/// since `generation` (a new part file), and the tail fetched apart is the file's own.
Result<void> confirm_arrival(const zip::Arriving& arriving, std::uint64_t generation) {
  if (auto done = arriving.growing->wait_finished(); !done) return done;
  if (auto same = arriving.growing->wait_for(arriving.size, generation); !same) return same;
  const auto tail_at = arriving.size - arriving.tail.size();
  std::string bytes(arriving.tail.size(), '\0');
  const UniqueFd fd(::open(arriving.final_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return fail(fmt::format("{}: cannot open: {}", arriving.final_path.string(), errno_text(errno)));
  const long long got = pread_all(fd.get(), bytes.data(), bytes.size(), tail_at);
  if (got != static_cast<long long>(bytes.size())) {
    return fail(fmt::format("{}: cannot read its last {} bytes: {}", arriving.final_path.string(), bytes.size(),
                            got < 0 ? errno_text(errno) : "the file is shorter"));
  }
  if (bytes != arriving.tail) {
    return fail(fmt::format("{}: the server's answer to a range request differs from the file's last {} bytes",
                            arriving.final_path.string(), bytes.size()));
  }
  return {};
}

/// Whether members were punched out of a download (extract), and out of which incarnation of it.
struct Punched {
  std::atomic<bool> any{false};
  std::uint64_t generation = 0;
};

/// Everything up to the move into place, for one wheel; from the archive still arriving when
/// `arriving` is given.

Result<Prepared> prepare_once(const Environment& env, const WheelRequest& request, const InstallOptions& options,
                              WorkerPool& pool, const detail::DistInfoIndex& installed, const fs::path& run_dir,
                              std::size_t index, const zip::Arriving* arriving, Punched* punched = nullptr) {
  std::uint64_t generation = 0;
  Result<wheel::Wheel> w = fail("not opened");
  std::optional<fs::path> skeleton = request.skeleton;
  // A download in the archive cache that another run removed since it was found there, once it
  // had cached the wheel's tree: planned from that tree's skeleton like any cached wheel.
  if (arriving == nullptr && !skeleton && request.sha256 && options.cache_dir && ::access(request.path.c_str(), F_OK) != 0 &&
      errno == ENOENT && in_archive_cache(request.path, *options.cache_dir)) {
    skeleton = cached_skeleton(*options.cache_dir, *request.sha256);
  }
  if (arriving != nullptr) {
    generation = arriving->growing->generation();
    if (punched != nullptr) punched->generation = generation;
    auto archive = zip::Archive::open_arriving(request.arriving);
    if (!archive) return fail(archive.error());
    // A download that is not kept is read once: the bytes may go from the network to the
    // unpacking through memory, never written (Archive::read_once). The skeleton's members are
    // copied from the file into the cache after the download.
    if (!options.keep_archives && punched != nullptr) archive->read_once(skeleton_keeps);
    w = wheel::open_wheel(request.path, std::move(*archive));
  } else if (skeleton) {
    auto archive = zip::Archive::open(*skeleton);
    if (!archive) {
      // Damaged (it was checked when made): never used again, and the next run downloads the wheel.
      const auto entry = skeleton->parent_path();
      discard_cache_entry(entry.parent_path(), entry);
      return fail(fmt::format("{}: the cached copy of {} is damaged ({}); the entry is removed: run the command again "
                              "to download the wheel",
                              entry.string(), request.path.filename().string(), archive.error().message));
    }
    w = wheel::open_wheel(request.path, std::move(*archive));
  } else {
    w = wheel::open_wheel(request.path);
  }
  if (!w) return fail(w.error());
  // On every way out, whatever was not read yet is written by the download (read_once).
  struct DoneReading {
    const zip::Archive& archive;
    ~DoneReading() { archive.done_reading(); }
  } done_reading{w->archive};
  Prepared p;
  p.wheel_path = request.path;
  p.dist_info = w->dist_info;
  if (auto ok = plan(*w, options, p); !ok) return fail(ok.error());
  p.existing = detail::find_in_index(installed, wheel_name::canonicalize_name(p.name));
  if (p.existing && !options.force_reinstall &&
      pep440::normalized_or_verbatim(p.existing->version) == pep440::normalized_or_verbatim(p.version)) {
    p.skipped = true;
    return p;
  }
  p.staging = run_dir;
  p.tag = std::to_string(index);
  // Bad input, not a failure to write: a path too long for the environment, found before any is.
  if (auto ok = check_path_lengths(env, p); !ok) return fail(ok.error());
  std::error_code ec;
  struct StagingGuard {
    const Prepared& prepared;
    bool keep = false;
    explicit StagingGuard(const Prepared& pr) : prepared(pr) {}
    StagingGuard(const StagingGuard&) = delete;
    StagingGuard& operator=(const StagingGuard&) = delete;
    ~StagingGuard() {
      if (!keep) remove_staging(prepared);
    }
  } guard(p);

  // The archive's sha256 names its cache entry: given by the caller (who verified the download),
  // else remembered per file identity, else computed.
  std::optional<fs::path> unpacked_dir;
  std::optional<std::string> key;
  std::string sha = request.sha256.value_or("");
  if (options.cache_dir) {
    unpacked_dir = CacheLayout(*options.cache_dir).area(CacheArea::unpacked);
    if (sha.empty()) key = stat_key(request.path);
  }
  if (unpacked_dir && sha.empty() && key) {
    if (auto cached = read_file(*unpacked_dir / "by-stat" / *key); cached && is_sha256_hex(*cached)) sha = *cached;
  }
  // Unpacking progress (InstallOptions::on_unpack): the meter's final report comes on every way
  // out, so that a display drops the wheel's bar whether it was unpacked, linked or failed.
  std::optional<detail::UnpackMeter> meter;
  if (options.on_unpack) {
    std::uint64_t total = 0;
    for (const auto& f : p.files) total += w->archive.entries()[f.entry].uncompressed_size;
    meter.emplace([&options, index](std::uint64_t done, std::uint64_t all) { options.on_unpack(index, done, all); },
                  total);
  }
  detail::UnpackMeter* const progress = meter ? &*meter : nullptr;
  // A download kept in the archive cache goes once its unpacked copy (with a skeleton to plan
  // from) is cached, unless the archives are to be kept: one copy of the wheel on disk, not two.
  const fs::path& download = arriving != nullptr ? arriving->final_path : request.path;
  const bool drop_archive =
      !skeleton && options.cache_dir && !options.keep_archives && in_archive_cache(download, *options.cache_dir);
  bool archive_cached = false;  // the entry holds everything the warm path needs
  if (unpacked_dir && !sha.empty() && fs::is_directory(*unpacked_dir / sha, ec)) {
    if (link_from_cache(*unpacked_dir / sha, p, pool, options.link_mode, skeleton.has_value())) {
      p.from_cache = true;
      // An entry made by an older vwheel, or while the archive was kept, gets its skeleton now.
      if (drop_archive && arriving == nullptr) archive_cached = add_skeleton(*unpacked_dir / sha, w->archive);
    } else {
      for (auto k : kKeys) fs::remove_all(p.stage(k), ec);
      // Unpacked again below, and cached anew.
      discard_cache_entry(*unpacked_dir, *unpacked_dir / sha);
      if (skeleton) {
        return fail(fmt::format("{}: the cached copy of {} changed since it was cached (a file edited through a hard "
                                "link?) and its archive was not kept; the entry is removed: run the command again to "
                                "download the wheel",
                                (*unpacked_dir / sha).string(), request.path.filename().string()));
      }
    }
  } else if (skeleton) {
    return fail(fmt::format("{}: the cached copy of {} is gone: run the command again to download the wheel",
                            unpacked_dir ? (*unpacked_dir / sha).string() : skeleton->string(),
                            request.path.filename().string()));
  }
  if (!p.from_cache) {
    std::optional<CacheFill> fill;
    std::function<void(std::size_t)> written;
    if (unpacked_dir && (sha.empty() || !fs::exists(*unpacked_dir / sha, ec))) {
      fill.emplace(*unpacked_dir, p, options.link_mode);
      written = [&](std::size_t i) { fill->add(i); };
    }
    if (sha.empty()) {
      // The archive's own hash (cache key, direct_url.json) alongside the extraction, on a thread
      // of its own only when the file is big enough to be worth one.
      Result<std::string> file_sha = fail("not computed");
      Result<void> ok;
      if (w->archive.file_size() >= kHashThreadMinSize) {
        // A jthread: joined on every way out, an exception from extract() included.
        std::jthread hasher([&]() noexcept {
          try {
            file_sha = detail::file_sha256_hex(request.path);
          } catch (...) {
            file_sha = fail(detail::error_from_exception(request.path.string()));
          }
        });
        ok = extract(*w, p, pool, options, written, progress);
        hasher.join();
      } else {
        file_sha = detail::file_sha256_hex(request.path);
        if (file_sha) ok = extract(*w, p, pool, options, written, progress);
      }
      if (!ok) {
        if (arriving == nullptr) forget_bad_archive(request.path, options, ok.error());
        return fail(ok.error());
      }
      if (!file_sha) return fail(file_sha.error());
      sha = *file_sha;
      // No fsync: the entry is only a hint, checked (64 hex digits naming an existing entry) before use.
      if (unpacked_dir && key && detail::make_dir(*unpacked_dir / "by-stat")) {
        (void)write_file_atomic(*unpacked_dir / "by-stat" / *key, sha, Durability::none);
      }
    } else if (auto ok = extract(
                   *w, p, pool, options, written, progress, arriving != nullptr,
                   arriving != nullptr && !options.keep_archives && punched != nullptr ? &punched->any : nullptr);
               !ok) {
      if (arriving == nullptr) forget_bad_archive(request.path, options, ok.error());
      return fail(ok.error());
    }
    w->archive.done_reading();
    // Bytes read from memory and given back were never written: like members punched out.
    if (punched != nullptr && w->archive.dropped()) punched->any = true;
    // Nothing goes into the cache before the download is verified.
    if (arriving != nullptr) {
      if (auto ok = confirm_arrival(*arriving, generation); !ok) return fail(ok.error());
    }
    if (fill) {
      if (drop_archive) fill->add_skeleton(w->archive);
      archive_cached = fill->finish(sha) && drop_archive;
    }
  } else if (arriving != nullptr) {
    w->archive.done_reading();  // linked from the cache: nothing to read
    if (auto ok = confirm_arrival(*arriving, generation); !ok) return fail(ok.error());
  }
  if (meter) meter->finish();
  if (auto ok = finish_staging(*w, env, request, sha, p); !ok) return fail(ok.error());
  if (options.compile) {
    if (auto ok = compile(env, p); !ok) return fail(ok.error());
  }
  if (auto ok = write_record(env, p); !ok) return fail(ok.error());
  // A download with members punched out is never kept, even when its tree could not be cached.
  if (archive_cached || (punched != nullptr && punched->any && options.cache_dir &&
                         in_archive_cache(download, *options.cache_dir))) {
    remove_cached_archive(download);
  }
  guard.keep = true;
  return p;
}

Result<Prepared> prepare(const Environment& env, const WheelRequest& request, const InstallOptions& options,
                         WorkerPool& pool, const detail::DistInfoIndex& installed, const fs::path& run_dir,
                         std::size_t index) {
  if (request.arriving) {
    Punched punched;
    auto p = prepare_once(env, request, options, pool, installed, run_dir, index, request.arriving.get(), &punched);
    if (p) return p;
    auto done = request.arriving->growing->wait_finished();
    const auto& growing = *request.arriving->growing;
    if ((punched.any || growing.dropped(punched.generation)) && growing.generation() == punched.generation) {
      // The download lacks the members punched out of it, or read from memory and never
      // written: it cannot be judged again, and no later run may find it in the cache.
      const auto& download = request.arriving->final_path;
      if (options.cache_dir && in_archive_cache(download, *options.cache_dir)) {
        (void)::unlink(request.arriving->path.c_str());  // the part file, when interrupted before the end
        remove_cached_archive(download);
      }
      return p;
    }
    if (interrupted()) return p;
    // Whatever went wrong while the wheel arrived (the download failed or started again, a member
    // did not check out) is judged again on the complete file, as for any wheel on disk: the
    // errors are the same whether or not the unpacking overlapped the download.
    if (!done) return fail(done.error());
  }
  return prepare_once(env, request, options, pool, installed, run_dir, index, nullptr);
}

}  // namespace vwheel::install::detail

namespace vwheel::install {

std::optional<LinkMode> parse_link_mode(std::string_view text) {
  if (text == "auto") return LinkMode::automatic;
  if (text == "hardlink") return LinkMode::hardlink;
  if (text == "copy") return LinkMode::copy;
  if (text == "reflink" || text == "clone") return LinkMode::reflink;
  return std::nullopt;
}

}  // namespace vwheel::install
