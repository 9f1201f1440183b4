// Sdists from indexes and --find-links: fetched, read, built and kept (sdist_build.hpp).

#include "sdist_build.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "vwheel/api/build.hpp"
#include "vwheel/api/rank.hpp"
#include "vwheel/build/plan.hpp"
#include "vwheel/core/cache_layout.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/process.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/http/client.hpp"
#include "vwheel/metadata/document.hpp"
#include "vwheel/plan/sdist.hpp"
#include "vwheel/wheel/wheel.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::api {
namespace fs = std::filesystem;

namespace {

// Prints the sdist's `{top}/NAME` (the one at the top level, not an egg-info's), nothing when it
// has none. Python's tarfile reads what the frontend unpacks with.
constexpr const char* kReadTopFile = R"PY(
import sys, tarfile
with tarfile.open(sys.argv[1], "r:gz") as t:
    for m in t:
        parts = m.name.split("/")
        if len(parts) == 2 and parts[1] == sys.argv[2] and m.isfile():
            sys.stdout.write(t.extractfile(m).read().decode("utf-8", "replace"))
            break
)PY";

/// The top-level file `name` (`PKG-INFO`, `pyproject.toml`) of a `.tar.gz` sdist, or nullopt when
/// it has none (or is another format).
Result<std::optional<std::string>> read_top_file(const fs::path& python, const fs::path& sdist, const char* name) {
  if (!sdist.filename().string().ends_with(".tar.gz")) return std::optional<std::string>{};
  ProcessRequest req;
  req.argv = {python.string(), "-I", "-c", kReadTopFile, sdist.string(), name};
  auto run = run_process(req);
  if (!run) return fail(with_kind(run.error(), ErrorKind::environment));
  if (run->exit_code != 0) {
    const auto err = ascii_trim(run->err);
    return fail(fmt::format("{}: cannot be read as a .tar.gz sdist: {}", sdist.filename().string(),
                            err.substr(err.rfind('\n') == std::string_view::npos ? 0 : err.rfind('\n') + 1)));
  }
  if (run->out.empty()) return std::optional<std::string>{};
  return std::optional<std::string>(std::move(run->out));
}

/// The METADATA of a wheel.
Result<std::string> wheel_metadata(const fs::path& path) {
  auto w = wheel::open_wheel(path);
  if (!w) return fail(w.error());
  const auto* entry = w->archive.find(w->dist_info + "/METADATA");
  if (!entry) return fail(fmt::format("{}: no {}/METADATA", path.filename().string(), w->dist_info));
  return w->archive.read(*entry);
}

/// The one wheel in `dir`, if any.
std::optional<fs::path> only_wheel(const fs::path& dir) {
  std::error_code ec;
  std::optional<fs::path> found;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!e.path().filename().string().ends_with(".whl")) continue;
    if (found) return std::nullopt;
    found = e.path();
  }
  return found;
}

/// The last line of a backend's output.
std::string_view last_line(std::string_view text) {
  text = ascii_trim(text);
  if (const auto nl = text.rfind('\n'); nl != std::string_view::npos) text = text.substr(nl + 1);
  return ascii_trim(text);
}

}  // namespace

fs::path build_environments_dir(const SourceRequest& sources) {
  if (sources.no_cache) return {};
  const fs::path root = sources.cache_dir.empty() ? default_cache_dir() : fs::path(sources.cache_dir);
  std::string from;
  for (const auto& source : make_settings(sources).sources) {
    from += fmt::format("{} {}\n", source.kind == finder::Source::Kind::index ? "index" : "links",
                        redact_url(source.location));
  }
  return CacheLayout(root).area(CacheArea::built) / "environments" / sha256_hex(from).substr(0, 16);
}

Result<std::string> SdistBuilder::sha256(const finder::File& sdist) {
  auto fetched = fetch(sdist);
  if (!fetched) return fail(fetched.error());
  return (*fetched)->sha256;
}

