// `vwheel build`, the I/O part: a PEP 517 frontend. Each build runs in its own folder under
// `{output}/.vwheel-build-*` (a copy of the source tree, the backend's output folder, a TMPDIR),
// so parallel in-tree backends (setuptools) do not collide, a failed build leaves nothing behind,
// and the finished wheel is renamed into the output folder (same file system: atomic).

#include <algorithm>
#include <fstream>
#include <mutex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vwheel/api/build.hpp"
#include "vwheel/api/environment.hpp"
#include "vwheel/api/index.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/parallel.hpp"
#include "vwheel/core/process.hpp"
#include "vwheel/wheel/wheel.hpp"
#include "vwheel/wheel_name/names.hpp"
#include "vwheel/wheel_name/wheel_name.hpp"

namespace vwheel::api {
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
    import tarfile
    archive, dest, result_path = sys.argv[2:5]
    with tarfile.open(archive, "r:gz") as t:
        members = t.getmembers()
        for m in members:
            parts = m.name.split("/")
            if m.name.startswith("/") or ".." in parts or not (m.isfile() or m.isdir()):
                sys.exit("refused: the archive member %r is not a plain file or folder inside it" % m.name)
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
    result["file"] = getattr(backend, mode)(outdir, settings)
sys.stdout.flush()
with open(result_path, "w") as f:
    json.dump(result, f)
)PY";

