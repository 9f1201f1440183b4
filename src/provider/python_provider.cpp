#include "vwheel/provider/python.hpp"

#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <map>
#include <mutex>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "provider/python_detail.hpp"
#include "vwheel/core/file_lock.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/process.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/markers/requirement.hpp"
#include "vwheel/python/interpreter.hpp"
#include "vwheel/python/venv.hpp"

namespace vwheel::provider {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

namespace {

using vwheel::last_line;
using vwheel::ProcessRequest;
using vwheel::ProcessResult;
using vwheel::run_process;

constexpr std::string_view kKeyFile = "vwheel-venv-key";

bool is_identifier(std::string_view s) {
  if (s.empty() || (s.front() >= '0' && s.front() <= '9')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

bool is_dotted_identifier(std::string_view s) {
  for (;;) {
    const std::size_t dot = s.find('.');
    if (!is_identifier(s.substr(0, dot))) return false;
    if (dot == std::string_view::npos) return true;
    s.remove_prefix(dot + 1);
  }
}

/// PEP 503 normalization with `-` replaced by `_` (the name as a module).
std::string module_name_of(std::string_view project) {
  std::string out;
  bool in_separator = false;
  for (const char ch : project) {
    if (ch == '-' || ch == '_' || ch == '.') {
      if (!in_separator) out += '_';
      in_separator = true;
      continue;
    }
    in_separator = false;
    out += ascii_lower(ch);
  }
  return out;
}

std::string env_or(const char* name, std::string fallback = {}) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::move(fallback);
}

/// PATH, HOME and LANG from vwheel's environment, then `names` when set, then `extra`.
std::vector<std::string> child_env(std::initializer_list<const char*> names,
                                   const std::map<std::string, std::string, std::less<>>* extra = nullptr) {
  std::map<std::string, std::string, std::less<>> vars;
  vars["PATH"] = env_or("PATH", "/usr/local/bin:/usr/bin:/bin");
  for (const char* name : {"HOME", "LANG"}) {
    if (const char* v = std::getenv(name); v != nullptr) vars[name] = v;
  }
  for (const char* name : names) {
    if (const char* v = std::getenv(name); v != nullptr) vars[name] = v;
  }
  if (extra != nullptr) {
    for (const auto& [k, v] : *extra) vars[k] = v;
  }
  std::vector<std::string> out;
  out.reserve(vars.size());
  for (const auto& [k, v] : vars) out.push_back(k + "=" + v);
  return out;
}

struct Interpreter {
  fs::path executable;   ///< what creates the environments (its `sys.executable`)
  std::string identity;  ///< implementation, version and real path
};

/// Asks the configured interpreter who it is (it runs with vwheel's environment, so that e.g.
/// pyenv's shims select the same interpreter as in the user's shell). Not through the interpreter
/// cache: a shim's answer changes with the selected version while the shim stays the same file.
Result<Interpreter> probe_interpreter(const PythonProviderOptions& options) {
  const std::string path_env = env_or("PATH");
  const auto found = vwheel::find_executable(options.python, path_env);
  if (!found) return fail(fmt::format("interpreter `{}` not found", options.python));
  // Asked once per process: starting an interpreter (through a pyenv shim, say) is not free.
  static std::mutex memo_mutex;
  static std::map<std::string, Interpreter, std::less<>> memo;
  const std::string memo_key = found->string() + '\n' + path_env;
  {
    const std::lock_guard lock(memo_mutex);
    if (const auto it = memo.find(memo_key); it != memo.end()) return it->second;
  }
  auto queried = python::query_interpreter(*found, std::min(options.install_timeout, std::chrono::milliseconds(60000)));
  if (!queried) return fail(queried.error());
  if (queried->sys_executable.empty() || queried->real_executable.empty()) {
    return fail(fmt::format("interpreter {} did not report its path", found->string()));
  }
  Interpreter interpreter{queried->sys_executable, python_detail::interpreter_identity(*queried)};
  const std::lock_guard lock(memo_mutex);
  memo.emplace(memo_key, interpreter);
  return interpreter;
}

Result<void> prepare_cache_dir(const fs::path& dir) {
  if (dir.empty()) return fail(std::string("no cache folder for virtual environments"));
  std::error_code ec;
  const bool created = fs::create_directories(dir, ec);
  if (ec) return fail(fmt::format("cannot create {}: {}", dir.string(), ec.message()));
  if (created) ::chmod(dir.c_str(), 0700);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return fail(fmt::format("{} is not a folder", dir.string()));
  }
  // Whoever can write here can make vwheel run their code.
  if (st.st_uid != ::geteuid()) return fail(fmt::format("{} belongs to another user", dir.string()));
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return fail(fmt::format("{} is writable by other users", dir.string()));
  }
  return {};
}

/// True when `venv` is a complete environment made for `key`.
bool venv_ready(const fs::path& venv, std::string_view key) {
  const auto stored = read_file(venv / kKeyFile);
  std::error_code ec;
  return stored && *stored == key && fs::exists(venv / "bin" / "python", ec);
}

std::string failure_of(const ProcessResult& r, std::chrono::milliseconds limit) {
  if (r.timed_out) return fmt::format("timed out after {} ms", limit.count());
  std::string line = last_line(r.err);
  if (line.empty()) line = last_line(r.out);
  if (r.signal != 0) return fmt::format("killed by signal {}{}{}", r.signal, line.empty() ? "" : ": ", line);
  if (line.empty()) return fmt::format("exited with status {}", r.exit_code);
  return line;
}

/// Creates (or finds) the environment for `requirements` and returns its folder.
Result<fs::path> ensure_venv(const PythonProviderOptions& options, const std::vector<std::string>& requirements) {
  if (options.cache_dir.empty()) return fail(std::string("no cache folder for virtual environments"));
  std::error_code ec;
  // Absolute: the children run elsewhere.
  const fs::path cache_dir = fs::absolute(options.cache_dir, ec);
  if (ec) return fail(fmt::format("{}: {}", options.cache_dir.string(), ec.message()));
  auto interpreter = probe_interpreter(options);
  if (!interpreter) return fail(interpreter.error());
  const std::string key = python_detail::venv_key(interpreter->identity, requirements);
  const std::string name = python_detail::venv_dir_name(key);
  const fs::path venv = cache_dir / name;
  if (auto ok = prepare_cache_dir(cache_dir); !ok) return fail(ok.error());
  if (venv_ready(venv, key)) return venv;
  const auto deadline = Clock::now() + options.install_timeout;
  auto lock = lock_file_until(cache_dir / ("." + name + ".lock"), LOCK_EX, deadline);
  if (!lock) return fail(lock.error());
  if (venv_ready(venv, key)) return venv;  // made by another process while we waited

  // Under the lock, leftovers of this environment are from creations that were killed.
  for (const auto& entry : fs::directory_iterator(cache_dir, ec)) {
    const std::string file = entry.path().filename().string();
    if (file.rfind(".tmp-" + name + "-", 0) == 0) fs::remove_all(entry.path(), ec);
  }
  if (fs::exists(venv, ec)) {
    // Not ours (no or another key): move it out of the way rather than use it.
    const fs::path trash = cache_dir / fmt::format(".trash-{}-{}", name, unique_token());
    if (::rename(venv.c_str(), trash.c_str()) != 0) {
      return fail(
          fmt::format("{} is not a vwheel environment and cannot be moved: {}", venv.string(), std::strerror(errno)));
    }
    fs::remove_all(trash, ec);
  }

  auto tmp = TempDir::create(cache_dir, ".tmp-" + name + "-");
  if (!tmp) return fail(tmp.error());
  python::VenvOptions venv_options;
  venv_options.python_flags = {"-I"};
  venv_options.env = child_env({"TMPDIR"});
  venv_options.cwd = tmp->path();
  venv_options.timeout = options.install_timeout;
  if (auto created = python::create_venv(interpreter->executable, tmp->path(), venv_options); !created) {
    return fail(created.error().with_context("cannot create a virtual environment"));
  }

  ProcessRequest install;
  install.argv = {(tmp->path() / "bin" / "python").string()};
  for (const char* arg : {"-I", "-m", "pip", "install", "--disable-pip-version-check", "--no-input"}) {
    install.argv.emplace_back(arg);
  }
  install.argv.insert(install.argv.end(), options.pip_args.begin(), options.pip_args.end());
  install.argv.emplace_back("--");
  install.argv.insert(install.argv.end(), requirements.begin(), requirements.end());
  install.env = child_env({"TMPDIR",          "XDG_CACHE_HOME",      "XDG_CONFIG_HOME",
                           "PIP_INDEX_URL",   "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS",
                           "PIP_NO_INDEX",    "PIP_TRUSTED_HOST",    "PIP_CERT",
                           "PIP_CLIENT_CERT", "PIP_CONFIG_FILE",     "PIP_RETRIES",
                           "PIP_TIMEOUT",     "PIP_PROXY",           "PIP_NO_CACHE_DIR",
                           "http_proxy",      "https_proxy",         "no_proxy",
                           "all_proxy",       "HTTP_PROXY",          "HTTPS_PROXY",
                           "NO_PROXY",        "ALL_PROXY",           "SSL_CERT_FILE",
                           "SSL_CERT_DIR",    "REQUESTS_CA_BUNDLE"});
  // pip runs where vwheel runs, so that relative paths in pip_args (--find-links DIR) work.
  install.timeout = options.install_timeout;
  install.kill_on_overflow = false;
  auto installed = run_process(install);
  if (!installed) return fail(installed.error());
  if (installed->timed_out || installed->exit_code != 0) {
    return fail(fmt::format("pip install {} failed: {}", fmt::join(requirements, " "),
                            failure_of(*installed, options.install_timeout)));
  }

  if (auto written = write_file_atomic(tmp->path() / kKeyFile, key); !written) return fail(written.error());
  if (::rename(tmp->path().c_str(), venv.c_str()) != 0) {
    return fail(fmt::format("cannot move the new environment to {}: {}", venv.string(), std::strerror(errno)));
  }
  tmp->release();
  return venv;
}

Result<std::vector<std::string>> checked_requirements(const PythonProviderSpec& spec) {
  if (spec.requires_.empty()) return fail(std::string("no requirements to install"));
  std::vector<std::string> out;
  for (const auto& r : spec.requires_) {
    // pip must never read a requirement as an option.
    const std::string_view trimmed = ascii_trim(r, is_space_or_tab);
    if (trimmed.empty() || trimmed.front() == '-') return fail(fmt::format("invalid requirement `{}`", r));
    auto parsed = markers::Requirement::parse(r);
    if (!parsed) return fail(fmt::format("invalid requirement `{}`: {}", r, parsed.error().message));
    out.emplace_back(trimmed);
  }
  return out;
}

}  // namespace

