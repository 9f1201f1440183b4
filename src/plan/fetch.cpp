#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "vwheel/core/cache_layout.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/growing_file.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/http/client.hpp"
#include "vwheel/install/install.hpp"
#include "vwheel/plan/plan.hpp"
#include "vwheel/wheel_name/names.hpp"
#include "vwheel/zip/zip.hpp"
#include "origin.hpp"
#include "tails.hpp"
#include "verify.hpp"

namespace vwheel::plan {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> wheel_filenames(const Plan& plan) {
  std::vector<std::string> names;
  names.reserve(plan.packages.size());
  for (const auto& s : plan.packages) names.push_back(s.wheel.filename);
  return names;
}

using detail::is_http_url;

/// `error` about `s`'s file, naming the lock entry that lists it when it came from a lock. An
/// environmental failure (no libcurl, a full disk) is not the entry's: it is left as it is.
Error about(const Selected& s, Error error) {
  if (s.listed_at.empty() || error.kind == ErrorKind::environment) return error;
  return error.with_context(s.listed_at);
}

/// A file in hand (given, or cached by its sha256) of another size than its source gives is
/// refused: PEP 751 has installers check a lock's `size`, and a hash alone is checked only on
/// downloads (a cached copy was verified against the sha256, not against this source's size).
Result<void> check_size(const Selected& s, const std::string& what, std::uint64_t actual) {
  const auto& f = s.wheel;
  if (!f.size || *f.size == actual) return {};
  return fail(about(s, Error(fmt::format("{}: {} bytes, but the expected size is {}", what, actual, *f.size))));
}

/// Whether `r` answered `length` bytes at `offset` of a file of `size` bytes (and agrees on its
/// ETag with `earlier`, an answer for another part of the same file).
bool answered(const Result<http::RangeResponse>& r, std::uint64_t size, std::uint64_t offset, std::uint64_t length,
              const http::RangeResponse* earlier = nullptr) {
  if (!r || r->whole || r->too_large || r->total_size != size || r->body.size() != length || r->offset != offset) {
    return false;
  }
  return earlier == nullptr || r->etag.empty() || earlier->etag.empty() || r->etag == earlier->etag;
}

/// For each large download from an HTTP server, and each of unknown size, fetches its last bytes
/// (all concurrently), then what its central directory says they lack (detail::next_tail_step: at
/// most two more requests each, all wheels' together), and, when the server honoured every range
/// and agrees on the size, makes it an arriving wheel: `requests[k].growing` is set (and its size,
/// the server's, when the index gave none) and the result's [k] describes it; else [k] is null.
std::vector<std::shared_ptr<const zip::Arriving>> hand_on_arriving(http::Client& client,
                                                                 std::vector<http::DownloadRequest>& requests) {
  std::vector<std::shared_ptr<const zip::Arriving>> out(requests.size());
  struct Tail {
    std::size_t index = 0;
    std::uint64_t size = 0;     ///< the index's, else the first answer's
    http::RangeResponse first;  ///< the first answer; its body grows at the front
    bool dropped = false;
  };
  std::vector<Tail> tails;
  std::uint64_t total = 0;  // all the tails' bytes: within detail::kTailsTotalMax
  {
    std::vector<std::string> urls;
    std::vector<std::uint64_t> lengths;
    std::vector<std::size_t> which;
    for (const auto& t : detail::pick_tails(requests)) {
      urls.push_back(requests[t.index].url);
      lengths.push_back(t.length);
      which.push_back(t.index);
    }
    if (urls.empty()) return out;
    auto got = client.get_suffixes(urls, lengths);
    for (std::size_t j = 0; j < which.size(); ++j) {
      const auto& q = requests[which[j]];
      // The index gave no size: the server's answer does, and a small wheel is left to the
      // ordinary path (which learns nothing from this answer: the download is checked as before).
      const auto size = q.size ? q.size : got[j] ? got[j]->total_size : std::nullopt;
      if (!size || *size < lengths[j] || (!q.size && *size < detail::kArriveMin)) continue;
      // Anything unexpected (an error, another size) leaves the wheel to the ordinary path.
      if (!answered(got[j], *size, *size - lengths[j], lengths[j])) continue;
      total += lengths[j];
      tails.push_back({which[j], *size, std::move(*got[j])});
    }
  }
  for (int round = 0; round < 2; ++round) {
    std::vector<http::RangeRequest> batch;
    std::vector<Tail*> asking;
    for (auto& t : tails) {
      if (t.dropped) continue;
      const auto size = t.size;
      const auto step = detail::next_tail_step(t.first.body, size);
      if (step.usable && !step.more_from) continue;
      const std::uint64_t start = size - t.first.body.size();
      const std::uint64_t more = step.usable ? start - *step.more_from : 0;
      if (!step.usable || total + more > detail::kTailsTotalMax) {
        t.dropped = true;
        total -= t.first.body.size();
        continue;
      }
      total += more;
      batch.push_back({requests[t.index].url, *step.more_from, more});
      asking.push_back(&t);
    }
    if (batch.empty()) break;
    auto got = client.get_ranges(batch, 0);
    for (std::size_t j = 0; j < asking.size(); ++j) {
      auto& t = *asking[j];
      if (!answered(got[j], t.size, *batch[j].offset, batch[j].length, &t.first)) {
        t.dropped = true;
        total -= t.first.body.size() + batch[j].length;
        continue;
      }
      t.first.body.insert(0, got[j]->body);
    }
  }
  for (auto& t : tails) {
    if (t.dropped) continue;
    auto& q = requests[t.index];
    // The download must be the file the tail is the end of: of the size its answers gave.
    q.size = t.size;
    auto growing = std::make_shared<GrowingFile>();
    auto a = std::make_shared<zip::Arriving>();
    a->path = fs::path(q.dest.string() + ".part");
    a->final_path = q.dest;
    a->size = t.size;
    a->tail = std::move(t.first.body);
    a->growing = growing;
    q.growing = std::move(growing);
    out[t.index] = std::move(a);
  }
  return out;
}

}  // namespace