// Variables passed on to the backend; everything else is dropped.
constexpr std::string_view kKeptVariables[] = {"PATH",   "HOME",     "LANG",    "LC_ALL",  "LC_CTYPE", "SOURCE_DATE_EPOCH",
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

// The last `count` lines of a backend's output.
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

struct HookContext {
  fs::path python;
  /// The source tree the builds copy.
  fs::path source;
  /// Installs into the isolated environments one at a time (they share the download cache).
  std::mutex* install_lock = nullptr;
  std::vector<std::string> base_env;
  const BuildProject* project = nullptr;
  const BuildRequest* request = nullptr;
  fs::path pyproject;
};

struct HookRun {
  nlohmann::json result;
  std::string output;
};

Result<HookRun> run_hook(const HookContext& ctx, const fs::path& python, const BuildJob& job, const fs::path& dir,
                         const std::string& mode, std::string& tail) {
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
  req.env = ctx.base_env;
  req.env.push_back("TMPDIR=" + (dir / "tmp").string());
  for (const auto& [k, v] : job.environment) req.env.push_back(k + "=" + v);
  req.cwd = dir / "src";
  req.timeout = ctx.request->timeout;
  req.max_stdout = std::size_t{1} << 20;
  req.kill_on_overflow = false;
  auto run = run_process(req);
  if (!run) return fail(with_kind(run.error(), ErrorKind::environment));
  const std::string hook = mode.starts_with("requires_") ? "get_requires_for_build_" + mode.substr(9) : mode;
  tail = tail_lines(run->out, 20);
  if (run->timed_out) {
    return fail(fmt::format("{}: the backend's {} did not finish within {} s (--timeout); stopped", job.describe(),
                            hook, ctx.request->timeout.count() / 1000.0));
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
  InstallRequest req;
  req.items = requirements;
  req.python = python;
  req.sources = ctx.request->sources;
  req.quiet = true;
  std::lock_guard lock(*ctx.install_lock);
  auto installed = install(req, Observer{});
  if (!installed) {
    return fail(installed.error().with_context(fmt::format("{}: installing the build requirements ({})", job.describe(), what)));
  }
  return {};
}

// Whether `wheel` is this project's wheel for `job`; the name/version of the first wheel of the
// run fixes them when pyproject.toml does not.
Result<wheel_name::WheelName> check_wheel(const HookContext& ctx, const BuildJob& job, const std::string& file) {
  if (!file.ends_with(".whl")) return fail(fmt::format("{}: the backend returned `{}`, not a wheel; refused", job.describe(), file));
  auto name = wheel_name::parse_wheel_name(file);
  if (!name) return fail(fmt::format("{}: the backend returned `{}`, not a wheel: {}", job.describe(), file, name.error().message));
  const auto& project = *ctx.project;
  if (project.name && wheel_name::canonicalize_name(name->name) != wheel_name::canonicalize_name(*project.name)) {
    return fail(fmt::format("{}: the backend returned `{}`, a wheel of `{}`, not of this project `{}`; refused",
                            job.describe(), file, name->name, *project.name));
  }
  if (project.version && name->version != *project.version) {
    return fail(fmt::format("{}: the backend returned `{}`, version {}, not this project's {}; refused", job.describe(),
                            file, name->version, *project.version));
  }
  if (name->label && *name->label != job.label) {
    return fail(fmt::format("{}: the backend returned `{}`, a wheel of variant `{}`; refused", job.describe(), file,
                            *name->label));
  }
  return name;
}

// The finished wheel: a readable wheel whose dist-info is the project's and, for a variant build,
// whose variant.json describes exactly this variant (whoever wrote it).
Result<void> check_output(const BuildJob& job, const fs::path& path) {
  auto opened = wheel::open_wheel(path);
  if (!opened) return fail(opened.error().with_context(job.describe()));
  const auto expected_dist_info = fmt::format("{}-{}.dist-info", opened->name.name, opened->name.version);
  if (wheel_name::canonicalize_name(opened->dist_info) != wheel_name::canonicalize_name(expected_dist_info)) {
    return fail(fmt::format("{}: `{}` holds `{}`, not the `{}` its name calls for; refused", job.describe(),
                            path.filename().string(), opened->dist_info, expected_dist_info));
  }
  auto document = wheel::read_variant_json(*opened);
  if (!document) return fail(document.error().with_context(job.describe()));
  if (!job.is_variant()) {
    if (*document) return fail(fmt::format("{}: the backend built a variant wheel unasked; refused", job.describe()));
    return {};
  }
  if (!*document) return fail(fmt::format("{}: `{}` has no variant.json", job.describe(), path.filename().string()));
  const auto& variants = (*document)->metadata.variants;
  const auto it = variants.find(job.label);
  if (it == variants.end() || it->second != job.properties) {
    std::vector<std::string> want;
    for (const auto& p : job.properties) want.push_back(p.to_string());
    return fail(fmt::format("{}: the wheel's variant.json does not give it the properties [{}]; refused", job.describe(),
                            fmt::join(want, ", ")));
  }
  return {};
}

// Copies the source, prepares the requirements (isolated: installs them; else: checks them) and
// runs `build_{kind}`; returns the file name it returned, checked to be in its output folder.
Result<std::string> run_backend(const HookContext& ctx, const BuildJob& job, const fs::path& dir,
                                const std::string& kind, std::string& tail) {
  fs::create_directories(dir / "out");
  fs::create_directories(dir / "tmp");
  copy_tree(ctx.source, dir / "src", ctx.request->output_dir);

  fs::path python = ctx.python;
  if (!ctx.request->no_isolation) {
    VenvRequest venv;
    venv.path = dir / "env";
    venv.python = ctx.python;
    auto made = create_venv(venv);
    if (!made) return fail(made.error().with_context(job.describe() + ": creating the build environment"));
    python = dir / "env" / "bin" / "python";
    if (auto ok = install_requirements(ctx, python, job, ctx.project->build_system.requires_, "[build-system] requires"); !ok) {
      return fail(ok.error());
    }
  }

  const auto requires_hook = "get_requires_for_build_" + kind;
  auto requires_run = run_hook(ctx, python, job, dir, "requires_" + kind, tail);
  if (!requires_run) return fail(requires_run.error());
  std::vector<std::string> requirements = ctx.project->build_system.requires_;
  std::map<std::string, std::string> installed;
  std::map<std::string, std::string> markers;
  const auto& r = requires_run->result;
  if (!r.contains("requires") || !r["requires"].is_array()) {
    return fail(fmt::format("{}: {} did not return a list", job.describe(), requires_hook));
  }
  for (const auto& item : r["requires"]) {
    if (!item.is_string()) return fail(fmt::format("{}: {} returned a non-string", job.describe(), requires_hook));
    requirements.push_back(item.get<std::string>());
  }
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
    // What get_requires_for_build_wheel added (the backend's own needs, a variant's providers).
    std::vector<std::string> extra(requirements.begin() + static_cast<std::ptrdiff_t>(ctx.project->build_system.requires_.size()),
                                   requirements.end());
    if (!extra.empty() && !check_build_requirements(extra, installed, markers)) {
      if (auto ok = install_requirements(ctx, python, job, extra, requires_hook); !ok) return fail(ok.error());
    }
  } else if (auto ok = check_build_requirements(requirements, installed, markers); !ok) {
    return fail(ok.error().with_context(job.describe()));
  }

  const auto build_hook = "build_" + kind;
  auto build_run = run_hook(ctx, python, job, dir, build_hook, tail);
  if (!build_run) return fail(build_run.error());
  const auto& w = build_run->result;
  if (!w.contains("file") || !w["file"].is_string()) {
    return fail(fmt::format("{}: {} did not return a file name", job.describe(), build_hook));
  }
  auto file = w["file"].get<std::string>();
  if (file.find('/') != std::string::npos || file == "." || file == "..") {
    return fail(fmt::format("{}: {} returned `{}`, not a file name in its output folder; refused", job.describe(),
                            build_hook, file));
  }
  std::error_code ec;
  if (!fs::is_regular_file(dir / "out" / file, ec)) {
    return fail(fmt::format("{}: {} returned `{}`, which is not in its output folder", job.describe(), build_hook, file));
  }
  return file;
}

Result<fs::path> build_one(const HookContext& ctx, const BuildJob& job, const fs::path& dir, std::string& tail,
                           std::vector<std::string>& warnings) {
  auto file = run_backend(ctx, job, dir, "wheel", tail);
  if (!file) return fail(file.error());
  auto name = check_wheel(ctx, job, *file);
  if (!name) return fail(name.error());

  fs::path built = dir / "out" / *file;
  if (job.is_variant() && !name->label) {
    MakeVariantsRequest mv;
    mv.inputs = {built};
    fs::create_directories(dir / "variant");
    mv.output_dir = dir / "variant";
    mv.null_variant = job.label == variant::kNullLabel;
    for (const auto& p : job.properties) mv.properties.push_back(p.to_string());
    if (!mv.null_variant) mv.label = job.label;
    mv.pyproject = ctx.pyproject;
    mv.format = ctx.request->format;
    mv.validation = ctx.request->validation;
    auto made = make_variants(mv);
    if (!made) return fail(made.error().with_context(job.describe()));
    for (auto& warning : made->warnings) {
      // vwheel reads [variant.variants] itself; the metadata reader's note about it is noise here.
      if (warning.find("variant.variants: must not be given") == std::string::npos) warnings.push_back(std::move(warning));
    }
    if (!made->results.front()) return fail(made->results.front().error().with_context(job.describe()));
    built = made->results.front()->output;
  }
  if (auto ok = check_output(job, built); !ok) return fail(ok.error());
  const auto target = ctx.request->output_dir / built.filename();
  fs::rename(built, target);
  return target;
}

// Unpacks an sdist with the interpreter's tarfile (plain files and folders only) into `dest`;
// returns its one top-level folder, which must hold a pyproject.toml.
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
  if (top.size() != 1 || !fs::is_directory(top.front()) || !fs::is_regular_file(top.front() / "pyproject.toml")) {
    return fail(fmt::format("{}: an sdist holds one folder with a pyproject.toml, this one does not", archive.string()));
  }
  return top.front();
}

