#include "extract.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <exception>
#include <iterator>
#include <new>
#include <optional>
#include <system_error>

#include <fmt/format.h>


#include "vwheel/core/fd.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/interrupt.hpp"
#include "vwheel/core/page_buffer.hpp"
#include "vwheel/wheel/record.hpp"

namespace vwheel::install::detail {
namespace fs = std::filesystem;

namespace {

// 64 MiB: with the default settings, room for several 8 MiB members inflated whole (compressed
// and uncompressed copies) plus streamed members' 2 MiB each, so that two to sixteen workers are
// rarely kept waiting, while the install's resident memory stays far below the 256 MiB the
// torch-sized wheels must fit in whatever their members' sizes.
constexpr std::uint64_t kProcessBudget = std::uint64_t{64} << 20;

// A RECORD hash computed piece by piece.
class RecordHasher {
 public:
  explicit RecordHasher(std::string_view algorithm) : algorithm_(algorithm) {
    if (algorithm == "sha256") {
      sha256_.emplace();
    } else if (algorithm == "sha384" || algorithm == "sha512") {
      sha512_.emplace(algorithm == "sha384");
    }
  }
  [[nodiscard]] bool known() const noexcept { return sha256_ || sha512_; }
  void update(std::string_view data) {
    if (sha256_) sha256_->update(data);
    if (sha512_) sha512_->update(data);
  }
  [[nodiscard]] std::string finish() {
    std::string raw;
    if (sha256_) {
      const auto d = sha256_->finish();
      raw.assign(reinterpret_cast<const char*>(d.data()), d.size());
    } else if (algorithm_ == "sha384") {
      const auto d = sha512_->finish384();
      raw.assign(reinterpret_cast<const char*>(d.data()), d.size());
    } else {
      const auto d = sha512_->finish();
      raw.assign(reinterpret_cast<const char*>(d.data()), d.size());
    }
    return fmt::format("{}={}", algorithm_, wheel::base64url_nopad(raw));
  }

 private:
  std::string algorithm_;
  std::optional<Sha256> sha256_;
  std::optional<Sha512> sha512_;
};

// An output file that is removed unless kept.
class NewFile {
 public:
  explicit NewFile(fs::path path) : path_(std::move(path)) {}
  NewFile(const NewFile&) = delete;
  NewFile& operator=(const NewFile&) = delete;
  ~NewFile() {
    fd_.reset();
    if (!kept_) ::unlink(path_.c_str());
  }
  [[nodiscard]] Result<void> create(unsigned mode) {
    fd_.reset(::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode));
    if (!fd_) {
      kept_ = true;  // not ours: never remove what another writer made
      return fail(io_error(path_, "cannot create", errno));
    }
    return {};
  }
  // Reserves the blocks up front: a full disk shows before anything is inflated, and the file
  // is laid out in one piece. File systems without fallocate just skip it.
  [[nodiscard]] Result<void> reserve(std::uint64_t size) {
    if (size == 0) return {};
    const int rc = ::posix_fallocate(fd_.get(), 0, static_cast<off_t>(size));
    if (rc == ENOSPC || rc == EDQUOT || rc == EFBIG) return fail(io_error(path_, "cannot write", rc));
    return {};
  }
  [[nodiscard]] Result<void> write(std::string_view data) {
    if (interrupted()) return fail(interrupted_error());  // SIGINT/SIGTERM/SIGHUP: stop a long member now
    if (const int err = write_all(fd_.get(), data); err != 0) return fail(io_error(path_, "cannot write", err));
    return {};
  }
  [[nodiscard]] Result<void> close_and_keep() {
    if (::close(fd_.release()) != 0) return fail(io_error(path_, "cannot write", errno));
    kept_ = true;
    return {};
  }

