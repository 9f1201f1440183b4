#include "vwheel/python/interpreter.hpp"

#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vwheel/core/process.hpp"

namespace vwheel::python {
namespace {

// Standard library only; runs with -I -S so no site-packages (and no package code) is imported.
// Without `site`, a virtual environment's `pyvenv.cfg` is not applied: do what `site` would do to
// sys.prefix (and nothing else: no .pth files) before sysconfig reads it.
constexpr const char* kQueryScript = R"PY(
import os, sys
_bin = os.path.dirname(os.path.abspath(sys.executable))
for _dir in (_bin, os.path.dirname(_bin)):
    if os.path.isfile(os.path.join(_dir, "pyvenv.cfg")):
        sys.prefix = sys.exec_prefix = _dir
        break
import json, platform, sysconfig
def ver(v):
    s = "%d.%d.%d" % (v.major, v.minor, v.micro)
    if v.releaselevel != "final":
        s += v.releaselevel[0] + str(v.serial)
    return s
env = {
    "implementation_name": sys.implementation.name,
    "implementation_version": ver(sys.implementation.version),
    "os_name": os.name,
    "platform_machine": platform.machine(),
    "platform_release": platform.release(),
    "platform_system": platform.system(),
    "platform_version": platform.version(),
    "python_full_version": platform.python_version(),
    "platform_python_implementation": platform.python_implementation(),
    "python_version": ".".join(platform.python_version_tuple()[:2]),
    "sys_platform": sys.platform,
}
libc = platform.libc_ver()
print(json.dumps({
    "environment": env,
    "version": [sys.version_info[0], sys.version_info[1]],
    "implementation": sys.implementation.name,
    "abiflags": getattr(sys, "abiflags", ""),
    "gil_disabled": bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
    "platform": sysconfig.get_platform(),
    "libc": [libc[0], libc[1]],
    "paths": sysconfig.get_paths(),
    "prefix": sys.prefix,
    "base_prefix": sys.base_prefix,
}))
)PY";

std::optional<std::pair<int, int>> parse_major_minor(const std::string& text) {
  int major = 0;
  int minor = 0;
  if (std::sscanf(text.c_str(), "%d.%d", &major, &minor) != 2) return std::nullopt;
  return std::make_pair(major, minor);
}

std::string implementation_prefix(const std::string& name) {
  if (name == "cpython") return "cp";
  if (name == "pypy") return "pp";
  if (name == "ironpython") return "ip";
  if (name == "jython") return "jy";
  return name;
}

}  // namespace

std::optional<std::filesystem::path> find_interpreter(const std::optional<std::filesystem::path>& explicit_path) {
  if (explicit_path) return explicit_path;
  const char* path_env = std::getenv("PATH");
  const std::string_view path = path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin";
  if (const char* venv = std::getenv("VIRTUAL_ENV"); venv != nullptr && *venv != '\0') {
    auto candidate = std::filesystem::path(venv) / "bin" / "python";
    if (auto found = find_executable(candidate.string(), path)) return candidate;
  }
  return find_executable("python3", path);
}

Result<Interpreter> parse_interpreter_report(const std::filesystem::path& executable, std::string_view json_text) {
  using nlohmann::json;
  const auto where = executable.string();
  json root = json::parse(json_text, nullptr, false);
  if (root.is_discarded() || !root.is_object()) {
    return fail(fmt::format("{}: the interpreter's description is not valid JSON", where));
  }
  Interpreter out;
  out.executable = executable;
  try {
    for (const auto& [k, v] : root.at("environment").items()) out.environment.emplace(k, v.get<std::string>());
    for (const auto& [k, v] : root.at("paths").items()) out.paths.emplace(k, v.get<std::string>());
    out.prefix = root.at("prefix").get<std::string>();
    out.base_prefix = root.at("base_prefix").get<std::string>();
    auto& info = out.tag_info;
    info.implementation = implementation_prefix(root.at("implementation").get<std::string>());
    info.major = root.at("version").at(0).get<int>();
    info.minor = root.at("version").at(1).get<int>();
    info.free_threaded = root.at("gil_disabled").get<bool>();
    std::string flags = root.at("abiflags").get<std::string>();
    if (info.implementation == "cp") {
      // PEP 3149 flags; `m` was dropped in 3.8 and never appears in tags from then on.
      std::string abi = fmt::format("cp{}{}", info.major, info.minor);
      if (flags.find('t') != std::string::npos || info.free_threaded) abi += 't';
      if (flags.find('d') != std::string::npos) abi += 'd';
      info.abis.push_back(abi);
    } else {
      info.abis.push_back("none");
    }
    std::string platform = root.at("platform").get<std::string>();
    for (auto& c : platform) {
      if (c == '-' || c == '.') c = '_';
    }
    info.platform = platform;
    const auto& libc = root.at("libc");
    if (libc.at(0).get<std::string>() == "glibc") info.glibc = parse_major_minor(libc.at(1).get<std::string>());
  } catch (const json::exception& e) {
    return fail(fmt::format("{}: unexpected interpreter description: {}", where, e.what()));
  }
  out.tags = tags::supported_tags(out.tag_info);
  return out;
}

Result<Interpreter> query_interpreter(const std::filesystem::path& executable) {
  const char* path_env = std::getenv("PATH");
  auto resolved = find_executable(executable.string(), path_env != nullptr ? path_env : "/usr/bin:/bin");
  if (!resolved) return fail(fmt::format("{}: no such interpreter (not an executable file)", executable.string()));
  ProcessRequest request;
  request.argv = {resolved->string(), "-I", "-S", "-c", kQueryScript};
  request.env = current_environment();
  request.timeout = std::chrono::seconds(30);
  auto run = run_process(request);
  if (!run) return fail(run.error().with_context(executable.string()));
  if (run->exit_code != 0) {
    return fail(fmt::format("{}: the interpreter failed (exit {}): {}", executable.string(), run->exit_code,
                            last_line(run->err)));
  }
  return parse_interpreter_report(executable, run->out);
}

}  // namespace vwheel::python
