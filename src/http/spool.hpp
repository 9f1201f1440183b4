#pragma once
// Private to the http component: where a download's body goes. The bytes are gathered into large
// buffers, each written with one write() by the thread that drives libcurl and hashed (SHA-256)
// on a thread of its own: hashing a torch-sized wheel costs about 0.6 s a GB even with SHA-NI,
// time the transfer loop would otherwise spend not receiving (and, with several downloads, not
// serving the others).

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "vwheel/core/growing_file.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/page_buffer.hpp"

namespace vwheel::http::detail {

/// SHA-256 of bytes handed over in buffers, computed on a worker thread (started by the first
/// buffer, so that a job that never receives a byte costs no thread). At most `kQueued` buffers
/// wait for it: a producer faster than the hash waits, so memory stays bounded. The buffers are
/// shared, not copied: the same bytes may be held for the download's readers meanwhile.
class AsyncSha256 {
 public:
  AsyncSha256() = default;
  ~AsyncSha256();
  AsyncSha256(const AsyncSha256&) = delete;
  AsyncSha256& operator=(const AsyncSha256&) = delete;

  /// Hashes `buffer` after everything handed over before it.
  void submit(GrowingFile::Bytes buffer);
  /// The digest of everything submitted since the last finish() or reset(); then starts afresh.
  [[nodiscard]] Sha256Digest finish();
  /// Forgets what was submitted.
  void reset();

  /// 4 MiB of Spool::kBuffer buffers, as four 1 MiB ones were: up to 16 downloads run at once,
  /// each with its queue.
  static constexpr std::size_t kQueued = 2;

 private:
  void run();
  void drain(std::unique_lock<std::mutex>& lock);

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<GrowingFile::Bytes> queue_;
  bool busy_ = false;  // the worker is hashing a buffer it took off the queue
  bool stop_ = false;
  Sha256 sha_;
  std::thread worker_;
};

/// A part file being written: large writes, the bytes hashed by an AsyncSha256 that outlives
/// each attempt's open file (a resumed download goes on hashing where the last attempt stopped).
class Spool {
 public:
  Spool() = default;
  ~Spool() { (void)close(); }
  Spool(const Spool&) = delete;
  Spool& operator=(const Spool&) = delete;

  /// Opens `path` for writing, written on after `have` bytes already there or truncated;
  /// false with errno set on failure. A paused spool goes on with its open file when asked to
  /// append after the bytes it has, or to start afresh when it has none (`path` is the same: one
  /// spool serves one part file).
  [[nodiscard]] bool open(const std::filesystem::path& path, bool append, std::uint64_t have = 0);
  /// Tells `growing` (when set) how many bytes are in the file after each write.
  void publish_to(GrowingFile* growing) noexcept { growing_ = growing; }
  [[nodiscard]] bool is_open() const noexcept { return fd_ >= 0; }
  /// Adds body bytes (written and hashed once a buffer is full); false with errno set when a
  /// write failed.
  [[nodiscard]] bool append(std::string_view data);
  /// Hashes bytes already on disk (a part file being resumed) without writing them.
  void hash_only(std::string_view data);
  /// The end of an attempt that may be resumed: hands over what is buffered (written, or held
  /// by the growing file) and keeps the file open and the held bytes held, so that a download
  /// resumed after a dropped connection is still unpacked from memory. Before, each attempt
  /// closed the file, which wrote every held byte and stopped the holding for good: the rest of
  /// the download went to the disk. False with errno set when a write failed.
  [[nodiscard]] bool pause() { return buffer_.empty() || flush(); }
  /// Writes what is buffered and what is still held, and closes the file; false with errno set
  /// when a write or the close failed. Closing a closed spool succeeds.
  [[nodiscard]] bool close();
  /// The digest of every byte appended or hashed since the last finish()/reset(); call after close().
  [[nodiscard]] Sha256Digest finish() { return hasher_.finish(); }
  /// Forgets the bytes hashed so far (the part file is being started again).
  void reset() {
    buffer_.clear();
    hasher_.reset();
  }

  /// The size of the buffers: large enough that writes and hand-overs are rare, small enough for
  /// many parallel downloads ((kQueued + 2) buffers each at most).
  /// One huge page (see vwheel/core/page_buffer.hpp): on the VM of issue 17 the download thread
  /// of a torch install took 34,000 page faults filling 1 MiB strings, and about 1,200 with these.
  static constexpr std::size_t kBuffer = kHugePage;
  /// A download's first buffer, in small pages: most wheels are small, and a huge page is zeroed
  /// and resident whole however few of its bytes a download uses.
  static constexpr std::size_t kFirstBuffer = std::size_t{64} << 10;

 private:
  [[nodiscard]] bool flush();
  // Every write is positioned: bytes held in memory (GrowingFile::hold) leave holes behind them.
  [[nodiscard]] bool write_at(std::uint64_t offset, std::string_view bytes) const;

  int fd_ = -1;
  std::uint64_t written_ = 0;
  GrowingFile* growing_ = nullptr;
  PageBuffer buffer_;  // mapped by the first append
  AsyncSha256 hasher_;
};

}  // namespace vwheel::http::detail