Result<fs::path> build_sdist_one(const HookContext& ctx, const BuildJob& job, const fs::path& dir, std::string& tail) {
  auto file = run_backend(ctx, job, dir, "sdist", tail);
  if (!file) return fail(file.error());
  const std::string_view stem = std::string_view(*file).substr(0, file->size() - std::min<std::size_t>(7, file->size()));
  const auto dash = stem.rfind('-');
  if (!file->ends_with(".tar.gz") || dash == std::string_view::npos || dash == 0) {
    return fail(fmt::format("the sdist: the backend returned `{}`, not a `{{name}}-{{version}}.tar.gz`; refused", *file));
  }
  const std::string name(stem.substr(0, dash));
  const std::string version(stem.substr(dash + 1));
  const auto& project = *ctx.project;
  if (project.name && wheel_name::canonicalize_name(name) != wheel_name::canonicalize_name(*project.name)) {
    return fail(fmt::format("the sdist: the backend returned `{}`, an sdist of `{}`, not of this project `{}`; refused",
                            *file, name, *project.name));
  }
  if (project.version && version != *project.version) {
    return fail(fmt::format("the sdist: the backend returned `{}`, version {}, not this project's {}; refused", *file,
                            version, *project.version));
  }
  const auto target = ctx.request->output_dir / *file;
  fs::rename(dir / "out" / *file, target);
  return target;
}

