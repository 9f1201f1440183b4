#include "http/spool.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <iterator>
#include <memory>
#include <vector>

#include "vwheel/core/fd.hpp"

namespace vwheel::http::detail {

namespace {

// The spools' buffers (Spool::kFirstBuffer or Spool::kBuffer bytes), given back by whoever lets
// one go last: the hasher, or a reader of a held download (GrowingFile::release). They are kept
// for the next fill, whose pages are then already the process's: while a spool is open, as many
// large ones as a held download has in flight; once none is, a few of each size.
//
// Why keep them all during a download: a huge page unmapped is a free 2 MiB block, the size the
// VM of issue 17 reports to its host as unused, which then backs it anew when it is mapped again.
class BufferPool {
 public:
  static BufferPool& instance() {
    static auto* pool = new BufferPool;  // never destroyed: a buffer may come back at exit
    return *pool;
  }
  // An emptied buffer of `capacity` bytes (one of the two sizes), kept or new.
  PageBuffer take(std::size_t capacity) {
    {
      std::lock_guard lock(mutex_);
      auto& kept = kept_for(capacity);
      if (!kept.empty()) {
        PageBuffer b = std::move(kept.back());
        kept.pop_back();
        return b;
      }
    }
    return PageBuffer(capacity);
  }
  // `filled`, shared; back to the pool when its last holder lets it go.
  GrowingFile::Bytes share(PageBuffer&& filled) {
    return GrowingFile::Bytes(new PageBuffer(std::move(filled)), [](PageBuffer* b) { instance().give_back(b); });
  }
  // A buffer its holder is done with: kept for the next fill while there is room, else unmapped.
  void put(PageBuffer b) noexcept {
    if (b.capacity() != Spool::kFirstBuffer && b.capacity() != Spool::kBuffer) return;
    b.clear();
    std::lock_guard lock(mutex_);
    auto& kept = kept_for(b.capacity());
    if (kept.size() >= (open_ > 0 && b.capacity() == Spool::kBuffer ? kKeptOpen : kKept)) return;
    try {
      kept.push_back(std::move(b));
    } catch (...) {
      // Not kept: the next fill maps a new one.
    }
  }

  // A spool opened its file, or closed it.
  void opened() {
    std::lock_guard lock(mutex_);
    ++open_;
  }
  void closed() {
    std::vector<PageBuffer> unmapped;  // outside the lock
    std::lock_guard lock(mutex_);
    if (--open_ == 0 && large_.size() > kKept) {
      unmapped.assign(std::make_move_iterator(large_.begin() + kKept), std::make_move_iterator(large_.end()));
      large_.resize(kKept);
    }
  }

 private:
  void give_back(PageBuffer* b) noexcept {
    put(std::move(*b));
    delete b;
  }
  std::vector<PageBuffer>& kept_for(std::size_t capacity) { return capacity == Spool::kBuffer ? large_ : small_; }

  // Enough for the hasher's queue and the buffers being filled; the held ones come back at the
  // pace the readers go, and a new buffer then costs what a copy into a kept one did before.
  static constexpr std::size_t kKept = 8;
  // The hold budget's buffers, the hasher's queue and the one being filled.
  static constexpr std::size_t kKeptOpen = GrowingFile::kHoldBudget / Spool::kBuffer + AsyncSha256::kQueued + 2;
  std::mutex mutex_;
  std::size_t open_ = 0;  // spools with an open file
  std::vector<PageBuffer> small_;
  std::vector<PageBuffer> large_;
};

}  // namespace

AsyncSha256::~AsyncSha256() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void AsyncSha256::submit(GrowingFile::Bytes buffer) {
  if (buffer->empty()) return;
  std::unique_lock lock(mutex_);
  if (!worker_.joinable()) worker_ = std::thread([this] { run(); });
  changed_.wait(lock, [&] { return queue_.size() < kQueued; });
  queue_.push_back(std::move(buffer));
  lock.unlock();
  changed_.notify_all();
}

void AsyncSha256::drain(std::unique_lock<std::mutex>& lock) {
  changed_.wait(lock, [&] { return queue_.empty() && !busy_; });
}

Sha256Digest AsyncSha256::finish() {
  std::unique_lock lock(mutex_);
  drain(lock);
  return sha_.finish();  // finish() also resets the state
}

void AsyncSha256::reset() {
  std::unique_lock lock(mutex_);
  drain(lock);
  (void)sha_.finish();
}

void AsyncSha256::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left
    GrowingFile::Bytes buffer = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    changed_.notify_all();  // room in the queue
    sha_.update(buffer->view());  // only this thread touches sha_ while busy_
    buffer.reset();               // back to the pool unless a reader still holds it
    lock.lock();
    busy_ = false;
    changed_.notify_all();
  }
}

