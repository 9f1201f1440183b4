// The frontend's backend side (see runner.hpp): each build runs in its own folder (a copy
// of the source tree, the backend's output folder, HOME and TMPDIR), with a fresh venv when
// isolated, and the hooks run in a subprocess with a minimal environment and a time limit.

#include "build/runner.hpp"

#include <algorithm>
#include <fstream>
#include <set>

#include <sys/file.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "vwheel/core/file_lock.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/process.hpp"

namespace vwheel::build::detail {
namespace fs = std::filesystem;
namespace {

// The hook runner: `python -I -u -c RUNNER MODE BACKEND BACKEND_PATH_JSON SETTINGS_JSON OUTDIR RESULT`.
// Unbuffered, with stderr sent to stdout, so the backend's output stays in order; the answer goes
// to the RESULT file, never to stdout, which the backend may fill with anything.
constexpr const char* kHookRunner = R"PY(
import importlib, json, os, platform, re, sys
os.dup2(1, 2)
mode = sys.argv[1]
if mode == "unpack":
    archive, dest, result_path = sys.argv[2:5]
    def check(name, plain):
        parts = name.split("/")
        if name.startswith("/") or ".." in parts or not plain:
            sys.exit("refused: the archive member %r is not a plain file or folder inside it" % name)
    if archive.endswith(".zip"):
        import stat, zipfile
        with zipfile.ZipFile(archive) as z:
            members = z.infolist()
            for m in members:
                mode_bits = m.external_attr >> 16
                check(m.filename, not mode_bits or stat.S_ISREG(mode_bits) or stat.S_ISDIR(mode_bits))
            z.extractall(dest, members=members)
    else:
        import tarfile
        with tarfile.open(archive, "r:gz") as t:
            members = t.getmembers()
            for m in members:
                check(m.name, m.isfile() or m.isdir())
            t.extractall(dest, members=members)
    with open(result_path, "w") as f:
        json.dump({"top": sorted(os.listdir(dest))}, f)
    sys.exit(0)
spec, backend_path, settings, outdir, result_path = sys.argv[2:7]
for p in reversed(json.loads(backend_path)):
    sys.path.insert(0, os.path.abspath(p))
module, _, obj = spec.partition(":")
backend = importlib.import_module(module)
for part in filter(None, obj.split(".")):
    backend = getattr(backend, part)
settings = json.loads(settings)
result = {}
if mode.startswith("requires_"):
    hook = getattr(backend, "get_requires_for_build_" + mode[len("requires_"):], None)
    result["requires"] = list(hook(settings)) if hook else []
    result["has_build_hook"] = hasattr(backend, "build_" + mode[len("requires_"):])
    import importlib.metadata as md
    installed = {}
    for d in md.distributions():
        name = d.metadata["Name"]
        if name:
            installed.setdefault(re.sub(r"[-_.]+", "-", name).lower(), d.version)
    result["installed"] = installed
    impl = sys.implementation
    iv = "{0.major}.{0.minor}.{0.micro}".format(impl.version)
    if impl.version.releaselevel != "final":
        iv += impl.version.releaselevel[0] + str(impl.version.serial)
    result["markers"] = {
        "implementation_name": impl.name, "implementation_version": iv, "os_name": os.name,
        "platform_machine": platform.machine(), "platform_release": platform.release(),
        "platform_system": platform.system(), "platform_version": platform.version(),
        "python_full_version": platform.python_version(),
        "platform_python_implementation": platform.python_implementation(),
        "python_version": ".".join(platform.python_version_tuple()[:2]), "sys_platform": sys.platform,
    }
else:
    hook = getattr(backend, mode, None)
    if hook is None and mode.startswith("prepare_metadata_"):
        result["missing"] = True
    else:
        result["file"] = getattr(backend, mode)(outdir, settings)
sys.stdout.flush()
with open(result_path, "w") as f:
    json.dump(result, f)
)PY";

// Variables passed on to the backend; everything else is dropped.
constexpr std::string_view kKeptVariables[] = {"PATH",             "LANG",    "LC_ALL",  "LC_CTYPE", "SOURCE_DATE_EPOCH",
                                               "CC",     "CXX",      "CFLAGS",  "CXXFLAGS", "LDFLAGS",  "CPPFLAGS",
                                               "PKG_CONFIG_PATH", "MAKEFLAGS"};

// Top-level names of the source tree not copied into a build folder (VCS data, environments,
// earlier build outputs).
bool skipped_top_level(const std::string& name) {
  static const std::set<std::string, std::less<>> kSkipped = {".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv",
                                                              "build", "dist"};
  return kSkipped.contains(name) || name.ends_with(".egg-info") || name.starts_with(".vwheel-build-");
}

void copy_tree(const fs::path& from, const fs::path& to, const fs::path& exclude) {
  fs::create_directories(to);
  for (const auto& entry : fs::directory_iterator(from)) {
    const auto name = entry.path().filename().string();
    if (skipped_top_level(name) || name == "__pycache__") continue;
    std::error_code ec;
    if (!exclude.empty() && fs::equivalent(entry.path(), exclude, ec)) continue;
    if (entry.is_symlink()) {
      fs::copy_symlink(entry.path(), to / name);
    } else if (entry.is_directory()) {
      fs::copy(entry.path(), to / name, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
      for (auto it = fs::recursive_directory_iterator(to / name); it != fs::recursive_directory_iterator(); ++it) {
        if (it->is_directory() && it->path().filename() == "__pycache__") {
          fs::remove_all(it->path());
          it.disable_recursion_pending();
        }
      }
    } else {
      fs::copy_file(entry.path(), to / name);
    }
  }
}

// Where the hooks run: the build's copy of the source tree, or the tree itself for an editable
// build (PEP 660), whose wheel refers to the tree's files.
fs::path source_dir(const HookContext& ctx, const fs::path& dir) {
  return ctx.request->editable ? ctx.source : dir / "src";
}

struct HookRun {
  nlohmann::json result;
  std::string output;
};

Result<HookRun> run_hook(const HookContext& ctx, const fs::path& python, const BuildJob& job, const fs::path& dir,
                         const std::string& mode, std::string& tail, std::chrono::milliseconds& elapsed) {
  const auto result_file = dir / (mode + ".json");
  ProcessRequest req;
  req.argv = {python.string(),
              "-I",
              "-u",
              "-c",
              kHookRunner,
              mode,
              ctx.project->build_system.backend,
              nlohmann::json(ctx.project->build_system.backend_path).dump(),
              config_settings_json(job.config_settings),
              (dir / "out").string(),
              result_file.string()};
  // A variant's own variables replace vwheel's (a variable given twice is read differently by
  // different programs).
  for (const auto& var : ctx.base_env) {
    if (!job.environment.contains(var.substr(0, var.find('=')))) req.env.push_back(var);
  }
  for (const auto& [k, v] : job.environment) req.env.push_back(k + "=" + v);
  req.env.push_back("TMPDIR=" + (dir / "tmp").string());
  req.env.push_back("HOME=" + (dir / "home").string());
  req.cwd = source_dir(ctx, dir);
  req.timeout = ctx.request->timeout;
  req.max_stdout = std::size_t{1} << 20;
  req.kill_on_overflow = false;
  auto run = run_process(req);
  if (!run) return fail(with_kind(run.error(), ErrorKind::environment));
  elapsed += run->elapsed;
  const std::string hook = mode.starts_with("requires_") ? "get_requires_for_build_" + mode.substr(9) : mode;
  if (ctx.request->log) {
    std::ofstream log(*ctx.request->log, std::ios::app | std::ios::binary);
    log << "== " << hook << " (" << job.describe() << ")\n" << run->out;
    if (!run->out.empty() && run->out.back() != '\n') log << '\n';
  }
  tail = tail_lines(run->out, 20);
  if (run->timed_out) {
    return fail(fmt::format("{}: the backend's {} did not finish within {} s ({}); stopped", job.describe(), hook,
                            ctx.request->timeout.count() / 1000.0, ctx.request->timeout_option));
  }
  if (run->exit_code != 0) {
    return fail(fmt::format("{}: the backend's {} failed ({})", job.describe(), hook,
                            run->signal != 0 ? fmt::format("signal {}", run->signal)
                                             : fmt::format("exit status {}", run->exit_code)));
  }
  auto text = read_file(result_file);
  if (!text) return fail(fmt::format("{}: the hook runner left no answer: {}", job.describe(), text.error().message));
  HookRun out;
  out.result = nlohmann::json::parse(*text, nullptr, false);
  if (out.result.is_discarded() || !out.result.is_object()) {
    return fail(fmt::format("{}: the hook runner's answer is not a JSON object", job.describe()));
  }
  out.output = std::move(run->out);
  tail.clear();
  return out;
}

Result<void> install_requirements(const HookContext& ctx, const fs::path& python, const BuildJob& job,
                                  const std::vector<std::string>& requirements, std::string_view what) {
  if (requirements.empty()) return {};
  std::lock_guard lock(*ctx.install_lock);
  auto installed = ctx.services->install(python, requirements);
  if (!installed) {
    return fail(installed.error().with_context(fmt::format("{}: installing the build requirements ({})", job.describe(), what)));
  }
  return {};
}

// The isolated environment with `requirements` for a build in `dir`: a fresh one in `dir/env`, or
// the kept one of `BuildRequest::environments_dir` for this interpreter and these requirements,
// made first when there is none. A kept one is made under its lock file and marked ready last, so
// a run killed while making it leaves one that the next run makes again.
Result<fs::path> isolated_environment(const HookContext& ctx, const BuildJob& job, const fs::path& dir,
                                      const std::vector<std::string>& requirements, std::string_view what) {
  const auto& kept = ctx.request->environments_dir;
  if (kept.empty()) {
    auto made = ctx.services->create_environment(dir / "env", ctx.python);
    if (!made) return fail(made.error().with_context(job.describe() + ": creating the build environment"));
    if (auto ok = install_requirements(ctx, *made, job, requirements, what); !ok) return fail(ok.error());
    return *made;
  }
  std::vector<std::string> sorted = requirements;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::error_code ec;
  const auto python = fs::weakly_canonical(ctx.python, ec);
  const auto key =
      sha256_hex(fmt::format("python {}\nrequires {}\n", (ec ? ctx.python : python).string(), fmt::join(sorted, "\n")));
  const auto env = kept / key;
  const auto ready = env / ".vwheel-ready";
  fs::create_directories(kept);
  auto lock = lock_file(kept / (key + ".lock"), LOCK_EX, true);
  if (!lock) return fail(with_kind(lock.error(), ErrorKind::environment));
  if (fs::exists(ready, ec)) return env / "bin" / "python";
  fs::remove_all(env, ec);
  auto made = ctx.services->create_environment(env, ctx.python);
  if (!made) return fail(made.error().with_context(job.describe() + ": creating the build environment"));
  if (auto ok = install_requirements(ctx, *made, job, requirements, what); !ok) return fail(ok.error());
  if (auto ok = write_file_atomic(ready, fmt::format("{}\n", fmt::join(sorted, "\n"))); !ok) return fail(ok.error());
  return *made;
}

// The entries `run_backend` makes in a build's folder; a backend that adds any other wrote
// outside its output folder (`../x` from the source copy lands here).
bool own_entry(const std::string& name) {
  static const std::set<std::string, std::less<>> kOwn = {"src", "out", "tmp", "home", "env", "variant"};
  return kOwn.contains(name) ||
         (name.ends_with(".json") &&
          (name.starts_with("requires_") || name.starts_with("build_") || name.starts_with("prepare_metadata_")));
}

bool is_distribution_file(const std::string& name) { return name.ends_with(".whl") || name.ends_with(".tar.gz"); }

// The wheels and sdists under the source copy, HOME and TMPDIR, relative to `dir`.
std::set<std::string> distribution_files(const fs::path& dir) {
  std::set<std::string> out;
  for (const char* sub : {"src", "home", "tmp"}) {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir / sub, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_symlink()) {
        it.disable_recursion_pending();
        continue;
      }
      if (it->is_regular_file() && is_distribution_file(it->path().filename().string())) {
        out.insert(fs::relative(it->path(), dir).string());
      }
    }
  }
  return out;
}