 private:
  fs::path path_;
  UniqueFd fd_;
  bool kept_ = false;
};

Result<void> extract_whole(const zip::Archive& archive, const zip::Entry& entry, const fs::path& dest, unsigned mode,
                           std::string_view record_hash, std::string_view algorithm, std::span<char> scratch,
                           const std::function<void(std::uint64_t)>& on_written) {
  auto data = archive.read_into(entry, scratch, entry.uncompressed_size);
  if (!data) return fail(data.error());
  RecordHasher hasher(algorithm);
  hasher.update(*data);
  const auto digest = hasher.finish();
  if (digest != record_hash) {
    return fail(fmt::format("member `{}`: hash {} does not match RECORD's {}", entry.name, digest, record_hash));
  }
  NewFile out(dest);
  if (auto ok = out.create(mode); !ok) return ok;
  if (auto ok = out.write(*data); !ok) return ok;
  if (on_written) on_written(data->size());
  return out.close_and_keep();
}

Result<void> extract_streamed(const zip::Archive& archive, const zip::Entry& entry, const fs::path& dest, unsigned mode,
                              std::string_view record_hash, std::string_view algorithm, std::size_t chunk,
                              std::span<char> scratch, const std::function<void(std::uint64_t)>& on_written) {
  NewFile out(dest);
  if (auto ok = out.create(mode); !ok) return ok;
  if (auto ok = out.reserve(entry.uncompressed_size); !ok) return ok;
  RecordHasher hasher(algorithm);
  auto ok = archive.read_streamed(
      entry,
      [&](std::string_view piece) -> Result<void> {
        hasher.update(piece);
        auto wrote = out.write(piece);
        if (wrote && on_written) on_written(piece.size());
        return wrote;
      },
      chunk, entry.uncompressed_size, scratch);
  if (!ok) return ok;
  const auto digest = hasher.finish();
  if (digest != record_hash) {
    return fail(fmt::format("member `{}`: hash {} does not match RECORD's {}", entry.name, digest, record_hash));
  }
  return out.close_and_keep();
}

}  // namespace

BufferBudget::~BufferBudget() {
  for (const Block& b : free_) unmap_pages(b.data, b.size);
}

std::uint64_t BufferBudget::block_size(std::uint64_t bytes) const noexcept {
  // Sizes in steps of a quarter of their highest power of two (and of min_block), so that a block
  // is less than a quarter larger than asked and blocks of similar sizes are reused.
  const std::uint64_t n = std::max(bytes, min_block_);
  const std::uint64_t step = std::max<std::uint64_t>(std::bit_floor(n) / 4, min_block_);
  return (n + step - 1) / step * step;
}

BufferBudget::Lease BufferBudget::acquire(std::uint64_t bytes) {
  const std::uint64_t size = block_size(bytes);
  std::unique_lock lock(mutex_);
  for (;;) {
    // The smallest kept block that holds `size` bytes and is at most twice that, when the budget
    // has room for it (the most recently used among equals: its pages are likely still cached).
    // Reusing a block costs no new pages; a block larger than asked is charged in full, but only
    // the pages that leases wrote are resident.
    auto best = free_.rend();
    for (auto it = free_.rbegin(); it != free_.rend(); ++it) {
      if (it->size >= size && it->size / 2 <= size && (best == free_.rend() || it->size < best->size)) best = it;
    }
    if (best != free_.rend() && capacity_ - used_ >= charge(best->size)) {
      const Block block = *best;
      free_.erase(std::next(best).base());
      kept_ -= block.size;
      used_ += charge(block.size);
      return Lease(*this, block);
    }
    if (capacity_ - used_ >= charge(size)) break;
    freed_.wait(lock);
  }
  used_ += charge(size);
  // A new block, after unmapping the oldest kept blocks that would not fit beside it.
  auto oldest = free_.begin();
  for (; oldest != free_.end() && kept_ + used_ > capacity_; ++oldest) {
    unmap_pages(oldest->data, oldest->size);
    kept_ -= oldest->size;
  }
  free_.erase(free_.begin(), oldest);
  // In huge pages from 2 MiB on: the members inflated whole into new blocks took 16% of a torch
  // install's page faults (vwheel/core/page_buffer.hpp).
  void* data = nullptr;
  try {
    data = map_pages(static_cast<std::size_t>(size));
  } catch (...) {
    used_ -= charge(size);
    lock.unlock();
    freed_.notify_all();
    throw;
  }
  return Lease(*this, Block{static_cast<char*>(data), static_cast<std::size_t>(size)});
}

void BufferBudget::release(Block block) noexcept {
  {
    std::lock_guard lock(mutex_);
    used_ -= charge(block.size);
    if (block.size > capacity_) {
      unmap_pages(block.data, block.size);
    } else {
      free_.push_back(block);
      kept_ += block.size;
    }
  }
  freed_.notify_all();
}

