#pragma once
/// \file
/// Running a child process without a shell: fork/exec, stdin from /dev/null, stdout and stderr
/// read through pipes with poll(), a time limit (the whole process group is killed), and output
/// limits. Used to query interpreters and to run opt-in Python providers.

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/core/fd.hpp"

namespace vwheel {

struct ProcessRequest {
  /// argv[0] must be a path (see `find_executable`); nothing is looked up in $PATH.
  std::vector<std::string> argv;
  /// The complete environment, `NAME=value` each.
  std::vector<std::string> env;
  /// Working directory of the child; empty = inherit.
  std::filesystem::path cwd;
  std::chrono::milliseconds timeout{60000};
  /// Largest standard output kept. When `kill_on_overflow`, exceeding it kills the process;
  /// otherwise only the last `max_stdout` bytes are kept.
  std::size_t max_stdout = std::size_t{1} << 20;
  bool kill_on_overflow = true;
  /// Only the last `max_stderr` bytes of standard error are kept.
  std::size_t max_stderr = std::size_t{64} << 10;
};

struct ProcessResult {
  int exit_code = -1;       ///< exit status, or -1 when killed by a signal
  int signal = 0;           ///< the terminating signal, or 0
  bool timed_out = false;   ///< killed at the time limit
  bool overflowed = false;  ///< killed because standard output exceeded the limit
  std::string out;          ///< standard output (possibly only its tail, see ProcessRequest)
  std::string err;          ///< the tail of standard error
  std::chrono::milliseconds elapsed{0};
};

/// A child started by `start_process`. `finish` reads its output to the end and reaps it, as
/// `run_process` does; in between, the caller works while the child runs. A RunningProcess
/// destroyed unfinished kills the child's process group and reaps the child.
class RunningProcess {
 public:
  RunningProcess(RunningProcess&& other) noexcept;
  RunningProcess& operator=(RunningProcess&&) = delete;
  RunningProcess(const RunningProcess&) = delete;
  RunningProcess& operator=(const RunningProcess&) = delete;
  ~RunningProcess();

  /// Reads standard output and error until the child closes them and exits (or the request's
  /// time limit or output limit ends it), kills what is left of its process group, and reaps it.
  /// Once only.
  [[nodiscard]] ProcessResult finish();

 private:
  friend Result<RunningProcess> start_process(const ProcessRequest& request);
  RunningProcess() = default;

  int pid_ = -1;
  UniqueFd out_;
  UniqueFd err_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::milliseconds timeout_{0};
  std::size_t max_stdout_ = 0;
  bool kill_on_overflow_ = true;
  std::size_t max_stderr_ = 0;
};

/// Starts a process (in its own process group, standard input from /dev/null). Fails only when it
/// cannot be started (the error names argv[0] and the reason).
[[nodiscard]] Result<RunningProcess> start_process(const ProcessRequest& request);

/// Runs a process to completion: `start_process`, then `finish`. A non-zero exit, a timeout or an
/// overflow are reported in the result. After the child exits, whatever is left of its process
/// group is killed.
[[nodiscard]] Result<ProcessResult> run_process(const ProcessRequest& request);

/// `name` when it contains a `/` (made absolute), else the first executable `dir/name` of the
/// `:`-separated `path_env`; nullopt when none.
[[nodiscard]] std::optional<std::filesystem::path> find_executable(std::string_view name, std::string_view path_env);

/// The last non-empty line of `text`, without control characters, at most `limit` bytes (cut at
/// the front with `...`).
[[nodiscard]] std::string last_line(std::string_view text, std::size_t limit = 400);

/// This process's environment as `NAME=value` strings (to pass on to a child).
[[nodiscard]] std::vector<std::string> current_environment();

}  // namespace vwheel
