#pragma once
// Private to the plan component: what fetch.cpp remembers of a wheel downloaded without a sha256
// from its index (a find-links page or an index without hashes), so that the next run can ask the
// server whether the file changed (a HEAD request) instead of downloading it again.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"

#include "vwheel/http/client.hpp"
#include "vwheel/http/validators.hpp"

namespace vwheel::plan::detail {

/// A download's origin: where it came from, what the server said of it, and what it was.
struct Origin {
  std::string url;
  std::string sha256;  ///< lowercase hex of the file downloaded
  http::Validators validators;  ///< what the server said of it (its size included)
};

/// The origin of a download, when the server said enough to revalidate it (http::validators_of).
[[nodiscard]] std::optional<Origin> origin_of(std::string url, const http::Downloaded& downloaded);

/// The record's text (JSON, one object).
[[nodiscard]] std::string origin_json(const Origin& origin);

/// A record read back: nullopt unless it is one object with the fields origin_json writes, a
/// sha256 of 64 lowercase hex digits, and at least one validator. A damaged record is only a
/// download again.
[[nodiscard]] std::optional<Origin> parse_origin(std::string_view text);
/// The same, and nullopt unless the record is for `url`.
[[nodiscard]] std::optional<Origin> parse_origin(std::string_view text, std::string_view url);

/// Where a wheel downloaded from `url` without a sha256 goes in the cache:
/// `<cache>/archives/url-<sha256 of the URL>/`, which outlives the download itself.
[[nodiscard]] std::filesystem::path url_dir(const std::filesystem::path& cache_dir, std::string_view url);

/// Where the origin of the download at `download` is kept: beside it.
[[nodiscard]] std::filesystem::path origin_path(const std::filesystem::path& download);

/// A wheel from an HTTP server that gives no sha256 for it.
struct Hashless {
  std::string url;
  std::string filename;
  std::optional<std::uint64_t> size;  ///< what the index said, when it said
};

/// For each wheel, its origin when one was recorded and the server's file is still that one: the
/// server is asked with a HEAD request each, all at once (an answer in `answered`, by URL, is
/// taken instead: the resolution may have asked already); offline, the record is taken as it is,
/// as pip's and uv's caches do. nullopt where there is no record, the record does not check out
/// or disagrees with the index's size, or the server's answer says the file changed or fails.
/// `client` makes the HTTP client, only when a request is needed.
[[nodiscard]] Result<std::vector<std::optional<Origin>>> known_origins(
    const std::vector<Hashless>& wheels, const std::filesystem::path& cache_dir, bool offline,
    const std::map<std::string, http::Response, std::less<>>& answered,
    const std::function<Result<http::Client*>()>& client);


}  // namespace vwheel::plan::detail
