#include "vwheel/core/growing_file.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iterator>
#include <set>

#include <fmt/format.h>

#include "vwheel/core/interrupt.hpp"

namespace vwheel {

namespace {
// How often a waiting reader looks at interrupted(): the signal thread does not know the waits.
constexpr std::chrono::milliseconds kInterruptPoll{100};
// How often a writer waiting for room looks again: another file's release frees the shared budget
// without waking this file's waiters.
constexpr std::chrono::milliseconds kRoomPoll{10};

// VWHEEL_HOLD_MIB sets the budget (0: everything is written, as before read_once existed), for
// benchmarks and the tests that need the writer to run out of room.
std::uint64_t initial_budget() noexcept {
  const char* v = std::getenv("VWHEEL_HOLD_MIB");
  if (v == nullptr || *v == '\0') return GrowingFile::kHoldBudget;
  char* end = nullptr;
  const unsigned long long mib = std::strtoull(v, &end, 10);
  if (*end != '\0' || mib > (std::uint64_t{1} << 20)) return GrowingFile::kHoldBudget;
  return static_cast<std::uint64_t>(mib) << 20;
}

std::atomic<std::uint64_t> g_budget{initial_budget()};
std::atomic<std::uint64_t> g_held{0};

// Readers of any file waiting for their writer (some perhaps woken already). One thread (libcurl's) writes every download: while
// it waits for room in one file, the others' readers would wait for it.
std::atomic<unsigned> g_starving{0};

// Counts a reader as waiting for the writer, for bytes up to `end`, while it lives.
struct Waiting {
  std::multiset<std::uint64_t>& wanted;
  std::multiset<std::uint64_t>::iterator it;
  Waiting(std::multiset<std::uint64_t>& w, std::uint64_t end, std::condition_variable& changed)
      : wanted(w), it(w.insert(end)) {
    g_starving.fetch_add(1, std::memory_order_relaxed);
    changed.notify_all();  // a writer waiting for room writes instead
  }
  Waiting(const Waiting&) = delete;
  Waiting& operator=(const Waiting&) = delete;
  ~Waiting() {
    wanted.erase(it);
    g_starving.fetch_sub(1, std::memory_order_relaxed);
  }
};
}  // namespace

GrowingFile::~GrowingFile() { g_held.fetch_sub(held_bytes_, std::memory_order_relaxed); }

void GrowingFile::set_hold_budget(std::uint64_t bytes) noexcept { g_budget.store(bytes, std::memory_order_relaxed); }
std::uint64_t GrowingFile::held_now() noexcept { return g_held.load(std::memory_order_relaxed); }

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
    // What was held belongs to the file removed: the new one is written whole (its reader, if
    // any, is another one, who will ask again).
    g_held.fetch_sub(held_bytes_, std::memory_order_relaxed);
    held_.clear();
    held_bytes_ = 0;
    released_.clear();
    holding_ = reading_done_ = dropped_ = stalled_ = read_yet_ = false;
    progress_ = 0;
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

Result<void> GrowingFile::wait_arrived(std::unique_lock<std::mutex>& lock, std::uint64_t end,
                                       std::uint64_t generation) const {
  std::optional<Waiting> waiting;
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
    if (!waiting) waiting.emplace(wanted_, end, changed_);
    changed_.wait_for(lock, kInterruptPoll);
  }
}

bool GrowingFile::starving() const {
  // A reader of this file that waits for bytes not handed over yet (a woken one, whose bytes
  // have come, is not), or for the verdict; or a reader of another file (the same thread writes
  // every download, and cannot tell whether those bytes came).
  if (!wanted_.empty() && *wanted_.rbegin() > bytes_) return true;
  return g_starving.load(std::memory_order_relaxed) > wanted_.size();
}

Result<void> GrowingFile::wait_for(std::uint64_t end, std::uint64_t generation) const {
  std::unique_lock lock(mutex_);
  return wait_arrived(lock, end, generation);
}

