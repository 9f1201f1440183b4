#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "detail.hpp"
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
  env.lock_dir = env.scheme.purelib;
  env.prefix = interpreter.prefix.lexically_normal();
  return env;
}

std::string interpreter_report_json(const python::Interpreter& interpreter) {
  nlohmann::json j;
  j["environment"] = nlohmann::json::object();
  for (const auto& [k, v] : interpreter.environment) j["environment"][k] = v;
  j["paths"] = nlohmann::json::object();
  for (const auto& [k, v] : interpreter.paths) j["paths"][k] = v.string();
  j["prefix"] = interpreter.prefix.string();
  j["base_prefix"] = interpreter.base_prefix.string();
  const auto& info = interpreter.tag_info;
  j["implementation"] = info.implementation;  // `cp` reads back as `cp`
  j["version"] = {info.major, info.minor};
  j["gil_disabled"] = info.free_threaded;
  // The ABI flags are what follows `cpXY` in the interpreter's own ABI tag.
  std::string flags;
  const auto base = fmt::format("cp{}{}", info.major, info.minor);
  if (info.implementation == "cp" && !info.abis.empty() && info.abis.front().starts_with(base)) {
    flags = info.abis.front().substr(base.size());
  }
  j["abiflags"] = flags;
  j["platform"] = info.platform;
  if (info.glibc) {
    j["libc"] = {"glibc", fmt::format("{}.{}", info.glibc->first, info.glibc->second)};
  } else {
    j["libc"] = {"", ""};
  }
  return j.dump();
}

namespace {

/// `dev:ino:size:mtime` of a path (following links or not), or `-` when it does not exist.
std::string stat_text(const fs::path& path, bool follow) {
  struct stat st {};
  if ((follow ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st)) != 0) return "-";
  return fmt::format("{}:{}:{}:{}.{}", st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

constexpr std::string_view kVenvPlaceholder = "\x01venv\x01";

/// Where an interpreter's description is cached.
struct CacheEntry {
  fs::path file;
  /// For an interpreter inside a virtual environment: the environment's directory, written as
  /// `kVenvPlaceholder` in the cached description, so that every virtual environment made from
  /// one base interpreter with the same `pyvenv.cfg` shares one entry (a fresh venv needs no query).
  std::optional<fs::path> venv;
};

/// `pyvenv.cfg` without its `command` line (which names the environment's own path).
std::string venv_config_key(const fs::path& cfg) {
  auto text = read_file(cfg);
  if (!text) return "-";
  std::string out;
  std::size_t pos = 0;
  while (pos < text->size()) {
    auto end = text->find('\n', pos);
    if (end == std::string::npos) end = text->size();
    auto line = std::string_view(*text).substr(pos, end - pos);
    pos = end + 1;
    if (line.starts_with("command")) continue;
    out += line;
    out += '\n';
  }
  return out;
}

/// The cache entry for an interpreter, named by everything its description depends on: the file
/// it resolves to (identity, size, mtime), the kernel release and version (marker variables),
/// and either its absolute path and its link's identity, or, in a virtual environment (where
/// the query applies `pyvenv.cfg` next to the executable or one level up, as `site` does), its
/// path inside the environment and the environment's configuration.
std::optional<CacheEntry> interpreter_cache_entry(const fs::path& dir, const fs::path& executable) {
  fs::path exe = executable;
  if (!exe.has_parent_path()) {
    const char* path_env = std::getenv("PATH");
    auto found = find_executable(exe.string(), path_env != nullptr ? path_env : "/usr/bin:/bin");
    if (!found) return std::nullopt;
    exe = *found;
  }
  std::error_code ec;
  exe = fs::absolute(exe, ec).lexically_normal();
  if (ec) return std::nullopt;
  const auto resolved = stat_text(exe, true);
  if (resolved == "-") return std::nullopt;
  struct utsname u {};
  ::uname(&u);
  const auto bin = exe.parent_path();
  std::optional<fs::path> venv;
  for (const auto& d : {bin, bin.parent_path()}) {
    if (fs::is_regular_file(d / "pyvenv.cfg", ec)) {
      venv = d;
      break;
    }
  }
  std::string key;
  if (venv) {
    key = fmt::format("vwheel-interpreter-venv-1\n{}\n{}\n{}\n{}\n{}", exe.lexically_relative(*venv).string(), resolved,
                      venv_config_key(*venv / "pyvenv.cfg"), u.release, u.version);
  } else {
    key = fmt::format("vwheel-interpreter-1\n{}\n{}\n{}\n{}\n{}", exe.string(), stat_text(exe, false), resolved, u.release,
                      u.version);
  }
  return CacheEntry{dir / "interpreters" / (sha256_hex(key) + ".json"), venv};
}

/// Replaces the leading `from` of every path in the description by `to`.
void rebase_paths(python::Interpreter& interp, const std::string& from, const std::string& to) {
  auto rebase = [&](fs::path& p) {
    const auto s = p.string();
    if (s == from || (s.starts_with(from) && s.size() > from.size() && s[from.size()] == '/')) p = to + s.substr(from.size());
  };
  for (auto& [k, v] : interp.paths) rebase(v);
  rebase(interp.prefix);
  rebase(interp.base_prefix);
}

}  // namespace

Result<OpenedEnvironment> open_environment(const std::optional<fs::path>& python,
                                           const std::optional<fs::path>& interpreter_cache) {
  auto exe = python::find_interpreter(python);
  if (!exe) return fail("no Python interpreter found (give --python PATH, activate a virtual environment, or put python3 on PATH)");
  std::optional<CacheEntry> cache;
  if (interpreter_cache) cache = interpreter_cache_entry(*interpreter_cache, *exe);
  std::optional<python::Interpreter> interp;
  if (cache) {
    if (auto text = read_file(cache->file)) {
      if (auto cached = python::parse_interpreter_report(*exe, *text)) {
        if (cache->venv) rebase_paths(*cached, std::string(kVenvPlaceholder), cache->venv->string());
        interp = std::move(*cached);
      }
    }
  }
  if (!interp) {
    auto queried = python::query_interpreter(*exe);
    if (!queried) return fail(queried.error());
    interp = std::move(*queried);
    // Only a description whose prefix is the environment found here can be shared.
    if (cache && (!cache->venv || interp->prefix.lexically_normal() == cache->venv->lexically_normal())) {
      auto stored = *interp;
      if (cache->venv) rebase_paths(stored, cache->venv->string(), std::string(kVenvPlaceholder));
      std::error_code ec;
      fs::create_directories(cache->file.parent_path(), ec);
      if (!ec) (void)write_file_atomic(cache->file, interpreter_report_json(stored), Durability::none);  // a torn entry is re-queried
    }
  }
  auto env = environment_of(*interp);
  if (!env) return fail(env.error());
  return OpenedEnvironment{std::move(*interp), std::move(*env)};
}

Result<OpenedEnvironment> open_environment(const std::optional<fs::path>& python) {
  return open_environment(python, default_cache_dir());
}

namespace {

Result<EnvironmentLock> lock_impl(const fs::path& dir, bool wait, auto make) {
  const auto file = dir / ".vwheel.lock";
  const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return fail(fmt::format("{}: cannot create the lock file: {}", file.string(), std::strerror(errno)));
  while (::flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0) {
    if (errno == EINTR) continue;
    const int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK) return fail(fmt::format("{}: another vwheel process holds the lock", file.string()));
    return fail(fmt::format("{}: cannot lock: {}", file.string(), std::strerror(err)));
  }
  return make(fd);
}

}  // namespace

