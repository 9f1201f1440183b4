#include "lock_sources.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "git.hpp"
#include "sources.hpp"
#include "vwheel/core/fd.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/process.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/http/client.hpp"
#include "vwheel/install/layout.hpp"
#include "vwheel/pep440/version.hpp"
#include "vwheel/simple/project_page.hpp"
#include "vwheel/wheel_name/names.hpp"
#include "vwheel/wheel_name/wheel_name.hpp"

namespace vwheel::api {
namespace fs = std::filesystem;

namespace {

using Kind = plan::LockedSource::Kind;

/// The file a lock's sdist or archive names, on local disk: downloaded into `work`, or its path.
Result<fs::path> get_file(const plan::LockedSource& source, const SyncRequest& request, const fs::path& work) {
  if (source.url.empty()) {
    const fs::path& path = *source.path;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return fail(fmt::format("{}: {}: no such file", source.entry, path.string()));
    return path;
  }
  std::string_view url = source.url;
  url = url.substr(0, url.find_first_of("?#"));
  const auto name = simple::percent_decode(url.substr(url.rfind('/') + 1));
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
    return fail(fmt::format("{}: `{}` does not name a file", source.entry, redact_url(source.url)));
  }
  auto client = http::Client::create(make_settings(request.sources).http);
  if (!client) return fail(with_kind(client.error(), ErrorKind::environment));
  fs::create_directories(work);
  // Checked below, with every hash and the size, as a local file is.
  auto done = client->download({http::DownloadRequest(source.url, work / name)});
  if (!done.front()) return fail(done.front().error().with_context(source.entry));
  return done.front()->path;
}

/// PEP 751: the file's size and hashes are what the lock says. A sha256 is required (as for the
/// lock's wheels); sha384 and sha512 are checked too; other algorithms are not computed.
Result<std::string> check_file(const plan::LockedSource& source, const fs::path& file) {
  const auto sha256 = source.hashes.find("sha256");
  if (sha256 == source.hashes.end()) {
    return fail(fmt::format("{}: no sha256 hash; vwheel sync verifies every file", source.entry));
  }
  auto digest = sha256_file(file);
  if (!digest) return fail(with_kind(digest.error(), ErrorKind::environment));
  const std::string name = file.filename().string();
  if (source.size && *source.size != digest->size) {
    return fail(
        fmt::format("{}: {} is {} bytes, not {} as the lock says", source.entry, name, digest->size, *source.size));
  }
  if (digest->sha256 != sha256->second) {
    return fail(fmt::format("{}: {} has sha256 {}, not {} as the lock says", source.entry, name, digest->sha256,
                            sha256->second));
  }
  // SHA-384 and SHA-512 (listed beside the sha256 by some lockers): one more streaming read, in
  // bounded memory whatever the archive's size, and only when the lock lists them.
  const auto sha384 = source.hashes.find("sha384");
  const auto sha512 = source.hashes.find("sha512");
  if (sha384 != source.hashes.end() || sha512 != source.hashes.end()) {
    auto opened = open_regular_file(file);
    if (!opened) return fail(with_kind(opened.error(), ErrorKind::environment));
    Sha512 h384(true);
    Sha512 h512;
    std::vector<char> buffer(1 << 20);
    for (;;) {
      const auto n = ::read(opened->fd.get(), buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        return fail(
            with_kind(Error(fmt::format("{}: cannot read {}: {}", source.entry, file.string(), errno_text(errno))),
                      ErrorKind::environment));
      }
      if (n == 0) break;
      const std::string_view piece(buffer.data(), static_cast<std::size_t>(n));
      if (sha384 != source.hashes.end()) h384.update(piece);
      if (sha512 != source.hashes.end()) h512.update(piece);
    }
    const auto check = [&](auto listed, const char* algorithm, const std::string& actual) -> Result<void> {
      if (listed == source.hashes.end() || actual == listed->second) return {};
      return fail(fmt::format("{}: {} has {} {}, not {} as the lock says", source.entry, name, algorithm, actual,
                              listed->second));
    };
    if (auto ok = check(sha384, "sha384", sha384 != source.hashes.end() ? to_hex(h384.finish384()) : ""); !ok) {
      return fail(ok.error());
    }
    if (auto ok = check(sha512, "sha512", sha512 != source.hashes.end() ? to_hex(h512.finish()) : ""); !ok) {
      return fail(ok.error());
    }
  }
  return std::move(digest->sha256);
}

/// A checkout of the entry's `commit-id` in `work/checkout` (PEP 751: the commit;
/// `requested-revision` is never checked out), through the repositories kept in the cache as for
/// `git+` references (checkout_git). Git only.
Result<fs::path> checkout(const plan::LockedSource& source, const SyncRequest& request, const fs::path& work) {
  if (source.vcs_type != "git") {
    return fail(
        fmt::format("{}: vcs type `{}` is not supported (vwheel installs from git)", source.entry, source.vcs_type));
  }
  // PEP 751: a commit hash where the VCS has them; never read as an option of git's.
  const auto& id = source.commit_id;
  if ((id.size() != 40 && id.size() != 64) || !std::all_of(id.begin(), id.end(), is_ascii_hex_digit)) {
    return fail(fmt::format("{}: commit-id `{}` is not a git commit hash (40 or 64 hex digits)", source.entry, id));
  }
  std::string repository = source.url.empty() ? install::file_url(*source.path) : source.url;
  if (repository.starts_with("git+")) repository.erase(0, 4);
  std::optional<fs::path> cache;
  if (!request.sources.no_cache) {
    cache = request.sources.cache_dir.empty() ? default_cache_dir() : fs::path(request.sources.cache_dir);
  }
  fs::create_directories(work);
  auto got = checkout_git(repository, ascii_lower(id), cache, work, source.entry);
  if (!got) return fail(got.error());
  if (!got->commit.starts_with(ascii_lower(id))) {
    return fail(fmt::format("{}: checked out {}, not the commit-id {}", source.entry, got->commit, id));
  }
  return got->dir;
}

// Unpacks a .zip (zipfile drops `..` and absolute names) or a tar archive, whose members must all
// be plain files or folders inside it (tarfile's `filter=` is not in every Python a venv has).
constexpr const char* kUnpack = R"(import sys, tarfile, zipfile
archive, dest = sys.argv[1], sys.argv[2]
if zipfile.is_zipfile(archive):
    with zipfile.ZipFile(archive) as z:
        z.extractall(dest)
else:
    with tarfile.open(archive) as t:
        members = t.getmembers()
        for m in members:
            if m.name.startswith("/") or ".." in m.name.split("/") or not (m.isfile() or m.isdir()):
                sys.exit("refused: the archive member %r is not a plain file or folder inside it" % m.name)
        t.extractall(dest, members=members)
)";