PythonProviderSpec python_provider_spec(std::string ns, const variant::ProviderInfo& info) {
  return PythonProviderSpec{std::move(ns), info.requires_, info.plugin_api};
}

Result<std::string> resolve_plugin_api(const PythonProviderSpec& spec) {
  const auto error = [&](const std::string& what) {
    return fail(fmt::format("python provider `{}`: {}", spec.ns, what));
  };
  if (spec.plugin_api) {
    const std::string_view text = ascii_trim(*spec.plugin_api, is_space_or_tab);
    const std::size_t colon = text.find(':');
    const std::string_view module = ascii_trim(text.substr(0, colon), is_space_or_tab);
    const std::string_view attr =
        colon == std::string_view::npos ? std::string_view() : ascii_trim(text.substr(colon + 1), is_space_or_tab);
    if (!is_dotted_identifier(module) || (!attr.empty() && !is_dotted_identifier(attr))) {
      return error(fmt::format("invalid plugin-api `{}` (expected `module` or `module:attribute`)",
                               vwheel::last_line(*spec.plugin_api, 200)));
    }
    return attr.empty() ? std::string(module) : fmt::format("{}:{}", module, attr);
  }
  if (spec.requires_.empty()) return error("no plugin-api and no requirements to derive it from");
  auto requirement = markers::Requirement::parse(spec.requires_.front());
  if (!requirement) {
    return error(fmt::format("invalid requirement `{}`: {}", spec.requires_.front(), requirement.error().message));
  }
  std::string module = module_name_of(requirement->name);
  if (!is_identifier(module)) {
    return error(fmt::format("the requirement `{}` gives the module name `{}`, which cannot be imported",
                             spec.requires_.front(), module));
  }
  return module;
}

