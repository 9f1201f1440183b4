#pragma once
/// \file
/// A minimal parallel loop for independent, I/O-bound work items (one wheel each).

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace vwheel {

/// The default number of workers: the number of CPUs (at least 1).
[[nodiscard]] inline unsigned default_jobs() noexcept { return std::max(1U, std::thread::hardware_concurrency()); }

/// Calls `fn(i)` for every `i` in `[0, count)` on up to `jobs` threads (the calling thread
/// included); returns when all calls have returned. `fn` must not throw; results go into
/// per-index slots the caller owns, so the outcome does not depend on scheduling.
template <class Fn>
void parallel_for(std::size_t count, unsigned jobs, Fn&& fn) {
  const std::size_t workers = std::min<std::size_t>(std::max(1U, jobs), count);
  if (workers <= 1) {
    for (std::size_t i = 0; i < count; ++i) fn(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < count; i = next++) fn(i);
  };
  std::vector<std::jthread> threads;
  threads.reserve(workers - 1);
  for (std::size_t t = 1; t < workers; ++t) threads.emplace_back(work);
  work();
}

}  // namespace vwheel
