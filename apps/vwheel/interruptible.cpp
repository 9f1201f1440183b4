#include "interruptible.hpp"

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/core/interrupt.hpp"

namespace vwheel::cli {

int run_interruptible(const std::function<int()>& action) {
  int rc = kOk;
  {
    InterruptHandler handler("vwheel");
    rc = action();
  }  // every signal until here is counted
  const int sig = interrupt_signal();
  if (sig == 0) return rc;
  if (rc == kOk && changes_committed()) {
    fmt::print(stderr, "vwheel: interrupted by {} during the commit; the run completed\n", signal_name(sig));
  } else if (rc == kOk) {
    fmt::print(stderr, "vwheel: interrupted by {}; the run had nothing left to change and completed\n", signal_name(sig));
  } else {
    fmt::print(stderr, "vwheel: interrupted; nothing was changed\n");
  }
  return interrupt_exit_code(sig);
}

}  // namespace vwheel::cli
