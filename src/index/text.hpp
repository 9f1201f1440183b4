#pragma once
// Escaping for the pages of the static index: HTML text and attributes, JSON strings, URL path
// segments, and the PEP 700 upload time. Nothing here allocates per character.

#include <cstdint>
#include <string>
#include <string_view>

namespace vwheel::index::detail {

// Appends `text` with `&`, `<`, `>`, `"` and `'` escaped (safe in text and in quoted attributes).
// Invalid UTF-8 bytes become U+FFFD, so a hostile METADATA field cannot break the page.
void append_html(std::string& out, std::string_view text);
[[nodiscard]] std::string html_escape(std::string_view text);

// Appends `text` as a JSON string, quotes included: `"` `\` and control characters escaped,
// invalid UTF-8 bytes replaced by U+FFFD.
void append_json_string(std::string& out, std::string_view text);
[[nodiscard]] std::string json_string(std::string_view text);

// PEP 700's `upload-time`: `yyyy-mm-ddThh:mm:ss.ffffffZ` (UTC) of a time in nanoseconds since
// the epoch.
[[nodiscard]] std::string format_upload_time(std::int64_t unix_ns);

}  // namespace vwheel::index::detail
