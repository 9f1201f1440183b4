#pragma once
// The journaled transaction that moves staged files into place and can put everything back.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>
#include "journal.hpp"
#include "vwheel/core/error.hpp"

namespace vwheel::install::detail {

/// Moves prepared files into place, recording every step (in memory, and in the run's journal
/// when given, before the step is done) so that `rollback` (or destruction without `commit`)
/// restores the previous state, and so that recovery can after a crash.
///
/// Write-ahead in batches: the renames of one move_contents() tree (or of one removed
/// distribution) are journaled, the journal is fdatasynced once, then they are done. A crash
/// inside a batch leaves journaled steps that never happened, which undo as no-ops; a rename on
/// disk without its journal line cannot happen, even after a power loss.
class Transaction {
 public:
  /// `backup_dir` must be on the same file system as the destinations and not exist yet.
  explicit Transaction(std::filesystem::path backup_dir, std::function<bool(std::size_t)> fail_at = {},
                       Journal* journal = nullptr);
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();

  /// Moves `src` to `dest`: a rename when `dest` does not exist; when both are directories (or
  /// `dest` a symbolic link to one) the contents are merged; otherwise `dest` is backed up and
  /// replaced. The renames may be left pending until the next flush (commit flushes).
  [[nodiscard]] Result<void> move_into(const std::filesystem::path& src, const std::filesystem::path& dest);
  /// Moves every entry of directory `src` into directory `dest` (created when missing). The
  /// renames stay pending (one sync for many trees) unless earlier pending ones touch the same
  /// names in `dest`: those are done first, so that the tree is merged into what they leave.
  [[nodiscard]] Result<void> move_contents(const std::filesystem::path& src, const std::filesystem::path& dest);
  /// Moves `path` (a file or a whole directory) to the backup, at the next flush (ensure_dir,
  /// commit, or a move_contents into the same names): removals of one distribution share one sync.
  [[nodiscard]] Result<void> remove(const std::filesystem::path& path);
  /// Creates `dir` and missing parents, recording the topmost one created.
  [[nodiscard]] Result<void> ensure_dir(const std::filesystem::path& dir);
  /// Records (in the journal) a directory to remove, with its parents while empty, once committed.
  [[nodiscard]] Result<void> prune_later(const std::filesystem::path& dir);
  /// The commit point (journaled and synced), then deletes the backup. On failure everything
  /// has been rolled back.
  [[nodiscard]] Result<void> commit();
  /// Syncs the journal once, then does every pending rename in order (what is decided next
  /// then sees the tree as those renames leave it).
  [[nodiscard]] Result<void> flush();
  /// Undoes every step, newest first. Returns false when a backup could not be put back (the
  /// backup directory is then kept).
  bool rollback() noexcept;

 private:
  /// A rename journaled and not yet done.
  struct Pending {
    JournalStep::Kind kind = JournalStep::Kind::Place;
    std::filesystem::path from;
    std::filesystem::path to;
    bool removal = false;  ///< from remove() (for the error's wording)
  };
  [[nodiscard]] Result<void> record(JournalStep step);
  /// Syncs the journal (what was recorded is on disk before what it describes is done).
  [[nodiscard]] Result<void> durable();
  /// Adds a rename to the batch, and its paths to the index pending_touches() looks in.
  void add_pending(Pending move);
  /// Empties the batch and its index.
  void clear_pending() noexcept;
  /// Whether a pending rename's path is `dest` or above it, or inside `dest/NAME` for one of
  /// `names`; or a move_contents() since the last flush went into one of `names` of the same
  /// real directory (symbolic links resolved), or into a directory above or below it:
  /// move_contents then flushes before deciding anything. Hash look-ups, O(depth + names): a
  /// scan of every pending rename made installing 3,000 one-file wheels take 10 s.
  [[nodiscard]] bool pending_touches(const std::filesystem::path& dest, const std::filesystem::path& real_dest,
                                     const std::vector<std::filesystem::path>& names) const;

  [[nodiscard]] Result<std::filesystem::path> next_backup();

  std::filesystem::path backup_dir_;
  std::function<bool(std::size_t)> fail_at_;
  Journal* journal_ = nullptr;
  std::vector<JournalStep> steps_;
  std::vector<Pending> pending_;
  // The index of what is pending, cleared with pending_. Paths are keys of their components
  // joined by NUL (which no component holds), so that whole components compare, as they are
  // spelled.
  std::unordered_set<std::string> pending_paths_;     ///< the pending renames' from and to paths
  std::unordered_set<std::string> pending_prefixes_;  ///< those and every directory above them
  /// The real destination of each move_contents() since the last flush, with the top-level names
  /// it moved there.
  std::unordered_map<std::string, std::unordered_set<std::string>> tree_names_;
  std::unordered_set<std::string> tree_above_;  ///< every directory strictly above one of those
  std::set<std::filesystem::path> pruned_;
  std::size_t moves_ = 0;
  std::size_t backups_ = 0;
  int depth_ = 0;  ///< move_contents() nesting: only the outermost may flush
  bool finished_ = false;
};

}  // namespace vwheel::install::detail
