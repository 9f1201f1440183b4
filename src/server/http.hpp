#pragma once
// Pure HTTP helpers of `vwheel index serve` (no I/O, no httplib): PEP 691 content negotiation,
// request-target sanitising, single byte ranges, entity tags and conditional requests, dates,
// media types by file extension, and the Authorization header. Unit-tested on their own.

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"

namespace vwheel::server::http {

// ---- PEP 691 content negotiation ----

/// The representations of a `/simple/` page, in the server's order of preference for ties.
enum class PageFormat {
  TextHtml,    ///< `text/html` (PEP 503): index.html
  SimpleHtml,  ///< `application/vnd.pypi.simple.v1+html`: index.html
  SimpleJson,  ///< `application/vnd.pypi.simple.v1+json`: index.json
};

/// Which files a `/simple/` directory holds: the HTML formats are served from index.html, the JSON
/// one from index.json.
struct PageFiles {
  bool html = true;
  bool json = true;

  /// Whether the file that `format` is served from is there.
  [[nodiscard]] bool has(PageFormat format) const noexcept { return format == PageFormat::SimpleJson ? json : html; }
};

/// The media types `files` can be served as, for a 406's message: "text/html and
/// application/vnd.pypi.simple.v1+html", with ", application/vnd.pypi.simple.v1+json" when both.
[[nodiscard]] std::string served_types(PageFiles files);

/// The Content-Type sent with a format.
[[nodiscard]] std::string_view content_type(PageFormat format) noexcept;
/// The file of a `/simple/` directory holding a format (`index.html` or `index.json`).
[[nodiscard]] std::string_view page_file(PageFormat format) noexcept;

/// One media range of an Accept header.
struct MediaRange {
  std::string type;     ///< lowercase, e.g. `application` or `*`
  std::string subtype;  ///< lowercase, e.g. `vnd.pypi.simple.v1+json` or `*`
  int q = 1000;         ///< quality in thousandths (0..1000)
};

/// Parses an Accept header (RFC 9110 12.5.1). Malformed elements (no `/`, a bad q-value) are
/// skipped; at most 64 elements are read.
[[nodiscard]] std::vector<MediaRange> parse_accept(std::string_view header);

/// Chooses the format of a `/simple/` page: each offered type takes the q-value of the most
/// specific matching media range (`type/subtype` > `type/*` > `*/*`);
/// `application/vnd.pypi.simple.latest+json` and `...latest+html` count as the v1 types; the
/// highest q wins, ties going to the earlier PageFormat. An absent or empty header means
/// `text/html`. Only the formats `available` says the page has are offered (a site that another
/// tool built may have index.html alone: pip, which prefers JSON, must still get the HTML). nullopt
/// when nothing offered is acceptable (406).
[[nodiscard]] std::optional<PageFormat> negotiate(std::string_view accept, PageFiles available = {});

/// The `format` query parameter of PEP 691 (`?format=application/vnd.pypi.simple.v1+json`), which
/// overrides the Accept header when present. nullopt when absent or not a known type.
[[nodiscard]] std::optional<PageFormat> format_from_query(std::string_view query);

// ---- request targets ----

/// A request target reduced to safe path segments.
struct TargetPath {
  std::vector<std::string> segments;  ///< decoded, none empty, `.`, `..` or hidden (leading `.`)
  bool trailing_slash = false;        ///< the path ended in `/` (or was `/`)
  std::string query;                  ///< after `?`, still encoded
};

/// Why a target was refused.
enum class TargetError {
  BadRequest,  ///< not origin-form, a bad percent-escape, NUL, a control character or a backslash (400)
  NotFound,    ///< a `.` or `..` segment or a hidden one (404: nothing outside the root or hidden is served)
};

/// Splits and checks a request target (`/simple/pkg/?x=1`): percent-escapes are decoded once (so
/// `%2e%2e%2f` is `../` and refused), empty segments (`//`) are dropped, and every segment must be
/// a plain name.
[[nodiscard]] tl::expected<TargetPath, TargetError> parse_target(std::string_view target);

/// `%XX`-decodes `text` once (`+` stays `+`); nullopt on a malformed escape.
[[nodiscard]] std::optional<std::string> percent_decode(std::string_view text);

/// `segments` percent-encoded and joined with `/` (for Location headers).
[[nodiscard]] std::string encode_path(const std::vector<std::string>& segments, bool trailing_slash);

// ---- byte ranges ----

/// The outcome of a Range header against a representation of `size` bytes.
struct RangeRequest {
  enum class Kind {
    Full,           ///< no Range header, or one the server ignores (not `bytes=`, several ranges, bad syntax): 200
    Partial,        ///< one satisfiable range: 206
    Unsatisfiable,  ///< a valid range that starts past the end: 416
  };
  Kind kind = Kind::Full;
  std::uint64_t first = 0;  ///< with Partial: the first byte
  std::uint64_t last = 0;   ///< with Partial: the last byte (inclusive)
};

/// Evaluates a single-range Range header (`bytes=a-b`, `bytes=a-`, `bytes=-n`).
[[nodiscard]] RangeRequest parse_range(std::string_view header, std::uint64_t size);

/// `bytes first-last/size`.
[[nodiscard]] std::string content_range(std::uint64_t first, std::uint64_t last, std::uint64_t size);

// ---- validators and conditional requests ----

/// A strong entity tag (quoted) from a file's identity: inode, size and modification time.
[[nodiscard]] std::string make_etag(std::uint64_t inode, std::uint64_t size, std::int64_t mtime_ns);

/// True when an If-None-Match header matches `etag` (weak comparison, `*` matches anything).
[[nodiscard]] bool if_none_match(std::string_view header, std::string_view etag);

/// True when an If-Range header lets a range apply: a strong etag equal to `etag`, or a date
/// equal to `last_modified`.
[[nodiscard]] bool if_range_matches(std::string_view header, std::string_view etag, std::string_view last_modified);

/// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
[[nodiscard]] std::string format_http_date(std::time_t t);
/// Parses an IMF-fixdate; nullopt for anything else.
[[nodiscard]] std::optional<std::time_t> parse_http_date(std::string_view text);

// ---- media types ----

/// The Content-Type of a served file, by extension: `.whl` application/octet-stream, `.metadata`
/// text/plain, `.json` application/json, `.html` text/html, ...
[[nodiscard]] std::string_view file_content_type(std::string_view filename) noexcept;

// ---- authorization ----

/// The secret an Authorization header carries: the password of `Basic` (any user name) or the
/// token of `Bearer`. nullopt when absent or malformed.
[[nodiscard]] std::optional<std::string> authorization_secret(std::string_view header);

/// Standard base64 decoding (padding optional); nullopt on invalid input.
[[nodiscard]] std::optional<std::string> base64_decode(std::string_view text);

/// Compares two secrets in time independent of where they differ.
[[nodiscard]] bool constant_time_equal(std::string_view a, std::string_view b) noexcept;

}  // namespace vwheel::server::http
