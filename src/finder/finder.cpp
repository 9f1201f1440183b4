#include "vwheel/core/cache_layout.hpp"
#include "vwheel/finder/finder.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "kept_members.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/simple/project_page.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::finder {
namespace fs = std::filesystem;

namespace {

bool is_url(std::string_view s) {
  return s.starts_with("http://") || s.starts_with("https://") || s.starts_with("file://");
}

/// `{name}-{version}-variants.json` (name as in wheel file names) -> (name, version).
std::optional<std::pair<std::string, std::string>> split_variants_json(std::string_view filename) {
  constexpr std::string_view suffix = "-variants.json";
  if (!filename.ends_with(suffix)) return std::nullopt;
  auto stem = filename.substr(0, filename.size() - suffix.size());
  auto dash = stem.rfind('-');
  if (dash == std::string_view::npos || dash == 0) return std::nullopt;
  return std::pair{std::string(stem.substr(0, dash)), std::string(stem.substr(dash + 1))};
}

/// The version in the file name of a source distribution of `name` (canonical):
/// `{name}-{version}.tar.gz` or `.zip`, where a legacy name may hold dashes too (the first split
/// whose name part is `name` counts). nullopt for another project's file or another kind of file.
std::optional<pep440::Version> sdist_version(std::string_view filename, std::string_view name) {
  std::string_view stem;
  for (std::string_view suffix : {".tar.gz", ".zip"}) {
    if (filename.ends_with(suffix)) stem = filename.substr(0, filename.size() - suffix.size());
  }
  for (auto dash = stem.find('-'); dash != std::string_view::npos; dash = stem.find('-', dash + 1)) {
    if (wheel_name::canonicalize_name(stem.substr(0, dash)) != name) continue;
    if (auto version = pep440::Version::parse(stem.substr(dash + 1))) return std::move(*version);
  }
  return std::nullopt;
}

/// Whether the index gave the sha256 of the wheel's metadata file: such files are kept in the
/// cache by that hash (not also in the HTTP cache).
bool has_metadata_hash(const File& wheel) {
  if (!wheel.core_metadata) return false;
  auto it = wheel.core_metadata->find("sha256");
  return it != wheel.core_metadata->end() && is_sha256_hex(it->second);
}

}  // namespace

std::string Source::describe() const {
  return fmt::format("{} {}", kind == Kind::index ? "--index-url" : "--find-links", redact_url(location));
}

std::string File::location() const { return path ? path->string() : url; }

std::optional<std::string> File::sha256() const {
  if (auto it = hashes.find("sha256"); it != hashes.end()) return it->second;
  return std::nullopt;
}

std::string project_url(std::string_view base, std::string_view name) {
  std::string url(base);
  while (!url.empty() && url.back() == '/') url.pop_back();
  return fmt::format("{}/{}/", url, name);
}

std::optional<http::Request> page_request(const Source& source, std::string_view name) {
  if (source.kind == Source::Kind::index) {
    http::Request page{project_url(source.location, name), {fmt::format("Accept: {}", simple::accept_header)}, true};
    page.not_found_ok = true;  // not on this index: the next one may have it
    return page;
  }
  if (is_url(source.location) && !source.location.starts_with("file://")) {
    return http::Request{source.location, {"Accept: text/html"}, true};
  }
  return std::nullopt;
}

Finder::Finder(http::Client& client, std::vector<Source> sources, FinderOptions options)
    : client_(client), sources_(std::move(sources)), options_(std::move(options)) {}

void Finder::prefetch_pages(const std::vector<std::string>& names) {
  std::vector<http::Request> requests;
  std::vector<std::string> keys;
  for (const auto& name : names) {
    for (const auto& s : sources_) {
      if (s.kind != Source::Kind::index) continue;
      auto page = page_request(s, name);
      if (prefetched_.contains(page->url)) continue;
      keys.push_back(page->url);
      requests.push_back(std::move(*page));
    }
  }
  if (!requests.empty()) {
    requests_ += requests.size();
    auto pages = client_.get_many(requests);
    for (std::size_t i = 0; i < pages.size(); ++i) prefetched_.insert_or_assign(keys[i], std::move(pages[i]));
  }
}

