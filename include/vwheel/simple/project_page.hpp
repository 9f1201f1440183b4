#pragma once
/// \file
/// Package-index project pages: the HTML Simple Repository API (PEP 503, with PEP 592 yanking,
/// PEP 658/714 core metadata and `data-requires-python`) and its JSON form (PEP 691,
/// `application/vnd.pypi.simple.v1+json`). No I/O: the installer fetches the page and hands the
/// bytes here. Every input is treated as hostile: parsing is linear in the size of the page and
/// errors are one line that names the page URL.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"

namespace vwheel::simple {

/// Whether a file name is an index-level `*-variants.json` (PEP 825). On such an entry indexes MUST
/// NOT publish `yanked`, `requires-python`, `core-metadata`, `dist-info-metadata` or other `data-*`
/// attributes, and clients MUST ignore them: the parsers here drop them.
[[nodiscard]] constexpr bool is_variants_json_name(std::string_view filename) noexcept {
  return filename.ends_with("-variants.json");
}

/// One distribution file listed on a project page (a wheel, an sdist, a `*-variants.json`, ...).
/// Every file link of the page becomes a `FileLink`; the caller decides which file names it wants.
/// A `*-variants.json` link never carries `requires_python`, `yanked` or `core_metadata`.
struct FileLink {
  std::string filename;  ///< last path segment of the URL, percent-decoded (JSON: the `filename` field)
  std::string url;       ///< absolute, resolved against the page URL (or `<base href>`), fragment removed
  /// Lower-case algorithm -> lower-case hex digest, from JSON `hashes` or the URL fragment
  /// `#sha256=...` (HTML, and JSON when `hashes` is absent or empty). Fragments are read as pip
  /// reads them (`&`-separated, known algorithms only: md5, sha1, sha224, sha256, sha384, sha512,
  /// sha3_256, sha3_512, blake2b, blake2s); malformed parts are ignored.
  std::map<std::string, std::string> hashes;
  std::optional<std::string> requires_python;  ///< HTML `data-requires-python` (unescaped) / JSON `requires-python`
  std::optional<std::string> yanked;           ///< the reason (`""` without one); nullopt when not yanked
  /// PEP 658/714: present (hashes possibly empty) when the index serves `<url>.metadata`; from
  /// `data-core-metadata` / `data-dist-info-metadata` (`true` or `sha256=...`) or JSON
  /// `core-metadata` / `dist-info-metadata` (bool or hashes dict). The PEP 714 name wins.
  std::optional<std::map<std::string, std::string>> core_metadata;
  std::optional<std::uint64_t> size;       ///< JSON `size`
  std::optional<std::string> upload_time;  ///< JSON `upload-time` (PEP 700), as written

  /// The URL of the PEP 658 core metadata file (`url + ".metadata"`), or nullopt when not served.
  [[nodiscard]] std::optional<std::string> metadata_url() const {
    if (!core_metadata) return std::nullopt;
    return url + ".metadata";
  }

  friend bool operator==(const FileLink&, const FileLink&) = default;
};

/// A parsed project page.
struct ProjectPage {
  std::string url;              ///< the page URL it was parsed with
  std::vector<FileLink> files;  ///< in page order
  std::optional<std::string>
      api_version;                    ///< `meta.api-version` (JSON) or `<meta name="pypi:repository-version">` (HTML)
  std::optional<std::string> name;    ///< JSON `name` (the project name as the index spells it)
  std::vector<std::string> versions;  ///< JSON `versions` (PEP 700), empty when absent
};

/// Parses a project page by its content type: `application/vnd.pypi.simple.v1+json` (or
/// `.latest+json`) is JSON; `text/html`, `application/vnd.pypi.simple.v1+html` (or `.latest+html`)
/// or an empty content type is HTML. Parameters after `;` are ignored; the type is
/// case-insensitive. Other types are an error naming the URL and the type.
[[nodiscard]] Result<ProjectPage> parse_project_page(std::string_view body, std::string_view content_type,
                                                     std::string_view page_url);

/// Parses an HTML project page (PEP 503). Only `<a>` (with `href`), the first `<base href>` (which
/// applies to every link, wherever it stands) and `<meta name="pypi:repository-version">` are read;
/// comments, `<script>`/`<style>` content and everything else are skipped. Tag and attribute
/// names are case-insensitive, values may be quoted with `"` or `'` or unquoted, and are
/// HTML-unescaped; the first of repeated attributes wins. Anchors without `href`, and links whose
/// last path segment is empty (a directory, another page), are skipped. Errors: a tag, comment or
/// quoted value left open at the end of the page; a link that does not resolve (unsupported scheme,
/// control character, longer than 16 KiB); a file name that is `.`, `..` or holds `/`, `\` or a
/// control character once percent-decoded; a repository version whose major is not 1; links that
/// resolve to more than `8 * body.size() + 8 MiB` bytes of URLs in all (a long base URL with
/// millions of tiny links). Linear in the size of the page.
[[nodiscard]] Result<ProjectPage> parse_html_page(std::string_view body, std::string_view page_url);

/// Parses a JSON project page (PEP 691 v1.x). `meta.api-version` must be a string with major
/// version 1; `files` must be a list of objects with string `filename` and `url` (resolved against
/// the page URL; a `#sha256=...` fragment supplies the hashes when `hashes` is absent or empty).
/// When `filename` disagrees with the URL's last segment, `filename` wins (it is checked as in
/// HTML pages). Optional fields of the wrong type are errors naming the file index and field;
/// unknown keys are ignored; documents nested more than 64 levels deep are refused.
[[nodiscard]] Result<ProjectPage> parse_json_page(std::string_view body, std::string_view page_url);

/// RFC 3986 reference resolution (section 5.2, with dot-segment removal) for `http`, `https` and
/// `file` base URLs. The result has no fragment (the caller splits it off first when it wants it).
/// Spaces, non-ASCII bytes, backquotes and `"<>\^{}|` are percent-encoded (as browsers do). Errors
/// for a base that is not an absolute http/https/file URL, for a result with another scheme or,
/// for http(s), without a host, and for control characters.
[[nodiscard]] Result<std::string> resolve_url(std::string_view base, std::string_view reference);

/// `%XX` decoding (invalid escapes are kept as written).
[[nodiscard]] std::string percent_decode(std::string_view text);

/// HTML character references: `&lt; &gt; &amp; &quot; &apos; &#39; &#NN; &#xNN;` (and a few
/// common named ones); unknown or malformed references are kept as written.
[[nodiscard]] std::string html_unescape(std::string_view text);

/// The Accept header pip/uv send (JSON preferred, HTML accepted).
inline constexpr std::string_view accept_header =
    "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01";

/// The PEP 691 JSON content type.
inline constexpr std::string_view json_content_type = "application/vnd.pypi.simple.v1+json";

}  // namespace vwheel::simple
