#pragma once
/// \file
/// What a server said of a file (its strong ETag, Last-Modified and size), kept beside something
/// made from that file, so that a later run can ask with one HEAD request whether the file is
/// still the same instead of fetching it again.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "vwheel/http/client.hpp"

namespace vwheel::http {

/// A file's validators, as its server gave them.
struct Validators {
  std::string etag;           ///< strong ETag, empty when the server gave none (or a weak one)
  std::string last_modified;  ///< Last-Modified, empty when the server gave none
  std::uint64_t size = 0;     ///< the file's size
};

/// The validators of a file, when the server said enough to revalidate it: a strong ETag or a
/// Last-Modified. A weak ETag (`W/"..."`) promises an equivalent file, not the same bytes: it is
/// left out.
[[nodiscard]] std::optional<Validators> validators_of(std::string_view etag, std::string_view last_modified,
                                                      std::uint64_t size);

/// Whether the server's answer to a HEAD request says the file is still the one described: a 2xx
/// status, every validator recorded given back unchanged, and the same Content-Length when the
/// answer has one.
[[nodiscard]] bool unchanged(const Validators& validators, const Response& head);

/// Adds the validators to a JSON object as `size`, `etag` and `last_modified`.
void put_validators(nlohmann::json& object, const Validators& validators);

/// The validators of a JSON object put_validators wrote: nullopt when a field is missing or of
/// another type, or when there is no validator at all.
[[nodiscard]] std::optional<Validators> get_validators(const nlohmann::json& object);

}  // namespace vwheel::http
