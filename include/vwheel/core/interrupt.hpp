#pragma once
/// \file
/// SIGINT, SIGTERM and SIGHUP for runs that change an environment (install, sync, uninstall).
///
/// An `InterruptHandler` blocks the three signals in the calling thread (so every thread it
/// starts later inherits them blocked) and takes them in one thread of its own with sigwait(3),
/// as `vwheel-serve` does: no code runs in signal context, and a signal never kills the process
/// half-way through a rename. What happens to a signal depends on where the run is:
///
/// - outside any `Cancellable` section (resolving, downloading metadata, waiting for the
///   environment lock: nothing of the environment is touched yet), the process exits at once
///   with 128 + the signal, saying that nothing was changed;
/// - inside one (a staging directory exists), the signal is recorded: long loops (extraction,
///   downloads, the workers) check `interrupted()` and stop with `interrupted_error()`, and the
///   run's ordinary error path removes the staging directory and undoes whatever was moved; a
///   second signal there exits at once (the next run removes what was staged);
/// - inside a `CommitPhase` (the moves into place and their clean-up: short), every signal is
///   only recorded; the run completes and the caller then exits with the signal's code.
///
/// Child processes are unaffected: run_process() gives them an empty signal mask and the default
/// dispositions.

#include <string_view>

#include "vwheel/core/error.hpp"

namespace vwheel {

/// Owns the signal-taking thread; one at a time in a process, created before other threads.
class InterruptHandler {
 public:
  /// Blocks SIGINT, SIGTERM and SIGHUP (and the wake-up signal, below) in the calling thread
  /// and starts the thread that takes them. One that is ignored when the handler is created
  /// (SIGHUP under nohup) is left alone: it stays ignored. `program` prefixes the messages written when the process exits at once.
  explicit InterruptHandler(std::string_view program = "vwheel");
  /// Stops that thread (waking it with a real-time signal, SIGRTMIN, blocked like the three) and
  /// restores the calling thread's signal mask. A signal that arrives while it stops is recorded
  /// (interrupt_signal()), never lost nor left to end the process: one still pending is taken,
  /// and while the mask is restored the three go to a handler that only records them (those
  /// ignored, as under nohup, stay ignored); their dispositions are then restored.
  ~InterruptHandler();
  InterruptHandler(const InterruptHandler&) = delete;
  InterruptHandler& operator=(const InterruptHandler&) = delete;
};

/// A stretch of a run that cleans up after itself when interrupted (it holds a staging
/// directory): signals are recorded instead of ending the process. Nestable.
class Cancellable {
 public:
  Cancellable() noexcept;
  ~Cancellable();
  Cancellable(const Cancellable&) = delete;
  Cancellable& operator=(const Cancellable&) = delete;
};

/// The commit of a run: every signal is deferred (recorded) until it ends. Nestable.
class CommitPhase {
 public:
  CommitPhase() noexcept;
  ~CommitPhase();
  CommitPhase(const CommitPhase&) = delete;
  CommitPhase& operator=(const CommitPhase&) = delete;
  /// The run reached its commit point: from now on an interruption is reported as coming after
  /// the changes (see changes_committed()).
  void committed() noexcept;
};

/// Whether a run committed changes since the handler was created.
[[nodiscard]] bool changes_committed() noexcept;

/// Whether a signal asked the run to stop (checked by loops that can take long).
[[nodiscard]] bool interrupted() noexcept;

/// The first signal taken (SIGINT, SIGTERM or SIGHUP), or 0.
[[nodiscard]] int interrupt_signal() noexcept;

/// The error a loop returns when interrupted() (kind environment): "interrupted by SIGINT".
[[nodiscard]] Error interrupted_error();

/// The exit status for a run ended by `signal`: 128 + its number (130, 143, 129), as a shell
/// reports a process killed by it.
[[nodiscard]] constexpr int interrupt_exit_code(int signal) noexcept { return 128 + signal; }

/// `SIGINT`, `SIGTERM`, `SIGHUP` (else `a signal`).
[[nodiscard]] std::string_view signal_name(int signal) noexcept;

/// Test-only: records `signal` as if the handler's thread had taken it inside a Cancellable
/// section (0 clears it).
void set_interrupted_for_testing(int signal) noexcept;

}  // namespace vwheel
