#include "vwheel/finder/finder.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/simple/project_page.hpp"
#include "vwheel/wheel/wheel.hpp"
#include "vwheel/wheel_name/names.hpp"
#include "vwheel/zip/zip.hpp"

namespace vwheel::finder {
namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kTail = 64 * 1024;
constexpr std::uint64_t kMaxMember = 64ULL << 20;

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

std::uint32_t le32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return std::uint32_t{u[0]} | (std::uint32_t{u[1]} << 8) | (std::uint32_t{u[2]} << 16) | (std::uint32_t{u[3]} << 24);
}
std::uint64_t le64(const char* p) { return std::uint64_t{le32(p)} | (std::uint64_t{le32(p + 4)} << 32); }

/// The central directory's offset from the tail of a zip (`tail` ends the file of size `total`).
std::optional<std::uint64_t> central_directory_offset(std::string_view tail, std::uint64_t total) {
  if (tail.size() < 22) return std::nullopt;
  for (std::size_t i = tail.size() - 22 + 1; i-- > 0;) {
    if (std::memcmp(tail.data() + i, "PK\x05\x06", 4) != 0) continue;
    std::uint64_t cd = le32(tail.data() + i + 16);
    if (cd != 0xFFFFFFFFu) return cd;
    // zip64: the locator sits right before the EOCD and points at the zip64 EOCD record.
    if (i < 20 || std::memcmp(tail.data() + i - 20, "PK\x06\x07", 4) != 0) return std::nullopt;
    const std::uint64_t record = le64(tail.data() + i - 20 + 8);
    const std::uint64_t tail_start = total - tail.size();
    if (record < tail_start || record + 56 > total) return std::nullopt;
    const char* r = tail.data() + (record - tail_start);
    if (std::memcmp(r, "PK\x06\x06", 4) != 0) return std::nullopt;
    return le64(r + 48);
  }
  return std::nullopt;
}