std::uint64_t BufferBudget::mapped() const {
  std::lock_guard lock(mutex_);
  return used_ + kept_;
}

UnpackMeter::UnpackMeter(Report report, std::uint64_t total, std::uint64_t step, Clock::duration interval)
    : report_(std::move(report)),
      total_(total),
      step_(std::max<std::uint64_t>(step, 1)),
      interval_(interval),
      reported_at_(Clock::now().time_since_epoch().count()) {}

UnpackMeter::~UnpackMeter() { finish(); }

void UnpackMeter::add(std::uint64_t bytes) {
  const std::uint64_t written = written_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  if (!report_ || written >= total_) return;
  auto due = [&](std::uint64_t done, Clock::time_point now) {
    return done >= reported_.load(std::memory_order_relaxed) + step_ ||
           now - Clock::time_point(Clock::duration(reported_at_.load(std::memory_order_relaxed))) >= interval_;
  };
  // Most adds (small files between two reports) stop here, without the lock.
  if (!due(written, Clock::now())) return;
  std::lock_guard lock(mutex_);
  const std::uint64_t done = written_.load(std::memory_order_relaxed);
  const auto now = Clock::now();
  // Another thread may have reported meanwhile, or the wheel be complete (finish reports that).
  if (finished_ || done >= total_ || done <= reported_.load(std::memory_order_relaxed) || !due(done, now)) return;
  reported_.store(done, std::memory_order_relaxed);
  reported_at_.store(now.time_since_epoch().count(), std::memory_order_relaxed);
  try {
    report_(done, total_);
  } catch (...) {
    // As in finish(): a display that fails must not fail the install.
  }
}

void UnpackMeter::finish() noexcept {
  std::lock_guard lock(mutex_);
  if (finished_) return;
  finished_ = true;
  if (!report_) return;
  try {
    report_(total_, total_);
  } catch (...) {
    // Progress is decoration: a display that fails must not fail the install.
  }
}

BufferBudget& extraction_budget() noexcept {
  static BufferBudget budget(kProcessBudget);
  return budget;
}

Error io_error(const fs::path& path, std::string_view what, int err) {
  const bool full = err == ENOSPC || err == EDQUOT;
  return with_kind(Error(fmt::format("{}: {}: {}{}", path.string(), what, std::strerror(err),
                                     full ? " (the disk is full)" : "")),
                   ErrorKind::environment);
}

Error error_from_exception(std::string_view context) {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return with_kind(Error(fmt::format("{}: out of memory", context)), ErrorKind::environment);
  } catch (const std::system_error& e) {
    return with_kind(Error(fmt::format("{}: {}", context, e.what())), ErrorKind::environment);
  } catch (const std::exception& e) {
    return with_kind(Error(fmt::format("{}: {}", context, e.what())), ErrorKind::environment);
  } catch (...) {
    return with_kind(Error(fmt::format("{}: unexpected failure", context)), ErrorKind::environment);
  }
}

Result<void> extract_member(const zip::Archive& archive, const zip::Entry& entry, const fs::path& dest, unsigned mode,
                            std::string_view record_hash, BufferBudget& budget,
                            const ExtractSettings& settings) {
  try {
    const auto algorithm = record_hash.substr(0, record_hash.find('='));
    if (!RecordHasher(algorithm).known()) {
      return fail(fmt::format("member `{}`: RECORD hash `{}`: unsupported algorithm", entry.name, record_hash));
    }
    // Whole: the compressed bytes and the content in one block. A member whose compressed size is
    // out of proportion with its content (deflate adds 5 bytes per 64 KiB at worst) streams too.
    const std::uint64_t max = settings.whole_member_max;
    if (entry.uncompressed_size <= max && entry.compressed_size <= max + max / 1024 + 1024) {
      const auto lease = budget.acquire(zip::Archive::scratch_size(entry));
      return extract_whole(archive, entry, dest, mode, record_hash, algorithm, lease.memory(), settings.on_written);
    }
    // Streamed: the two chunks (the inflater's state, tens of KiB, is its own).
    const auto lease = budget.acquire(2 * settings.chunk);
    return extract_streamed(archive, entry, dest, mode, record_hash, algorithm, settings.chunk, lease.memory(),
                            settings.on_written);
  } catch (...) {
    return fail(error_from_exception(fmt::format("member `{}`", entry.name)));
  }
}

}  // namespace vwheel::install::detail