// Whether the hook kept its writes to `out/`: nothing new beside vwheel's own folders, and no
// wheel or sdist in the source copy, HOME or TMPDIR that was not there before (`before`).
Result<void> check_contained(const BuildJob& job, const fs::path& dir, const std::string& hook,
                             const std::set<std::string>& before) {
  std::vector<std::string> stray;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const auto name = entry.path().filename().string();
    if (!own_entry(name)) stray.push_back(name);
  }
  for (const auto& file : distribution_files(dir)) {
    if (!before.contains(file)) stray.push_back(file);
  }
  if (stray.empty()) return {};
  std::sort(stray.begin(), stray.end());
  return fail(fmt::format("{}: the backend's {} wrote outside its output folder ({}); refused", job.describe(), hook,
                          fmt::join(stray, ", ")));
}

}  // namespace

std::vector<std::string> backend_environment() {
  std::vector<std::string> out;
  for (const auto& var : current_environment()) {
    const auto eq = var.find('=');
    const auto name = std::string_view(var).substr(0, eq);
    if (std::find(std::begin(kKeptVariables), std::end(kKeptVariables), name) != std::end(kKeptVariables)) {
      out.push_back(var);
    }
  }
  return out;
}

std::string tail_lines(std::string_view text, std::size_t count) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  std::size_t pos = text.size();
  for (std::size_t n = 0; n < count && pos > 0; ++n) {
    pos = text.rfind('\n', pos - 1);
    if (pos == std::string_view::npos) {
      pos = 0;
      break;
    }
  }
  if (pos > 0) ++pos;
  return std::string(text.substr(pos));
}