Result<std::vector<fs::path>> fetch_wheels(const Plan& plan, const Settings& settings, bool quiet,
                                           const std::function<void(const Fetched&)>& on_ready,
                                           http::ProgressDisplay* display) {
  std::vector<fs::path> paths(plan.packages.size());
  // Every wheel, cached or just downloaded, is checked against what the index said about it
  // before anyone unpacks it.
  auto ready = [&](std::size_t i, fs::path path, std::optional<std::string> sha, bool handed_on,
                   std::optional<fs::path> skeleton = std::nullopt) -> Result<void> {
    if (auto ok = detail::verify_wheel(plan.packages[i], path, skeleton); !ok) {
      // What the resolution read of it may be what is wrong (kept from range requests that a
      // server answered from another file): the next run reads it again.
      finder::forget_kept_members(settings.cache_dir, plan.packages[i].wheel);
      return ok;
    }
    paths[i] = path;
    if (on_ready && !handed_on) on_ready({i, std::move(path), std::move(sha), nullptr, std::move(skeleton)});
    return {};
  };
  auto allowed = [&](const Selected& s, const std::string& actual) {
    return s.allowed_sha256.empty() ||
           std::find(s.allowed_sha256.begin(), s.allowed_sha256.end(), actual) != s.allowed_sha256.end();
  };
  std::optional<http::Client> client;  // made by the first request
  auto get_client = [&]() -> Result<http::Client*> {
    if (!client) {
      auto made = http::Client::create(settings.http);
      if (!made) return fail(made.error());
      client.emplace(std::move(*made));
    }
    return &*client;
  };
  // Wheels whose index gives no sha256 (a find-links page, an index without hashes) and that were
  // downloaded before: those the server still has unchanged are installed from the cache, by the
  // sha256 they had (origin.hpp).
  std::vector<std::optional<detail::Origin>> known(plan.packages.size());
  {
    std::vector<detail::Hashless> hashless;
    std::vector<std::size_t> which;
    for (std::size_t i = 0; i < plan.packages.size(); ++i) {
      const auto& s = plan.packages[i];
      const auto& f = s.wheel;
      if (f.path || f.sha256() || !s.allowed_sha256.empty() || !is_http_url(f.url)) continue;
      hashless.push_back({f.url, f.filename, f.size});
      which.push_back(i);
    }
    auto found = detail::known_origins(hashless, settings.cache_dir, settings.http.offline, plan.head_answers, get_client);
    if (!found) return fail(found.error());
    for (std::size_t j = 0; j < which.size(); ++j) known[which[j]] = std::move((*found)[j]);
  }
  std::vector<http::DownloadRequest> requests;
  std::vector<std::size_t> owners;  // requests[k] downloads plan.packages[owners[k]]
  // Wheels on disk already are handed on once every one of them is known, so that the display
  // leaves them all out of its download summary from its first frame.
  std::vector<Fetched> local;
  for (std::size_t i = 0; i < plan.packages.size(); ++i) {
    const auto& s = plan.packages[i];
    const auto& f = s.wheel;
    if (f.path) {
      std::optional<std::string> actual;
      if (!s.allowed_sha256.empty() || f.sha256()) {
        // Streamed through a bounded buffer: a 2 GB local wheel must not cost 2 GB of memory.
        auto digest = sha256_file(*f.path);
        if (!digest) return fail(digest.error());
        if (auto ok = check_size(s, f.path->string(), digest->size); !ok) return fail(ok.error());
        actual = std::move(digest->sha256);
        if (auto sha = f.sha256(); sha && *sha != *actual) {
          return fail(fmt::format("{}: sha256 {} does not match the expected {}", f.path->string(), *actual, *sha));
        }
        if (!allowed(s, *actual)) {
          return fail(fmt::format("{}: sha256 {} does not match the expected {}", redact_url(f.location()), *actual,
                                  fmt::join(s.allowed_sha256, " or ")));
        }
      }
      local.push_back({i, *f.path, std::move(actual), nullptr, std::nullopt});
      continue;
    }
    // The cache is keyed by the expected digest: a file there was verified when it was written.
    std::optional<std::string> expected = f.sha256();
    if (!expected && s.allowed_sha256.size() == 1) expected = s.allowed_sha256.front();
    if (expected) {
      *expected = ascii_lower(*expected);
      if (!is_sha256_hex(*expected)) {  // never a path component unchecked
        return fail(fmt::format("{}: the sha256 `{}` given for it is not 64 hex digits", redact_url(f.location()), *expected));
      }
    }
    const auto dir = expected ? CacheLayout(settings.cache_dir).archive_dir(*expected) : detail::url_dir(settings.cache_dir, f.url);
    const auto dest = dir / f.filename;
    std::error_code ec;
    bool damaged = false;
    if (expected && fs::is_regular_file(dest, ec)) {
      if (!has_hole_before_end(dest)) {
        if (auto ok = check_size(s, dest.string(), fs::file_size(dest)); !ok) return fail(ok.error());
        local.push_back({i, dest, expected, nullptr, std::nullopt});
        continue;
      }
      damaged = true;
      fs::remove(dest, ec);  // downloaded again below
    }
    // Installed before, and only its unpacked copy kept (install::InstallOptions::keep_archives).
    if (expected && settings.unpacked_cache) {
      if (auto skeleton = install::cached_skeleton(*settings.unpacked_cache, *expected)) {
        // The skeleton keeps the archive's size (its members' data are holes).
        if (auto ok = check_size(s, "the cached copy of " + redact_url(f.location()), fs::file_size(*skeleton)); !ok) return fail(ok.error());
        local.push_back({i, dest, expected, nullptr, std::move(skeleton)});
        continue;
      }
    }
    if (known[i]) {
      // Unchanged on the server since it was downloaded: the download itself when it was kept,
      // else the unpacked copy of the file with that sha256. The kept file is handed on without
      // the record's sha256, so that the installer hashes it (once: it remembers the digest by
      // the file's stat): another run may have downloaded a newer file to the same place.
      if (fs::is_regular_file(dest, ec) && !has_hole_before_end(dest)) {
        local.push_back({i, dest, std::nullopt, nullptr, std::nullopt});
        continue;
      }
      // Downloaded by `vwheel lock` to hash it, and kept by that sha256 (lock_hashes.hpp).
      if (const auto by_sha = CacheLayout(settings.cache_dir).archive_dir(known[i]->sha256) / f.filename;
          fs::is_regular_file(by_sha, ec) && !has_hole_before_end(by_sha)) {
        local.push_back({i, by_sha, known[i]->sha256, nullptr, std::nullopt});
        continue;
      }
      if (settings.unpacked_cache) {
        if (auto skeleton = install::cached_skeleton(*settings.unpacked_cache, known[i]->sha256)) {
          local.push_back({i, dest, known[i]->sha256, nullptr, std::move(skeleton)});
          continue;
        }
      }
    }
    if (!expected) {
      // Whatever happens to the download below, the record no longer describes the file there.
      fs::remove(detail::origin_path(dest), ec);
    }
    if (damaged && settings.http.offline) {
      return fail(
          fmt::format("{}: the cached download had holes (a run was killed while unpacking it) and was "
                      "removed; --offline forbids downloading it again from {}",
                      dest.string(), f.url));
    }
    requests.push_back({f.url, dest, expected, f.size});
    owners.push_back(i);
  }
  std::optional<http::ProgressDisplay> own;
  if (display == nullptr && !requests.empty()) {
    own.emplace(wheel_filenames(plan), quiet ? http::ProgressDisplay::Style::quiet : http::ProgressDisplay::Style::automatic);
    display = &*own;
  }
  if (display != nullptr) {
    for (const auto& l : local) display->not_downloaded(l.index);
  }
  for (auto& l : local) {
    if (auto ok = ready(l.index, std::move(l.path), std::move(l.sha256), false, std::move(l.skeleton)); !ok) {
      return fail(ok.error());
    }
  }
  if (requests.empty()) return paths;
  auto c = get_client();
  if (!c) return fail(c.error());
  http::Client& http = **c;
  // Large wheels are handed on while they download (when the server honours Range requests for
  // their last bytes, which hold the central directory and the .dist-info), so that unpacking
  // overlaps the transfer; their checks then finish with the download, below.
  auto arriving = hand_on_arriving(http, requests);
  {
    // The largest start first (detail::download_order), with the sizes that the tails of wheels
    // the index gave none for have told.
    const auto order = detail::download_order(requests);
    std::vector<http::DownloadRequest> sorted;
    std::vector<std::size_t> sorted_owners;
    std::vector<std::shared_ptr<const zip::Arriving>> sorted_arriving;
    for (const auto k : order) {
      sorted.push_back(std::move(requests[k]));
      sorted_owners.push_back(owners[k]);
      sorted_arriving.push_back(std::move(arriving[k]));
    }
    requests = std::move(sorted);
    owners = std::move(sorted_owners);
    arriving = std::move(sorted_arriving);
  }
  // No reader may wait for a download that will not finish: whatever way this function returns.
  struct FinishAll {
    const std::vector<http::DownloadRequest>& requests;
    ~FinishAll() {
      for (const auto& q : requests) {
        if (q.growing) q.growing->finish(fail(fmt::format("{}: the download did not complete", redact_url(q.url))));
      }
    }
  } finish_all{requests};
  if (on_ready) {
    // Smallest first: downloads share the bandwidth, so the smaller wheels are complete first, and
    // the workers, taking wheels in this order, wait least for bytes.
    std::vector<std::size_t> order;
    for (std::size_t k = 0; k < requests.size(); ++k) {
      if (arriving[k]) order.push_back(k);
    }
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return *requests[a].size < *requests[b].size; });
    for (const auto k : order) on_ready({owners[k], requests[k].dest, requests[k].sha256, arriving[k], std::nullopt});
  }
  std::optional<Error> refused;
  auto results = http.download(
      requests,
      [&](const http::Progress& p) {
        http::Progress mapped = p;  // the display's rows are plan indexes
        mapped.index = owners[p.index];
        display->update(mapped);
      },
      [&](std::size_t k, const Result<http::Downloaded>& r) {
        display->done(owners[k], r);
        auto verdict = [&]() -> Result<void> {
          if (!r) return fail(r.error());
          if (refused) return fail(*refused);
          const auto& s = plan.packages[owners[k]];
          if (!allowed(s, r->sha256)) {
            std::error_code ec;
            fs::remove(r->path, ec);
            refused = Error(fmt::format("{}: sha256 {} is not among the --hash values given for {}", redact_url(s.wheel.url),
                                        r->sha256, s.name));
            return fail(*refused);
          }
          // The record first: once handed on, the download may be unpacked and removed, and its
          // directory with it. Best effort: without it, the next run downloads the wheel again.
          const bool record = !requests[k].sha256 && is_http_url(requests[k].url);
          if (auto origin = record ? detail::origin_of(requests[k].url, *r) : std::nullopt) {
            (void)write_file_atomic(detail::origin_path(r->path), detail::origin_json(*origin), Durability::none);
          }
          if (auto ok = ready(owners[k], r->path, r->sha256, arriving[k] != nullptr); !ok) {
            std::error_code ec;
            if (record) fs::remove(detail::origin_path(r->path), ec);
            refused = ok.error();
            return ok;
          }
          return {};
        }();
        if (requests[k].growing) requests[k].growing->finish(std::move(verdict));
      });
  if (own) own->finish();
  for (std::size_t k = 0; k < results.size(); ++k) {
    if (results[k]) continue;
    // A partial download is never left in the cache: the retries of this run resumed it already.
    for (const auto& q : requests) {
      std::error_code ec;
      fs::remove(fs::path(q.dest.string() + ".part"), ec);
    }
    return fail(about(plan.packages[owners[k]], results[k].error()));
  }
  if (refused) return fail(*refused);
  return paths;
}