Result<const SdistBuilder::Fetched*> SdistBuilder::fetch(const finder::File& sdist) {
  const std::lock_guard lock(fetching_);
  const auto location = sdist.location();
  if (auto it = fetched_.find(location); it != fetched_.end()) return &it->second;
  Fetched got;
  if (sdist.path) {
    auto digest = sha256_file(*sdist.path);
    if (!digest) return fail(with_kind(digest.error(), ErrorKind::environment));
    if (auto want = sdist.sha256(); want && *want != digest->sha256) {
      return fail(
          fmt::format("{}: sha256 {} does not match the expected {}", sdist.path->string(), digest->sha256, *want));
    }
    got = {*sdist.path, digest->sha256};
  } else {
    if (!work_) {
      auto dir = TempDir::create(fs::temp_directory_path(), "vwheel-sdists-");
      if (!dir) return fail(with_kind(dir.error(), ErrorKind::environment));
      work_.emplace(std::move(*dir));
    }
    auto client = http::Client::create(make_settings(options_.sources).http);
    if (!client) return fail(with_kind(client.error(), ErrorKind::environment));
    const auto dest = work_->path() / std::to_string(fetched_.size()) / sdist.filename;
    fs::create_directories(dest.parent_path());
    // The index's sha256 is checked while it arrives, as for wheels.
    auto done = client->download({http::DownloadRequest(sdist.url, dest, sdist.sha256(), sdist.size)});
    if (!done.front()) return fail(done.front().error().with_context(sdist.filename));
    got = {dest, done.front()->sha256};
  }
  return &fetched_.emplace(location, std::move(got)).first->second;
}

Result<std::string> SdistBuilder::known_sha256(const finder::File& sdist) {
  // The index's hash names the file (a download is checked against it): a wheel built before
  // from it is found without downloading the sdist again.
  if (auto claimed = sdist.sha256(); claimed && !sdist.path) return *claimed;
  return sha256(sdist);
}

std::string SdistBuilder::cache_key(const std::string& sdist_sha256, const std::string& label) const {
  // The build's inputs: the sdist, the variant built from it, the interpreter (its installation, not the venv: a new
  // environment of the same Python builds the same wheel) and the tags it builds for; without
  // isolation the environment's packages take part, so the environment itself is an input.
  const auto& in = options_.interpreter;
  std::string inputs = fmt::format(
      "sdist {}\npython {} {}\ntags {}\n", sdist_sha256, in.base_prefix.string(),
      in.environment.contains("python_full_version") ? in.environment.at("python_full_version") : std::string(),
      fmt::join(in.tags, ","));
  if (options_.no_build_isolation) inputs += fmt::format("environment {}\n", in.prefix.string());
  if (!label.empty()) inputs += fmt::format("variant {}\n", label);
  return sha256_hex(inputs);
}

Result<SdistVariant> SdistBuilder::variant(const finder::File& sdist) {
  {
    const std::lock_guard lock(choosing_);
    if (auto it = variants_.find(sdist.location()); it != variants_.end()) return it->second;
  }
  // Chosen outside the lock (the builds fetch side by side); two threads may choose the same.
  auto chosen = choose_variant(sdist);
  if (!chosen) return fail(chosen.error());
  const std::lock_guard lock(choosing_);
  return variants_.emplace(sdist.location(), std::move(*chosen)).first->second;
}

Result<SdistVariant> SdistBuilder::choose_variant(const finder::File& sdist) {
  if (!options_.selection) return SdistVariant{};
  // An sdist without variants is remembered as such (by its sha256), so that a later install
  // takes its kept wheel without downloading it or running Python, as before variants.
  auto sha = known_sha256(sdist);
  if (!sha) return fail(sha.error());
  const auto plain = CacheLayout(options_.cache_root).entry(CacheArea::built, sha256_hex("no variants " + *sha));
  std::error_code ec;
  if (fs::exists(plain, ec)) return SdistVariant{};
  const auto remember_plain = [&] {
    fs::create_directories(plain.parent_path(), ec);
    (void)write_file_atomic(plain, "", Durability::none);  // (not kept: read again next time, no harm)
    return SdistVariant{};
  };
  auto fetched = fetch(sdist);
  if (!fetched) return fail(fetched.error());
  auto text = read_top_file(options_.interpreter.executable, (*fetched)->path, "pyproject.toml");
  if (!text) return fail(text.error());
  if (!*text) return remember_plain();
  // Read as the frontend reads it: the same table gives the same variants to build.
  const auto shown = sdist.filename + ":pyproject.toml";
  auto project = build::parse_build_project(**text, shown);
  if (!project) return fail(project.error());
  if (!project->has_variant_table) return remember_plain();
  auto document = metadata::parse_pyproject(**text);
  if (!document) return fail(document.error().with_context(shown));
  auto declared = std::move(document->metadata);
  for (const auto& v : project->variants) declared.variants.insert_or_assign(v.label, v.properties);
  // Ranked as `vwheel rank` ranks a *-variants.json: the same engine, the run's selection (a
  // copy: ranking completes its environment from the metadata).
  auto selection = *options_.selection;
  const auto name = wheel_name::canonicalize_name(sdist.filename.substr(0, sdist.filename.rfind('-')));
  auto ranked = rank_metadata(declared, shown, name, selection);
  if (!ranked) return fail(ranked.error());
  SdistVariant chosen;
  chosen.declared = project->variants.size();
  const auto count = fmt::format("{} variant{}", chosen.declared, chosen.declared == 1 ? "" : "s");
  if (ranked->ranking.order.empty()) {
    chosen.label = variant::kNullLabel;
    chosen.why = fmt::format("none of its {} fits {}", count, selection.description);
  } else {
    chosen.label = ranked->ranking.order.front();
    for (const auto& property : declared.variants.at(chosen.label)) chosen.properties.push_back(property.to_string());
    chosen.why = fmt::format("the best of its {} for {}", count, selection.description);
  }
  return chosen;
}