void Finder::prefetch(const std::vector<std::string>& names) {
  std::vector<std::string> fresh;  // the projects not looked up before: the rest was prefetched then
  for (const auto& raw : names) {
    auto name = wheel_name::canonicalize_name(raw);
    // (A name comes more than once when requirements differ by marker: torch's on each CUDA runtime.)
    if (!projects_.contains(name) && std::find(fresh.begin(), fresh.end(), name) == fresh.end()) {
      fresh.push_back(std::move(name));
    }
  }
  prefetch_pages(fresh);
  // What a resolver most likely reads next, fetched together (one round trip, not one each):
  // - the metadata of the newest version's wheel (a non-variant one when there is one);
  // - the `*-variants.json` of the newest versions that have only variant wheels, which ranking
  //   them reads;
  // - for wheels whose members were kept under their URL (kept_members.hpp), whether the server's
  //   file is unchanged (a HEAD request each: it is asked once per run anyway).
  std::vector<http::Request> batch;
  std::vector<const File*> metadata_of;  // batch[i] for i < metadata_of.size()
  std::vector<const File*> texts;
  std::vector<const File*> heads;
  for (const auto& name : fresh) {
    auto files = this->files(name);
    if (!files) continue;  // reported when the resolver asks
    const File* best = nullptr;
    std::set<pep440::Version, std::greater<>> versions;
    std::set<pep440::Version> plain;  // versions with a non-variant wheel: ranked without their variants
    for (const auto& f : **files) {
      versions.insert(f.version);
      if (f.is_wheel() && !f.wheel->is_variant()) plain.insert(f.version);
      if (!f.is_wheel() || !f.core_metadata || f.yanked || f.path) continue;
      if (!best || f.version > best->version ||
          (f.version == best->version && best->wheel->is_variant() && !f.wheel->is_variant())) {
        best = &f;
      }
    }
    if (best && !metadata_.contains(best->url)) {
      if (auto cached = cached_metadata(*best)) {  // kept in memory: the resolver reads it next
        metadata_.emplace(best->url, std::move(*cached));
      } else {
        metadata_of.push_back(best);
      }
    }
    // A project's versions newer than this many are the ones a resolver ranks first.
    constexpr std::size_t kNewest = 16;
    const auto oldest = versions.size() > kNewest ? *std::next(versions.begin(), kNewest - 1) : pep440::Version{};
    for (const auto& f : **files) {
      if (f.path || (versions.size() > kNewest && f.version < oldest)) continue;
      if (!f.is_wheel()) {
        if (!plain.contains(f.version) && !texts_.contains(f.url)) texts.push_back(&f);
      } else if (!f.core_metadata && detail::kept_by_url(f) && !heads_.contains(f.url)) {
        std::error_code ec;
        const auto kept = detail::kept_member_path(options_.cache_dir, f, "METADATA");
        if (kept && fs::exists(kept->parent_path(), ec)) heads.push_back(&f);
      }
    }
  }
  for (const auto* f : metadata_of) batch.push_back({f->url + ".metadata", {}, !has_metadata_hash(*f)});
  for (const auto* f : texts) batch.emplace_back(f->url, std::vector<std::string>{}, true);
  for (const auto* f : heads) {
    http::Request head(f->url, {}, false);
    head.head = true;
    batch.push_back(std::move(head));
  }
  if (batch.empty()) return;
  requests_ += batch.size();
  auto answers = client_.get_many(batch);
  std::size_t i = 0;
  for (const auto* f : metadata_of) take_metadata(*f, answers[i++]);
  for (const auto* f : texts) {
    auto& answer = answers[i++];
    if (answer) texts_.insert_or_assign(f->url, std::move(answer->body));
  }
  for (const auto* f : heads) {
    auto& answer = answers[i++];
    heads_.insert_or_assign(f->url, answer ? std::optional<http::Response>(std::move(*answer)) : std::nullopt);
  }
}

