#pragma once
/// \file
/// Python interpreters: find one (`--python`, the active virtual environment, `python3` on
/// PATH) and ask it, with the standard library only (`-I -S`: no site-packages, no package
/// code), for its marker environment, install scheme and what its wheel tags depend on.

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/core/process.hpp"
#include "vwheel/tags/tags.hpp"

namespace vwheel::python {

/// What vwheel knows about one interpreter.
struct Interpreter {
  std::filesystem::path executable;  ///< as found (a venv's `bin/python` stays unresolved)
  /// PEP 508 marker variables.
  std::map<std::string, std::string, std::less<>> environment;
  /// Install scheme (`purelib`, `platlib`, `scripts`, `include`/`headers`, `data`).
  std::map<std::string, std::filesystem::path> paths;
  std::filesystem::path prefix;
  std::filesystem::path base_prefix;
  /// Tag inputs and the tags themselves, most preferred first.
  tags::InterpreterInfo tag_info;
  std::vector<std::string> tags;
  /// `sys.version_info`'s micro version and release level (`final`, `candidate`, ...).
  int micro = 0;
  std::string release_level;
  /// `sys.abiflags` (empty where the interpreter has none).
  std::string abiflags;
  /// `sys.executable`, and the file it resolves to (`os.path.realpath`): what a pyenv-style shim
  /// or a virtual environment's link really runs.
  std::filesystem::path sys_executable;
  std::filesystem::path real_executable;

  [[nodiscard]] bool is_virtualenv() const { return prefix != base_prefix; }
};

/// The interpreter to use: `explicit_path` if given, else `$VIRTUAL_ENV/bin/python`, else
/// `python3` on PATH. `std::nullopt` when none is found.
[[nodiscard]] std::optional<std::filesystem::path> find_interpreter(
    const std::optional<std::filesystem::path>& explicit_path = {});

/// Runs the interpreter once (with this process's environment, killed after `timeout`) and reads
/// its description. Errors name the interpreter. With `module_dir`, the query is imported from a
/// file there (written when missing or different), so Python keeps its bytecode beside it for the
/// next query; where that directory cannot be written, the query runs as `-c` text.
[[nodiscard]] Result<Interpreter> query_interpreter(const std::filesystem::path& executable,
                                                    std::chrono::milliseconds timeout = std::chrono::seconds(30),
                                                    const std::optional<std::filesystem::path>& module_dir = {});

/// A query of an interpreter, started by `start_query` and answered by `finish_query`: the
/// interpreter runs while the caller works (the providers detect meanwhile).
struct PendingQuery {
  std::filesystem::path executable;
  std::chrono::milliseconds timeout{0};
  RunningProcess process;
};

/// Starts what `query_interpreter` runs. Errors: the executable is not there, or cannot be started.
[[nodiscard]] Result<PendingQuery> start_query(const std::filesystem::path& executable, std::chrono::milliseconds timeout,
                                               const std::optional<std::filesystem::path>& module_dir = {});

/// The description a started query gives (errors as `query_interpreter`'s). Once per query.
[[nodiscard]] Result<Interpreter> finish_query(PendingQuery& pending);

/// `query_interpreter` through a cache under `cache_dir / "interpreters"` (nullopt: no cache):
/// entries are named by everything the description depends on (the file the executable resolves
/// to: identity, size, mtime; the kernel release; its absolute path and link, or in a virtual
/// environment its path there and the environment's `pyvenv.cfg`), so a changed interpreter is
/// queried again, and every virtual environment made from one base interpreter shares one entry.
/// A warm answer costs a few file reads (no process). An entry written before vwheel recorded
/// `real_executable` (and the fields beside it) is queried again and replaced. The query's module
/// (see `query_interpreter`) lives in `cache_dir / "interpreters"` too.
[[nodiscard]] Result<Interpreter> query_interpreter_cached(const std::filesystem::path& executable,
                                                           const std::optional<std::filesystem::path>& cache_dir);

/// The description `query_interpreter_cached` keeps for `executable` under `cache_dir`, if there is
/// a current one (no process).
[[nodiscard]] std::optional<Interpreter> cached_interpreter(const std::filesystem::path& executable,
                                                            const std::filesystem::path& cache_dir);

/// Keeps `interpreter` (as queried for `executable`) where `cached_interpreter` finds it; nothing
/// when it cannot be shared (a virtual environment's prefix other than the one found) or written.
void remember_interpreter(const std::filesystem::path& executable, const std::filesystem::path& cache_dir,
                          const Interpreter& interpreter);

/// An interpreter's description as cached: the JSON `parse_interpreter_report` reads.
[[nodiscard]] std::string interpreter_report_json(const Interpreter& interpreter);

/// Parses the JSON the query script prints (exposed for tests). `micro`, `releaselevel`,
/// `executable` and `real_executable` may be absent (an older cache entry): their fields stay empty.
[[nodiscard]] Result<Interpreter> parse_interpreter_report(const std::filesystem::path& executable,
                                                           std::string_view json_text);

}  // namespace vwheel::python
