#include "http/spool.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <string>
#include <vector>

namespace vwheel::http::detail {

namespace {

// The spools' buffers (Spool::kBuffer each), given back by whoever lets one go last: the hasher,
// or a reader of a held download (GrowingFile::release). A few are kept for the next fill, whose
// pages are then already the process's; the rest are freed.
class BufferPool {
 public:
  static BufferPool& instance() {
    static auto* pool = new BufferPool;  // never destroyed: a buffer may come back at exit
    return *pool;
  }
  // An emptied buffer (with its capacity, when one was kept).
  std::string take() {
    std::lock_guard lock(mutex_);
    if (free_.empty()) return {};
    std::string s = std::move(free_.back());
    free_.pop_back();
    return s;
  }
  // `filled`, shared; back to the pool when its last holder lets it go.
  GrowingFile::Bytes share(std::string&& filled) {
    return GrowingFile::Bytes(new std::string(std::move(filled)), [](std::string* s) { instance().give_back(s); });
  }

 private:
  void give_back(std::string* s) noexcept {
    {
      std::lock_guard lock(mutex_);
      if (free_.size() < kKept) {
        s->clear();
        try {
          free_.push_back(std::move(*s));
        } catch (...) {
          // Not kept: the next fill allocates.
        }
      }
    }
    delete s;
  }

  // Enough for the hasher's queue and the buffers being filled; the held ones come back at the
  // pace the readers go, and a new buffer then costs what a copy into a kept one did before.
  static constexpr std::size_t kKept = 16;
  std::mutex mutex_;
  std::vector<std::string> free_;
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
    sha_.update(*buffer);   // only this thread touches sha_ while busy_
    buffer.reset();         // back to the pool unless a reader still holds it
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
  written_ = append ? have : 0;
  if (growing_ != nullptr) growing_->advance(written_);
  return true;
}

bool Spool::write_at(std::uint64_t offset, std::string_view bytes) const {
  while (!bytes.empty()) {
    const auto n = ::pwrite(fd_, bytes.data(), bytes.size(), static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
    offset += static_cast<std::uint64_t>(n);
  }
  return true;
}

bool Spool::flush() {
  const auto write = [this](std::uint64_t at, std::string_view bytes) { return write_at(at, bytes); };
  // The hold budget counts a buffer's bytes, not its capacity: an attempt's last, partial buffer
  // (a dropped connection resumed, a few bytes in a 1 MiB buffer) is cut to its size first.
  if (buffer_.size() < kBuffer) buffer_.shrink_to_fit();
  auto bytes = BufferPool::instance().share(std::move(buffer_));
  buffer_ = BufferPool::instance().take();
  // A reader that unpacks the download as it arrives, and does not keep it, may take the bytes
  // from memory (GrowingFile::hold): those it gives back are never written.
  const bool ok = growing_ != nullptr && growing_->holding() ? growing_->hold(written_, bytes, write)
                                                              : write_at(written_, *bytes);
  if (!ok) return false;
  written_ += bytes->size();
  if (growing_ != nullptr) growing_->advance(written_);
  hasher_.submit(std::move(bytes));
  return true;
}

bool Spool::append(std::string_view data) {
  while (!data.empty()) {
    if (buffer_.capacity() < kBuffer) buffer_.reserve(kBuffer);
    const auto n = std::min(data.size(), kBuffer - buffer_.size());
    buffer_.append(data.substr(0, n));
    data.remove_prefix(n);
    if (buffer_.size() == kBuffer && !flush()) return false;
  }
  return true;
}

void Spool::hash_only(std::string_view data) { hasher_.submit(std::make_shared<const std::string>(data)); }

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
  buffer_.clear();
  return ok;
}

}  // namespace vwheel::http::detail
