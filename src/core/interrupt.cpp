#include "vwheel/core/interrupt.hpp"

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <iterator>
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

constexpr int kHandled[] = {SIGINT, SIGTERM, SIGHUP};

/// Whether `sig` is ignored (SIG_IGN: SIGHUP under nohup, SIGINT for a background job).
bool ignored(int sig) noexcept {
  struct sigaction now {};
  return ::sigaction(sig, nullptr, &now) == 0 && now.sa_handler == SIG_IGN;
}

/// What the signal thread waits for: the handled signals that are not ignored, and the wake-up.
/// An ignored one is left alone: blocked, Linux would queue it instead of discarding it (the
/// disposition might change before it is unblocked), and sigwait would take it.
sigset_t waited_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (const int sig : kHandled) {
    if (!ignored(sig)) sigaddset(&set, sig);
  }
  sigaddset(&set, wake_signal());
  return set;
}

/// Records `sig` as the run's signal unless one was recorded already. Async-signal-safe (a
/// lock-free atomic): the destructor's recording handler calls it.
void record(int sig) noexcept {
  int none = 0;
  g_signal.compare_exchange_strong(none, sig);
}
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void record_from_handler(int sig) { record(sig); }

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
  // No thread takes the signals now. One that arrives from here until the mask is restored stays
  // pending, and restoring the mask would deliver it with its old disposition (for the three, the
  // default: the process ends half-way through the caller's report). So each of the three, unless
  // ignored (nohup), goes to a handler that only records it until its disposition is restored:
  // a signal in flight while the handler stops is recorded, whenever it lands.
  struct sigaction recorder {};
  recorder.sa_handler = record_from_handler;
  sigfillset(&recorder.sa_mask);
  struct sigaction previous[std::size(kHandled)] {};
  bool replaced[std::size(kHandled)] = {};
  for (std::size_t i = 0; i < std::size(kHandled); ++i) {
    if (sigismember(&h->set, kHandled[i]) == 1 && ::sigaction(kHandled[i], &recorder, &previous[i]) == 0) {
      replaced[i] = true;
    }
  }
  // Those pending now are taken and recorded here (even where the old mask keeps them blocked);
  // a wake-up signal sent from outside is taken too, and dropped (its default action ends the
  // process).
  const timespec now{0, 0};
  for (;;) {
    const int sig = ::sigtimedwait(&h->set, nullptr, &now);
    if (sig < 0 && errno == EINTR) continue;
    if (sig <= 0) break;
    if (sig != wake_signal()) record(sig);
  }
  ::pthread_sigmask(SIG_SETMASK, &h->old, nullptr);
  for (std::size_t i = 0; i < std::size(kHandled); ++i) {
    if (replaced[i]) ::sigaction(kHandled[i], &previous[i], nullptr);
  }
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
