#include <sys/stat.h>
#include <sys/utsname.h>

#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vwheel/core/cache_layout.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/process.hpp"
#include "vwheel/python/interpreter.hpp"

namespace vwheel::python {
namespace fs = std::filesystem;

std::string interpreter_report_json(const Interpreter& interpreter) {
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
  j["abiflags"] = interpreter.abiflags;
  j["micro"] = interpreter.micro;
  j["releaselevel"] = interpreter.release_level;
  j["executable"] = interpreter.sys_executable.string();
  j["real_executable"] = interpreter.real_executable.string();
  j["platform"] = info.platform;
  if (info.glibc) {
    j["libc"] = {"glibc", fmt::format("{}.{}", info.glibc->first, info.glibc->second)};
  } else {
    j["libc"] = {"", ""};
  }
  if (info.macos) j["macos"] = fmt::format("{}.{}", info.macos->first, info.macos->second);
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
  return CacheEntry{CacheLayout(dir).entry(CacheArea::interpreters, sha256_hex(key) + ".json"), venv};
}

/// Replaces the leading `from` of every path in the description by `to`.
void rebase_paths(Interpreter& interp, const std::string& from, const std::string& to) {
  auto rebase = [&](fs::path& p) {
    const auto s = p.string();
    if (s == from || (s.starts_with(from) && s.size() > from.size() && s[from.size()] == '/')) p = to + s.substr(from.size());
  };
  for (auto& [k, v] : interp.paths) rebase(v);
  rebase(interp.prefix);
  rebase(interp.base_prefix);
  rebase(interp.sys_executable);
  rebase(interp.real_executable);
}


}  // namespace

std::optional<Interpreter> cached_interpreter(const fs::path& executable, const fs::path& cache_dir) {
  const auto cache = interpreter_cache_entry(cache_dir, executable);
  if (!cache) return std::nullopt;
  auto text = read_file(cache->file);
  if (!text) return std::nullopt;
  // An entry from before `real_executable` was recorded is queried again (and replaced).
  auto cached = parse_interpreter_report(executable, *text);
  if (!cached || cached->real_executable.empty()) return std::nullopt;
  if (cache->venv) rebase_paths(*cached, std::string(kVenvPlaceholder), cache->venv->string());
  return std::move(*cached);
}

void remember_interpreter(const fs::path& executable, const fs::path& cache_dir, const Interpreter& interpreter) {
  const auto cache = interpreter_cache_entry(cache_dir, executable);
  // Only a description whose prefix is the environment found here can be shared.
  if (!cache || (cache->venv && interpreter.prefix.lexically_normal() != cache->venv->lexically_normal())) return;
  auto stored = interpreter;
  if (cache->venv) rebase_paths(stored, cache->venv->string(), std::string(kVenvPlaceholder));
  std::error_code ec;
  fs::create_directories(cache->file.parent_path(), ec);
  if (!ec) (void)write_file_atomic(cache->file, interpreter_report_json(stored), Durability::none);  // a torn entry is re-queried
}

Result<Interpreter> query_interpreter_cached(const fs::path& executable, const std::optional<fs::path>& cache_dir) {
  if (!cache_dir) return query_interpreter(executable);
  if (auto cached = cached_interpreter(executable, *cache_dir)) return std::move(*cached);
  auto interp = query_interpreter(executable, std::chrono::seconds(30),
                                  CacheLayout(*cache_dir).area(CacheArea::interpreters));
  if (!interp) return fail(interp.error());
  remember_interpreter(executable, *cache_dir, *interp);
  return interp;
}

}  // namespace vwheel::python