Result<EnvironmentLock> EnvironmentLock::acquire(const fs::path& dir) {
  return lock_impl(dir, true, [](int fd) { return EnvironmentLock(fd); });
}

Result<EnvironmentLock> EnvironmentLock::acquire(const fs::path& dir, const std::function<void()>& on_wait) {
  const auto file = dir / ".vwheel.lock";
  const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return fail(fmt::format("{}: cannot create the lock file: {}", file.string(), std::strerror(errno)));
  bool told = false;
  while (::flock(fd, LOCK_EX | (told ? 0 : LOCK_NB)) != 0) {
    if (errno == EINTR) continue;
    if (errno == EWOULDBLOCK && !told) {
      told = true;
      if (on_wait) on_wait();
      continue;
    }
    const int err = errno;
    ::close(fd);
    return fail(fmt::format("{}: cannot lock: {}", file.string(), std::strerror(err)));
  }
  return EnvironmentLock(fd);
}

void print_lock_wait(const Environment& env) {
  std::fputs(fmt::format("waiting for the lock on {} held by another process\n", env.prefix.string()).c_str(), stderr);
  std::fflush(stderr);
}

Result<EnvironmentLock> EnvironmentLock::try_acquire(const fs::path& dir) {
  return lock_impl(dir, false, [](int fd) { return EnvironmentLock(fd); });
}

EnvironmentLock::EnvironmentLock(EnvironmentLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

EnvironmentLock& EnvironmentLock::operator=(EnvironmentLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

EnvironmentLock::~EnvironmentLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace vwheel::install
