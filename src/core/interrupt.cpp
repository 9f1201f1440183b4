#include "vwheel/core/interrupt.hpp"

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>

#include <fmt/format.h>

namespace vwheel {
namespace {

std::atomic<int> g_signal{0};
std::atomic<bool> g_changed{false};  // a commit phase ended: the environment was changed
int g_cancellable = 0;               // guarded by g_mutex
int g_commit = 0;                    // guarded by g_mutex
// Held while the signal thread decides (and possibly exits), and while a commit phase starts:
// the process never exits between a commit phase's first move and its end.
std::mutex g_mutex;

// What the destructor sends the signal thread to stop it: none of the three handled signals, so
// that a real one arriving meanwhile is never mistaken for the wake-up (nor the wake-up for a
// real one). A real-time signal: nothing else in vwheel uses them, and it is blocked (and taken)
// exactly like the handled ones, so it is never delivered to a handler or a default action.
int wake_signal() noexcept { return SIGRTMIN; }

sigset_t handled_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

/// The handled signals and the wake-up: what the signal thread waits for.
sigset_t waited_signals() {
  sigset_t set = handled_signals();
  sigaddset(&set, wake_signal());
  return set;
}

/// Records `sig` as the run's signal unless one was recorded already.
void record(int sig) noexcept {
  int none = 0;
  g_signal.compare_exchange_strong(none, sig);
}

void write_stderr(const std::string& text) noexcept {
  std::size_t done = 0;
  while (done < text.size()) {
    const auto n = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

struct Handler {
  std::string program;
  sigset_t set = waited_signals();
  sigset_t old{};
  std::atomic<bool> stopping{false};
  std::thread thread;

  void take() {
    for (;;) {
      int sig = 0;
      if (::sigwait(&set, &sig) != 0) continue;
      if (sig == wake_signal()) {
        if (stopping) return;
        continue;  // not ours (sent from outside): nothing to do
      }
      if (stopping) {
        // Taken between the destructor's decision to stop and the wake-up: recorded like one
        // still pending then (the destructor's drain), so that the caller exits with its code.
        record(sig);
        continue;
      }
      int first = 0;
      const bool is_first = g_signal.compare_exchange_strong(first, sig);
      std::unique_lock guard(g_mutex);
      if (g_commit > 0) continue;                   // deferred until the commit ends
      if (g_cancellable > 0 && is_first) continue;  // the run winds down and cleans up
      // Outside any section, or a second signal while the run cleans up: exit now.
      const int code = interrupt_exit_code(is_first ? sig : first);
      std::string why;
      if (g_cancellable > 0) {
        why = "interrupted again; stopped at once (the next run removes what this one staged)";
      } else if (g_changed) {
        why = fmt::format("interrupted by {} after the run had completed its changes", signal_name(sig));
      } else {
        why = "interrupted; nothing was changed";
      }
      write_stderr(fmt::format("{}: {}\n", program, why));
      ::_exit(code);
    }
  }
};

Handler* g_handler = nullptr;

}  // namespace

InterruptHandler::InterruptHandler(std::string_view program) {
  auto* h = new Handler;
  h->program = std::string(program);
  ::pthread_sigmask(SIG_BLOCK, &h->set, &h->old);
  g_signal = 0;
  g_changed = false;
  h->thread = std::thread([h] { h->take(); });
  g_handler = h;
}

InterruptHandler::~InterruptHandler() {
  Handler* h = g_handler;
  g_handler = nullptr;
  h->stopping = true;
  // Sent to that thread alone (blocked there: sigwait takes it); a real signal the thread takes
  // before it is recorded there.
  ::pthread_kill(h->thread.native_handle(), wake_signal());
  h->thread.join();
  // A signal that came while the thread stopped is still pending (blocked here): taken and
  // recorded now, so that restoring the mask does not let it end the process half-way through
  // the caller's report. A wake-up signal sent from outside is taken too, and dropped.
  const timespec now{0, 0};
  for (int sig = ::sigtimedwait(&h->set, nullptr, &now); sig > 0; sig = ::sigtimedwait(&h->set, nullptr, &now)) {
    if (sig != wake_signal()) record(sig);
  }
  ::pthread_sigmask(SIG_SETMASK, &h->old, nullptr);
  delete h;
}

Cancellable::Cancellable() noexcept {
  std::lock_guard guard(g_mutex);
  ++g_cancellable;
}

Cancellable::~Cancellable() {
  std::lock_guard guard(g_mutex);
  --g_cancellable;
}

CommitPhase::CommitPhase() noexcept {
  std::lock_guard guard(g_mutex);
  ++g_commit;
}

CommitPhase::~CommitPhase() {
  std::lock_guard guard(g_mutex);
  --g_commit;
}

void CommitPhase::committed() noexcept { g_changed = true; }

bool changes_committed() noexcept { return g_changed; }

bool interrupted() noexcept { return g_signal.load(std::memory_order_relaxed) != 0; }

int interrupt_signal() noexcept { return g_signal.load(); }

Error interrupted_error() {
  return with_kind(Error(fmt::format("interrupted by {}", signal_name(interrupt_signal()))), ErrorKind::environment);
}

std::string_view signal_name(int signal) noexcept {
  switch (signal) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
  }
}

void set_interrupted_for_testing(int signal) noexcept {
  g_signal = signal;
  if (signal == 0) g_changed = false;
}

}  // namespace vwheel