std::string describe(const Selected& s) {
  // A source tree's version is known once it is built.
  return fmt::format("{}{}{}: {} ({})", s.name, s.version.empty() ? "" : " ", s.version, s.wheel.filename, s.why);
}

std::string report_json(const Plan& plan, const std::vector<install::Installed>* installed) {
  nlohmann::ordered_json doc;
  doc["version"] = 1;
  doc["target"] = plan.target;
  auto& list = doc["install"] = nlohmann::ordered_json::array();
  for (const auto& s : plan.packages) {
    nlohmann::ordered_json p;
    p["name"] = s.name;
    p["version"] = s.version;
    p["wheel"] = s.wheel.filename;
    p["url"] = s.wheel.path ? s.wheel.path->string() : redact_url(s.wheel.url);
    if (auto sha = s.wheel.sha256()) p["sha256"] = *sha;
    p["requested"] = s.requested;
    p["required_by"] = s.required_by;
    if (s.label) {
      p["variant"] = {{"label", *s.label}, {"properties", s.properties}};
    } else {
      p["variant"] = nullptr;
    }
    p["why"] = s.why;
    auto& others = p["other_variants"] = nlohmann::ordered_json::array();
    for (const auto& o : s.other_variants) others.push_back({{"label", o.label}, {"reason", o.reason}});
    if (installed) {
      for (const auto& d : *installed) {
        if (d.name.empty()) continue;
        if (wheel_name::canonicalize_name(d.name) == s.name) p["installed"] = !d.skipped;
      }
    }
    list.push_back(std::move(p));
  }
  doc["warnings"] = plan.warnings;
  return doc.dump(2) + "\n";
}

