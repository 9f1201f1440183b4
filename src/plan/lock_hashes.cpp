#include "lock_hashes.hpp"

#include <fmt/format.h>

#include "vwheel/core/cache_layout.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"

namespace vwheel::plan::detail {
namespace fs = std::filesystem;

namespace {

/// Moves a download of the wheel with that sha256 to where a sync by that sha256 looks for it
/// (best effort: otherwise the sync downloads it again).
void keep_by_sha256(const fs::path& download, const std::string& sha256, const fs::path& cache_dir) {
  const auto kept = CacheLayout(cache_dir).archive_dir(sha256) / download.filename();
  std::error_code ec;
  fs::create_directories(kept.parent_path(), ec);
  if (ec || (fs::rename(download, kept, ec), ec)) fs::remove(download, ec);
}

}  // namespace

Result<std::map<std::string, WheelDigest>> hash_hashless(const std::vector<Hashless>& wheels, const Settings& settings,
                                                          http::Client& client,
                                                          const std::map<std::string, http::Response, std::less<>>& answered,
                                                          bool quiet) {
  std::map<std::string, WheelDigest> out;
  auto known = known_origins(wheels, settings.cache_dir, settings.http.offline, answered,
                             [&]() -> Result<http::Client*> { return &client; });
  if (!known) return tl::unexpected(known.error());
  std::vector<http::DownloadRequest> requests;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < wheels.size(); ++i) {
    const auto& w = wheels[i];
    if (auto& origin = (*known)[i]) {
      out[w.url] = {origin->sha256, origin->validators.size};
      // The file itself, when it is still there (the resolution downloads a wheel whole to read
      // its METADATA when the server ignores range requests and the wheel is large): kept for
      // the sync too, once its bytes are checked against the record (another run may have
      // written there since).
      const auto download = url_dir(settings.cache_dir, w.url) / w.filename;
      std::error_code ec;
      if (fs::is_regular_file(download, ec) && !has_hole_before_end(download)) {
        if (auto digest = sha256_file(download); digest && digest->sha256 == origin->sha256) {
          keep_by_sha256(download, origin->sha256, settings.cache_dir);
        }
      }
      continue;
    }
    if (settings.http.offline) {
      return fail(fmt::format("{}: the index gives no sha256 for it, and a lock needs one; --offline forbids "
                              "downloading it to compute it (it was never downloaded, or its record is gone)",
                              w.url));
    }
    requests.push_back({w.url, url_dir(settings.cache_dir, w.url) / w.filename, std::nullopt, w.size});
    names.push_back(w.filename);
  }
  if (requests.empty()) return out;
  http::ProgressDisplay display(std::move(names), http::ProgressDisplay::style_for(quiet));
  // Whatever the record said is wrong now: it goes before the download, as in fetch_wheels.
  for (const auto& q : requests) {
    std::error_code ec;
    fs::remove(origin_path(q.dest), ec);
  }
  auto results = client.download(
      requests, [&](const http::Progress& p) { display.update(p); },
      [&](std::size_t k, const Result<http::Downloaded>& r) { display.done(k, r); });
  display.finish();
  std::optional<Error> first_error;
  for (std::size_t k = 0; k < requests.size(); ++k) {
    const auto& q = requests[k];
    const auto& r = results[k];
    std::error_code ec;
    if (!r) {
      fs::remove(fs::path(q.dest.string() + ".part"), ec);
      if (!first_error) {
        first_error = r.error();
        first_error->message += " (downloaded to compute the sha256 the lock needs: the index gives none)";
      }
      continue;
    }
    out[q.url] = {r->sha256, r->size};
    // The record, so that the next lock or install asks with one HEAD request instead of
    // downloading; then the file goes where a sync by this sha256 looks for it (best effort:
    // without either, that run downloads it again).
    if (auto origin = origin_of(q.url, *r)) {
      (void)write_file_atomic(origin_path(q.dest), origin_json(*origin), Durability::none);
    }
    keep_by_sha256(q.dest, r->sha256, settings.cache_dir);
  }
  if (first_error) return tl::unexpected(*first_error);
  return out;
}

}  // namespace vwheel::plan::detail
