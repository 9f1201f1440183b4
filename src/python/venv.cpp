#include "vwheel/python/venv.hpp"

#include <fmt/format.h>

#include "vwheel/core/process.hpp"

namespace vwheel::python {

Result<void> create_venv(const std::filesystem::path& python, const std::filesystem::path& dir,
                         const VenvOptions& options) {
  ProcessRequest request;
  request.argv = {python.string()};
  request.argv.insert(request.argv.end(), options.python_flags.begin(), options.python_flags.end());
  request.argv.emplace_back("-m");
  request.argv.emplace_back("venv");
  request.argv.insert(request.argv.end(), options.venv_args.begin(), options.venv_args.end());
  request.argv.push_back(dir.string());
  request.env = options.env;
  request.cwd = options.cwd;
  request.timeout = options.timeout;
  request.kill_on_overflow = false;  // what it prints is only read for an error's last line
  auto run = run_process(request);
  if (!run) return fail(with_kind(run.error(), ErrorKind::environment));
  if (!run->timed_out && run->signal == 0 && run->exit_code == 0) return {};
  const std::string where = fmt::format("{} -m venv {}", python.string(), dir.string());
  std::string line = last_line(run->err);
  if (line.empty()) line = last_line(run->out);
  if (run->timed_out) return fail(fmt::format("{}: timed out after {} ms", where, options.timeout.count()));
  if (run->signal != 0) {
    return fail(fmt::format("{}: killed by signal {}{}{}", where, run->signal, line.empty() ? "" : ": ", line));
  }
  return fail(fmt::format("{}: failed (exit {}): {}", where, run->exit_code, line));
}

}  // namespace vwheel::python
