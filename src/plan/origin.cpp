// The record of a wheel downloaded without a sha256 (origin.hpp): written after the download,
// read back and checked against a HEAD request's validators on the next run.
#include "plan/origin.hpp"

#include <nlohmann/json.hpp>

#include "vwheel/core/hash.hpp"
#include "vwheel/core/text.hpp"

namespace vwheel::plan::detail {

std::optional<Origin> origin_of(std::string url, const http::Downloaded& downloaded) {
  Origin o;
  o.url = std::move(url);
  o.sha256 = downloaded.sha256;
  o.size = downloaded.size;
  if (!downloaded.etag.empty() && !ascii_istarts_with(downloaded.etag, "W/")) o.etag = downloaded.etag;
  o.last_modified = downloaded.last_modified;
  if (o.etag.empty() && o.last_modified.empty()) return std::nullopt;
  return o;
}

std::string origin_json(const Origin& origin) {
  nlohmann::ordered_json j;
  j["url"] = origin.url;
  j["sha256"] = origin.sha256;
  j["size"] = origin.size;
  j["etag"] = origin.etag;
  j["last_modified"] = origin.last_modified;
  return j.dump() + "\n";
}

std::optional<Origin> parse_origin(std::string_view text, std::string_view url) {
  // vwheel's own small file (a few hundred bytes): nlohmann's parser, not the one for untrusted input.
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  const auto string_field = [&j](const char* key) -> const std::string* {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get_ptr<const std::string*>() : nullptr;
  };
  const auto* u = string_field("url");
  const auto* sha = string_field("sha256");
  const auto* etag = string_field("etag");
  const auto* modified = string_field("last_modified");
  const auto size = j.find("size");
  if (u == nullptr || *u != url || sha == nullptr || !is_sha256_hex(*sha) || ascii_lower(*sha) != *sha ||
      etag == nullptr || modified == nullptr || size == j.end() || !size->is_number_unsigned() ||
      (etag->empty() && modified->empty())) {
    return std::nullopt;
  }
  return Origin{*u, *sha, size->get<std::uint64_t>(), *etag, *modified};
}

bool unchanged(const Origin& origin, const http::Response& head) {
  if (head.status < 200 || head.status > 299) return false;
  if (!origin.etag.empty() && head.etag != origin.etag) return false;
  if (!origin.last_modified.empty() && head.last_modified != origin.last_modified) return false;
  return !head.content_length || *head.content_length == origin.size;
}

}  // namespace vwheel::plan::detail