bool Spool::open(const std::filesystem::path& path, bool append, std::uint64_t have) {
  // After pause(): an attempt resumed where the last one stopped, or one starting afresh after
  // attempts that got no byte (a 503), goes on with the open file. Closing it would end the holding.
  if (fd_ >= 0 && buffer_.empty() && (append ? have == written_ : written_ == 0)) return true;
  (void)close();
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (append ? 0 : O_TRUNC), 0644);
  if (fd_ < 0) return false;
  BufferPool::instance().opened();
  written_ = append ? have : 0;
  if (growing_ != nullptr) growing_->advance(written_);
  return true;
}

bool Spool::write_at(std::uint64_t offset, std::string_view bytes) const {
  return pwrite_all(fd_, bytes, offset) == 0;
}

bool Spool::flush() {
  const auto write = [this](std::uint64_t at, std::string_view bytes) { return write_at(at, bytes); };
  // The hold budget counts a buffer's bytes, not its capacity: an attempt's last, partial buffer
  // (a dropped connection resumed, a few bytes in a 2 MiB buffer) goes as a copy of its size.
  const bool copy = buffer_.capacity() == kBuffer && buffer_.size() < kBuffer / 2;
  auto bytes = copy ? BufferPool::instance().share(PageBuffer::copy_of(buffer_.view()))
                    : BufferPool::instance().share(std::move(buffer_));
  buffer_.clear();
  // A reader that unpacks the download as it arrives, and does not keep it, may take the bytes
  // from memory (GrowingFile::hold): those it gives back are never written.
  const bool ok = growing_ != nullptr && growing_->holding() ? growing_->hold(written_, bytes, write)
                                                             : write_at(written_, bytes->view());
  if (!ok) return false;
  written_ += bytes->size();
  if (growing_ != nullptr) growing_->advance(written_);
  hasher_.submit(std::move(bytes));
  return true;
}

bool Spool::append(std::string_view data) {
  while (!data.empty()) {
    if (buffer_.capacity() == 0) {
      buffer_ = BufferPool::instance().take(written_ < kFirstBuffer ? kFirstBuffer : kBuffer);
    }
    data.remove_prefix(buffer_.append(data));
    if (buffer_.room() == 0 && !flush()) return false;
  }
  return true;
}

void Spool::hash_only(std::string_view data) {
  // In the pool's buffers: a part file of gigabytes resumed is hashed without mapping new memory
  // for each piece.
  while (!data.empty()) {
    PageBuffer buffer = BufferPool::instance().take(kBuffer);
    data.remove_prefix(buffer.append(data));
    hasher_.submit(BufferPool::instance().share(std::move(buffer)));
  }
}

bool Spool::close() {
  if (fd_ < 0) return true;
  bool ok = buffer_.empty() || flush();
  // What readers did not give back goes to the file before it is closed (and then verified).
  if (ok && growing_ != nullptr) {
    ok = growing_->write_held([this](std::uint64_t at, std::string_view bytes) { return write_at(at, bytes); });
  }
  const int saved = errno;
  if (::close(fd_) != 0 && ok) {
    ok = false;
  } else if (!ok) {
    errno = saved;
  }
  fd_ = -1;
  BufferPool::instance().put(std::move(buffer_));
  BufferPool::instance().closed();
  return ok;
}

}  // namespace vwheel::http::detail
