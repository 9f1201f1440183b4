#pragma once
/// \file
/// A file written front to back by one thread (a download) while other threads already read the
/// part that has arrived (the installer unpacking a wheel's first members while its last bytes
/// are still on the network).
///
/// The writer publishes how many bytes from the start are in the file (`advance`), says when the
/// file was started again from nothing (`restart`: a new file, so what readers had opened is
/// stale) and, at the end, whether the file came out complete and verified (`finish`). Readers
/// wait for the bytes they need (`wait_for`) and for the verdict (`wait_finished`). Every wait
/// also ends when the process is interrupted (SIGINT, SIGTERM, SIGHUP), with interrupted_error().

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>

#include "vwheel/core/error.hpp"

namespace vwheel {

class GrowingFile {
 public:
  /// Writer: the file exists and bytes [0, bytes) are in it (a write has returned).
  void advance(std::uint64_t bytes);
  /// Writer: the file was removed and is being written again from the start; readers that
  /// opened the old one must not trust it (their `generation` is no longer current).
  void restart();
  /// Writer: no more bytes will come. Success means the file is complete, verified and at its
  /// final path; an error wakes every reader with it. Only the first call counts.
  void finish(Result<void> outcome);

  /// The file's current incarnation: a reader notes it when it opens the file.
  [[nodiscard]] std::uint64_t generation() const;
  /// Reader: waits until bytes [0, end) of incarnation `generation` are in the file. Fails when
  /// the file was restarted since, when the writer finished with an error, or when interrupted.
  [[nodiscard]] Result<void> wait_for(std::uint64_t end, std::uint64_t generation) const;
  /// Reader: waits for finish() and returns its outcome (or interrupted_error()).
  [[nodiscard]] Result<void> wait_finished() const;
  /// True once finish() was called.
  [[nodiscard]] bool finished() const;

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  bool opened_ = false;
  std::uint64_t bytes_ = 0;
  std::uint64_t generation_ = 0;
  std::optional<Result<void>> outcome_;
};

}  // namespace vwheel
