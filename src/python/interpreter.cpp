#include "vwheel/python/interpreter.hpp"

#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/process.hpp"

namespace vwheel::python {
namespace {

// Standard library only; runs with -I -S so no site-packages (and no package code) is imported.
// Without `site`, a virtual environment's `pyvenv.cfg` is not applied: do what `site` would do to
// sys.prefix (and nothing else: no .pth files) before sysconfig reads it.
// Neither `platform` nor `json` is imported where CPython or PyPy runs on glibc: both import `re`,
// and the script took 51 ms against 24 ms for Python's start (3.11, this project's VM); without
// them it takes 35 ms. What `platform` would say comes from os.uname(), sys.version and confstr,
// as `platform` itself reads them there; elsewhere `platform` is asked. The JSON is written by
// hand: strings as ASCII, with \u escapes (surrogate pairs above U+FFFF).
constexpr const char* kQueryScript = R"PY(
import os, sys
_bin = os.path.dirname(os.path.abspath(sys.executable))
for _dir in (_bin, os.path.dirname(_bin)):
    if os.path.isfile(os.path.join(_dir, "pyvenv.cfg")):
        sys.prefix = sys.exec_prefix = _dir
        break
import sysconfig
def ver(v):
    s = "%d.%d.%d" % (v.major, v.minor, v.micro)
    if v.releaselevel != "final":
        s += v.releaselevel[0] + str(v.serial)
    return s
_impl = {"cpython": "CPython", "pypy": "PyPy"}.get(sys.implementation.name)
try:
    _libc = os.confstr("CS_GNU_LIBC_VERSION").split(maxsplit=1)
except (AttributeError, ValueError, OSError):
    _libc = []
if _impl is not None and hasattr(os, "uname") and len(_libc) == 2:
    # What platform would say, without importing it (and `re`, which it imports: 10 ms).
    _u = os.uname()
    _full = sys.version.split()[0]
    if _full.count(".") == 1:
        _full += ".0"
    _machine, _release, _system, _version = _u.machine, _u.release, _u.sysname, _u.version
else:
    import platform
    _impl = platform.python_implementation()
    _full = platform.python_version()
    _machine, _release, _system, _version = platform.machine(), platform.release(), platform.system(), platform.version()
    _libc = list(platform.libc_ver())
def q(s):
    out = []
    for c in s:
        o = ord(c)
        if 0x20 <= o < 0x7f and c != '"' and c != "\\":
            out.append(c)
        elif o > 0xFFFF:
            o -= 0x10000
            out.append("\\u%04x\\u%04x" % (0xD800 + (o >> 10), 0xDC00 + (o & 0x3FF)))
        else:
            out.append("\\u%04x" % o)
    return '"' + "".join(out) + '"'
def enc(x):
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, str):
        return q(x)
    if isinstance(x, dict):
        return "{" + ",".join(q(k) + ":" + enc(v) for k, v in x.items()) + "}"
    return "[" + ",".join(enc(v) for v in x) + "]"
env = {
    "implementation_name": sys.implementation.name,
    "implementation_version": ver(sys.implementation.version),
    "os_name": os.name,
    "platform_machine": _machine,
    "platform_release": _release,
    "platform_system": _system,
    "platform_version": _version,
    "python_full_version": _full,
    "platform_python_implementation": _impl,
    "python_version": ".".join(_full.split(".")[:2]),
    "sys_platform": sys.platform,
}
print(enc({
    "environment": env,
    "version": [sys.version_info[0], sys.version_info[1]],
    "micro": sys.version_info[2],
    "releaselevel": sys.version_info[3],
    "executable": sys.executable,
    "real_executable": os.path.realpath(sys.executable),
    "implementation": sys.implementation.name,
    "abiflags": getattr(sys, "abiflags", ""),
    "gil_disabled": bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
    "platform": sysconfig.get_platform(),
    "libc": [_libc[0], _libc[1]] if len(_libc) == 2 else ["", ""],
    "macos": __import__("platform").mac_ver()[0] if sys.platform == "darwin" else "",
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

// The query as a module in `dir`, named by its text's hash, so that Python writes its bytecode
// to `dir/__pycache__` once and loads it from then on: compiling the 3 KB script as `-c` text costs
// 0.7 ms of every cold query (7.5 against 8.2 ms, python3.11 -I -S, this project's VM), about
// what separated a cold `analyze-platform --json --no-cache` from the 1.3x `python3 -c pass`
// goal. Bytecode is checked against the source's mtime and size, as every import's is: `dir`
// belongs to the user (0700), like the rest of the cache. nullopt where the file cannot be
// written: the caller runs the text instead.
std::optional<std::string> query_module(const std::filesystem::path& dir) {
  const std::string name = "vwheel_query_" + sha256_hex(kQueryScript).substr(0, 16);
  const auto file = dir / (name + ".py");
  if (const auto text = read_file(file); text && *text == kQueryScript) return name;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return std::nullopt;
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all, ec);
  if (!write_file_atomic(file, kQueryScript, Durability::none)) return std::nullopt;
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
    out.abiflags = root.at("abiflags").get<std::string>();
    const std::string& flags = out.abiflags;
    out.micro = root.value("micro", 0);
    out.release_level = root.value("releaselevel", std::string());
    out.sys_executable = root.value("executable", std::string());
    out.real_executable = root.value("real_executable", std::string());
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
    // The running macOS, for the macosx_* tags (sysconfig's platform names the build's target).
    if (const auto macos = root.value("macos", std::string()); !macos.empty()) info.macos = parse_major_minor(macos);
  } catch (const json::exception& e) {
    return fail(fmt::format("{}: unexpected interpreter description: {}", where, e.what()));
  }
  out.tags = tags::supported_tags(out.tag_info);
  return out;
}

Result<PendingQuery> start_query(const std::filesystem::path& executable, std::chrono::milliseconds timeout,
                                 const std::optional<std::filesystem::path>& module_dir) {
  const char* path_env = std::getenv("PATH");
  auto resolved = find_executable(executable.string(), path_env != nullptr ? path_env : "/usr/bin:/bin");
  if (!resolved) return fail(fmt::format("{}: no such interpreter (not an executable file)", executable.string()));
  ProcessRequest request;
  request.argv = {resolved->string(), "-I", "-S", "-c", kQueryScript};
  if (module_dir) {
    if (const auto name = query_module(*module_dir)) {
      // Appended, not prepended: the standard library is found first, whatever else lies there.
      request.argv = {resolved->string(), "-I",        "-S", "-c",
                      fmt::format("import sys;sys.path.append(sys.argv[1]);import {}", *name),
                      module_dir->string()};
    }
  }
  request.env = current_environment();
  request.timeout = timeout;
  auto started = start_process(request);
  if (!started) return fail(started.error().with_context(executable.string()));
  return PendingQuery{executable, timeout, std::move(*started)};
}

Result<Interpreter> finish_query(PendingQuery& pending) {
  const auto run = pending.process.finish();
  const auto& executable = pending.executable;
  if (run.timed_out) {
    return fail(
        fmt::format("{}: the interpreter did not answer within {} ms", executable.string(), pending.timeout.count()));
  }
  if (run.exit_code != 0) {
    return fail(fmt::format("{}: the interpreter failed (exit {}): {}", executable.string(), run.exit_code,
                            last_line(run.err)));
  }
  return parse_interpreter_report(executable, run.out);
}

Result<Interpreter> query_interpreter(const std::filesystem::path& executable, std::chrono::milliseconds timeout,
                                      const std::optional<std::filesystem::path>& module_dir) {
  auto pending = start_query(executable, timeout, module_dir);
  if (!pending) return fail(pending.error());
  return finish_query(*pending);
}

}  // namespace vwheel::python