std::vector<std::string> provider_build_requires(const HookContext& ctx) {
  std::vector<std::string> out;
  if (!ctx.variant_table) return out;
  for (const auto& [ns, provider] : ctx.variant_table->metadata.providers) {
    out.insert(out.end(), provider.build_requires.begin(), provider.build_requires.end());
  }
  return out;
}

Result<BackendRun> run_backend(const HookContext& ctx, const BuildJob& job, const fs::path& dir,
                               const std::string& kind, std::string& tail, bool metadata) {
  for (const char* sub : {"out", "tmp", "home"}) fs::create_directories(dir / sub);
  if (!ctx.request->editable) copy_tree(ctx.source, dir / "src", ctx.request->output_dir);
  const auto shipped = distribution_files(dir);  // e.g. test data of the project

  BackendRun out;
  out.python = ctx.python;
  // The providers' build-requires are needed only where vwheel fills static-properties.
  const auto plugins = job.is_variant() ? provider_build_requires(ctx) : std::vector<std::string>{};
  if (!ctx.request->no_isolation) {
    auto made = isolated_environment(ctx, job, dir, ctx.project->build_system.requires_, "[build-system] requires");
    if (!made) return fail(made.error());
    out.python = *made;
  }

  const auto requires_hook = "get_requires_for_build_" + kind;
  auto requires_run = run_hook(ctx, out.python, job, dir, "requires_" + kind, tail, out.hook_time);
  if (!requires_run) return fail(requires_run.error());
  std::vector<std::string> requirements = ctx.project->build_system.requires_;
  std::map<std::string, std::string> installed;
  std::map<std::string, std::string> markers;
  const auto& r = requires_run->result;
  if (!r.contains("requires") || !r["requires"].is_array()) {
    return fail(fmt::format("{}: {} did not return a list", job.describe(), requires_hook));
  }
  if (r.contains("has_build_hook") && r["has_build_hook"] == false) {
    return fail(fmt::format("{}: the build backend `{}` has no `build_{}` hook{}", job.describe(),
                            ctx.project->build_system.backend, kind,
                            kind == "editable" ? " (PEP 660): it cannot install the project editable" : ""));
  }
  for (const auto& item : r["requires"]) {
    if (!item.is_string()) return fail(fmt::format("{}: {} returned a non-string", job.describe(), requires_hook));
    requirements.push_back(item.get<std::string>());
  }
  requirements.insert(requirements.end(), plugins.begin(), plugins.end());
  if (r.contains("installed") && r["installed"].is_object()) {
    for (const auto& [k, v] : r["installed"].items()) {
      if (v.is_string()) installed.emplace(k, v.get<std::string>());
    }
  }
  if (r.contains("markers") && r["markers"].is_object()) {
    for (const auto& [k, v] : r["markers"].items()) {
      if (v.is_string()) markers.emplace(k, v.get<std::string>());
    }
  }
  if (!ctx.request->no_isolation) {
    // What get_requires_for_build_wheel added (the backend's own needs, a variant's providers),
    // and the providers' build-requires.
    std::vector<std::string> extra(requirements.begin() + static_cast<std::ptrdiff_t>(ctx.project->build_system.requires_.size()),
                                   requirements.end());
    if (!extra.empty() && !check_build_requirements(extra, installed, markers)) {
      const auto what = plugins.empty() ? requires_hook : requires_hook + " and the providers' build-requires";
      if (ctx.request->environments_dir.empty()) {
        if (auto ok = install_requirements(ctx, out.python, job, extra, what); !ok) return fail(ok.error());
      } else {
        // A kept environment never changes: the larger set has one of its own.
        auto larger = isolated_environment(ctx, job, dir, requirements, what);
        if (!larger) return fail(larger.error());
        out.python = *larger;
      }
    }
  } else if (auto ok = check_build_requirements(requirements, installed, markers); !ok) {
    return fail(ok.error().with_context(job.describe()));
  }

  const auto build_hook = metadata ? "prepare_metadata_for_build_" + kind : "build_" + kind;
  auto build_run = run_hook(ctx, out.python, job, dir, build_hook, tail, out.hook_time);
  if (!build_run) return fail(build_run.error());
  const auto& w = build_run->result;
  if (metadata && w.contains("missing")) return out;
  if (!w.contains("file") || !w["file"].is_string()) {
    return fail(fmt::format("{}: {} did not return a file name", job.describe(), build_hook));
  }
  out.file = w["file"].get<std::string>();
  if (out.file.find('/') != std::string::npos || out.file == "." || out.file == "..") {
    return fail(fmt::format("{}: {} returned `{}`, not a file name in its output folder; refused", job.describe(),
                            build_hook, out.file));
  }
  std::error_code ec;
  if (metadata ? !fs::is_directory(dir / "out" / out.file, ec) : !fs::is_regular_file(dir / "out" / out.file, ec)) {
    return fail(fmt::format("{}: {} returned `{}`, which is not in its output folder", job.describe(), build_hook, out.file));
  }
  if (auto ok = check_contained(job, dir, build_hook, shipped); !ok) {
    tail = tail_lines(build_run->output, 20);
    return fail(ok.error());
  }
  return out;
}

