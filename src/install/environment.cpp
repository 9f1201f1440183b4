#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>


#include "vwheel/core/file_lock.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/process.hpp"
#include "vwheel/install/install.hpp"

namespace vwheel::install {
namespace fs = std::filesystem;

Result<Environment> environment_of(const python::Interpreter& interpreter) {
  Environment env;
  std::error_code ec;
  env.python = fs::absolute(interpreter.executable, ec).lexically_normal();
  if (auto it = interpreter.environment.find("python_version"); it != interpreter.environment.end()) {
    env.python_version = it->second;
  }
  auto path_of = [&](const char* key) -> Result<fs::path> {
    auto it = interpreter.paths.find(key);
    if (it == interpreter.paths.end() || it->second.empty()) {
      return fail(fmt::format("{}: the interpreter reports no `{}` install path", interpreter.executable.string(), key));
    }
    return it->second.lexically_normal();
  };
  auto purelib = path_of("purelib");
  if (!purelib) return fail(purelib.error());
  env.scheme.purelib = *purelib;
  env.scheme.platlib = path_of("platlib").value_or(*purelib);
  auto scripts = path_of("scripts");
  if (!scripts) return fail(scripts.error());
  env.scheme.scripts = *scripts;
  env.scheme.data = path_of("data").value_or(interpreter.prefix);
  const auto& v = interpreter.tag_info;
  if (interpreter.is_virtualenv() || interpreter.paths.find("include") == interpreter.paths.end()) {
    env.scheme.headers = interpreter.prefix / "include" / "site" / fmt::format("python{}.{}", v.major, v.minor);
  } else {
    env.scheme.headers = interpreter.paths.at("include");
  }
  env.prefix = interpreter.prefix.lexically_normal();
  // The lock and the journal live beside `pyvenv.cfg` in a virtual environment, as other tools'
  // do: never in site-packages, where no RECORD lists them. Elsewhere (a system prefix vwheel
  // may not write to the root of) they stay in purelib.
  env.lock_dir = fs::exists(env.prefix / "pyvenv.cfg", ec) ? env.prefix : env.scheme.purelib;
  return env;
}

Result<OpenedEnvironment> open_environment(const std::optional<fs::path>& python,
                                           const std::optional<fs::path>& interpreter_cache) {
  auto exe = python::find_interpreter(python);
  if (!exe) return fail("no Python interpreter found (give --python PATH, activate a virtual environment, or put python3 on PATH)");
  auto interp = python::query_interpreter_cached(*exe, interpreter_cache);
  if (!interp) return fail(interp.error());
  auto env = environment_of(*interp);
  if (!env) return fail(env.error());
  return OpenedEnvironment{std::move(*interp), std::move(*env)};
}

Result<OpenedEnvironment> open_environment(const std::optional<fs::path>& python) {
  return open_environment(python, default_cache_dir());
}

Result<EnvironmentLock> EnvironmentLock::acquire(const fs::path& dir) { return acquire(dir, {}); }

Result<EnvironmentLock> EnvironmentLock::acquire(const fs::path& dir, const std::function<void()>& on_wait) {
  auto lock = lock_file(dir / ".vwheel.lock", LOCK_EX, true, on_wait);
  if (!lock) return fail(lock.error());
  return EnvironmentLock(std::move(*lock));
}

void print_lock_wait(const Environment& env) {
  std::fputs(fmt::format("waiting for the lock on {} held by another process\n", env.prefix.string()).c_str(), stderr);
  std::fflush(stderr);
}

Result<EnvironmentLock> EnvironmentLock::try_acquire(const fs::path& dir) {
  auto lock = lock_file(dir / ".vwheel.lock", LOCK_EX, false);
  if (!lock) return fail(lock.error());
  return EnvironmentLock(std::move(*lock));
}

}  // namespace vwheel::install
