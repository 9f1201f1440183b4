#include "vwheel/api/download.hpp"

#include <algorithm>
#include <map>
#include <system_error>

#include <fmt/format.h>

#include "run.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/http/client.hpp"
#include "vwheel/metadata/document.hpp"
#include "vwheel/metadata/serialize.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::api {
namespace fs = std::filesystem;

namespace {

tl::unexpected<Error> fail_as(Error error, ErrorKind kind) { return fail(with_kind(std::move(error), kind)); }

/// One file the folder is to hold, and where it comes from: a URL, a local file, or a text
/// written here (a lock's variants-json).
struct Wanted {
  std::string filename;
  std::string url;
  std::optional<fs::path> path;
  std::optional<std::string> text;
  std::optional<std::string> sha256;
  std::optional<std::uint64_t> size;
  std::string origin;  ///< for messages: the URL (redacted), path or lock entry
};

/// The serialized form a lock's variant metadata had (the same schema it was read with).
std::string variants_json_text(const variant::VariantMetadata& metadata) {
  if (metadata::is_draft_schema(metadata.schema)) return metadata::to_json_draft003(metadata);
  if (variant::is_providers_schema(metadata.schema)) return metadata::to_json_v020(metadata);
  return metadata::to_json_pep825(metadata);
}

Wanted wanted_of(const finder::File& file) {
  Wanted w;
  w.filename = file.filename;
  w.url = file.url;
  w.path = file.path;
  w.sha256 = file.sha256();
  w.size = file.size;
  w.origin = file.path ? file.path->string() : redact_url(file.url);
  return w;
}

/// Adds `w`, once per file name; the same name with another sha256 (two targets resolved to
/// different files that share a name, from different indexes) cannot both be in one folder.
Result<void> add(std::map<std::string, Wanted>& wanted, Wanted w) {
  auto [it, inserted] = wanted.try_emplace(w.filename, w);
  if (inserted) return {};
  const auto& had = it->second;
  if (had.sha256 && w.sha256 && *had.sha256 != *w.sha256) {
    return fail(
        fmt::format("{}: two targets need different files of this name ({} and {}); download them into "
                    "separate folders",
                    w.filename, had.origin, w.origin));
  }
  if (!had.sha256 && w.sha256) it->second = std::move(w);
  return {};
}

/// The plan's files: each package's wheel, and its version's variants.json.
Result<void> add_plan(std::map<std::string, Wanted>& wanted, const plan::Plan& p) {
  for (const auto& s : p.packages) {
    auto w = wanted_of(s.wheel);
    // An index without hashes: the requirement file's one `--hash` is what the file must have.
    if (!w.sha256 && s.allowed_sha256.size() == 1) w.sha256 = s.allowed_sha256.front();
    if (auto ok = add(wanted, std::move(w)); !ok) return ok;
    if (s.label && s.variants_json_file) {
      if (auto ok = add(wanted, wanted_of(*s.variants_json_file)); !ok) return ok;
    }
  }
  return {};
}

/// A lock plan's files: wheels, sdists, and the variants.json of each variant wheel's entry
/// (written from the lock). Archives, directories and VCS entries go to `skipped`.
Result<void> add_lock_plan(std::map<std::string, Wanted>& wanted, std::vector<std::string>& skipped,
                           const plan::Plan& p, const lock::Lock& lock) {
  for (const auto& s : p.packages) {
    if (s.source) {
      const auto& src = *s.source;
      if (src.kind != plan::LockedSource::Kind::sdist) {
        const auto line =
            fmt::format("{}: not a file to download (an archive, directory or VCS entry), left out", src.entry);
        if (std::find(skipped.begin(), skipped.end(), line) == skipped.end()) skipped.push_back(line);
        continue;
      }
      Wanted w;
      w.url = src.url;
      w.path = src.path;
      const std::string location = src.path ? src.path->string() : src.url;
      w.filename = src.path ? src.path->filename().string() : location.substr(location.rfind('/') + 1);
      if (auto it = src.hashes.find("sha256"); it != src.hashes.end()) w.sha256 = it->second;
      w.size = src.size;
      w.origin = src.entry;
      if (auto ok = add(wanted, std::move(w)); !ok) return ok;
      continue;
    }
    auto w = wanted_of(s.wheel);
    if (!s.listed_at.empty()) w.origin = s.listed_at;
    if (auto ok = add(wanted, std::move(w)); !ok) return ok;
    if (!s.label) continue;
    for (const auto& entry : lock.packages) {
      if (!entry.variants_json || entry.version != s.version || wheel_name::canonicalize_name(entry.name) != s.name) {
        continue;
      }
      Wanted v;
      v.filename = fmt::format("{}-{}-variants.json", wheel_name::escape_wheel_name(s.name), s.version);
      v.text = variants_json_text(*entry.variants_json);
      v.sha256 = sha256_hex(*v.text);
      v.origin = s.variants_json_location;
      if (auto ok = add(wanted, std::move(v)); !ok) return ok;
      break;
    }
  }
  return {};
}

/// Whether `path` is a regular file with that sha256.
bool has_sha256(const fs::path& path, const std::optional<std::string>& sha256) {
  if (!sha256) return false;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  auto digest = sha256_file(path);
  return digest && digest->sha256 == ascii_lower(*sha256);
}

/// Copies a local file (or writes a text) to `<dest>.part`, checks it, renames it to `dest`.
Result<std::uint64_t> place_local(const Wanted& w, const fs::path& dest) {
  const fs::path part = dest.string() + ".part";
  if (w.text) {
    if (auto ok = write_file_atomic(dest, *w.text); !ok) return fail_as(ok.error(), ErrorKind::environment);
    return w.text->size();
  }
  std::error_code ec;
  fs::copy_file(*w.path, part, fs::copy_options::overwrite_existing, ec);
  if (ec)
    return fail_as(Error(fmt::format("cannot copy {} to {}: {}", w.path->string(), part.string(), ec.message())),
                   ErrorKind::environment);
  auto digest = sha256_file(part);
  if (!digest) {
    fs::remove(part, ec);
    return fail_as(digest.error(), ErrorKind::environment);
  }
  if (w.sha256 && digest->sha256 != ascii_lower(*w.sha256)) {
    fs::remove(part, ec);
    return fail(fmt::format("{}: sha256 {} is not the {} expected ({})", w.path->string(), digest->sha256,
                            ascii_lower(*w.sha256), w.origin));
  }
  fs::rename(part, dest, ec);
  if (ec)
    return fail_as(Error(fmt::format("cannot rename {}: {}", part.string(), ec.message())), ErrorKind::environment);
  return digest->size;
}

/// Brings every wanted file into `dir`: kept when there with its sha256, else copied, written or
/// downloaded (all downloads at once, with one progress display).
Result<std::vector<DownloadedFile>> fill(const std::map<std::string, Wanted>& wanted, const fs::path& dir,
                                         const plan::Settings& settings, bool quiet) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return fail_as(Error(fmt::format("cannot create {}: {}", dir.string(), ec.message())), ErrorKind::environment);
  std::vector<DownloadedFile> files;
  std::vector<http::DownloadRequest> requests;
  std::vector<std::size_t> owners;  // index in `files` of each request
  for (const auto& [name, w] : wanted) {
    const auto dest = dir / name;
    DownloadedFile f{name, 0, true};
    if (has_sha256(dest, w.sha256)) {
      f.fetched = false;
      f.size = fs::file_size(dest, ec);
    } else if (w.text || w.path) {
      auto size = place_local(w, dest);
      if (!size) return fail(size.error());
      f.size = *size;
    } else {
      owners.push_back(files.size());
      requests.emplace_back(w.url, dest, w.sha256, w.size);
    }
    files.push_back(std::move(f));
  }
  if (requests.empty()) return files;
  auto client = http::Client::create(settings.http);
  if (!client) return fail_as(client.error(), ErrorKind::environment);
  std::vector<std::string> names;
  for (const auto& r : requests) names.push_back(r.dest.filename().string());
  http::ProgressDisplay display(names, http::ProgressDisplay::style_for(quiet));
  auto results = client->download(
      requests, [&](const http::Progress& p) { display.update(p); },
      [&](std::size_t k, const Result<http::Downloaded>& r) { display.done(k, r); });
  display.finish();
  for (std::size_t k = 0; k < results.size(); ++k) {
    if (!results[k]) return fail(results[k].error());
    files[owners[k]].size = results[k]->size;
  }
  return files;
}

}  // namespace

