#pragma once
/// \file
/// A file written front to back by one thread (a download) while other threads already read the
/// part that has arrived (the installer unpacking a wheel's first members while its last bytes
/// are still on the network).
///
/// The writer publishes how many bytes from the start are in the file (`advance`), says when the
/// file was started again from nothing (`restart`: a new file, so what readers had opened is
/// stale) and, at the end, whether the file came out complete and verified (`finish`). Readers
/// wait for the bytes they need (`wait_for`) and for the verdict (`wait_finished`). Every wait
/// also ends when the process is interrupted (SIGINT, SIGTERM, SIGHUP), with interrupted_error().
///
/// A reader that reads each byte once and does not keep the file (an install unpacking a
/// download it will not cache) can also say so (`read_once`): from then on the writer holds what
/// arrives in memory, up to a budget shared by every file of the process, instead of writing it
/// (`hold`), the reader copies from there (`read`) and gives back what it has read (`release`),
/// and released bytes never reach the file. On the 2-core VM of issue 17, perf put 12.7% of an
/// empty-cache torch install's CPU in the kernel copying the download into page-cache pages
/// (the tree's own writes were 31%); holding, 169 of its 885 MiB were written, and the install
/// took 11.9 CPU seconds against 13.1 (bench/install_torch.sh, three rounds). Bytes go to the file
/// as before when the budget is full and a reader is waiting for newer ones, or when the readers
/// make no progress for a while (readers busy elsewhere must not stall the writer), and at the
/// end for whatever no reader released.
///
/// Progress is any read or release of this file, not only one that frees held bytes: readers
/// going through a part that was written (or planning the wheel before their first read) will
/// reach the held bytes. Counting only freeing releases, one stall fed the next: a torch install
/// whose workers were still creating the wheel's 12,000 directories when the budget filled
/// wrote 712 of the 885 MiB (one core; counters added to hold() for the measurement), because
/// the readers then spent their time in the written part and freed nothing; counting every read,
/// 4 MiB.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "vwheel/core/error.hpp"
#include "vwheel/core/page_buffer.hpp"

namespace vwheel {

class GrowingFile {
 public:
  /// Writer: the file exists and bytes [0, bytes) are in it (a write has returned).
  void advance(std::uint64_t bytes);
  /// Writer: the file was removed and is being written again from the start; readers that
  /// opened the old one must not trust it (their `generation` is no longer current).
  void restart();
  /// Writer: no more bytes will come. Success means the file is complete, verified and at its
  /// final path; an error wakes every reader with it. Only the first call counts.
  void finish(Result<void> outcome);

  /// The file's current incarnation: a reader notes it when it opens the file.
  [[nodiscard]] std::uint64_t generation() const;
  /// Reader: waits until bytes [0, end) of incarnation `generation` are in the file. Fails when
  /// the file was restarted since, when the writer finished with an error, or when interrupted.
  [[nodiscard]] Result<void> wait_for(std::uint64_t end, std::uint64_t generation) const;
  /// Reader: waits for finish() and returns its outcome (or interrupted_error()).
  [[nodiscard]] Result<void> wait_finished() const;
  /// True once finish() was called.
  [[nodiscard]] bool finished() const;

  /// Writes `bytes` at `offset` of the file; false with errno set on failure.
  using WriteAt = std::function<bool(std::uint64_t offset, std::string_view bytes)>;

  /// Reader: the bytes of incarnation `generation` are read once and the file is not kept: the
  /// writer may hold them in memory (up to `budget` bytes for the whole process) until released.
  /// Ignored when the file was started again since.
  void read_once(std::uint64_t generation) const;
  /// Writer: whether bytes should go through hold() (a reader asked for read_once).
  [[nodiscard]] bool holding() const;
  /// Bytes handed to hold(): shared, not copied, so that the writer's buffer is the one readers
  /// copy from (the download thread also hashes it meanwhile) and is freed by whoever lets it go
  /// last. Nobody changes it once handed over.
  using Bytes = std::shared_ptr<const PageBuffer>;
  /// Writer: takes bytes [offset, offset + bytes->size()) before announcing them (advance): kept
  /// in memory when the budget allows, else, once the readers make no progress or one waits for
  /// newer bytes, written with `write`. False when that write failed.
  [[nodiscard]] bool hold(std::uint64_t offset, Bytes bytes, const WriteAt& write);
  /// Writer, before closing the file: waits until the reader is done (done_reading) or makes no
  /// progress for a while, then writes what is still held with `write` and holds nothing more.
  /// False when a write failed.
  [[nodiscard]] bool write_held(const WriteAt& write);