Result<void> GrowingFile::wait_finished() const {
  std::unique_lock lock(mutex_);
  std::optional<Waiting> waiting;
  for (;;) {
    if (outcome_) return *outcome_;
    if (interrupted()) return fail(interrupted_error());
    if (!waiting) waiting.emplace(wanted_, UINT64_MAX, changed_);
    changed_.wait_for(lock, kInterruptPoll);
  }
}

void GrowingFile::read_once(std::uint64_t generation) const {
  std::lock_guard lock(mutex_);
  if (generation == generation_ && !reading_done_) holding_ = true;
}

bool GrowingFile::holding() const {
  std::lock_guard lock(mutex_);
  return holding_;
}

bool GrowingFile::hold(std::uint64_t offset, Bytes bytes, const WriteAt& write) {
  const std::uint64_t size = bytes->size();
  {
    std::unique_lock lock(mutex_);
    using Clock = std::chrono::steady_clock;
    std::uint64_t seen = progress_;
    auto deadline = stall_deadline();
    while (holding_) {
      if (g_held.load(std::memory_order_relaxed) + size <= g_budget.load(std::memory_order_relaxed)) {
        // The writer's own buffer, not a copy of it: in a torch install (perf, one install each
        // way) the download thread used 0.92 CPU seconds against 1.18 with the copy, its memmove
        // 0.32 s against 0.49.
        held_.insert_or_assign(offset, Held{std::move(bytes)});  // counted once inserted
        held_bytes_ += size;
        g_held.fetch_add(size, std::memory_order_relaxed);
        return true;
      }
      // Written instead: a reader waits for newer bytes (the ones held are not what it needs; or
      // a reader of another download this thread also writes), this file holds nothing (another
      // one has the budget), or the readers made no progress for a while (they are busy
      // elsewhere, e.g. with another wheel).
      if (starving() || held_bytes_ == 0 || stalled_ || interrupted()) break;
      if (progress_ != seen) {
        seen = progress_;
        deadline = stall_deadline();
      } else if (Clock::now() >= deadline) {
        stalled_ = true;
        break;
      }
      changed_.wait_for(lock, kRoomPoll);
    }
  }
  return write(offset, bytes->view());
}

bool GrowingFile::write_held(const WriteAt& write) {
  std::unique_lock lock(mutex_);
  using Clock = std::chrono::steady_clock;
  std::uint64_t seen = progress_;
  auto deadline = stall_deadline();
  // What the reader is still to read would be written for nothing: let it read first.
  while (holding_ && !held_.empty() && !stalled_ && !starving() && !interrupted()) {
    if (progress_ != seen) {
      seen = progress_;
      deadline = stall_deadline();
    } else if (Clock::now() >= deadline) {
      break;
    }
    changed_.wait_for(lock, kRoomPoll);
  }
  holding_ = false;
  bool ok = true;
  while (!held_.empty()) {
    auto it = held_.begin();
    it->second.writing = true;
    const std::uint64_t offset = it->first;
    const std::string_view bytes = it->second.bytes->view();
    // Readers still copy from it while it is written (the buffer does not change); a release
    // meanwhile leaves it alone.
    lock.unlock();
    const bool wrote = ok && write(offset, bytes);
    lock.lock();
    ok = ok && wrote;
    it = held_.find(offset);
    held_bytes_ -= it->second.bytes->size();
    g_held.fetch_sub(it->second.bytes->size(), std::memory_order_relaxed);
    held_.erase(it);
  }
  changed_.notify_all();
  return ok;
}

void GrowingFile::drop(std::map<std::uint64_t, Held>::iterator it) const {
  const std::size_t size = it->second.bytes->size();
  held_bytes_ -= size;
  g_held.fetch_sub(size, std::memory_order_relaxed);
  dropped_ = true;
  held_.erase(it);
}

