#include "sources.hpp"

#include <cstdlib>

#include <fmt/format.h>

#include "git.hpp"
#include "sdist_build.hpp"
#include "vwheel/api/build.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/http/client.hpp"
#include "vwheel/install/layout.hpp"
#include "vwheel/simple/core_metadata.hpp"
#include "vwheel/simple/project_page.hpp"
#include "vwheel/wheel/wheel.hpp"
#include "vwheel/wheel_name/names.hpp"
#include "vwheel/wheel_name/wheel_name.hpp"

namespace vwheel::api {
namespace fs = std::filesystem;

namespace {

bool is_wheel(const fs::path& p) { return p.filename().string().ends_with(".whl"); }

bool is_archive(std::string_view name) {
  return name.ends_with(".whl") || name.ends_with(".tar.gz") || name.ends_with(".zip");
}

/// The local path a source names: `~/` is the home folder, relative paths the working folder's.
fs::path local_path(const std::string& path) {
  fs::path p(path);
  if (path == "~" || path.starts_with("~/")) {
    const char* home = std::getenv("HOME");
    p = fs::path(home != nullptr ? home : "") / path.substr(std::min<std::size_t>(path.size(), 2));
  }
  return fs::absolute(p).lexically_normal();
}

/// The archive a URL names, downloaded into `work` (`#sha256=` checked while it arrives).
Result<http::Downloaded> download(const plan::SourceRef& ref, const InstallRequest& request, const fs::path& work) {
  std::string_view url = ref.url;
  url = url.substr(0, url.find('?'));
  const auto name = simple::percent_decode(url.substr(url.rfind('/') + 1));
  if (!is_archive(name) || name.find('/') != std::string::npos) {
    return fail(
        fmt::format("`{}`: expected the URL of a wheel (.whl) or an sdist (.tar.gz, .zip)", redact_url(ref.text)));
  }
  auto client = http::Client::create(make_settings(request.sources).http);
  if (!client) return fail(with_kind(client.error(), ErrorKind::environment));
  auto done = client->download({http::DownloadRequest(ref.url, work / name, ref.sha256)});
  if (!done.front()) return fail(done.front().error().with_context(fmt::format("`{}`", redact_url(ref.text))));
  return std::move(*done.front());
}

/// The wheel the frontend builds from `source` (a project directory or an sdist) into `work`.
Result<fs::path> build_wheel(const plan::SourceRef& ref, const fs::path& source, const InstallRequest& request,
                             const fs::path& python, const fs::path& work) {
  std::error_code ec;
  if (fs::is_directory(source, ec) && !fs::exists(source / "pyproject.toml", ec) &&
      !fs::exists(source / "setup.py", ec)) {
    return fail(fmt::format("`{}`: {} has no pyproject.toml or setup.py: not a Python project", redact_url(ref.text),
                            source.string()));
  }
  BuildRequest build;
  build.source = source;
  build.output_dir = work / "dist";
  build.python = python.string();
  build.no_isolation = request.no_build_isolation;
  // The isolated environments are the ones sdists from indexes are built in.
  build.environments_dir = build_environments_dir(request.sources);
  build.sources = request.sources;
  build.index = false;
  build.editable = ref.editable;
  auto built = api::build(build);
  if (!built) return fail(built.error().with_context(fmt::format("building `{}`", redact_url(ref.text))));
  for (const auto& outcome : built->outcomes) {
    if (outcome.job.sdist) continue;
    if (outcome.wheel) return *outcome.wheel;
    // The backend's last line says why (a traceback's exception, a compiler's error).
    std::string_view tail = ascii_trim(outcome.backend_tail);
    if (const auto nl = tail.rfind('\n'); nl != std::string_view::npos) tail = tail.substr(nl + 1);
    std::string_view why = outcome.wheel.error().message;
    why = why.substr(0, why.find('\n'));
    return fail(fmt::format("building `{}`: {}{}", redact_url(ref.text), why,
                            tail.empty() ? "" : fmt::format(" (the backend's last line: {})", ascii_trim(tail))));
  }
  return fail(fmt::format("building `{}`: the backend built no wheel", redact_url(ref.text)));
}

Result<install::WheelRequest> prepare(const plan::SourceRef& ref, const InstallRequest& request, const fs::path& python,
                                      const fs::path& work) {
  fs::create_directories(work);
  if (ref.editable && (!ref.path || !fs::is_directory(local_path(*ref.path)))) {
    if (ref.path && !fs::exists(local_path(*ref.path))) {
      return fail(fmt::format("`{}`: {}: no such directory", ref.text, local_path(*ref.path).string()));
    }
    return fail(fmt::format("`{}`: an editable install needs a local project directory", ref.text));
  }
  fs::path archive;
  std::optional<std::string> sha256;
  std::string url;
  std::optional<install::DirectUrl::Vcs> vcs;
  if (!ref.git_url.empty()) {
    const auto what = redact_url(ref.text);
    const auto cache = request.sources.no_cache ? std::nullopt
                                                : std::optional<fs::path>(request.sources.cache_dir.empty()
                                                                              ? default_cache_dir()
                                                                              : fs::path(request.sources.cache_dir));
    auto checkout = checkout_git(ref.git_url, ref.revision, cache, work, what);
    if (!checkout) return fail(checkout.error());
    archive = ref.subdirectory ? checkout->dir / *ref.subdirectory : checkout->dir;
    std::error_code ec;
    if (!fs::is_directory(archive, ec)) {
      return fail(fmt::format("`{}`: commit {} has no folder `{}`", what, checkout->commit, *ref.subdirectory));
    }
    url = ref.git_url;
    vcs = install::DirectUrl::Vcs{"git", checkout->commit, ref.revision};
  } else if (!ref.url.empty()) {
    auto got = download(ref, request, work);
    if (!got) return fail(got.error());
    archive = got->path;
    sha256 = got->sha256;
    url = ref.url;
  } else {
    const auto path = local_path(*ref.path);
    std::error_code ec;
    if (!fs::exists(path, ec)) return fail(fmt::format("`{}`: {}: no such file or directory", ref.text, path.string()));
    url = install::file_url(path);
    if (fs::is_directory(path, ec)) {
      if (ref.sha256) return fail(fmt::format("`{}`: a directory has no sha256 to check", ref.text));
      archive = path;
    } else {
      if (!is_archive(path.filename().string())) {
        return fail(
            fmt::format("`{}`: expected a project directory, a wheel (.whl) or an sdist (.tar.gz, .zip)", ref.text));
      }
      auto digest = sha256_file(path);
      if (!digest) return fail(with_kind(digest.error(), ErrorKind::environment));
      if (ref.sha256 && *ref.sha256 != digest->sha256) {
        return fail(fmt::format("`{}`: {} has sha256 {}, not {} as its URL says", ref.text, path.string(),
                                digest->sha256, *ref.sha256));
      }
      archive = path;
      sha256 = digest->sha256;
    }
  }
  install::WheelRequest wheel(archive, true, true, is_wheel(archive) ? sha256 : std::nullopt);
  if (!is_wheel(archive)) {
    auto built = build_wheel(ref, archive, request, python, work);
    if (!built) return fail(built.error());
    wheel.path = *built;
  }
  // PEP 610: the URL of what the user named (never credentials: install::direct_url_json drops
  // them), with the archive's hash; a directory has none.
  wheel.origin = install::DirectUrl{url, sha256, ref.editable, std::move(vcs), ref.subdirectory};
  if (ref.name) {
    auto parsed = wheel_name::parse_wheel_name(wheel.path.filename().string());
    if (!parsed) return fail(parsed.error().with_context(fmt::format("`{}`", redact_url(ref.text))));
    if (wheel_name::canonicalize_name(parsed->name) != wheel_name::canonicalize_name(*ref.name)) {
      return fail(fmt::format("`{}`: the distribution is `{}`, not `{}`", redact_url(ref.text), parsed->name, *ref.name));
    }
  }
  return wheel;
}

}  // namespace

Result<std::vector<install::WheelRequest>> prepare_sources(const std::vector<plan::SourceRef>& sources,
                                                           const InstallRequest& request, const fs::path& python,
                                                           const fs::path& work) {
  std::vector<install::WheelRequest> wheels;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    auto wheel = prepare(sources[i], request, python, work / std::to_string(i));
    if (!wheel) return fail(wheel.error());
    wheels.push_back(std::move(*wheel));
  }
  return wheels;
}

