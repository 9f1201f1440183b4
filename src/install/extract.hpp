#pragma once
// Internals of the install component: unpacking one member into staging in bounded memory,
// verified against its RECORD hash as its bytes are written.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <span>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/zip/zip.hpp"

namespace vwheel::install::detail {

/// The memory for the buffers of members being unpacked, shared by every worker of the process:
/// however many threads unpack however large members, their buffers stay within a fixed number of
/// bytes. The budget hands out the memory itself, in blocks it maps and keeps for the next lease,
/// whichever thread takes it: buffers that each worker allocated would stay in its own malloc
/// arena after use, and the arenas' peaks add up with the workers (measured on the 885 MB
/// torch-shaped wheel of bench/install_torch.sh: peak RSS 193 MiB with 2 workers, 270-279 MiB
/// with 16, on the same 2-core machine).
class BufferBudget {
 public:
  /// `capacity` bytes, in blocks of at least `min_block` bytes.
  explicit BufferBudget(std::uint64_t capacity, std::uint64_t min_block = std::uint64_t{64} << 10) noexcept
      : capacity_(capacity), min_block_(std::max<std::uint64_t>(min_block, 1)) {}
  BufferBudget(const BufferBudget&) = delete;
  BufferBudget& operator=(const BufferBudget&) = delete;
  ~BufferBudget();

  struct Block {
    char* data = nullptr;
    std::size_t size = 0;
  };

  /// A block of memory held until destroyed.
  class Lease {
   public:
    Lease(BufferBudget& budget, Block block) noexcept : budget_(&budget), block_(block) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { budget_->release(block_); }
    /// At least the bytes asked for; what an earlier lease wrote may still be there.
    [[nodiscard]] std::span<char> memory() const noexcept { return {block_.data, block_.size}; }

   private:
    BufferBudget* budget_;
    Block block_;
  };

  /// Waits until a block of at least `bytes` fits in the budget and takes it: a kept block of up
  /// to twice the size (charged in full), else a new one less than a quarter (or `min_block`)
  /// larger than asked. A request above the capacity waits for all of it. Throws std::bad_alloc
  /// when the system has no memory to map.
  [[nodiscard]] Lease acquire(std::uint64_t bytes);
  [[nodiscard]] std::uint64_t capacity() const noexcept { return capacity_; }
  /// The bytes mapped now, leased or kept for the next lease: at most the capacity, or one block
  /// while a request above the capacity holds it.
  [[nodiscard]] std::uint64_t mapped() const;

 private:
  void release(Block block) noexcept;
  [[nodiscard]] std::uint64_t block_size(std::uint64_t bytes) const noexcept;
  [[nodiscard]] std::uint64_t charge(std::uint64_t size) const noexcept { return std::min(size, capacity_); }

  std::uint64_t capacity_;
  std::uint64_t min_block_;
  std::uint64_t used_ = 0;   // charged to leases
  std::uint64_t kept_ = 0;   // in free_
  std::vector<Block> free_;  // mapped, not leased; the most recently released last
  mutable std::mutex mutex_;
  std::condition_variable freed_;
};

/// The process's budget: 64 MiB (see extract.cpp).
[[nodiscard]] BufferBudget& extraction_budget() noexcept;

/// How members are unpacked.
struct ExtractSettings {
  /// Members up to this size are inflated whole with libdeflate (fastest); larger ones stream
  /// through zlib in `chunk`-sized pieces.
  std::uint64_t whole_member_max = std::uint64_t{8} << 20;
  std::size_t chunk = std::size_t{1} << 20;
  /// When set, called on the extracting thread with the size of each piece written: every chunk
  /// of a streamed member, the whole of a member inflated in memory (so a big member shows
  /// progress before it is complete).
  std::function<void(std::uint64_t bytes)> on_written;
};

/// One wheel's unpacking progress for InstallOptions::on_unpack: counts the bytes the workers
/// write and passes them on at most once per `step` bytes or `interval`, whichever comes first,
/// so that a wheel of thousands of small files reports a few times and a 2 GiB member steadily.
/// `add` may be called from any number of threads; reports are serialized (made under a lock)
/// and never go backwards. `finish` makes the final report, `written == total`; nothing is
/// reported after it.
class UnpackMeter {
 public:
  using Clock = std::chrono::steady_clock;
  using Report = std::function<void(std::uint64_t written, std::uint64_t total)>;
  static constexpr std::uint64_t kStep = std::uint64_t{4} << 20;
  static constexpr std::chrono::milliseconds kInterval{100};

  UnpackMeter(Report report, std::uint64_t total, std::uint64_t step = kStep, Clock::duration interval = kInterval);
  UnpackMeter(const UnpackMeter&) = delete;
  UnpackMeter& operator=(const UnpackMeter&) = delete;
  /// Finishes (the final report), so that every way out of an unpacking ends its progress.
  ~UnpackMeter();

  /// `bytes` more are written. Reports only below `total` (the final report is finish's).
  void add(std::uint64_t bytes);
  /// Reports `total, total` once; later calls (and adds) report nothing.
  void finish() noexcept;

 private:
  Report report_;
  std::uint64_t total_;
  std::uint64_t step_;
  Clock::duration interval_;
  std::atomic<std::uint64_t> written_{0};
  // Read without the lock to skip it for most adds; written under it.
  std::atomic<std::uint64_t> reported_{0};
  std::atomic<Clock::rep> reported_at_;
  std::mutex mutex_;
  bool finished_ = false;
};

/// Unpacks `entry` of `archive` into the new file `dest` (permission bits `mode`), hashing the
/// bytes as they are written and comparing with `record_hash` (`sha256=`, `sha384=` or
/// `sha512=` and the urlsafe base64 digest). On failure the partial file is removed. Running out
/// of memory and failing writes (disk full) are ErrorKind::environment errors (exit 3), a bad
/// member an input error naming it; it throws only when even the error cannot be allocated.
[[nodiscard]] Result<void> extract_member(const zip::Archive& archive, const zip::Entry& entry,
                                          const std::filesystem::path& dest, unsigned mode,
                                          std::string_view record_hash, BufferBudget& budget,
                                          const ExtractSettings& settings);

/// An ErrorKind::environment error for a failed system call on `path` (`what`: "cannot write").
[[nodiscard]] Error io_error(const std::filesystem::path& path, std::string_view what, int err);

/// The error for an exception caught on a worker thread: out of memory and system errors are
/// environmental (exit 3).
[[nodiscard]] Error error_from_exception(std::string_view context);

}  // namespace vwheel::install::detail