namespace {

/// The requirement line of a lock entry installed from a source: an sdist is its version (from
/// the index, pinned by its hash); an archive, a directory and a vcs commit are PEP 508 direct
/// references (`-e PATH` for an editable directory), as pip reads them.
std::string source_requirement(const Selected& s) {
  const auto& source = *s.source;
  using Kind = LockedSource::Kind;
  fs::path path = source.path.value_or(fs::path());
  if (source.subdirectory && source.kind != Kind::archive) path /= *source.subdirectory;
  const std::string location = source.url.empty() ? install::file_url(path) : url_without_userinfo(source.url);
  std::string out;
  switch (source.kind) {
    case Kind::sdist:
      out = fmt::format("{}=={}", s.name, s.version);
      break;
    case Kind::archive:
      out = fmt::format("{} @ {}", s.name, location);
      if (source.subdirectory) out += "#subdirectory=" + *source.subdirectory;
      break;
    case Kind::directory:
      out = source.editable ? fmt::format("-e {}", path.string()) : fmt::format("{} @ {}", s.name, location);
      break;
    case Kind::vcs: {
      const std::string base = source.url.empty() ? install::file_url(source.path.value_or(fs::path())) : location;
      out = fmt::format("{} @ {}+{}@{}", s.name, source.vcs_type, base, source.commit_id);
      if (source.subdirectory) out += "#subdirectory=" + *source.subdirectory;
      break;
    }
  }
  if (auto it = source.hashes.find("sha256"); it != source.hashes.end()) {
    out += fmt::format(" \\\n    --hash=sha256:{}", it->second);
  }
  return out + fmt::format("\n    # {}\n", s.why);
}

}  // namespace

std::string requirements_txt(const Plan& plan) {
  std::string out = fmt::format("# exported by vwheel for {}\n", plan.target);
  for (const auto& s : plan.packages) {
    if (s.source) {
      out += source_requirement(s);
      continue;
    }
    out += fmt::format("{}=={}", s.name, s.version);
    if (auto sha = s.wheel.sha256()) out += fmt::format(" \\\n    --hash=sha256:{}", *sha);
    out += fmt::format("\n    # {}\n", s.wheel.filename);
  }
  return out;
}

}  // namespace vwheel::plan