// Removes the build folders however `build` ends, and the output folder too when this run
// created it and left nothing there.
struct RemoveOnExit {
  fs::path path;
  std::optional<fs::path> created_parent;
  RemoveOnExit(fs::path p, std::optional<fs::path> parent) : path(std::move(p)), created_parent(std::move(parent)) {}
  RemoveOnExit(const RemoveOnExit&) = delete;
  RemoveOnExit& operator=(const RemoveOnExit&) = delete;
  ~RemoveOnExit() {
    std::error_code ec;
    fs::remove_all(path, ec);
    if (created_parent) fs::remove(*created_parent, ec);  // fails, as it should, unless empty
  }
};

}  // namespace

std::size_t BuildReport::failed() const {
  return static_cast<std::size_t>(
      std::count_if(outcomes.begin(), outcomes.end(), [](const BuildOutcome& o) { return !o.wheel; }));
}

Result<BuildReport> build(const BuildRequest& given) {
  // The backend runs in another working directory: every path it sees is absolute.
  BuildRequest request = given;
  request.source = fs::absolute(given.source).lexically_normal();
  request.output_dir = fs::absolute(given.output_dir).lexically_normal();
  std::error_code ec;
  const bool from_sdist = fs::is_regular_file(request.source, ec);
  if (from_sdist && !request.source.filename().string().ends_with(".tar.gz")) {
    return fail(fmt::format("{}: not a source tree or an sdist (.tar.gz)", request.source.string()));
  }
  if (!from_sdist && !fs::is_directory(request.source, ec)) {
    return fail(fmt::format("{}: not a directory (give the source tree of the project, or its sdist)", request.source.string()));
  }
  if (from_sdist && request.sdist) return fail(with_kind(Error("--sdist: the source is an sdist already"), ErrorKind::usage));

  HookContext ctx;
  const auto path_env = [] {
    const char* p = std::getenv("PATH");
    return std::string(p != nullptr ? p : "/usr/bin:/bin");
  }();
  auto python = find_executable(request.python, path_env);
  if (!python) {
    return fail(with_kind(Error(fmt::format("--python `{}`: no such interpreter in $PATH", request.python)),
                          ErrorKind::environment));
  }
  ctx.python = *python;
  for (const auto& var : current_environment()) {
    const auto eq = var.find('=');
    const auto name = std::string_view(var).substr(0, eq);
    if (std::find(std::begin(kKeptVariables), std::end(kKeptVariables), name) != std::end(kKeptVariables)) {
      ctx.base_env.push_back(var);
    }
  }
  ctx.request = &request;

  const bool new_output = !fs::exists(request.output_dir, ec);
  fs::create_directories(request.output_dir);
  const auto work = request.output_dir / (".vwheel-build-" + unique_token());
  fs::create_directories(work);
  const RemoveOnExit cleanup(work, new_output ? std::optional<fs::path>(request.output_dir) : std::nullopt);

  ctx.source = request.source;
  if (from_sdist) {
    auto unpacked = unpack_sdist(ctx, request.source, work / "unpacked");
    if (!unpacked) return fail(unpacked.error());
    ctx.source = *unpacked;
  }
  const auto pyproject = ctx.source / "pyproject.toml";
  auto text = read_file(pyproject);
  if (!text) return fail(text.error());
  // An unpacked sdist's pyproject.toml is named by the sdist in messages.
  const auto shown = from_sdist ? request.source.filename().string() + ":pyproject.toml" : pyproject.string();
  auto project = parse_build_project(*text, shown);
  if (!project) return fail(project.error());
  auto jobs = plan_builds(*project, request.selection);
  if (!jobs) return fail(jobs.error());
  // The rest of [variant] (priorities, providers) must be readable before anything is built.
  if (project->has_variant_table) {
    auto loaded = load_pyproject(pyproject);
    if (!loaded) return fail(loaded.error());
  }
  std::mutex install_lock;
  ctx.install_lock = &install_lock;
  ctx.project = &*project;
  ctx.pyproject = pyproject;

  BuildReport report;
  if (request.sdist) {
    BuildOutcome sdist;
    sdist.job.sdist = true;
    try {
      sdist.wheel = build_sdist_one(ctx, sdist.job, work / "sdist", sdist.backend_tail);
      if (sdist.wheel) {
        // The wheels are built from the sdist, so what it lacks shows now.
        auto unpacked = unpack_sdist(ctx, *sdist.wheel, work / "from-sdist");
        if (unpacked) {
          ctx.source = *unpacked;
        } else {
          fs::remove(*sdist.wheel, ec);
          sdist.wheel = fail(unpacked.error().with_context("the sdist"));
        }
      }
    } catch (const std::exception& e) {
      sdist.wheel = fail(with_kind(Error(fmt::format("the sdist: {}", e.what())), ErrorKind::environment));
    }
    const bool ok = static_cast<bool>(sdist.wheel);
    if (ok) sdist.backend_tail.clear();
    report.outcomes.push_back(std::move(sdist));
    if (!ok) return report;
  }
  const std::size_t offset = report.outcomes.size();
  report.outcomes.resize(offset + jobs->size());
  std::vector<std::vector<std::string>> warnings(jobs->size());
  parallel_for(jobs->size(), std::max(1U, request.jobs), [&](std::size_t i) {
    auto& outcome = report.outcomes[offset + i];
    outcome.job = (*jobs)[i];
    try {
      outcome.wheel = build_one(ctx, outcome.job, work / fmt::format("job-{}", i), outcome.backend_tail, warnings[i]);
    } catch (const std::exception& e) {
      outcome.wheel = fail(with_kind(Error(fmt::format("{}: {}", outcome.job.describe(), e.what())), ErrorKind::environment));
    }
    if (outcome.wheel) outcome.backend_tail.clear();
  });

  // One package version per run: a backend that names its wheels differently per variant is
  // refused for the later ones (pyproject.toml's [project] fixes them when static).
  std::optional<std::pair<std::string, std::string>> first;
  for (auto& outcome : report.outcomes) {
    if (!outcome.wheel) continue;
    auto name = wheel_name::parse_wheel_name(outcome.wheel->filename().string());
    if (!name) continue;
    std::pair<std::string, std::string> key{wheel_name::canonicalize_name(name->name), name->version};
    if (!first) {
      first = key;
    } else if (key != *first) {
      const auto path = *outcome.wheel;
      fs::remove(path, ec);
      outcome.wheel = fail(fmt::format("{}: the backend built `{}`, but the other wheels are {} {}; refused",
                                       outcome.job.describe(), path.filename().string(), first->first, first->second));
    }
  }
  for (auto& w : warnings) report.warnings.insert(report.warnings.end(), w.begin(), w.end());
  std::sort(report.warnings.begin(), report.warnings.end());
  report.warnings.erase(std::unique(report.warnings.begin(), report.warnings.end()), report.warnings.end());

  const bool any_variant = std::any_of(report.outcomes.begin(), report.outcomes.end(),
                                       [](const BuildOutcome& o) { return o.wheel && o.job.is_variant(); });
  if (request.index && any_variant) {
    GenerateIndexJsonRequest gen;
    gen.dir = request.output_dir;
    auto generated = generate_index_json(gen);
    if (!generated) return fail(generated.error().with_context(fmt::format("generate-index-json {}", request.output_dir.string())));
    if (generated->write_error) return fail(*generated->write_error);
    for (auto& w : generated->warnings) report.warnings.push_back(std::move(w));
    report.index_files = generated->written;
  }
  return report;
}

}  // namespace vwheel::api