Result<void> GrowingFile::read(char* buf, std::size_t len, std::uint64_t offset, std::uint64_t generation,
                               const ReadAt& read_file) const {
  struct Gap {
    std::uint64_t at;
    std::size_t len;
  };
  // Parts not held, read from the file after the lock is let go: at most one between two held
  // buffers, so a few.
  std::vector<Gap> gaps;
  {
    std::unique_lock lock(mutex_);
    if (auto ok = wait_arrived(lock, offset + len, generation); !ok) return ok;
    made_progress();
    read_yet_ = true;
    const std::uint64_t end = offset + len;
    std::uint64_t pos = offset;
    auto it = held_.upper_bound(pos);
    if (it != held_.begin() && std::prev(it)->first + std::prev(it)->second.bytes->size() > pos) --it;
    for (; it != held_.end() && it->first < end; ++it) {
      const std::uint64_t from = it->first;
      const std::uint64_t to = from + it->second.bytes->size();
      if (from > pos) {
        gaps.push_back({pos, static_cast<std::size_t>(from - pos)});
        pos = from;
      }
      const std::uint64_t stop = std::min(to, end);
      std::copy_n(it->second.bytes->data() + (pos - from), stop - pos, buf + (pos - offset));
      pos = stop;
    }
    if (pos < end) gaps.push_back({pos, static_cast<std::size_t>(end - pos)});
    // A byte neither held nor written: released already, so read twice (a bug, not a bad file).
    for (const auto& g : gaps) {
      auto r = released_.upper_bound(g.at + g.len - 1);
      if (r != released_.begin() && std::prev(r)->second > g.at) {
        return fail(fmt::format("bytes {} to {} were read after being given back", g.at, g.at + g.len));
      }
    }
  }
  for (const auto& g : gaps) {
    if (auto ok = read_file(buf + (g.at - offset), g.len, g.at); !ok) return ok;
  }
  return {};
}

void GrowingFile::release(std::uint64_t from, std::uint64_t to, std::uint64_t generation) const {
  if (from >= to) return;
  bool freed = false;
  {
    std::lock_guard lock(mutex_);
    if (generation != generation_) return;
    // Merged into the disjoint ranges released so far.
    auto it = released_.upper_bound(from);
    if (it != released_.begin() && std::prev(it)->second >= from) --it;
    while (it != released_.end() && it->first <= to) {
      from = std::min(from, it->first);
      to = std::max(to, it->second);
      it = released_.erase(it);
    }
    released_.emplace(from, to);
    // Every held buffer inside the merged range goes.
    auto h = held_.upper_bound(from);
    if (h != held_.begin()) --h;
    while (h != held_.end() && h->first < to) {
      const std::uint64_t end = h->first + h->second.bytes->size();
      if (h->first >= from && end <= to && !h->second.writing) {
        auto next = std::next(h);
        drop(h);
        h = next;
        freed = true;
      } else {
        ++h;
      }
    }
    made_progress();
  }
  if (freed) changed_.notify_all();
}

std::chrono::steady_clock::time_point GrowingFile::stall_deadline() const {
  return std::chrono::steady_clock::now() + std::chrono::milliseconds(read_yet_ ? kStallMs : kStartMs);
}

void GrowingFile::made_progress() const {
  ++progress_;
  stalled_ = false;  // the readers are here: wait for them again
}

void GrowingFile::done_reading(std::uint64_t generation) const {
  {
    std::lock_guard lock(mutex_);
    if (generation != generation_) return;
    reading_done_ = true;
    holding_ = false;
  }
  changed_.notify_all();
}

unsigned GrowingFile::waiting() const {
  std::lock_guard lock(mutex_);
  return static_cast<unsigned>(wanted_.size());
}

bool GrowingFile::dropped(std::uint64_t generation) const {
  std::lock_guard lock(mutex_);
  return generation == generation_ && dropped_;
}

}  // namespace vwheel