void Finder::take_metadata(const File& wheel, Result<http::Response>& answer) {
  // Kept by hash at once, even when the resolver never asks for it (a version it rejects): the
  // next run needs no request for it.
  if (!answer) return;
  if (has_metadata_hash(wheel)) {
    const auto& expected = wheel.core_metadata->at("sha256");
    if (sha256_hex(answer->body) != expected) return;
    keep_metadata(expected, answer->body);
  }
  metadata_.insert_or_assign(wheel.url, std::move(answer->body));
}

void Finder::prefetch_metadata(const std::vector<const File*>& wheels) {
  std::vector<const File*> pep658;
  std::vector<const File*> remote;
  for (const auto* f : wheels) {
    if (f->path || !f->is_wheel() || metadata_.contains(f->url) || members_.contains(f->url)) continue;
    if (std::find(pep658.begin(), pep658.end(), f) != pep658.end() ||
        std::find(remote.begin(), remote.end(), f) != remote.end()) {
      continue;
    }
    if (f->core_metadata) {
      if (auto cached = cached_metadata(*f)) {
        metadata_.emplace(f->url, std::move(*cached));
      } else {
        pep658.push_back(f);
      }
      continue;
    }
    // Kept by an earlier run: read back when asked for (after the HEAD that prefetch() asks
    // together with the pages for a wheel kept under its URL).
    std::error_code ec;
    const auto kept = detail::kept_member_path(options_.cache_dir, *f, "METADATA");
    if (kept && fs::exists(*kept, ec)) continue;
    remote.push_back(f);
  }
  if (!pep658.empty()) {
    std::vector<http::Request> batch;
    for (const auto* f : pep658) batch.push_back({f->url + ".metadata", {}, !has_metadata_hash(*f)});
    requests_ += batch.size();
    auto answers = client_.get_many(batch);
    for (std::size_t i = 0; i < pep658.size(); ++i) take_metadata(*pep658[i], answers[i]);
  }
  if (!remote.empty()) {
    auto read = remote_members(remote, "METADATA");
    for (std::size_t i = 0; i < remote.size(); ++i) {
      if (read[i]) members_.insert_or_assign(remote[i]->url, std::move(*read[i]));
    }
  }
}

void Finder::keep_metadata(const std::string& sha256, const std::string& body) const {
  std::error_code ec;
  fs::create_directories(CacheLayout(options_.cache_dir).area(CacheArea::metadata), ec);
  (void)write_file_atomic(CacheLayout(options_.cache_dir).entry(CacheArea::metadata, sha256), body, Durability::none);
}

std::optional<std::string> Finder::cached_metadata(const File& wheel) const {
  if (!has_metadata_hash(wheel)) return std::nullopt;
  auto it = wheel.core_metadata->find("sha256");
  auto text = read_file(CacheLayout(options_.cache_dir).entry(CacheArea::metadata, it->second));
  if (!text || sha256_hex(*text) != it->second) return std::nullopt;
  return std::move(*text);
}

namespace {

/// A page served over HTTP never points at this machine's files: a `file:` link on it would let a
/// remote index read (and install) whatever local path it names.
Result<void> check_remote_links(const std::string& page_url, const std::vector<simple::FileLink>& links) {
  if (ascii_istarts_with(page_url, "file:")) return {};
  for (const auto& link : links) {
    if (ascii_istarts_with(link.url, "file:")) {
      return fail(fmt::format("{}: links {}, a local file; a remote page may link only http(s) URLs",
                              redact_url(page_url), redact_url(link.url)));
    }
  }
  return {};
}

}  // namespace

