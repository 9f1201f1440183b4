#include "detail.hpp"
#include "extract.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "vwheel/core/hash.hpp"
#include "vwheel/wheel/record.hpp"

namespace vwheel::install::detail {
namespace fs = std::filesystem;

namespace {

std::string sha256_raw(std::string_view data) {
  const auto d = sha256(data);
  return std::string(reinterpret_cast<const char*>(d.data()), d.size());
}

std::string errno_text(int err) { return std::strerror(err); }

}  // namespace

std::optional<std::string> record_digest(std::string_view algorithm, std::string_view data) {
  if (algorithm == "sha256") return record_sha256(data);
  if (algorithm == "sha384") {
    const auto d = sha384(data);
    return "sha384=" + wheel::base64url_nopad(std::string_view(reinterpret_cast<const char*>(d.data()), d.size()));
  }
  if (algorithm == "sha512") {
    const auto d = sha512(data);
    return "sha512=" + wheel::base64url_nopad(std::string_view(reinterpret_cast<const char*>(d.data()), d.size()));
  }
  return std::nullopt;
}

Result<void> check_record_algorithm(std::string_view hash) {
  const auto eq = hash.find('=');
  const auto algo = hash.substr(0, eq);
  if (eq != std::string_view::npos && (algo == "sha256" || algo == "sha384" || algo == "sha512")) return {};
  if (eq != std::string_view::npos && (algo == "md5" || algo == "sha1" || algo == "sha224")) {
    return fail(fmt::format("RECORD hash `{}`: {} is too weak (sha256, sha384 or sha512 expected)", hash, algo));
  }
  return fail(fmt::format("RECORD hash `{}`: expected sha256=, sha384= or sha512= and a digest", hash));
}

std::string record_sha256(std::string_view data) { return "sha256=" + wheel::base64url_nopad(sha256_raw(data)); }

Result<std::string> file_sha256_hex(const fs::path& path) {
  auto digest = sha256_file(path);
  if (!digest) return fail(digest.error());
  return std::move(digest->sha256);
}

Result<void> write_new_file(const fs::path& path, std::string_view data, unsigned mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return fail(fmt::format("{}: cannot create: {}", path.string(), errno_text(errno)));
  std::size_t done = 0;
  while (done < data.size()) {
    const auto n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return fail(io_error(path, "cannot write", err));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) return fail(io_error(path, "cannot write", errno));
  return {};
}

Result<void> make_dir(const fs::path& dir) {
  if (::mkdir(dir.c_str(), 0755) == 0 || errno == EEXIST) return {};
  if (errno == ENOENT && dir.has_parent_path() && dir.parent_path() != dir) {
    if (auto ok = make_dir(dir.parent_path()); !ok) return ok;
    if (::mkdir(dir.c_str(), 0755) == 0 || errno == EEXIST) return {};
  }
  return fail(fmt::format("{}: cannot create: {}", dir.string(), errno_text(errno)));
}

Result<void> write_replacing(const fs::path& path, std::string_view data, unsigned mode) {
  if (write_new_file(path, data, mode)) return {};
  ::unlink(path.c_str());
  return write_new_file(path, data, mode);
}

Result<void> link_or_copy(const fs::path& from, const fs::path& to) {
  if (::link(from.c_str(), to.c_str()) == 0) return {};
  if (errno != EXDEV && errno != EPERM && errno != EMLINK) {
    return fail(fmt::format("{}: cannot link from {}: {}", to.string(), from.string(), errno_text(errno)));
  }
  std::error_code ec;
  fs::copy_file(from, to, fs::copy_options::none, ec);
  if (ec) return fail(fmt::format("{}: cannot copy from {}: {}", to.string(), from.string(), ec.message()));
  return {};
}

namespace {

// Set once a clone fails for want of support, so later files go straight to the fallback.
std::atomic<bool> reflink_unsupported{false};

Result<void> copy_plain(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::copy_file(from, to, fs::copy_options::none, ec);
  if (ec) return fail(fmt::format("{}: cannot copy from {}: {}", to.string(), from.string(), ec.message()));
  return {};
}

// FICLONE of `from` into the new file `to`: true when cloned; false (nothing left at `to`) when
// the file system cannot; an error otherwise.
Result<bool> try_reflink(const fs::path& from, const fs::path& to) {
  if (reflink_unsupported.load(std::memory_order_relaxed)) return false;
  const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return fail(fmt::format("{}: cannot open: {}", from.string(), errno_text(errno)));
  struct stat st {};
  const mode_t mode = ::fstat(in, &st) == 0 ? (st.st_mode & 07777) : 0644;
  const int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (out < 0) {
    const int err = errno;
    ::close(in);
    return fail(fmt::format("{}: cannot create: {}", to.string(), errno_text(err)));
  }
  const bool cloned = ::ioctl(out, FICLONE, in) == 0;
  const int err = errno;
  ::close(in);
  const bool closed = ::close(out) == 0;
  if (cloned && closed) return true;
  ::unlink(to.c_str());
  if (!cloned && (err == EOPNOTSUPP || err == ENOTTY || err == EXDEV || err == EINVAL || err == ENOSYS)) {
    if (err != EXDEV) reflink_unsupported.store(true, std::memory_order_relaxed);
    return false;
  }
  return fail(fmt::format("{}: cannot clone from {}: {}", to.string(), from.string(), errno_text(cloned ? EIO : err)));
}

}  // namespace

Result<void> place_file(const fs::path& from, const fs::path& to, LinkMode mode) {
  switch (mode) {
    case LinkMode::hardlink:
      return link_or_copy(from, to);
    case LinkMode::copy:
      return copy_plain(from, to);
    case LinkMode::reflink:
    case LinkMode::automatic: {
      auto cloned = try_reflink(from, to);
      if (!cloned) return fail(cloned.error());
      if (*cloned) return {};
      return mode == LinkMode::reflink ? copy_plain(from, to) : link_or_copy(from, to);
    }
  }
  return link_or_copy(from, to);
}

Transaction::Transaction(fs::path backup_dir, std::function<bool(std::size_t)> fail_at, Journal* journal)
    : backup_dir_(std::move(backup_dir)), fail_at_(std::move(fail_at)), journal_(journal) {}

Transaction::~Transaction() {
  if (!finished_) rollback();
}

Result<void> Transaction::record(JournalStep step) {
  // Journaled before it is done (and synced before it is done: see flush()); undoing a step
  // that never happened changes nothing.
  if (journal_ != nullptr) {
    if (auto ok = journal_->append(step); !ok) return ok;
  }
  steps_.push_back(std::move(step));
  return {};
}

Result<void> Transaction::durable() {
  if (journal_ == nullptr) return {};
  return journal_->sync();
}

Result<void> Transaction::flush() {
  if (pending_.empty()) return {};
  // One fdatasync for the whole batch, before any of its renames: after a crash (of the process
  // or of the machine) every rename that happened is in the journal; the journaled ones that
  // did not happen are no-ops to undo (a `place` whose staged file is still there, an `aside`
  // whose backup does not exist).
  if (auto ok = durable(); !ok) return ok;
  auto batch = std::move(pending_);
  clear_pending();
  for (const auto& move : batch) {
    test_crash_point();
    if (::rename(move.from.c_str(), move.to.c_str()) == 0) continue;
    const int err = errno;
    if (move.kind == JournalStep::Kind::Aside) {
      return fail(fmt::format("{}: cannot {}: {}", move.from.string(), move.removal ? "remove" : "move aside",
                              errno_text(err)));
    }
    if (err != EXDEV) return fail(fmt::format("{}: cannot move into place: {}", move.to.string(), errno_text(err)));
    // Another file system (a scheme directory mounted elsewhere): copied, journaled first.
    if (auto ok = record({JournalStep::Kind::Copy, move.from, move.to}); !ok) return ok;
    if (auto ok = durable(); !ok) return ok;
    std::error_code ec;
    fs::copy(move.from, move.to, fs::copy_options::recursive, ec);
    if (ec) return fail(fmt::format("{}: cannot copy into place: {}", move.to.string(), ec.message()));
  }
  return {};
}

Result<fs::path> Transaction::next_backup() {
  if (backups_ == 0) {
    std::error_code ec;
    fs::create_directories(backup_dir_, ec);
    if (ec) return fail(fmt::format("{}: cannot create: {}", backup_dir_.string(), ec.message()));
  }
  return backup_dir_ / std::to_string(backups_++);
}

Result<void> Transaction::move_into(const fs::path& src, const fs::path& dest) {
  if (fail_at_ && fail_at_(moves_)) return fail(fmt::format("{}: injected failure (move {})", dest.string(), moves_));
  ++moves_;
  std::error_code ec;
  const auto dest_status = fs::symlink_status(dest, ec);
  if (!fs::exists(dest_status)) {
    if (auto ok = record({JournalStep::Kind::Place, src, dest}); !ok) return ok;
    add_pending({JournalStep::Kind::Place, src, dest, false});
    return {};
  }
  const auto src_status = fs::symlink_status(src, ec);
  // A directory merges into a directory, or into a link to one (a venv's `lib64 -> lib`).
  const bool dest_dir = fs::is_directory(dest_status) || (fs::is_symlink(dest_status) && fs::is_directory(dest, ec));
  if (dest_dir && fs::is_directory(src_status)) return move_contents(src, dest);
  auto backup = next_backup();
  if (!backup) return fail(backup.error());
  if (auto ok = record({JournalStep::Kind::Aside, dest, *backup}); !ok) return ok;
  add_pending({JournalStep::Kind::Aside, dest, *backup, false});
  if (auto ok = record({JournalStep::Kind::Place, src, dest}); !ok) return ok;
  add_pending({JournalStep::Kind::Place, src, dest, false});
  return {};
}

namespace {

/// Calls `fn(key)` with the key (detail.hpp: the components joined by NUL) of every directory
/// above `p`, from the top, then with `p`'s own; returns false as soon as `fn` does.
template <class Fn>
bool each_prefix_key(const fs::path& p, Fn&& fn) {
  std::string key;
  bool first = true;
  for (const auto& part : p) {
    if (!first) key += '\0';
    first = false;
    key += part.native();
    if (!fn(key)) return false;
  }
  return true;
}

std::string path_key(const fs::path& p) {
  std::string key;
  each_prefix_key(p, [&](const std::string& k) {
    key = k;
    return true;
  });
  return key;
}

}  // namespace

void Transaction::clear_pending() noexcept {
  pending_.clear();
  pending_paths_.clear();
  pending_prefixes_.clear();
  tree_names_.clear();
  tree_above_.clear();
}

void Transaction::add_pending(Pending move) {
  for (const auto* p : {&move.from, &move.to}) {
    each_prefix_key(*p, [&](const std::string& k) {
      pending_prefixes_.insert(k);
      return true;
    });
    pending_paths_.insert(path_key(*p));
  }
  pending_.push_back(std::move(move));
}

bool Transaction::pending_touches(const fs::path& dest, const fs::path& real_dest,
                                  const std::vector<fs::path>& names) const {
  // The paths of the pending renames, as they were spelled: one is `dest` or above it...
  if (!each_prefix_key(dest, [&](const std::string& k) { return !pending_paths_.contains(k); })) return true;
  // ... or `dest/NAME` or below it.
  auto key = path_key(dest);
  const auto size = key.size();
  for (const auto& n : names) {
    key.resize(size);
    key += '\0';
    key += n.native();
    if (pending_prefixes_.contains(key)) return true;
  }
  // The trees they came from, by the real directory: one directory spelled two ways (platlib
  // through a venv's `lib64 -> lib`) is still one. A tree into the same names of it, or into a
  // directory above or below it.
  const auto real_key = path_key(real_dest);
  if (tree_above_.contains(real_key)) return true;
  bool above = false;
  each_prefix_key(real_dest, [&](const std::string& k) {
    if (k.size() == real_key.size()) return true;  // real_dest itself: by its names, below
    above = tree_names_.contains(k);
    return !above;
  });
  if (above) return true;
  const auto same = tree_names_.find(real_key);
  return same != tree_names_.end() &&
         std::any_of(names.begin(), names.end(), [&](const fs::path& n) { return same->second.contains(n.native()); });
}

Result<void> Transaction::move_contents(const fs::path& src, const fs::path& dest) {
  const bool top = depth_ == 0;
  std::error_code ec;
  if (!fs::is_directory(dest, ec)) {
    if (auto ok = ensure_dir(dest); !ok) return ok;
  }
  std::vector<fs::path> names;
  for (fs::directory_iterator it(src, ec), end; !ec && it != end; it.increment(ec)) names.push_back(it->path().filename());
  if (ec) return fail(fmt::format("{}: cannot list: {}", src.string(), ec.message()));
  std::sort(names.begin(), names.end());
  // What is decided below looks at the tree as it is: earlier moves into the same names (another
  // wheel's namespace directory, a removal) are done first. Moves elsewhere stay pending, so that
  // the wheels of one run share a sync (50 small wheels: 52 syncs were 16 ms of an 85 ms warm
  // install on this project's VM). Inside one tree every path is decided once.
  if (top) {
    auto real_dest = fs::weakly_canonical(dest, ec);
    if (ec) real_dest = dest.lexically_normal();
    if (pending_touches(dest, real_dest, names)) {
      if (auto ok = flush(); !ok) return ok;
    }
    auto real_key = path_key(real_dest);
    auto& tree = tree_names_[real_key];
    for (const auto& n : names) tree.insert(n.native());
    each_prefix_key(real_dest, [&](const std::string& k) {
      if (k.size() < real_key.size()) tree_above_.insert(k);
      return true;
    });
  }
  ++depth_;
  for (const auto& n : names) {
    if (auto ok = move_into(src / n, dest / n); !ok) {
      --depth_;
      return ok;
    }
  }
  --depth_;
  return {};
}

Result<void> Transaction::remove(const fs::path& path) {
  auto backup = next_backup();
  if (!backup) return fail(backup.error());
  if (auto ok = record({JournalStep::Kind::Aside, path, *backup}); !ok) return ok;
  add_pending({JournalStep::Kind::Aside, path, *backup, true});
  return {};
}

Result<void> Transaction::ensure_dir(const fs::path& dir) {
  if (auto ok = flush(); !ok) return ok;
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return {};
  fs::path top = dir;
  while (top.has_parent_path() && top.parent_path() != top && !fs::exists(fs::symlink_status(top.parent_path(), ec))) {
    top = top.parent_path();
  }
  if (auto ok = record({JournalStep::Kind::Mkdir, top, {}}); !ok) return ok;
  if (auto ok = durable(); !ok) return ok;
  fs::create_directories(dir, ec);
  if (ec) return fail(fmt::format("{}: cannot create: {}", dir.string(), ec.message()));
  return {};
}

Result<void> Transaction::prune_later(const fs::path& dir) {
  if (journal_ == nullptr || !pruned_.insert(dir).second) return {};
  return journal_->append({JournalStep::Kind::Prune, dir, {}});
}

Result<void> Transaction::commit() {
  if (auto ok = flush(); !ok) {
    rollback();
    return ok;
  }
  if (journal_ != nullptr) {
    if (auto ok = journal_->commit(); !ok) {
      rollback();
      return ok;
    }
  }
  finished_ = true;
  if (backups_ == 0) return {};  // nothing was moved aside: no backup directory was made
  std::error_code ec;
  fs::remove_all(backup_dir_, ec);
  return {};
}

bool Transaction::rollback() noexcept {
  finished_ = true;
  clear_pending();  // journaled, never done: nothing to undo
  const bool ok = roll_back(steps_);
  steps_.clear();
  if (ok) {
    std::error_code ec;
    fs::remove_all(backup_dir_, ec);
  }
  return ok;
}

}  // namespace vwheel::install::detail