/// A scratch file, named like the wheel (the wheel reader checks the name) in a directory of its
/// own; both are removed on destruction.
struct Scratch {
  fs::path dir;
  fs::path path;
  int fd = -1;
  ~Scratch() {
    if (fd >= 0) ::close(fd);
    if (!dir.empty()) {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  }
  bool write_at(std::string_view data, std::uint64_t offset) const {
    std::size_t done = 0;
    while (done < data.size()) {
      auto n = ::pwrite(fd, data.data() + done, data.size() - done, static_cast<off_t>(offset + done));
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }
};

Result<std::unique_ptr<Scratch>> make_scratch(const fs::path& parent, const std::string& filename, std::uint64_t size) {
  std::error_code ec;
  fs::create_directories(parent, ec);
  auto s = std::make_unique<Scratch>();
  std::string templ = (parent / "remote-XXXXXX").string();
  if (::mkdtemp(templ.data()) == nullptr) {
    return fail(fmt::format("{}: cannot create a scratch directory: {}", parent.string(), std::strerror(errno)));
  }
  s->dir = templ;
  s->path = s->dir / filename;
  s->fd = ::open(s->path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (s->fd < 0) return fail(fmt::format("{}: cannot create a scratch file: {}", s->path.string(), std::strerror(errno)));
  if (::ftruncate(s->fd, static_cast<off_t>(size)) != 0) {
    return fail(fmt::format("{}: cannot size a scratch file: {}", s->path.string(), std::strerror(errno)));
  }
  return s;
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
  return fmt::format("{} {}", kind == Kind::index ? "--index-url" : "--find-links", location);
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

void Finder::prefetch(const std::vector<std::string>& names) {
  std::vector<http::Request> requests;
  std::vector<std::string> keys;
  for (const auto& raw : names) {
    auto name = wheel_name::canonicalize_name(raw);
    if (projects_.contains(name)) continue;
    for (const auto& s : sources_) {
      if (s.kind != Source::Kind::index) continue;
      auto page = page_request(s, name);
      if (prefetched_.contains(page->url)) continue;
      keys.push_back(page->url);
      requests.push_back(std::move(*page));
    }
  }
  if (requests.empty()) return;
  requests_ += requests.size();
  auto answers = client_.get_many(requests);
  for (std::size_t i = 0; i < answers.size(); ++i) prefetched_.insert_or_assign(keys[i], std::move(answers[i]));
  // The metadata an installer most likely reads next: the newest version's wheel (a non-variant
  // one when there is one), fetched together.
  std::vector<const File*> likely;
  for (const auto& raw : names) {
    auto files = this->files(raw);
    if (!files) continue;  // reported when the resolver asks
    const File* best = nullptr;
    for (const auto& f : **files) {
      if (!f.is_wheel() || !f.core_metadata || f.yanked || f.path) continue;
      if (!best || f.version > best->version ||
          (f.version == best->version && best->wheel->is_variant() && !f.wheel->is_variant())) {
        best = &f;
      }
    }
    if (best) likely.push_back(best);
  }
  std::vector<http::Request> metadata;
  std::vector<const File*> owners;
  for (const auto* f : likely) {
    if (metadata_.contains(f->url)) continue;
    if (auto cached = cached_metadata(*f)) {  // kept in memory: the resolver reads it next
      metadata_.emplace(f->url, std::move(*cached));
      continue;
    }
    metadata.push_back({f->url + ".metadata", {}, !has_metadata_hash(*f)});
    owners.push_back(f);
  }
  if (metadata.empty()) return;
  requests_ += metadata.size();
  auto bodies = client_.get_many(metadata);
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    // Kept by hash at once, even when the resolver never asks for it (a version it rejects): the
    // next run needs no request for it. One that does not match is fetched again when asked for,
    // and reported then.
    if (!bodies[i]) continue;
    if (has_metadata_hash(*owners[i])) {
      const auto& expected = owners[i]->core_metadata->at("sha256");
      if (sha256_hex(bodies[i]->body) != expected) continue;
      keep_metadata(expected, bodies[i]->body);
    }
    metadata_.insert_or_assign(owners[i]->url, std::move(bodies[i]->body));
  }
}

void Finder::keep_metadata(const std::string& sha256, const std::string& body) const {
  std::error_code ec;
  fs::create_directories(options_.cache_dir / "metadata", ec);
  (void)write_file_atomic(options_.cache_dir / "metadata" / sha256, body, Durability::none);
}

std::optional<std::string> Finder::cached_metadata(const File& wheel) const {
  if (!has_metadata_hash(wheel)) return std::nullopt;
  auto it = wheel.core_metadata->find("sha256");
  auto text = read_file(options_.cache_dir / "metadata" / it->second);
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
      return fail(fmt::format("{}: links {}, a local file; a remote page may link only http(s) URLs", page_url,
                              link.url));
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
      if (!name.ends_with(".whl") && !name.ends_with("-variants.json")) continue;
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
    }
  }
  return out;
}

Result<const std::vector<File>*> Finder::files(std::string_view raw_name) {
  const auto name = wheel_name::canonicalize_name(raw_name);
  if (auto it = projects_.find(name); it != projects_.end()) return &it->second;
  prefetch({name});
  if (auto it = projects_.find(name); it != projects_.end()) return &it->second;  // loaded by prefetch
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

Result<std::string> Finder::text(const File& file) {
  if (file.path) return read_file(*file.path);
  ++requests_;
  auto r = client_.get({file.url, {}, true});
  if (!r) return fail(r.error());
  if (auto sha = file.sha256(); sha && sha256_hex(r->body) != *sha) {
    return fail(fmt::format("{}: sha256 {} does not match the index's {}", file.url, sha256_hex(r->body), *sha));
  }
  return std::move(r->body);
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
          return fail(fmt::format("{}.metadata: sha256 {} does not match the index's {}", wheel.url, actual, it->second));
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
  auto read_from = [&](const fs::path& path) -> Result<std::string> {
    auto w = wheel::open_wheel(path);
    if (!w) return fail(w.error().with_context(file.filename));
    const auto member = fmt::format("{}/{}", w->dist_info, suffix);
    const auto* entry = w->archive.find(member);
    if (!entry) {
      if (!required) return std::string();
      return fail(fmt::format("{}: no `{}` member", file.filename, member));
    }
    auto data = w->archive.read(*entry, kMaxMember);
    if (!data) return fail(data.error().with_context(file.filename));
    return data;
  };
  if (file.path) return read_from(*file.path);

  auto content = kept_member(file, suffix);
  if (!content) {
    auto read = remote_member(file, suffix);
    if (!read) return fail(read.error());
    content = std::move(*read);
  }
  if (*content) return std::move(**content);
  if (!required) return std::string();
  return fail(fmt::format("{}: no `{}` member in its .dist-info directory", file.filename, suffix));
}

Result<std::optional<std::string>> Finder::remote_member(const File& file, std::string_view suffix) {
  // The last 64 KiB hold the central directory of most wheels; a sparse scratch file of the
  // wheel's size gets the bytes we fetch at their offsets, so the zip reader checks them as usual.
  ++requests_;
  auto tail = client_.get_suffix(file.url, kTail);
  if (!tail) return fail(tail.error());
  const std::uint64_t total = tail->whole ? tail->body.size() : tail->total_size.value_or(0);
  if (!tail->whole && total == 0) return fail(fmt::format("{}: the server did not say the file's size", file.url));
  if (file.filename.find('/') != std::string::npos || file.filename.starts_with(".")) {
    return fail(fmt::format("{}: unsafe file name `{}`", file.url, file.filename));
  }
  auto scratch = make_scratch(options_.cache_dir / "tmp", file.filename, total);
  if (!scratch) return fail(scratch.error());
  const fs::path named = (*scratch)->path;
  if (!(*scratch)->write_at(tail->body, tail->offset)) return fail(fmt::format("{}: cannot write", named.string()));
  if (!tail->whole) {
    auto cd = central_directory_offset(tail->body, total);
    if (!cd || *cd > total) return fail(fmt::format("{}: not a zip file (no end of central directory)", file.url));
    if (*cd < tail->offset) {
      ++requests_;
      auto more = client_.get_range(file.url, *cd, tail->offset - *cd);
      if (!more) return fail(more.error());
      if (!(*scratch)->write_at(more->body, more->whole ? 0 : more->offset)) {
        return fail(fmt::format("{}: cannot write", named.string()));
      }
    }
  }
  auto w = wheel::open_wheel(named);
  if (!w) return fail(w.error().with_context(file.url));
  const auto member = fmt::format("{}/{}", w->dist_info, suffix);
  const auto* entry = w->archive.find(member);
  if (!entry) {
    keep_member(file, suffix, std::nullopt, *tail);
    return std::optional<std::string>{};
  }
  if (!tail->whole && entry->local_header_offset < tail->offset) {
    if (entry->span_end - entry->local_header_offset > kMaxMember) {
      return fail(fmt::format("{}: `{}` is larger than {} bytes", file.url, member, kMaxMember));
    }
    ++requests_;
    auto part = client_.get_range(file.url, entry->local_header_offset, entry->span_end - entry->local_header_offset);
    if (!part) return fail(part.error());
    if (!(*scratch)->write_at(part->body, part->whole ? 0 : part->offset)) {
      return fail(fmt::format("{}: cannot write", named.string()));
    }
  }
  auto data = w->archive.read(*entry, kMaxMember);
  if (!data) return fail(data.error().with_context(file.url));
  std::optional<std::string> content(std::move(*data));
  keep_member(file, suffix, content, *tail);
  return content;
}

}  // namespace vwheel::finder
