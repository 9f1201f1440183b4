// The PEP 517 frontend, the I/O part. Each build runs in its own folder under
// `{output}/.vwheel-build-*` (runner.cpp: a copy of the source tree, the backend's output
// folder, HOME and TMPDIR), so parallel in-tree backends (setuptools) do not collide and a failed
// build leaves nothing behind. Here: checking each wheel, making it a variant wheel when the
// backend did not, then, once all builds are done and agree, renaming the wheels into the output
// folder (same file system: atomic).

#include <algorithm>
#include <fstream>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "build/runner.hpp"
#include "vwheel/build/frontend.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/parallel.hpp"
#include "vwheel/core/process.hpp"
#include "vwheel/install/install.hpp"
#include "vwheel/pep440/version.hpp"
#include "vwheel/wheel/wheel.hpp"
#include "vwheel/wheel_name/names.hpp"
#include "vwheel/wheel_name/wheel_name.hpp"

namespace vwheel::build {
namespace fs = std::filesystem;
using detail::HookContext;
namespace {

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

// The finished wheel, as `install` checks a wheel before it installs it: its dist-info, WHEEL,
// METADATA's Name, and RECORD (every member listed, with a matching hash and size), by installing
// it into a scratch prefix `{dir}/check` with the build's interpreter; then METADATA's Version,
// which install reads but does not compare, against the file name's. A backend's wheel that only
// an installer would refuse is never published.
Result<void> check_installable(const BuildJob& job, const fs::path& python, const fs::path& path, const fs::path& dir,
                               std::vector<std::string>& warnings) {
  install::Environment env;
  env.python = python;
  env.prefix = dir / "check";
  for (const char* sub : {"purelib", "platlib", "scripts", "headers", "data"}) fs::create_directories(env.prefix / sub);
  env.scheme = {env.prefix / "purelib", env.prefix / "platlib", env.prefix / "scripts", env.prefix / "headers",
                env.prefix / "data"};
  env.lock_dir = env.scheme.purelib;
  install::InstallOptions options;
  options.jobs = 1;  // the builds run in parallel already (-j)
  const auto file = path.filename().string();
  auto installed = install::install_wheels(env, {install::WheelRequest(path, false, false)}, options);
  if (!installed) return fail(installed.error().with_context(job.describe()));  // it names the wheel
  const auto& got = installed->front();
  warnings.insert(warnings.end(), got.warnings.begin(), got.warnings.end());
  auto name = wheel_name::parse_wheel_name(file);
  if (!name) return fail(name.error());
  if (pep440::normalized_or_verbatim(got.version) != pep440::normalized_or_verbatim(name->version)) {
    return fail(fmt::format("{}: {}: `{}/METADATA` says `Version: {}`, not the file name's {}; refused", job.describe(),
                            file, got.dist_info.filename().string(), got.version, name->version));
  }
  return {};
}

// For a variant build, the finished wheel's variant.json must describe exactly this variant
// (whoever wrote it); a plain build's wheel must have none.
Result<std::optional<variant::VariantMetadata>> check_output(const BuildJob& job, const fs::path& path) {
  auto opened = wheel::open_wheel(path);
  if (!opened) return fail(opened.error().with_context(job.describe()));
  auto document = wheel::read_variant_json(*opened);
  if (!document) return fail(document.error().with_context(job.describe()));
  if (!job.is_variant()) {
    if (*document) return fail(fmt::format("{}: the backend built a variant wheel unasked; refused", job.describe()));
    return std::optional<variant::VariantMetadata>{};
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
  return std::optional<variant::VariantMetadata>((*document)->metadata);
}

// A built wheel, still in its build folder: published only when every build of the run agrees.
struct Staged {
  fs::path path;
  std::optional<variant::VariantMetadata> metadata;
};

// The project's [variant] table with every `build-requires` provider's static-properties filled
// from its plugin, run with the build environment's interpreter (the Building draft).
Result<metadata::ParsedDocument> resolve_build_requires(const HookContext& ctx, const BuildJob& job,
                                                        const fs::path& python, const fs::path& dir) {
  metadata::ParsedDocument table = *ctx.variant_table;
  auto& md = table.metadata;
  std::vector<std::pair<std::string, variant::ProviderInfo>> pending;
  for (const auto& [ns, provider] : md.providers) {
    if (!provider.build_requires.empty()) pending.emplace_back(ns, provider);
  }
  for (const auto& [ns, provider] : pending) {
    provider::PythonProviderSpec spec{ns, provider.build_requires, provider.plugin_api};
    auto answer = provider::run_installed_plugin(python, spec, provider::ProviderMethod::supported_configs, dir / "tmp",
                                                 ctx.request->timeout);
    if (!answer) return fail(answer.error().with_context(job.describe()));
    if (auto ok = fill_static_properties(md, ns, *answer, job.properties); !ok) {
      return fail(ok.error().with_context(job.describe()));
    }
  }
  return table;
}

Result<Staged> build_one(const HookContext& ctx, const BuildJob& job, const fs::path& dir, std::string& tail,
                         std::vector<std::string>& warnings, std::chrono::milliseconds& hook_time) {
  auto run = detail::run_backend(ctx, job, dir, ctx.request->editable ? "editable" : "wheel", tail);
  if (!run) return fail(run.error());
  hook_time = run->hook_time;
  auto name = check_wheel(ctx, job, run->file);
  if (!name) return fail(name.error());

  fs::path built = dir / "out" / run->file;
  if (job.is_variant() && !name->label) {
    VariantWheelRequest mv;
    mv.wheel = built;
    fs::create_directories(dir / "variant");
    mv.output_dir = dir / "variant";
    mv.job = &job;
    mv.pyproject = ctx.pyproject;
    mv.variant_table = ctx.variant_table;
    if (!detail::provider_build_requires(ctx).empty()) {
      auto resolved = resolve_build_requires(ctx, job, run->python, dir);
      if (!resolved) return fail(resolved.error());
      mv.variant_table = std::move(*resolved);
    }
    std::vector<std::string> notes;
    auto made = ctx.services->make_variant(mv, notes);
    for (auto& note : notes) {
      // vwheel reads [variant.variants] itself; the metadata reader's note about it is noise here.
      if (note.find("variant.variants: must not be given") == std::string::npos) warnings.push_back(std::move(note));
    }
    if (!made) return fail(made.error().with_context(job.describe()));
    built = *made;
  }
  auto metadata = check_output(job, built);
  if (!metadata) return fail(metadata.error());
  if (auto ok = check_installable(job, run->python, built, dir, warnings); !ok) return fail(ok.error());
  return Staged{built, std::move(*metadata)};
}

Result<fs::path> build_sdist_one(const HookContext& ctx, const BuildJob& job, const fs::path& dir, std::string& tail) {
  auto run = detail::run_backend(ctx, job, dir, "sdist", tail);
  if (!run) return fail(run.error());
  const auto& file = run->file;
  const std::string_view stem = std::string_view(file).substr(0, file.size() - std::min<std::size_t>(7, file.size()));
  const auto dash = stem.rfind('-');
  if (!file.ends_with(".tar.gz") || dash == std::string_view::npos || dash == 0) {
    return fail(fmt::format("the sdist: the backend returned `{}`, not a `{{name}}-{{version}}.tar.gz`; refused", file));
  }
  const std::string name(stem.substr(0, dash));
  const std::string version(stem.substr(dash + 1));
  const auto& project = *ctx.project;
  if (project.name && wheel_name::canonicalize_name(name) != wheel_name::canonicalize_name(*project.name)) {
    return fail(fmt::format("the sdist: the backend returned `{}`, an sdist of `{}`, not of this project `{}`; refused",
                            file, name, *project.name));
  }
  if (project.version && version != *project.version) {
    return fail(fmt::format("the sdist: the backend returned `{}`, version {}, not this project's {}; refused", file,
                            version, *project.version));
  }
  // Published with the wheels, once they are built from it.
  return dir / "out" / file;
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

// One package version per run: a backend that names its wheels differently per variant is
// refused for the later ones (pyproject.toml's [project] fixes them when static).
void refuse_other_versions(std::vector<BuildOutcome>& outcomes, std::vector<std::optional<Staged>>& staged,
                           std::size_t offset) {
  std::optional<std::pair<std::string, std::string>> first;
  for (std::size_t i = 0; i < staged.size(); ++i) {
    if (!staged[i]) continue;
    auto& outcome = outcomes[offset + i];
    auto name = wheel_name::parse_wheel_name(staged[i]->path.filename().string());
    if (!name) continue;
    std::pair<std::string, std::string> key{wheel_name::canonicalize_name(name->name), name->version};
    if (!first) {
      first = key;
    } else if (key != *first) {
      outcome.wheel = fail(fmt::format("{}: the backend built `{}`, but the other wheels are {} {}; refused",
                                       outcome.job.describe(), staged[i]->path.filename().string(), first->first,
                                       first->second));
      staged[i].reset();
    }
  }
}

}  // namespace

std::size_t BuildReport::failed() const {
  return static_cast<std::size_t>(
      std::count_if(outcomes.begin(), outcomes.end(), [](const BuildOutcome& o) { return !o.wheel; }));
}

Result<BuildReport> build_project(const BuildRequest& given, BuildServices& services) {
  // The backend runs in another working directory: every path it sees is absolute.
  BuildRequest request = given;
  request.source = fs::absolute(given.source).lexically_normal();
  request.output_dir = fs::absolute(given.output_dir).lexically_normal();
  std::error_code ec;
  const bool from_sdist = fs::is_regular_file(request.source, ec);
  if (from_sdist && !request.source.filename().string().ends_with(".tar.gz") &&
      !request.source.filename().string().ends_with(".zip")) {
    return fail(fmt::format("{}: not a source tree or an sdist (.tar.gz, .zip)", request.source.string()));
  }
  if (!from_sdist && !fs::is_directory(request.source, ec)) {
    return fail(fmt::format("{}: not a directory (give the source tree of the project, or its sdist)", request.source.string()));
  }
  if (from_sdist && request.sdist) return fail(with_kind(Error("--sdist: the source is an sdist already"), ErrorKind::usage));
  if (request.editable && (from_sdist || request.sdist)) {
    return fail(with_kind(Error(fmt::format("{}: an editable build needs a source tree, not an sdist", request.source.string())),
                          ErrorKind::usage));
  }

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
  ctx.base_env = detail::backend_environment();
  ctx.request = &request;
  ctx.services = &services;

  const bool new_output = !fs::exists(request.output_dir, ec);
  fs::create_directories(request.output_dir);
  const auto work_name = ".vwheel-build-" + unique_token();
  const auto work = request.output_dir / work_name;
  fs::create_directories(work);
  const RemoveOnExit cleanup(work, new_output ? std::optional<fs::path>(request.output_dir) : std::nullopt);
  // What a backend adds to the output folder itself (beside the wheels vwheel moves there) is a
  // write outside its own output folder.
  const auto output_before = detail::snapshot_folder(request.output_dir);
  const std::set<std::string> ours = {work_name};

  ctx.source = request.source;
  if (from_sdist) {
    auto unpacked = detail::unpack_sdist(ctx, request.source, work / "unpacked");
    if (!unpacked) return fail(unpacked.error());
    ctx.source = *unpacked;
  }
  const auto pyproject = ctx.source / "pyproject.toml";
  // A setup.py-only project is built as pip builds it (PEP 517's fallback): an empty pyproject.toml,
  // so setuptools' legacy backend with setuptools and wheel as the build requirements.
  auto text = !fs::exists(pyproject, ec) && fs::is_regular_file(ctx.source / "setup.py", ec) ? Result<std::string>("")
                                                                                             : read_file(pyproject);
  if (!text) return fail(text.error());
  // An unpacked sdist's pyproject.toml is named by the sdist in messages.
  const auto shown = from_sdist ? request.source.filename().string() + ":pyproject.toml" : pyproject.string();
  auto project = parse_build_project(*text, shown);
  if (!project) return fail(project.error());
  auto jobs = plan_builds(*project, request.selection);
  if (!jobs) return fail(jobs.error());
  // The rest of [variant] (priorities, providers) must be readable before anything is built.
  if (project->has_variant_table) {
    auto document = metadata::parse_pyproject(*text);
    if (!document) return fail(document.error().with_context(pyproject.string()));
    ctx.variant_table = std::move(*document);
  }
  // One for the process: the installer builds several sdists at once, each its own build_project.
  static std::mutex install_lock;
  ctx.install_lock = &install_lock;
  ctx.project = &*project;
  ctx.pyproject = pyproject;

  BuildReport report;
  if (request.metadata_only && !jobs->empty()) {
    BuildOutcome outcome;
    outcome.job = jobs->front();
    const auto dir = work / "metadata";
    try {
      auto run = detail::run_backend(ctx, outcome.job, dir, "wheel", outcome.backend_tail, true);
      if (!run) {
        outcome.wheel = fail(run.error());
      } else if (!run->file.empty()) {
        outcome.wheel = dir / "out" / run->file;
        auto prepared = read_file(*outcome.wheel / "METADATA");
        if (!prepared) outcome.wheel = fail(prepared.error().with_context(outcome.job.describe()));
        if (prepared) report.metadata = std::move(*prepared);
      }
    } catch (const std::exception& e) {
      outcome.wheel =
          fail(with_kind(Error(fmt::format("{}: {}", outcome.job.describe(), e.what())), ErrorKind::environment));
    }
    if (outcome.wheel) outcome.backend_tail.clear();
    report.outcomes.push_back(std::move(outcome));
    return report;
  }
  if (request.sdist) {
    BuildOutcome sdist;
    sdist.job.sdist = true;
    try {
      sdist.wheel = build_sdist_one(ctx, sdist.job, work / "sdist", sdist.backend_tail);
      if (sdist.wheel) {
        // The wheels are built from the sdist, so what it lacks shows now.
        auto unpacked = detail::unpack_sdist(ctx, *sdist.wheel, work / "from-sdist");
        if (unpacked) {
          ctx.source = *unpacked;
        } else {
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
  std::vector<std::optional<Staged>> staged(jobs->size());
  // Editable builds share the one source tree, where in-tree backends write: one at a time.
  parallel_for(jobs->size(), request.editable ? 1U : std::max(1U, request.jobs), [&](std::size_t i) {
    auto& outcome = report.outcomes[offset + i];
    outcome.job = (*jobs)[i];
    const auto started = std::chrono::steady_clock::now();
    try {
      auto built = build_one(ctx, outcome.job, work / fmt::format("job-{}", i), outcome.backend_tail, warnings[i],
                             outcome.backend_time);
      if (built) {
        outcome.wheel = built->path;
        staged[i] = std::move(*built);
      } else {
        outcome.wheel = fail(built.error());
      }
    } catch (const std::exception& e) {
      outcome.wheel = fail(with_kind(Error(fmt::format("{}: {}", outcome.job.describe(), e.what())), ErrorKind::environment));
    }
    outcome.total_time = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
    if (outcome.wheel) outcome.backend_tail.clear();
  });
  refuse_other_versions(report.outcomes, staged, offset);

  // Nothing reaches the output folder unless every build kept to its own folder and the
  // variant wheels agree as one package version's must.
  const auto stray = detail::changed_entries(request.output_dir, output_before, ours);
  if (!stray.empty()) {
    return fail(fmt::format("{}: a backend wrote {} there itself, outside its own output folder; no wheel was published",
                            request.output_dir.string(), fmt::join(stray, ", ")));
  }
  std::vector<BuiltVariant> matrix;
  for (std::size_t i = 0; i < staged.size(); ++i) {
    if (staged[i] && staged[i]->metadata) matrix.push_back({report.outcomes[offset + i].job.label, *staged[i]->metadata});
  }
  if (auto ok = check_matrix(matrix); !ok) {
    return fail(Error(fmt::format("{}; no wheel was published to {}", ok.error().message, request.output_dir.string())));
  }
  if (request.sdist) {
    // The sdist is what the wheels were built from: one that some wheel could not be built from
    // is not published (the wheels that were built are).
    auto& sdist = report.outcomes.front();
    if (const auto failed = report.failed(); failed > 0) {
      sdist.wheel = fail(fmt::format("the sdist: not published, since {} of the {} wheel builds from it failed", failed,
                                     jobs->size()));
    } else {
      const auto target = request.output_dir / sdist.wheel->filename();
      fs::rename(*sdist.wheel, target);
      sdist.wheel = target;
    }
  }
  for (std::size_t i = 0; i < staged.size(); ++i) {
    if (!staged[i]) continue;
    const auto target = request.output_dir / staged[i]->path.filename();
    fs::rename(staged[i]->path, target);
    report.outcomes[offset + i].wheel = target;
  }

  for (auto& w : warnings) report.warnings.insert(report.warnings.end(), w.begin(), w.end());
  std::sort(report.warnings.begin(), report.warnings.end());
  report.warnings.erase(std::unique(report.warnings.begin(), report.warnings.end()), report.warnings.end());

  return report;
}

}  // namespace vwheel::build