void SdistBuilder::prefetch(const finder::File& sdist) {
  const std::lock_guard lock(prefetching_);
  auto& slot = prefetched_[sdist.location()];
  if (slot.valid()) return;
  slot = std::async(std::launch::async, [this, sdist] {
           cores_.acquire();
           struct Release {
             std::counting_semaphore<>& cores;
             ~Release() { cores.release(); }
           } release{cores_};
           return read_metadata(sdist);
         }).share();
}

Result<std::string> SdistBuilder::metadata(const finder::File& sdist) {
  std::shared_future<Result<std::string>> started;
  {
    const std::lock_guard lock(prefetching_);
    if (auto it = prefetched_.find(sdist.location()); it != prefetched_.end()) started = it->second;
  }
  if (started.valid()) return started.get();
  return read_metadata(sdist);
}

Result<std::string> SdistBuilder::read_metadata(const finder::File& sdist) {
  // A wheel built before says it all, without running Python.
  auto sha = known_sha256(sdist);
  if (!sha) return fail(sha.error());
  auto chosen = variant(sdist);
  if (!chosen) return fail(chosen.error());
  const CacheLayout layout(options_.cache_root);
  if (auto kept = only_wheel(layout.entry(CacheArea::built, cache_key(*sha, chosen->label)))) {
    return wheel_metadata(*kept);
  }
  auto fetched = fetch(sdist);
  if (!fetched) return fail(fetched.error());
  auto pkg_info = read_top_file(options_.interpreter.executable, (*fetched)->path, "PKG-INFO");
  if (!pkg_info) return fail(pkg_info.error());
  if (*pkg_info && plan::sdist_metadata_is_static(**pkg_info)) return std::move(**pkg_info);
  // Dynamic dependencies: the backend says them, with prepare_metadata_for_build_wheel when it
  // has it (no build of a version the resolution may leave), else by building the wheel.
  const auto name = sdist.filename.substr(0, sdist.filename.rfind('-'));
  const auto version = sdist.version.to_string();
  if (options_.no_build) {
    return fail(
        fmt::format("{} {}: its source distribution {} does not list its dependencies statically (PEP 643): "
                    "it would be built, and --no-build is set",
                    name, version, sdist.filename));
  }
  {
    auto prepared = run_frontend(sdist, **fetched, name, version, chosen->label, true);
    if (!prepared) return fail(prepared.error());
    if (prepared->metadata) return std::move(*prepared->metadata);
  }
  auto built = wheel(sdist, name, version);
  if (!built) return fail(built.error());
  return wheel_metadata(*built);
}