Result<std::vector<plan::LocalWheel>> local_wheels(const std::vector<install::WheelRequest>& wheels) {
  std::vector<plan::LocalWheel> out;
  for (const auto& w : wheels) {
    auto opened = wheel::open_wheel(w.path);
    if (!opened) return fail(opened.error());
    const std::string member = opened->dist_info + "/METADATA";
    const auto* entry = opened->archive.find(member);
    if (entry == nullptr) return fail(fmt::format("{}: the wheel has no {}", w.path.string(), member));
    auto text = opened->archive.read(*entry, std::uint64_t{16} << 20);
    if (!text) return fail(text.error().with_context(w.path.string()));
    auto md = simple::parse_core_metadata(*text, fmt::format("{}: {}", w.path.string(), member));
    if (!md) return fail(md.error());
    const auto name = wheel_name::canonicalize_name(md->name);
    for (const auto& other : out) {
      if (wheel_name::canonicalize_name(other.metadata.name) != name) continue;
      return fail(fmt::format("`{}` and `{}` are both the project {}: give one", redact_url(other.origin.url),
                              redact_url(w.origin ? w.origin->url : w.path.string()), md->name));
    }
    auto origin =
        w.origin.value_or(install::DirectUrl{install::file_url(fs::absolute(w.path).lexically_normal()), w.sha256});
    out.push_back(plan::LocalWheel{w.path, w.sha256, std::move(*md), std::move(origin)});
  }
  return out;
}

}  // namespace vwheel::api
