// The run: wheels prepared on worker threads, then every one moved into place (and the
// distributions `sync` removes taken out) in one journaled transaction.

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <unordered_set>

#include <fmt/format.h>

#include "transaction.hpp"
#include "extract.hpp"
#include "installed.hpp"
#include "journal.hpp"
#include "prepare.hpp"
#include "vwheel/core/fd.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/interrupt.hpp"
#include "vwheel/core/parallel.hpp"
#include "vwheel/core/worker_pool.hpp"
#include "vwheel/install/install.hpp"

namespace vwheel::install {
namespace fs = std::filesystem;
using namespace detail;

namespace {

/// A file that would replace a directory, or a directory needed where the environment has a
/// file, is an error before anything moves (except the replaced version's own files).
Result<void> check_conflicts(const Environment& env, const Prepared& p) {
  std::map<SchemeKey, fs::path> roots;
  for (auto key : kKeys) roots.emplace(key, scheme_dir(env, p, key));
  std::vector<detail::Destination> files;
  files.reserve(p.files.size());
  for (const auto& f : p.files) files.push_back({&roots.at(f.key), f.relative});
  std::unordered_set<std::string> replaced;
  if (p.existing) {
    replaced = detail::owned_paths(env, *p.existing);
    replaced.insert(p.existing->dist_info.lexically_normal().native());
  }
  detail::Confinement confinement(env);
  return detail::check_type_conflicts(files, replaced, confinement,
                                      [&](std::size_t i) { return file_label(p, p.files[i]); });
}

/// Moves one prepared wheel into place (removing the version it replaces) inside the run's
/// transaction; the caller commits or rolls back.
Result<Installed> commit(const Environment& env, Prepared& p, detail::Transaction& tx) {
  Installed out{p.name, p.version, scheme_dir(env, p, p.root) / p.dist_info, p.files.size() + p.extra_record.size() + 1,
                p.from_cache, false, std::nullopt, {}};
  if (p.existing) {
    auto r = detail::remove_distribution(env, *p.existing, tx);
    if (!r) return fail(r.error());
    for (const auto& parent : r->parents) {
      if (auto ok = tx.prune_later(parent); !ok) return fail(ok.error());
    }
    p.removal = std::move(*r);
    out.replaced = p.existing->version;
  }
  out.warnings = p.warnings;
  for (auto key : kKeys) {
    std::error_code ec;
    if (!stages(p, key) || !fs::is_directory(p.stage(key), ec)) continue;
    if (auto ok = tx.move_contents(p.stage(key), scheme_dir(env, p, key)); !ok) return fail(ok.error());
  }
  return out;
}

/// `VWHEEL_TEST_FAIL_AT_MOVE=N` (test-only): the N-th move into place of a run fails, as a full
/// disk or a permission error would.
std::function<bool(std::size_t)> fail_at_move_from_environment() {
  const char* v = std::getenv("VWHEEL_TEST_FAIL_AT_MOVE");
  if (v == nullptr || *v == '\0') return {};
  const auto n = static_cast<std::size_t>(std::strtoull(v, nullptr, 10));
  return [n](std::size_t move) { return move == n; };
}

}  // namespace

struct Session::Impl {
  Environment env;
  InstallOptions options;
  EnvironmentLock lock;
  /// From here a signal is recorded and the run winds down: workers stop, staging goes.
  Cancellable cancellable;
  detail::DistInfoIndex installed;
  fs::path run_dir;
  std::vector<WheelRequest> requests;
  std::vector<std::optional<Result<Prepared>>> prepared;
  std::vector<bool> added;
  std::vector<std::string> to_remove;
  std::vector<Uninstalled> removed;
  /// Each wheel is a task, each of its members an item that any idle thread takes
  /// (core/worker_pool.hpp); made by begin(), gone after join().
  std::unique_ptr<WorkerPool> pool;

