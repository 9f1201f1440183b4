#pragma once
// Internals of the install component: unpacking one member into staging in bounded memory,
// verified against its RECORD hash as its bytes are written.

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string_view>

#include "vwheel/core/error.hpp"
#include "vwheel/zip/zip.hpp"

namespace vwheel::install::detail {

/// A fixed number of bytes for the buffers of members being unpacked, shared by every worker of
/// the process: however many threads unpack however large members, their buffers stay within it.
class BufferBudget {
 public:
  explicit BufferBudget(std::uint64_t capacity) noexcept : capacity_(capacity) {}

  /// Bytes held until destroyed.
  class Lease {
   public:
    Lease(BufferBudget& budget, std::uint64_t bytes) noexcept : budget_(&budget), bytes_(bytes) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { budget_->release(bytes_); }

   private:
    BufferBudget* budget_;
    std::uint64_t bytes_;
  };

  /// Waits until `bytes` (at most the capacity: a larger request takes it all) are free and takes them.
  [[nodiscard]] Lease acquire(std::uint64_t bytes);
  [[nodiscard]] std::uint64_t capacity() const noexcept { return capacity_; }

 private:
  void release(std::uint64_t bytes) noexcept;

  std::uint64_t capacity_;
  std::uint64_t used_ = 0;
  std::mutex mutex_;
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