Result<const std::vector<File>*> Finder::find_links_files(std::size_t source) {
  if (auto it = find_links_.find(source); it != find_links_.end()) return &it->second;
  const auto& s = sources_[source];
  std::vector<File> out;
  auto add = [&](std::string filename, std::string url, std::optional<fs::path> path, const simple::FileLink* link) {
    File f;
    f.source = source;
    f.filename = std::move(filename);
    f.url = std::move(url);
    f.path = std::move(path);
    if (link) {
      f.hashes = link->hashes;
      f.requires_python = link->requires_python;
      f.yanked = link->yanked;
      f.core_metadata = link->core_metadata;
      f.size = link->size;
      f.upload_time = link->upload_time;
    }
    out.push_back(std::move(f));
  };
  if (auto request = page_request(s, ""); request) {
    ++requests_;
    auto page = client_.get(*request);
    if (!page) return fail(page.error().with_context(s.describe()));
    auto parsed = simple::parse_html_page(page->body, page->url);
    if (!parsed) return fail(parsed.error());
    if (auto ok = check_remote_links(page->url, parsed->files); !ok) return fail(ok.error());
    for (const auto& link : parsed->files) add(link.filename, link.url, std::nullopt, &link);
  } else {
    fs::path dir = s.location.starts_with("file://") ? fs::path(simple::percent_decode(s.location.substr(7))) : fs::path(s.location);
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      auto name = it->path().filename().string();
      if (!name.ends_with(".whl") && !name.ends_with("-variants.json") && !name.ends_with(".tar.gz") &&
          !name.ends_with(".zip"))
        continue;
      add(name, "", fs::absolute(it->path()), nullptr);
    }
    if (ec) return fail(fmt::format("--find-links {}: cannot list the directory: {}", dir.string(), ec.message()));
  }
  return &find_links_.emplace(source, std::move(out)).first->second;
}

Result<std::vector<File>> Finder::load_source(std::size_t source, std::string_view name, const http::Response* page) {
  std::vector<File> raw;
  if (page) {
    auto parsed = simple::parse_project_page(page->body, page->content_type, page->url);
    if (!parsed) return fail(parsed.error());
    if (auto ok = check_remote_links(page->url, parsed->files); !ok) return fail(ok.error());
    for (const auto& link : parsed->files) {
      File f;
      f.source = source;
      f.filename = link.filename;
      f.url = link.url;
      f.hashes = link.hashes;
      f.requires_python = link.requires_python;
      f.yanked = link.yanked;
      f.core_metadata = link.core_metadata;
      f.size = link.size;
      f.upload_time = link.upload_time;
      raw.push_back(std::move(f));
    }
  } else {
    auto all = find_links_files(source);
    if (!all) return fail(all.error());
    raw = **all;
  }
  std::vector<File> out;
  for (auto& f : raw) {
    if (f.filename.ends_with(".whl")) {
      auto parsed = wheel_name::parse_wheel_name(f.filename);
      if (!parsed) {
        if (wheel_name::canonicalize_name(f.filename.substr(0, f.filename.find('-'))) == name) {
          warnings_.push_back(fmt::format("{}: skipped: {}", sources_[source].describe(), parsed.error().message));
        }
        continue;
      }
      if (wheel_name::canonicalize_name(parsed->name) != name) continue;
      auto version = pep440::Version::parse(parsed->version);
      if (!version) {
        warnings_.push_back(fmt::format("{}: skipped {}: {}", sources_[source].describe(), f.filename, version.error().message));
        continue;
      }
      f.version = std::move(*version);
      f.wheel = std::move(*parsed);
      out.push_back(std::move(f));
    } else if (auto parts = split_variants_json(f.filename)) {
      if (wheel_name::canonicalize_name(parts->first) != name) continue;
      auto version = pep440::Version::parse(parts->second);
      if (!version) continue;
      f.version = std::move(*version);
      out.push_back(std::move(f));
    } else if (auto version = sdist_version(f.filename, name)) {
      f.version = std::move(*version);
      sdists_[std::string(name)].push_back(std::move(f));
    }
  }
  return out;
}

const std::vector<File>& Finder::sdists(std::string_view name) const {
  static const std::vector<File> none;
  auto it = sdists_.find(name);
  return it == sdists_.end() ? none : it->second;
}

Result<const std::vector<File>*> Finder::files(std::string_view raw_name) {
  const auto name = wheel_name::canonicalize_name(raw_name);
  if (auto it = projects_.find(name); it != projects_.end()) return &it->second;
  prefetch_pages({name});
  std::vector<File> all;
  for (std::size_t i = 0; i < sources_.size(); ++i) {
    const auto& s = sources_[i];
    if (s.kind == Source::Kind::index) {
      auto url = project_url(s.location, name);
      auto it = prefetched_.find(url);
      if (it == prefetched_.end()) continue;
      auto& answer = it->second;
      if (!answer) return fail(answer.error());
      if (answer->status == 404) continue;  // not on this index
      auto files = load_source(i, name, &*answer);
      if (!files) return fail(files.error());
      std::move(files->begin(), files->end(), std::back_inserter(all));
    } else {
      auto files = load_source(i, name, nullptr);
      if (!files) return fail(files.error());
      std::move(files->begin(), files->end(), std::back_inserter(all));
    }
  }
  return &projects_.emplace(name, std::move(all)).first->second;
}

