// The record of a wheel downloaded without a sha256 (origin.hpp): written after the download,
// read back and checked against a HEAD request's validators on the next run.
#include "plan/origin.hpp"

#include <nlohmann/json.hpp>

#include "vwheel/core/cache_layout.hpp"
#include "vwheel/core/fs.hpp"
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

std::optional<Origin> parse_origin(std::string_view text) {
  // vwheel's own small file (a few hundred bytes): nlohmann's parser, not the one for untrusted input.
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  const auto u = j.find("url");
  const auto sha = j.find("sha256");
  if (u == j.end() || !u->is_string() || sha == j.end() || !sha->is_string()) return std::nullopt;
  const auto& hex = sha->get_ref<const std::string&>();
  if (!is_sha256_hex(hex) || ascii_lower(hex) != hex) return std::nullopt;
  auto validators = http::get_validators(j);
  if (!validators) return std::nullopt;
  return Origin{u->get<std::string>(), hex, std::move(*validators)};
}

std::optional<Origin> parse_origin(std::string_view text, std::string_view url) {
  auto origin = parse_origin(text);
  if (!origin || origin->url != url) return std::nullopt;
  return origin;
}

std::filesystem::path url_dir(const std::filesystem::path& cache_dir, std::string_view url) {
  return CacheLayout(cache_dir).entry(CacheArea::archives, "url-" + sha256_hex(url));
}

std::filesystem::path origin_path(const std::filesystem::path& download) {
  return {download.string() + ".origin.json"};
}

Result<std::vector<std::optional<Origin>>> known_origins(
    const std::vector<Hashless>& wheels, const std::filesystem::path& cache_dir, bool offline,
    const std::map<std::string, http::Response, std::less<>>& answered,
    const std::function<Result<http::Client*>()>& client) {
  std::vector<std::optional<Origin>> known(wheels.size());
  std::vector<http::Request> heads;
  std::vector<std::size_t> asked;
  for (std::size_t i = 0; i < wheels.size(); ++i) {
    const auto& w = wheels[i];
    auto text = read_file(origin_path(url_dir(cache_dir, w.url) / w.filename));
    if (!text) continue;
    auto origin = parse_origin(*text, w.url);
    if (!origin || (w.size && *w.size != origin->validators.size)) continue;
    known[i] = std::move(origin);
    if (offline) continue;
    if (auto before = answered.find(w.url); before != answered.end()) {
      if (!http::unchanged(known[i]->validators, before->second)) known[i].reset();
      continue;
    }
    http::Request head(w.url, {}, false);
    head.head = true;
    heads.push_back(std::move(head));
    asked.push_back(i);
  }
  if (heads.empty()) return known;
  auto c = client();
  if (!c) return tl::unexpected(c.error());
  const auto answers = (*c)->get_many(heads);
  for (std::size_t j = 0; j < asked.size(); ++j) {
    if (!answers[j] || !http::unchanged(known[asked[j]]->validators, *answers[j])) known[asked[j]].reset();
  }
  return known;
}

}  // namespace vwheel::plan::detail

namespace vwheel::plan {

std::optional<std::string> origin_record_sha256(const std::filesystem::path& record) {
  auto text = read_file(record);
  if (!text) return std::nullopt;
  auto origin = detail::parse_origin(*text);
  if (!origin) return std::nullopt;
  return std::move(origin->sha256);
}

}  // namespace vwheel::plan