Result<fs::path> unpack_sdist(const HookContext& ctx, const fs::path& archive, const fs::path& dest) {
  fs::create_directories(dest);
  const auto result_file = dest.parent_path() / (dest.filename().string() + ".json");
  ProcessRequest req;
  req.argv = {ctx.python.string(), "-I", "-u", "-c", kHookRunner, "unpack", archive.string(), dest.string(),
              result_file.string()};
  req.env = ctx.base_env;
  req.timeout = ctx.request->timeout;
  req.kill_on_overflow = false;
  auto run = run_process(req);
  if (!run) return fail(with_kind(run.error(), ErrorKind::environment));
  if (run->exit_code != 0 || run->timed_out) {
    return fail(fmt::format("{}: cannot unpack the sdist: {}", archive.string(),
                            run->timed_out ? std::string("timed out") : last_line(run->out)));
  }
  std::vector<fs::path> top;
  for (const auto& entry : fs::directory_iterator(dest)) top.push_back(entry.path());
  if (top.size() != 1 || !fs::is_directory(top.front()) ||
      (!fs::is_regular_file(top.front() / "pyproject.toml") && !fs::is_regular_file(top.front() / "setup.py"))) {
    return fail(fmt::format("{}: an sdist holds one folder with a pyproject.toml or a setup.py, this one does not",
                            archive.string()));
  }
  return top.front();
}


FolderSnapshot snapshot_folder(const fs::path& folder) {
  FolderSnapshot out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    out.emplace(entry.path().filename().string(), entry.symlink_status().type() == fs::file_type::symlink
                                                      ? fs::file_time_type{}
                                                      : fs::last_write_time(entry.path(), ec));
  }
  return out;
}

std::vector<std::string> changed_entries(const fs::path& folder, const FolderSnapshot& before,
                                         const std::set<std::string>& ignored) {
  std::vector<std::string> out;
  for (const auto& [name, time] : snapshot_folder(folder)) {
    if (ignored.contains(name)) continue;
    const auto it = before.find(name);
    if (it == before.end() || it->second != time) out.push_back(name);
  }
  return out;
}

}  // namespace vwheel::build::detail