  Impl(const Environment& e, const InstallOptions& o, EnvironmentLock&& l) : env(e), options(o), lock(std::move(l)) {}
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  void work(std::size_t slot) noexcept {
    Result<Prepared> r = fail("not prepared");
    try {
      try {
        r = interrupted() ? fail(interrupted_error())
                          : prepare(env, requests[slot], options, *pool, installed, run_dir, slot);
      } catch (...) {
        r = fail(detail::error_from_exception("cannot prepare"));
      }
    } catch (...) {
      // Not even the message could be allocated; this one fits in the string without allocating.
      r = fail(with_kind(Error("out of memory"), ErrorKind::environment));
    }
    prepared[slot] = std::move(r);  // each slot is written by one task, read after the join
  }

  /// Waits for every wheel's task, then stops the threads. (Not `pool.reset()` alone: that
  /// empties `pool` before the destructor waits, while running tasks still use it.)
  void join() {
    if (!pool) return;
    pool->wait();
    pool.reset();
  }

  /// Removes every staging directory and the run directory.
  void discard() {
    for (auto& p : prepared) {
      if (p && *p && !(*p)->staging.empty()) remove_staging(**p);
    }
    prepared.clear();
    if (!run_dir.empty() && ::rmdir(run_dir.c_str()) != 0 && errno != ENOENT) {
      std::error_code ec;
      fs::remove_all(run_dir, ec);
    }
    run_dir.clear();
  }