/// The source tree of an archive unpacked into `work/tree` by `python`: its one top folder when
/// everything is in one (as in an sdist or a repository's tarball), else the folder itself; then
/// `subdirectory` within it (PEP 751), which must be there.
Result<fs::path> unpacked_tree(const plan::LockedSource& source, const fs::path& archive, const fs::path& python,
                               const fs::path& work) {
  const fs::path dest = work / "tree";
  fs::create_directories(dest);
  ProcessRequest run;
  run.argv = {python.string(), "-I", "-c", kUnpack, archive.string(), dest.string()};
  run.env = current_environment();
  run.timeout = std::chrono::minutes(10);
  auto done = run_process(run);
  if (!done) return fail(with_kind(done.error().with_context(source.entry), ErrorKind::environment));
  if (done->exit_code != 0) {
    return fail(
        fmt::format("{}: cannot unpack {}: {}", source.entry, archive.filename().string(), last_line(done->err)));
  }
  fs::path root = dest;
  std::vector<fs::path> top;
  for (const auto& entry : fs::directory_iterator(dest)) top.push_back(entry.path());
  std::error_code ec;
  if (top.size() == 1 && fs::is_directory(top.front(), ec)) root = top.front();
  const fs::path tree = (root / *source.subdirectory).lexically_normal();
  if (!install::is_within(tree, dest) || !fs::is_directory(tree, ec)) {
    return fail(fmt::format("{}: the archive has no subdirectory `{}`", source.entry, *source.subdirectory));
  }
  return tree;
}

