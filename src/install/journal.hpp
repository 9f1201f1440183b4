#pragma once
// The write-ahead journal of a run that changes an environment (install, upgrade, uninstall).
//
// Every step that touches a file outside the run's staging directory is appended to
// `<lock_dir>/.vwheel-journal` before it is done, so that a run killed at any point can be
// undone (or, once its `commit` line is written, finished) by the next run or `vwheel repair`.
// The journal is fdatasynced when it is created, before every batch of renames it describes
// (Transaction::flush: the wheels of a run share one batch unless a tree merges into what an
// earlier tree's renames create; one per removed distribution; never one per file), and at the
// commit point. A step recorded but never done (the crash came inside a batch) undoes as
// a no-op; a rename done without its step on disk cannot happen, even after a power loss (a plain
// write(2) alone is not enough there: ext4's delayed allocation may write the journal's new
// length after the rename).
//
// Format: a header line `vwheel-journal<TAB>1<TAB>RUN_DIR`, then one step per line,
// `KIND<TAB>PATH[<TAB>PATH]`, paths with `%`, TAB, CR, LF and other control bytes written as
// `%XX`. A last line without its newline was never finished (and never acted on): it is ignored.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/core/fd.hpp"
#include "vwheel/install/install.hpp"

namespace vwheel::install::detail {

/// The journal's file name, in the environment's lock directory.
inline constexpr std::string_view kJournalName = ".vwheel-journal";

/// One journaled step.
struct JournalStep {
  enum class Kind {
    Mkdir,   ///< `path` was created (with everything below it); undo: remove it
    Place,   ///< `path` (staged) was renamed to `other` (free); undo: remove `other` if `path` is gone
    Copy,    ///< `path` was copied to `other` (free; another file system); undo: remove `other`
    Aside,   ///< `path` was renamed to the backup `other`; undo: put it back if the backup exists
    Prune,   ///< after the commit, `path` and its parents go while empty (removed distributions)
    Commit,  ///< the commit point: from here on, finish instead of undo
  };
  Kind kind = Kind::Mkdir;
  std::filesystem::path path;
  std::filesystem::path other;

  friend bool operator==(const JournalStep&, const JournalStep&) = default;
};

/// A parsed journal.
struct JournalContents {
  std::filesystem::path run_dir;  ///< the run's staging directory (also holds the backups)
  std::vector<JournalStep> steps;
  bool committed = false;
  bool truncated = false;  ///< the last line was cut short (and ignored)
};

/// `KIND<TAB>...` line of a step, with its newline.
[[nodiscard]] std::string format_journal_step(const JournalStep& step);
/// The header line, with its newline.
[[nodiscard]] std::string format_journal_header(const std::filesystem::path& run_dir);
/// Parses a journal's text; `source` names it in errors (a bad header, an unknown kind, a bad
/// escape or a missing path on a complete line: the journal was not written by this program).
[[nodiscard]] Result<JournalContents> parse_journal(std::string_view text, std::string_view source);

/// Undoes the steps newest first. Returns false when some backup could not be put back (it is
/// then still in the run directory, which must be kept).
[[nodiscard]] bool roll_back(const std::vector<JournalStep>& steps) noexcept;

/// The journal of one run, open for appending.
class Journal {
 public:
  /// Creates the journal (which must not exist) with its header and fsyncs it.
  [[nodiscard]] static Result<Journal> create(const std::filesystem::path& file, const std::filesystem::path& run_dir);
  Journal(Journal&& other) noexcept = default;
  Journal& operator=(Journal&& other) noexcept = default;
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;
  ~Journal() = default;

  /// Appends one step (before it is done; sync() before doing it).
  [[nodiscard]] Result<void> append(const JournalStep& step);
  /// fdatasync of the steps appended since the last sync (none: no system call).
  [[nodiscard]] Result<void> sync();
  /// Appends the commit line and fsyncs: the run is then finished by recovery, never undone.
  [[nodiscard]] Result<void> commit();
  /// Deletes the journal: the run is over (committed and cleaned up, or rolled back).
  void finish() noexcept;

  [[nodiscard]] const std::filesystem::path& file() const { return file_; }
  /// How many times sync() (and commit()) synced since create (for the tests).
  [[nodiscard]] std::size_t syncs() const noexcept { return syncs_; }

 private:
  Journal(std::filesystem::path file, UniqueFd fd) : file_(std::move(file)), fd_(std::move(fd)) {}
  std::filesystem::path file_;
  UniqueFd fd_;
  bool dirty_ = false;  ///< appended since the last sync
  std::size_t syncs_ = 0;
};

/// The journal of this environment.
[[nodiscard]] std::filesystem::path journal_path(const Environment& env);

/// What recovery found and did.
struct Recovery {
  bool found = false;          ///< there was a journal
  bool rolled_forward = false;  ///< it had committed: its clean-up was finished
  std::size_t steps = 0;        ///< steps undone (or prune steps done)
};

/// Finishes or undoes the run the environment's journal describes, if any, and deletes the
/// journal (and the empty `site-packages/.vwheel.lock` older versions left). Call with the
/// environment lock held. Fails (naming the journal) when the journal cannot be read or parsed, or
/// a backup cannot be put back (environment errors), or, before anything is done, when a step
/// names a path outside the environment (Confinement) or a backup outside the run directory (an
/// input error): the journal and the run directory are then kept, and nothing else should change
/// the environment.
[[nodiscard]] Result<Recovery> recover(const Environment& env);

/// Test-only fault injection: when `VWHEEL_TEST_CRASH_AFTER=N` is set, the process kills itself
/// (SIGKILL) at its (N+1)-th crash point, i.e. after N: each journal write (the commit line and the
/// final clean-up included) and each journaled rename is one. Never set outside tests.
void test_crash_point() noexcept;

/// Test-only: when `VWHEEL_TEST_PAUSE_AT_COMMIT=SECONDS` is set, the run waits in its commit
/// phase, after its moves and before its commit line, until a signal comes (deferred: the run then
/// finishes) or SECONDS pass. Never set outside tests.
void test_pause_at_commit() noexcept;

}  // namespace vwheel::install::detail