Result<std::vector<variant::FeatureConfig>> run_python_provider(const PythonProviderSpec& spec,
                                                                const PythonProviderOptions& options,
                                                                ProviderMethod method) {
  if (!variant::is_valid_namespace(spec.ns)) {
    return fail(fmt::format("python provider: invalid namespace `{}`", vwheel::last_line(spec.ns, 80)));
  }
  // The opt-in comes first: without it, nothing is created, installed, imported or run.
  if (options.allowed.find(spec.ns) == options.allowed.end()) {
    return fail(fmt::format(
        "python provider `{0}`: not allowed to run; namespace `{0}` has no native provider and its Python "
        "provider runs only when allowed (--allow-python-provider {0}, or allow_python_providers in the user "
        "configuration)",
        spec.ns));
  }
  const auto error = [&](const Error& e) { return fail(e.with_context(fmt::format("python provider `{}`", spec.ns))); };
  auto api = resolve_plugin_api(spec);
  if (!api) return fail(api.error());
  for (const auto& [name, value] : options.extra_env) {
    if (name.empty() || name.find('=') != std::string::npos || name.find('\0') != std::string::npos) {
      return fail(
          fmt::format("python provider `{}`: invalid environment variable name `{}`", spec.ns, last_line(name, 80)));
    }
  }
  auto requirements = checked_requirements(spec);
  if (!requirements) return error(requirements.error());
  auto venv = ensure_venv(options, *requirements);
  if (!venv) return error(venv.error());

  std::error_code ec;
  fs::path tmp_root = fs::temp_directory_path(ec);
  if (ec || tmp_root.empty()) tmp_root = "/tmp";
  auto run_dir = TempDir::create(tmp_root, "vwheel-provider-");
  if (!run_dir) return error(run_dir.error());
  const fs::path loader = run_dir->path() / "vwheel_loader.py";
  if (auto written = write_file_atomic(loader, python_detail::loader_script()); !written) {
    return error(written.error());
  }
  ProcessRequest request;
  request.argv = {(*venv / "bin" / "python").string(), "-I", "-B", loader.string(), *api,
                  std::string(method_name(method))};
  request.env = child_env({}, &options.extra_env);
  request.cwd = run_dir->path();
  request.timeout = options.timeout;
  request.max_stdout = options.max_output;
  request.kill_on_overflow = true;
  auto result = run_process(request);
  if (!result) return error(result.error());

  const std::string where = fmt::format("python provider `{}` ({})", spec.ns, *api);
  if (result->timed_out) {
    return fail(
        fmt::format("{}: {}() timed out after {} ms (killed)", where, method_name(method), options.timeout.count()));
  }
  if (result->overflowed) {
    return fail(
        fmt::format("{}: {}() wrote more than {} bytes (killed)", where, method_name(method), options.max_output));
  }
  if (result->signal != 0 || result->exit_code != 0) {
    // The loader's last line says what failed (loading, instantiating, or the method's exception).
    return fail(fmt::format("{}: {}", where, failure_of(*result, options.timeout)));
  }
  return python_detail::parse_answer(spec.ns, method, result->out);
}