/// The wheel of one entry, with its PEP 610 origin.
Result<install::WheelRequest> prepare_one(const plan::LockedSource& source, const SyncRequest& request,
                                          const fs::path& python, const fs::path& work) {
  InstallRequest build;
  build.sources = request.sources;
  build.no_build_isolation = request.no_build_isolation;
  plan::SourceRef ref;
  ref.text = source.entry;
  std::optional<install::DirectUrl> origin;
  const auto url_of = [&](const fs::path& local) {
    return source.url.empty() ? install::file_url(local) : url_without_userinfo(source.url);
  };
  switch (source.kind) {
    case Kind::sdist:
    case Kind::archive: {
      auto file = get_file(source, request, work / "download");
      if (!file) return fail(file.error());
      auto sha256 = check_file(source, *file);
      if (!sha256) return fail(sha256.error());
      ref.path = file->string();
      // A wheel has no source tree: its `subdirectory`, if any, means nothing.
      if (source.subdirectory && !file->filename().string().ends_with(".whl")) {
        auto tree = unpacked_tree(source, *file, python, work);
        if (!tree) return fail(tree.error());
        ref.path = tree->string();
      }
      if (source.kind == Kind::archive) origin = install::DirectUrl{url_of(*file), *sha256};
      if (origin) origin->subdirectory = source.subdirectory;
      break;
    }
    case Kind::directory: {
      fs::path tree = *source.path;
      if (source.subdirectory) tree = (tree / *source.subdirectory).lexically_normal();
      std::error_code ec;
      if (!fs::is_directory(tree, ec)) {
        return fail(fmt::format("{}: {}: no such directory", source.entry, tree.string()));
      }
      ref.path = tree.string();
      ref.editable = source.editable;
      origin = install::DirectUrl{install::file_url(*source.path), std::nullopt, source.editable};
      origin->subdirectory = source.subdirectory;
      break;
    }
    case Kind::vcs: {
      auto tree = checkout(source, request, work);
      if (!tree) return fail(tree.error());
      const fs::path project = source.subdirectory ? (*tree / *source.subdirectory).lexically_normal() : *tree;
      std::error_code ec;
      if (!install::is_within(project, *tree) || !fs::is_directory(project, ec)) {
        return fail(fmt::format("{}: the commit has no subdirectory `{}`", source.entry, *source.subdirectory));
      }
      ref.path = project.string();
      std::string url = source.url.empty() ? install::file_url(*source.path) : url_without_userinfo(source.url);
      if (url.starts_with("git+")) url.erase(0, 4);
      origin = install::DirectUrl{url, std::nullopt};
      origin->vcs = install::DirectUrl::Vcs{source.vcs_type, source.commit_id, source.requested_revision};
      origin->subdirectory = source.subdirectory;
      break;
    }
  }
  auto built = prepare_sources({ref}, build, python, work / "build");
  if (!built) return fail(built.error());
  auto wheel = std::move(built->front());
  wheel.origin = origin;
  wheel.direct = origin.has_value();
  return wheel;
}

/// The planned package's wheel is the built one: its name must be the entry's, and its version
/// too when the entry has one.
Result<void> take_wheel(plan::Selected& s, const install::WheelRequest& wheel) {
  const auto& source = *s.source;
  auto name = wheel_name::parse_wheel_name(wheel.path.filename().string());
  if (!name) return fail(name.error().with_context(source.entry));
  if (wheel_name::canonicalize_name(name->name) != s.name) {
    return fail(fmt::format("{}: the distribution is `{}`, not `{}`", source.entry, name->name, s.name));
  }
  auto version = pep440::Version::parse(name->version);
  if (!version) return fail(version.error().with_context(source.entry));
  if (!s.version.empty()) {
    auto locked = pep440::Version::parse(s.version);
    if (locked && *locked != *version) {
      return fail(fmt::format("{}: the distribution's version is {}, not {} as the lock says", source.entry,
                              name->version, s.version));
    }
  } else {
    s.version = version->to_string();
  }
  finder::File f;
  f.filename = wheel.path.filename().string();
  f.path = wheel.path;
  f.version = std::move(*version);
  f.wheel = std::move(*name);
  s.wheel = std::move(f);
  s.origin = wheel.origin;
  return {};
}

}  // namespace

Result<void> prepare_lock_sources(plan::Plan& plan, const install::Environment& env, const SyncRequest& request,
                                  const fs::path& work) {
  std::map<std::string, std::string> present;
  for (const auto& d : install::list_distributions(env)) {
    if (!d.variant_label) present.emplace(wheel_name::canonicalize_name(d.name), d.version);
  }
  for (std::size_t i = 0; i < plan.packages.size(); ++i) {
    auto& s = plan.packages[i];
    if (!s.source) continue;
    // apply_plan leaves an installed version alone: nothing to build for it.
    if (!request.options.force_reinstall && !s.version.empty()) {
      auto it = present.find(s.name);
      if (it != present.end() && it->second == s.version) continue;
    }
    auto wheel = prepare_one(*s.source, request, env.python, work / std::to_string(i));
    if (!wheel) return fail(wheel.error());
    if (auto ok = take_wheel(s, *wheel); !ok) return fail(ok.error());
  }
  return {};
}

}  // namespace vwheel::api
