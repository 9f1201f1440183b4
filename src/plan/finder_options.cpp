#include "finder_options.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "origin.hpp"
#include "vwheel/core/cache_layout.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/text.hpp"

namespace vwheel::plan::detail {
namespace fs = std::filesystem;

namespace {

/// A whole wheel taken into memory (`answer`), written to `dest` as a download of it would be:
/// checked against the index's size and sha256 when it gave them, and without a sha256 with the
/// record of its origin.
Result<http::Downloaded> keep_whole(const finder::File& f, const http::RangeResponse& answer,
                                    const std::optional<std::string>& expected, const fs::path& dest) {
  http::Downloaded d;
  d.path = dest;
  d.sha256 = sha256_hex(answer.body);
  d.size = answer.body.size();
  d.etag = answer.etag;
  d.last_modified = answer.last_modified;
  if (f.size && *f.size != d.size) {
    return fail(fmt::format("{}: {} bytes, but the expected size is {}", redact_url(f.url), d.size, *f.size));
  }
  if (expected && d.sha256 != *expected) {
    return fail(fmt::format("{}: sha256 {} does not match the expected {}", redact_url(f.url), d.sha256, *expected));
  }
  std::error_code ec;
  if (!expected) fs::remove(origin_path(dest), ec);
  fs::create_directories(dest.parent_path(), ec);
  if (auto ok = write_file_atomic(dest, answer.body, Durability::none); !ok) return fail(ok.error());
  if (!expected) {
    // Best effort, as fetch_wheels writes it: without it, the install downloads the wheel again.
    if (auto origin = origin_of(f.url, d)) {
      (void)write_file_atomic(origin_path(dest), origin_json(*origin), Durability::none);
    }
  }
  return d;
}

std::vector<Result<http::Downloaded>> download_whole(const fs::path& cache_dir, bool quiet, http::Client& client,
                                                     const std::vector<finder::WholeWheel>& wheels) {
  std::vector<Result<http::Downloaded>> out(wheels.size(), fail("not downloaded"));
  std::vector<http::DownloadRequest> requests;
  std::vector<std::size_t> owners;  // requests[k] downloads wheels[owners[k]]
  std::vector<std::string> names;
  std::vector<std::pair<std::size_t, std::size_t>> same;  // (wheel, request): the same file twice
  for (std::size_t i = 0; i < wheels.size(); ++i) {
    const auto& f = *wheels[i].file;
    const auto& answer = *wheels[i].answer;
    if (f.filename.find('/') != std::string::npos || f.filename.starts_with(".")) {
      out[i] = fail(fmt::format("{}: unsafe file name `{}`", redact_url(f.url), f.filename));
      continue;
    }
    std::optional<std::string> expected = f.sha256();
    if (expected) {
      *expected = ascii_lower(*expected);
      if (!is_sha256_hex(*expected)) {  // never a path component unchecked
        out[i] = fail(fmt::format("{}: the sha256 `{}` given for it is not 64 hex digits", redact_url(f.url), *expected));
        continue;
      }
    }
    const auto dest = (expected ? CacheLayout(cache_dir).archive_dir(*expected) : url_dir(cache_dir, f.url)) / f.filename;
    std::error_code ec;
    if (expected && fs::is_regular_file(dest, ec) && !has_hole_before_end(dest)) {
      // Kept from an earlier run, verified when it was written (as fetch_wheels takes it).
      const auto size = fs::file_size(dest, ec);
      if (!ec) {
        http::Downloaded kept;
        kept.path = dest;
        kept.sha256 = *expected;
        kept.size = size;
        out[i] = std::move(kept);
        continue;
      }
    }
    if (!answer.too_large) {
      out[i] = keep_whole(f, answer, expected, dest);
      continue;
    }
    // One download to each place (two sources may list the same file).
    if (auto it = std::find_if(requests.begin(), requests.end(), [&](const auto& q) { return q.dest == dest; });
        it != requests.end()) {
      same.emplace_back(i, static_cast<std::size_t>(it - requests.begin()));
      continue;
    }
    // Whatever the record said, it no longer describes the file there once the download starts.
    if (!expected) fs::remove(origin_path(dest), ec);
    requests.emplace_back(f.url, dest, expected, f.size);
    owners.push_back(i);
    names.push_back(f.filename);
  }
  if (requests.empty()) return out;
  http::ProgressDisplay display(std::move(names), http::ProgressDisplay::style_for(quiet));
  auto results = client.download(
      requests, [&](const http::Progress& p) { display.update(p); },
      [&](std::size_t k, const Result<http::Downloaded>& r) { display.done(k, r); });
  display.finish();
  for (std::size_t k = 0; k < requests.size(); ++k) {
    const auto& q = requests[k];
    auto& r = results[k];
    std::error_code ec;
    if (!r) {
      fs::remove(fs::path(q.dest.string() + ".part"), ec);
    } else if (!q.sha256) {
      // Best effort, as fetch_wheels writes it: without it, the install downloads the wheel again.
      if (auto origin = origin_of(q.url, *r)) {
        (void)write_file_atomic(origin_path(r->path), origin_json(*origin), Durability::none);
      }
    }
    out[owners[k]] = std::move(r);
  }
  for (const auto& [i, k] : same) out[i] = out[owners[k]];
  return out;
}

}  // namespace

finder::FinderOptions finder_options(const Settings& settings) {
  finder::FinderOptions options;
  options.cache_dir = settings.cache_dir;
  options.download = [cache_dir = settings.cache_dir, quiet = settings.quiet](
                         http::Client& client, const std::vector<finder::WholeWheel>& wheels) {
    return download_whole(cache_dir, quiet, client, wheels);
  };
  return options;
}

}  // namespace vwheel::plan::detail
