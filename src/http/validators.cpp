// A file's validators (validators.hpp): which of a server's answers can revalidate it, and whether
// a HEAD answer says it is unchanged.
#include "vwheel/http/validators.hpp"

#include <nlohmann/json.hpp>

#include "vwheel/core/text.hpp"

namespace vwheel::http {

std::optional<Validators> validators_of(std::string_view etag, std::string_view last_modified, std::uint64_t size) {
  Validators v;
  if (!etag.empty() && !ascii_istarts_with(etag, "W/")) v.etag = etag;
  v.last_modified = last_modified;
  v.size = size;
  if (v.etag.empty() && v.last_modified.empty()) return std::nullopt;
  return v;
}

bool unchanged(const Validators& validators, const Response& head) {
  if (head.status < 200 || head.status > 299) return false;
  if (!validators.etag.empty() && head.etag != validators.etag) return false;
  if (!validators.last_modified.empty() && head.last_modified != validators.last_modified) return false;
  return !head.content_length || *head.content_length == validators.size;
}

void put_validators(nlohmann::json& object, const Validators& validators) {
  object["size"] = validators.size;
  object["etag"] = validators.etag;
  object["last_modified"] = validators.last_modified;
}

std::optional<Validators> get_validators(const nlohmann::json& object) {
  if (!object.is_object()) return std::nullopt;
  const auto etag = object.find("etag");
  const auto modified = object.find("last_modified");
  const auto size = object.find("size");
  if (etag == object.end() || !etag->is_string() || modified == object.end() || !modified->is_string() ||
      size == object.end() || !size->is_number_unsigned()) {
    return std::nullopt;
  }
  Validators v{etag->get<std::string>(), modified->get<std::string>(), size->get<std::uint64_t>()};
  if (v.etag.empty() && v.last_modified.empty()) return std::nullopt;
  return v;
}

}  // namespace vwheel::http