Result<PluginAnswer> run_installed_plugin(const fs::path& python, const PythonProviderSpec& spec, ProviderMethod method,
                                          const fs::path& cwd, std::chrono::milliseconds timeout) {
  if (!variant::is_valid_namespace(spec.ns)) {
    return fail(fmt::format("python provider: invalid namespace `{}`", vwheel::last_line(spec.ns, 80)));
  }
  auto api = resolve_plugin_api(spec);
  if (!api) return fail(api.error());
  const auto error = [&](const Error& e) { return fail(e.with_context(fmt::format("python provider `{}`", spec.ns))); };
  const fs::path loader = cwd / "vwheel_loader.py";
  if (auto written = write_file_atomic(loader, python_detail::loader_script()); !written) return error(written.error());
  ProcessRequest request;
  request.argv = {python.string(), "-I", "-B", loader.string(), *api, std::string(method_name(method))};
  request.env = child_env({});
  request.cwd = cwd;
  request.timeout = timeout;
  request.max_stdout = std::size_t{1} << 20;
  request.kill_on_overflow = true;
  auto result = run_process(request);
  if (!result) return error(result.error());
  const std::string where = fmt::format("python provider `{}` ({})", spec.ns, *api);
  if (result->timed_out) {
    return fail(fmt::format("{}: {}() timed out after {} ms (killed)", where, method_name(method), timeout.count()));
  }
  if (result->overflowed) return fail(fmt::format("{}: {}() wrote more than 1 MiB (killed)", where, method_name(method)));
  if (result->signal != 0 || result->exit_code != 0) return fail(fmt::format("{}: {}", where, failure_of(*result, timeout)));
  auto configs = python_detail::parse_answer(spec.ns, method, result->out);
  if (!configs) return fail(configs.error());
  PluginAnswer answer;
  answer.configs = std::move(*configs);
  const json doc = json::parse(result->out, nullptr, false);
  if (const auto it = doc.find("all_properties_compatible"); it != doc.end() && it->is_boolean()) {
    answer.all_properties_compatible = it->get<bool>();
  }
  return answer;
}

}  // namespace vwheel::provider