void Finder::prefetch_texts(const std::vector<const File*>& files) {
  std::vector<http::Request> requests;
  for (const auto* f : files) {
    if (f->path || texts_.contains(f->url)) continue;
    requests.emplace_back(f->url, std::vector<std::string>{}, true);
  }
  if (requests.empty()) return;
  requests_ += requests.size();
  auto answers = client_.get_many(requests);
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (answers[i]) texts_.insert_or_assign(requests[i].url, std::move(answers[i]->body));
  }
}

Result<std::string> Finder::text(const File& file) {
  if (file.path) return read_file(*file.path);
  std::string body;
  // Kept for the rest of the run: a universal lock reads a version's file again in every fork.
  if (auto it = texts_.find(file.url); it != texts_.end()) {
    body = it->second;
  } else {
    ++requests_;
    auto r = client_.get({file.url, {}, true});
    if (!r) return fail(r.error());
    body = std::move(r->body);
    texts_.emplace(file.url, body);
  }
  if (auto sha = file.sha256(); sha && sha256_hex(body) != *sha) {
    return fail(fmt::format("{}: sha256 {} does not match the index's {}", redact_url(file.url), sha256_hex(body), *sha));
  }
  return body;
}

Result<std::string> Finder::core_metadata(const File& wheel) {
  if (!wheel.path && wheel.core_metadata) {
    // Prefetched (and checked then), else kept in the cache by its hash (such files never change),
    // else fetched now.
    if (auto it = metadata_.find(wheel.url); it != metadata_.end()) {
      auto body = std::move(it->second);
      metadata_.erase(it);
      return body;
    }
    if (auto cached = cached_metadata(wheel)) return std::move(*cached);
    ++requests_;
    if (auto r = client_.get({wheel.url + ".metadata", {}, !has_metadata_hash(wheel)})) {
      if (auto it = wheel.core_metadata->find("sha256"); it != wheel.core_metadata->end()) {
        const auto actual = sha256_hex(r->body);
        if (actual != ascii_lower(it->second)) {
          return fail(fmt::format("{}.metadata: sha256 {} does not match the index's {}", redact_url(wheel.url), actual, it->second));
        }
        if (has_metadata_hash(wheel)) keep_metadata(actual, r->body);
      }
      return std::move(r->body);
    }
    // An index that announces metadata it cannot serve: read it from the wheel instead.
  }
  return wheel_member(wheel, "METADATA", true);
}

Result<std::optional<std::string>> Finder::dist_info_member(const File& wheel, std::string_view name) {
  auto r = wheel_member(wheel, name, false);
  if (!r) return fail(r.error());
  if (r->empty()) return std::optional<std::string>{};
  return std::optional<std::string>(std::move(*r));
}

Result<std::string> Finder::wheel_member(const File& file, std::string_view suffix, bool required) {
  std::optional<std::optional<std::string>> content;
  if (file.path) {
    auto read = detail::read_member(*file.path, suffix, file.filename);
    if (!read) return fail(read.error());
    content = std::move(*read);
  } else if (auto it = members_.find(file.url); it != members_.end() && suffix == "METADATA") {
    content = std::move(it->second);
    members_.erase(it);
  } else {
    content = kept_member(file, suffix);
  }
  if (!content) {
    auto read = std::move(remote_members({&file}, suffix).front());
    if (!read) return fail(read.error());
    content = std::move(*read);
  }
  if (*content) return std::move(**content);
  if (!required) return std::string();
  return fail(fmt::format("{}: no `{}` member in its .dist-info directory", file.filename, suffix));
}

}  // namespace vwheel::finder
