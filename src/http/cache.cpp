#include "http/cache.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string_view>
#include <system_error>

#include <nlohmann/json.hpp>

#include "vwheel/core/cache_layout.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/text.hpp"

namespace vwheel::http::detail {

namespace fs = std::filesystem;

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::int64_t fresh_until(const Headers& h, std::int64_t now) {
  const auto cc = ascii_lower(h.cache_control);
  if (cc.find("no-cache") != std::string::npos || cc.find("no-store") != std::string::npos) return 0;
  std::optional<std::uint64_t> max_age;
  for (std::string_view key : {"s-maxage=", "max-age="}) {
    auto at = cc.find(key);
    if (at == std::string::npos || (at > 0 && cc[at - 1] != ' ' && cc[at - 1] != ',')) continue;
    auto digits = std::string_view(cc).substr(at + key.size());
    digits = digits.substr(0, digits.find_first_not_of("0123456789"));
    std::uint64_t v = 0;
    if (parse_u64(digits, v)) {
      max_age = v;
      break;
    }
  }
  if (!max_age || *max_age == 0) return 0;
  std::uint64_t age = 0;
  if (!h.age.empty() && !parse_u64(h.age, age)) age = 0;
  if (age >= *max_age) return 0;
  constexpr std::uint64_t kLongest = 10ULL * 365 * 24 * 3600;  // keeps the sum far from overflowing
  return now + static_cast<std::int64_t>(std::min(*max_age - age, kLongest));
}

bool may_store(const Headers& h) { return ascii_lower(h.cache_control).find("no-store") == std::string::npos; }

std::optional<fs::path> cache_file(const std::optional<fs::path>& cache_dir, const Request& request) {
  if (!cache_dir || !request.use_cache || request.head || ascii_istarts_with(request.url, "file:")) return std::nullopt;
  // Keyed on the URL without its userinfo: no credentials in the cache, not even hashed.
  return CacheLayout(*cache_dir).entry(CacheArea::http, sha256_hex(url_without_userinfo(request.url) + "\n" + accept_of(request.headers)));
}

std::optional<CacheEntry> read_cache(const fs::path& file) {
  auto text = read_file(file);
  if (!text) return std::nullopt;
  const auto nl = text->find('\n');
  if (nl == std::string::npos) return std::nullopt;
  auto meta = nlohmann::json::parse(std::string_view(*text).substr(0, nl), nullptr, false);
  if (!meta.is_object()) return std::nullopt;
  CacheEntry e;
  try {
    e.etag = meta.value("etag", "");
    e.last_modified = meta.value("last_modified", "");
    e.content_type = meta.value("content_type", "");
    e.effective_url = meta.value("effective_url", "");
    e.status = meta.value("status", 200L);
    e.expires = meta.value("expires", std::int64_t{0});
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
  e.body = text->substr(nl + 1);
  return e;
}

std::optional<std::int64_t> read_cache_expires(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string line;
  if (!in || !std::getline(in, line) || in.eof()) return std::nullopt;  // no newline: read_cache refuses it too
  auto meta = nlohmann::json::parse(line, nullptr, false);
  if (!meta.is_object()) return std::nullopt;
  try {
    return meta.value("expires", std::int64_t{0});
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

void write_cache(const fs::path& file, const std::string& url, const CacheEntry& e) {
  nlohmann::json meta = {{"url", url_without_userinfo(url)},
                         {"effective_url", url_without_userinfo(e.effective_url)},
                         {"etag", e.etag},
                         {"last_modified", e.last_modified},
                         {"content_type", e.content_type},
                         {"status", e.status},
                         {"expires", e.expires}};
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  // The cache is best effort: a failure to store only costs a download next time.
  (void)write_file_atomic(file, meta.dump() + "\n" + e.body, Durability::none);
}

Response cached_response(CacheEntry&& e, const std::string& url) {
  Response r;
  r.status = e.status;
  r.body = std::move(e.body);
  r.content_type = std::move(e.content_type);
  r.url = e.effective_url.empty() ? url : std::move(e.effective_url);
  r.from_cache = true;
  return r;
}

}  // namespace vwheel::http::detail
