#pragma once
/// \file
/// Creating a virtual environment with an interpreter's own `venv` module: the one place that
/// runs `python -m venv`, for `vwheel venv` and for the Python providers' environments.

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "vwheel/core/error.hpp"

namespace vwheel::python {

/// How `PYTHON [python_flags] -m venv [venv_args] DIR` runs.
struct VenvOptions {
  /// Interpreter options before `-m venv`, e.g. `-I` (isolated mode).
  std::vector<std::string> python_flags;
  /// Options of the venv module, e.g. `--without-pip`.
  std::vector<std::string> venv_args;
  /// The child's complete environment, `NAME=value` each.
  std::vector<std::string> env;
  /// Its working directory; empty = this process's.
  std::filesystem::path cwd;
  /// Killed (with its process group) after this long.
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};
};

/// Runs `python`'s venv module to create the environment `dir`. An interpreter that cannot be
/// started is an environmental error (ErrorKind::environment, the process's message); a venv
/// module that fails, is killed or times out is the input's fault (ErrorKind::input):
/// `PYTHON -m venv DIR: failed (exit N): LAST LINE` (of standard error, else of standard output),
/// `...: timed out after N ms` or `...: killed by signal N`.
[[nodiscard]] Result<void> create_venv(const std::filesystem::path& python, const std::filesystem::path& dir,
                                       const VenvOptions& options);

}  // namespace vwheel::python
