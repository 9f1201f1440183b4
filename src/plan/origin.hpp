#pragma once
// Private to the plan component: what fetch.cpp remembers of a wheel downloaded without a sha256
// from its index (a find-links page or an index without hashes), so that the next run can ask the
// server whether the file changed (a HEAD request) instead of downloading it again.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

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

/// A record read back: nullopt unless it is one object with the fields origin_json writes, for
/// `url`, a sha256 of 64 lowercase hex digits, and at least one validator. A damaged record is only
/// a download again.
[[nodiscard]] std::optional<Origin> parse_origin(std::string_view text, std::string_view url);


}  // namespace vwheel::plan::detail