  /// Reader: reads bytes [offset, offset + len) of incarnation `generation` once they are there,
  /// the held ones from memory and the rest with `read_file` (which reads the file). Fails like
  /// wait_for, and for bytes released already (they are nowhere).
  using ReadAt = std::function<Result<void>(char* buf, std::size_t len, std::uint64_t offset)>;
  [[nodiscard]] Result<void> read(char* buf, std::size_t len, std::uint64_t offset, std::uint64_t generation,
                                  const ReadAt& read_file) const;
  /// Reader: bytes [from, to) will not be read again; held ones are dropped, never written.
  void release(std::uint64_t from, std::uint64_t to, std::uint64_t generation) const;
  /// Reader: nothing more will be read; the writer writes what is still held and holds no more.
  void done_reading(std::uint64_t generation) const;
  /// How many readers wait for the writer now (bytes not arrived, or the verdict).
  [[nodiscard]] unsigned waiting() const;
  /// Whether bytes of incarnation `generation` were dropped: the file will have holes there and
  /// cannot be read again whole.
  [[nodiscard]] bool dropped(std::uint64_t generation) const;

  /// The most bytes held in memory at once by all files of the process, unless the environment
  /// variable VWHEEL_HOLD_MIB (MiB; 0 holds nothing) or set_hold_budget says otherwise (tests,
  /// benchmarks).
  static constexpr std::uint64_t kHoldBudget = std::uint64_t{128} << 20;
  static void set_hold_budget(std::uint64_t bytes) noexcept;
  /// Bytes held in memory now by all files of the process.
  [[nodiscard]] static std::uint64_t held_now() noexcept;

  GrowingFile() = default;
  GrowingFile(const GrowingFile&) = delete;
  GrowingFile& operator=(const GrowingFile&) = delete;
  ~GrowingFile();
  /// How long a writer with a full budget waits for the readers' progress (a read or a release)
  /// before writing instead...
  static constexpr int kStallMs = 100;
  /// ...and, before their first read, for the readers to start (they plan the wheel and make its
  /// directories first: 0.1-0.6 s for torch's 12,000 on this project's VM; the members they will
  /// not unpack, directories, are released before that).
  static constexpr int kStartMs = 1000;

 private:
  struct Held {
    Bytes bytes;
    bool writing = false;  // write_held is writing it out: readable meanwhile, erased after
  };
  [[nodiscard]] Result<void> wait_arrived(std::unique_lock<std::mutex>& lock, std::uint64_t end,
                                          std::uint64_t generation) const;
  void drop(std::map<std::uint64_t, Held>::iterator it) const;
  // A read or a release (call with mutex_ held): the writer waits for the readers again.
  void made_progress() const;
  // When a writer out of room stops waiting for the readers' progress: kStartMs before their
  // first read, else kStallMs (call with mutex_ held).
  [[nodiscard]] std::chrono::steady_clock::time_point stall_deadline() const;
  // Whether a reader waits for bytes the writer has not handed over (call with mutex_ held).
  [[nodiscard]] bool starving() const;

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  bool opened_ = false;
  std::uint64_t bytes_ = 0;
  std::uint64_t generation_ = 0;
  std::optional<Result<void>> outcome_;

  // Holding (read_once). Readers decide it, hence mutable.
  mutable bool holding_ = false;
  mutable bool reading_done_ = false;
  mutable bool dropped_ = false;
  mutable bool stalled_ = false;  // no progress for kStallMs with the budget full: write, do not wait
  mutable std::uint64_t progress_ = 0;  // reads and releases since read_once: the readers' progress
  mutable bool read_yet_ = false;       // a reader has read: kStallMs from now on, not kStartMs
  // The end each waiting reader waits for (UINT64_MAX: the verdict).
  mutable std::multiset<std::uint64_t> wanted_;
  mutable std::map<std::uint64_t, Held> held_;                    // by offset
  mutable std::map<std::uint64_t, std::uint64_t> released_;       // disjoint [from, to) ranges
  mutable std::uint64_t held_bytes_ = 0;
};

}  // namespace vwheel
