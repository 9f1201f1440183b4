// The record of a wheel downloaded without a sha256 (origin.hpp): written after the download,
// read back and checked against a HEAD request's validators on the next run.
#include "plan/origin.hpp"

#include <nlohmann/json.hpp>

#include "vwheel/core/hash.hpp"
#include "vwheel/core/text.hpp"

namespace vwheel::plan::detail {

std::optional<Origin> origin_of(std::string url, const http::Downloaded& downloaded) {
  auto validators = http::validators_of(downloaded.etag, downloaded.last_modified, downloaded.size);
  if (!validators) return std::nullopt;
  return Origin{std::move(url), downloaded.sha256, std::move(*validators)};
}

std::string origin_json(const Origin& origin) {
  nlohmann::json j;
  j["url"] = origin.url;
  j["sha256"] = origin.sha256;
  http::put_validators(j, origin.validators);
  return j.dump() + "\n";
}

std::optional<Origin> parse_origin(std::string_view text, std::string_view url) {
  // vwheel's own small file (a few hundred bytes): nlohmann's parser, not the one for untrusted input.
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  const auto u = j.find("url");
  const auto sha = j.find("sha256");
  if (u == j.end() || !u->is_string() || *u != url || sha == j.end() || !sha->is_string()) return std::nullopt;
  const auto& hex = sha->get_ref<const std::string&>();
  if (!is_sha256_hex(hex) || ascii_lower(hex) != hex) return std::nullopt;
  auto validators = http::get_validators(j);
  if (!validators) return std::nullopt;
  return Origin{std::string(url), hex, std::move(*validators)};
}

}  // namespace vwheel::plan::detail