  ~Impl() {
    join();
    discard();
  }
};

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;

Result<std::unique_ptr<Session>> Session::begin(const Environment& env, const InstallOptions& options,
                                                std::size_t count) {
  auto lock = EnvironmentLock::acquire(env.lock_dir, [&] {
    if (options.on_lock_wait) options.on_lock_wait(env);
  });
  if (!lock) return fail(lock.error());
  auto impl = std::make_unique<Impl>(env, options, std::move(*lock));
  // Holding the lock, first finish or undo a run that was killed while it changed the
  // environment (its journal names its staging directory, which holds its backups).
  if (auto recovered = detail::recover(env); !recovered) return fail(recovered.error());
  if (!impl->options.fail_at_move) impl->options.fail_at_move = fail_at_move_from_environment();
  // No other run can be using a staging directory now: any left is from a run killed before it
  // moved anything (e.g. while downloading), and goes.
  std::vector<fs::path> stale;
  impl->installed = detail::index_dist_infos(env, &stale);
  for (const auto& dir : stale) {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  const auto run_dir = env.scheme.purelib / fmt::format(".vwheel-tmp-{}", unique_token());
  if (::mkdir(run_dir.c_str(), 0755) != 0) return fail(fmt::format("{}: cannot create: {}", run_dir.string(), errno_text(errno)));
  impl->run_dir = run_dir;
  impl->requests.resize(count);
  impl->prepared.resize(count);
  impl->added.resize(count, false);
  // Without wheels (a sync that only removes), one thread.
  impl->pool = std::make_unique<WorkerPool>(count == 0 ? 1U : options.jobs == 0 ? default_jobs() : options.jobs);
  return std::unique_ptr<Session>(new Session(std::move(impl)));
}

void Session::add(std::size_t slot, WheelRequest request) {
  auto& s = *impl_;
  if (slot >= s.requests.size() || s.added[slot]) throw std::logic_error("install::Session::add: bad or repeated slot");
  s.added[slot] = true;
  s.requests[slot] = std::move(request);
  // A wheel on disk goes before those still arriving: a thread given an arriving wheel may wait
  // for its bytes, one given a complete wheel never does.
  s.pool->submit([&s, slot] { s.work(slot); }, s.requests[slot].arriving != nullptr);
}

Result<std::vector<Installed>> Session::finish() {
  auto& s = *impl_;
  s.join();
  if (interrupted()) return fail(interrupted_error());
  std::vector<Installed> out;
  // A failed preparation stops the run before anything is moved.
  for (std::size_t i = 0; i < s.prepared.size(); ++i) {
    if (!s.added[i]) throw std::logic_error("install::Session::finish: a slot was never added");
    if (!*s.prepared[i]) return fail(s.prepared[i]->error().with_context(s.requests[i].path.filename().string()));
  }
  // Type conflicts stop the run before anything moves.
  std::vector<Distribution> removing;
  for (const auto& name : s.to_remove) {
    if (auto d = detail::find_in_index(s.installed, name)) removing.push_back(std::move(*d));
  }
  bool changes = !removing.empty();
  std::vector<detail::RunWheel> moving;
  for (std::size_t i = 0; i < s.prepared.size(); ++i) {
    const auto& p = **s.prepared[i];
    if (p.skipped) continue;
    changes = true;
    moving.push_back({&p, s.requests[i].path.filename().string()});
    if (auto ok = check_conflicts(s.env, p); !ok) return fail(ok.error().with_context(moving.back().label));
  }
  // Between the wheels: one's file where another needs a directory.
  if (auto ok = detail::check_between_wheels(s.env, moving); !ok) return fail(ok.error());
  // The commit phase (short): a signal from here on is deferred until the run has finished.
  CommitPhase commit_phase;
  if (interrupted()) return fail(interrupted_error());
  std::optional<detail::Journal> journal;
  if (changes) {
    auto created = detail::Journal::create(detail::journal_path(s.env), s.run_dir);
    if (!created) return fail(with_kind(created.error(), ErrorKind::environment));
    journal = std::move(*created);
  }
  // One transaction for the run: every wheel goes in, or none does.
  {
    detail::Transaction tx(s.run_dir / "backup", s.options.fail_at_move, journal ? &*journal : nullptr);
    auto undo = [&](Error error) -> Result<std::vector<Installed>> {
      // When a backup could not be put back, the journal and the run directory (which holds the
      // backup) stay for the next run or `vwheel repair`.
      if (!tx.rollback()) {
        s.run_dir.clear();
      } else if (journal) {
        journal->finish();
      }
      return fail(std::move(error));
    };
    for (std::size_t i = 0; i < s.prepared.size(); ++i) {
      auto& p = **s.prepared[i];
      if (p.skipped) {
        out.push_back({p.name, p.version, p.existing->dist_info, 0, false, true, std::nullopt, {}});
        continue;
      }
      auto done = commit(s.env, p, tx);
      if (!done) return undo(done.error().with_context(s.requests[i].path.filename().string()));
      out.push_back(std::move(*done));
    }
    std::vector<detail::Removal> removals;
    for (const auto& d : removing) {
      auto r = detail::remove_distribution(s.env, d, tx);
      if (!r) return undo(r.error());
      for (const auto& parent : r->parents) {
        if (auto ok = tx.prune_later(parent); !ok) return undo(ok.error());
      }
      s.removed.push_back({d.name, d.version, r->files});
      removals.push_back(std::move(*r));
    }
    // Every rename done (the commit would do them): a pause for the tests comes between them and
    // the commit line.
    if (auto ok = tx.flush(); !ok) return undo(ok.error());
    detail::test_pause_at_commit();
    if (auto ok = tx.commit(); !ok) {
      s.removed.clear();
      if (journal) journal->finish();
      return fail(ok.error());
    }
    commit_phase.committed();
    for (const auto& r : removals) detail::cleanup_parents(s.env, r);
  }
  for (auto& p : s.prepared) detail::cleanup_parents(s.env, (*p)->removal);
  s.discard();
  if (journal) journal->finish();
  return out;
}

void Session::uninstall_too(std::vector<std::string> canonical_names) { impl_->to_remove = std::move(canonical_names); }

const std::vector<Uninstalled>& Session::removed() const { return impl_->removed; }

Result<std::vector<Installed>> install_wheels(const Environment& env, const std::vector<WheelRequest>& wheels,
                                              const InstallOptions& options) {
  auto session = Session::begin(env, options, wheels.size());
  if (!session) return fail(session.error());
  for (std::size_t i = 0; i < wheels.size(); ++i) (*session)->add(i, wheels[i]);
  return (*session)->finish();
}

}  // namespace vwheel::install
