#include "http/spool.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace vwheel::http::detail {

AsyncSha256::~AsyncSha256() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  if (worker_.joinable()) worker_.join();
}

std::string AsyncSha256::submit(std::string&& buffer) {
  if (buffer.empty()) return std::move(buffer);
  std::unique_lock lock(mutex_);
  if (!worker_.joinable()) worker_ = std::thread([this] { run(); });
  changed_.wait(lock, [&] { return queue_.size() < kQueued; });
  queue_.push_back(std::move(buffer));
  std::string next;
  if (!spare_.empty()) {
    next = std::move(spare_.back());
    spare_.pop_back();
  }
  lock.unlock();
  changed_.notify_all();
  next.clear();
  return next;
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
    std::string buffer = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    changed_.notify_all();  // room in the queue
    sha_.update(buffer);    // only this thread touches sha_ while busy_
    buffer.clear();
    lock.lock();
    if (spare_.size() < kQueued) spare_.push_back(std::move(buffer));
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
  // A reader that unpacks the download as it arrives, and does not keep it, may take the bytes
  // from memory (GrowingFile::hold): those it gives back are never written.
  const bool ok = growing_ != nullptr && growing_->holding() ? growing_->hold(written_, buffer_, write)
                                                              : write_at(written_, buffer_);
  if (!ok) return false;
  written_ += buffer_.size();
  if (growing_ != nullptr) growing_->advance(written_);
  buffer_ = hasher_.submit(std::move(buffer_));
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

void Spool::hash_only(std::string_view data) { (void)hasher_.submit(std::string(data)); }

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
