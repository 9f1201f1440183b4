#pragma once
// The commands that change an environment (install, sync, uninstall) run under vwheel's own
// handling of SIGINT, SIGTERM and SIGHUP (vwheel/core/interrupt.hpp).

#include <functional>

namespace vwheel::cli {

/// Runs `action` with the three signals taken by an InterruptHandler. When one came, prints one
/// line instead of the action's error (`vwheel: interrupted; nothing was changed`, or that it
/// came during the commit and the run completed) and returns 128 + the signal (130 for SIGINT,
/// 143 SIGTERM, 129 SIGHUP); otherwise returns the action's exit code.
int run_interruptible(const std::function<int()>& action);

}  // namespace vwheel::cli
