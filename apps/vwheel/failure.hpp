#pragma once
// Maps an api::Failure to the CLI's report and exit code.

#include "command.hpp"
#include "vwheel/api/failure.hpp"

namespace vwheel::cli {

/// Reports the failure's error and returns kEnvironment when the environment is at fault, else
/// kUserError.
inline int report_failure(const api::Failure& failure) {
  report_error(failure.error);
  return failure.environmental ? kEnvironment : kUserError;
}

}  // namespace vwheel::cli