Result<DownloadReport> download(const DownloadRequest& request) {
  const auto cache_lock = use_cache(request.sources);
  auto settings = resolve_settings(request);
  auto scratch = no_cache_dir(request.sources, settings);
  if (!scratch) return fail(scratch.error());
  DownloadReport report;
  std::map<std::string, Wanted> wanted;
  std::optional<lock::Lock> lock;
  plan::Requirements requirements;
  if (request.lock_file) {
    if (!request.items.empty() || !request.requirement_files.empty()) {
      return fail_as(Error("--lock: give no requirements beside it (the lock says what to download)"),
                     ErrorKind::usage);
    }
    auto read = read_lock(*request.lock_file);
    if (!read) return fail(read.error());
    lock = std::move(*read);
  } else {
    auto loaded = load_roots(request.items, request.requirement_files, request.constraint_files, settings,
                             "nothing to download: give requirements, -r FILE or --lock FILE");
    if (!loaded) return fail(loaded.error());
    if (!loaded->sources.empty()) {
      return fail_as(Error(fmt::format("{}: download takes requirements on indexes and find-links, not local projects, "
                                       "archives or direct references",
                                       loaded->sources.front().text)),
                     ErrorKind::usage);
    }
    requirements = std::move(*loaded);
  }
  auto interpreter = find_and_query(request.python, request.sources);
  if (!interpreter) return fail(interpreter.error());
  const python::Interpreter* python = *interpreter ? &**interpreter : nullptr;
  if (request.targets.empty()) return fail_as(Error("download: no target machine given"), ErrorKind::usage);
  for (const auto& target : request.targets) {
    auto selection = make_selection(target, python);
    if (!selection) return fail(selection.error());
    if (auto ok = require_environment_and_tags(*selection); !ok) return fail(ok.error());
    if (lock) {
      auto p = plan::plan_from_lock(*lock, fs::absolute(*request.lock_file), *selection, request.lock_selection,
                                    plan::lock_requires_reader(settings));
      if (!p) return fail(p.error().with_context(request.lock_file->string()));
      if (auto ok = add_lock_plan(wanted, report.skipped, *p, *lock); !ok) return fail(ok.error());
      report.plans.push_back(std::move(*p));
      continue;
    }
    auto p = plan::resolve_plan(requirements, settings, *selection, nullptr);
    if (!p) {
      auto e = p.error();
      e.explained = true;
      return fail(std::move(e));
    }
    if (auto ok = add_plan(wanted, *p); !ok) return fail(ok.error());
    report.plans.push_back(std::move(*p));
  }
  auto files = fill(wanted, request.dest, settings, request.quiet);
  if (!files) return fail(files.error());
  report.files = std::move(*files);
  return report;
}

}  // namespace vwheel::api