Result<api::BuildReport> SdistBuilder::run_frontend(const finder::File& sdist, const Fetched& fetched,
                                                    const std::string& name, const std::string& version,
                                                    const std::string& label, bool metadata_only) {
  const auto area = CacheLayout(options_.cache_root).area(CacheArea::built);
  std::error_code ec;
  fs::create_directories(area / "logs", ec);
  const auto log = area / "logs" / fmt::format("{}-{}.log", name, version);
  fs::remove(log, ec);
  auto work = TempDir::create(area, ".build-");
  if (!work) return fail(with_kind(work.error(), ErrorKind::environment));
  BuildRequest build;
  build.source = fetched.path;
  build.output_dir = work->path() / "dist";
  build.python = options_.interpreter.executable.string();
  build.no_isolation = options_.no_build_isolation;
  build.environments_dir = build_environments_dir(options_.sources);
  build.sources = options_.sources;
  build.index = false;
  build.timeout = options_.timeout;
  build.timeout_option = "--build-timeout";
  build.log = log;
  build.metadata_only = metadata_only;
  // The variant as `vwheel build --variant LABEL` (`--null`) of the tree builds it.
  if (label == variant::kNullLabel) {
    build.selection.null_variant = true;
  } else if (!label.empty()) {
    build.selection.labels = {label};
  }
  const auto what = fmt::format("{} {} {} ({})", metadata_only ? "preparing the metadata of" : "building", name,
                                version, sdist.filename);
  const auto say = [this](const std::string& line) {
    if (!options_.progress) return;
    static std::mutex saying;
    const std::lock_guard lock(saying);
    options_.progress(line);
  };
  say(what);
  const auto started = std::chrono::steady_clock::now();
  auto built = api::build(build);
  if (!built) return fail(built.error().with_context(what));
  if (built->failed() == 0) {
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
    say(fmt::format("{} {} {} ({}) in {:.1f} s", metadata_only ? "prepared the metadata of" : "built", name, version,
                    sdist.filename, took.count()));
  }
  for (auto& outcome : built->outcomes) {
    if (outcome.job.sdist) continue;
    if (!outcome.wheel) {
      std::string_view why = outcome.wheel.error().message;
      why = why.substr(0, why.find('\n'));
      const auto tail = last_line(outcome.backend_tail);
      auto kept_log = log;
      // With --no-cache the cache root is the run's own folder, removed when it ends: the log
      // moves to a folder of its own in the temporary directory, which stays.
      if (options_.sources.no_cache) {
        if (auto dir = TempDir::create(fs::temp_directory_path(), "vwheel-build-log-")) {
          const auto folder = dir->path();
          dir->release();
          std::error_code moved;
          fs::rename(log, folder / log.filename(), moved);
          if (!moved) kept_log = folder / log.filename();
        }
      }
      Error e(fmt::format("{}: {}{}; its whole output is in {}", what, why,
                          tail.empty() ? "" : fmt::format(" (the backend's last line: {})", tail), kept_log.string()));
      // The last lines (at most 20, as the frontend keeps them) follow as details.
      std::string_view rest = options_.verbose ? ascii_trim(outcome.backend_tail) : std::string_view{};
      while (!rest.empty()) {
        const auto nl = rest.find('\n');
        e.details.emplace_back(fmt::format("  | {}", rest.substr(0, nl)));
        rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
      }
      return fail(std::move(e));
    }
    if (!metadata_only) {
      // Kept under its key: moved in whole, so that a reader sees the wheel or nothing.
      const auto entry = CacheLayout(options_.cache_root).entry(CacheArea::built, cache_key(fetched.sha256, label));
      const auto staged = work->path() / "entry";
      fs::create_directories(staged);
      fs::rename(*outcome.wheel, staged / outcome.wheel->filename());
      fs::create_directories(entry.parent_path());
      fs::rename(staged, entry, ec);  // (another run may have kept the same build meanwhile)
    }
    fs::remove(log, ec);
    return std::move(*built);
  }
  return fail(fmt::format("{}: the backend built no wheel", what));
}

Result<fs::path> SdistBuilder::wheel(const finder::File& sdist, const std::string& name, const std::string& version) {
  if (options_.no_build) {
    return fail(fmt::format("{} {}: only its source distribution {} can be installed, and --no-build is set", name,
                            version, sdist.filename));
  }
  auto sha = known_sha256(sdist);
  if (!sha) return fail(sha.error());
  auto chosen = variant(sdist);
  if (!chosen) return fail(chosen.error());
  const auto entry = CacheLayout(options_.cache_root).entry(CacheArea::built, cache_key(*sha, chosen->label));
  if (auto kept = only_wheel(entry)) return *kept;
  auto fetched = fetch(sdist);
  if (!fetched) return fail(fetched.error());
  auto built = run_frontend(sdist, **fetched, name, version, chosen->label, false);
  if (!built) return fail(built.error());
  if (auto kept = only_wheel(entry)) return *kept;
  return fail(with_kind(
      Error(fmt::format("building {} {}: the built wheel could not be kept in {}", name, version, entry.string())),
      ErrorKind::environment));
}

}  // namespace vwheel::api
