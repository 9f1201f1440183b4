#include "vwheel/core/growing_file.hpp"

#include <chrono>

#include "vwheel/core/interrupt.hpp"

namespace vwheel {

namespace {
// How often a waiting reader looks at interrupted(): the signal thread does not know the waits.
constexpr std::chrono::milliseconds kInterruptPoll{100};
}  // namespace

void GrowingFile::advance(std::uint64_t bytes) {
  {
    std::lock_guard lock(mutex_);
    opened_ = true;
    bytes_ = bytes;
  }
  changed_.notify_all();
}

void GrowingFile::restart() {
  {
    std::lock_guard lock(mutex_);
    ++generation_;
    opened_ = false;
    bytes_ = 0;
  }
  changed_.notify_all();
}

void GrowingFile::finish(Result<void> outcome) {
  {
    std::lock_guard lock(mutex_);
    if (outcome_) return;
    outcome_ = std::move(outcome);
  }
  changed_.notify_all();
}

std::uint64_t GrowingFile::generation() const {
  std::lock_guard lock(mutex_);
  return generation_;
}

bool GrowingFile::finished() const {
  std::lock_guard lock(mutex_);
  return outcome_.has_value();
}

Result<void> GrowingFile::wait_for(std::uint64_t end, std::uint64_t generation) const {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (generation_ != generation) return fail("the download was started again");
    if (opened_ && bytes_ >= end) return {};
    if (outcome_) {
      if (!*outcome_) return *outcome_;
      // Complete: every byte is in the file (a finished file has all of its bytes, whether or
      // not they were announced one write at a time).
      return {};
    }
    if (interrupted()) return fail(interrupted_error());
    changed_.wait_for(lock, kInterruptPoll);
  }
}

Result<void> GrowingFile::wait_finished() const {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (outcome_) return *outcome_;
    if (interrupted()) return fail(interrupted_error());
    changed_.wait_for(lock, kInterruptPoll);
  }
}

}  // namespace vwheel
