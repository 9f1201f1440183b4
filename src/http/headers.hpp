#pragma once
// Private to the http component: the response headers curl reports, and the few HTTP field values
// the client reads (numbers, Content-Range, the Accept of a request).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace vwheel::http::detail {

/// An unsigned decimal number with optional whitespace (OWS) around it.
[[nodiscard]] bool parse_u64(std::string_view s, std::uint64_t& out);

/// "bytes START-END/TOTAL" (TOTAL may be "*").
struct ContentRange {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::optional<std::uint64_t> total;
};

/// A Content-Range value; nullopt when it is not `bytes START-END/TOTAL` with START <= END.
[[nodiscard]] std::optional<ContentRange> parse_content_range(std::string_view v);

/// The headers of the final response (those of redirects and 1xx answers are dropped).
struct Headers {
  long status = 0;
  std::string reason;
  std::string etag, last_modified, content_type, content_range, cache_control, retry_after, age;

  void reset() { *this = Headers{}; }

  /// Takes one header line as curl hands it (CRLF included); a status line starts over.
  void add_line(std::string_view line);

  [[nodiscard]] std::string status_text() const {
    return reason.empty() ? fmt::format("HTTP {}", status) : fmt::format("HTTP {} {}", status, reason);
  }
};

/// The value of the Accept header among `headers` (`Name: value` lines), empty when absent.
[[nodiscard]] std::string accept_of(const std::vector<std::string>& headers);

}  // namespace vwheel::http::detail
