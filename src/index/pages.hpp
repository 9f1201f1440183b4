#pragma once
// The pages of the static index: PEP 503 HTML and PEP 691 JSON (api-version 1.1, with PEP 700's
// `versions`, `size` and `upload-time`), for the project list and for one project. Pages are
// built by appending to a string: a project page of thousands of files renders in microseconds.
// Core metadata (PEP 658) is `data-core-metadata` plus the older `data-dist-info-metadata` in
// HTML, and `core-metadata` alone in JSON, as PEP 714 specifies. A `*-variants.json` entry gets
// none of these nor `yanked`/`requires-python` (PEP 825: indexes MUST skip them there).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vwheel::index::detail {

// One link of a project page: a distribution file or a `*-variants.json`.
struct PageFile {
  std::string filename;
  std::string url;     // without the `#sha256=` fragment; relative to the project page or absolute
  std::string sha256;  // lowercase hex
  std::optional<std::uint64_t> size;  // PEP 700 `size`; always known to the index builder, not to a proxy
  std::optional<std::string> requires_python;
  std::optional<std::string> core_metadata_sha256;  // PEP 658/714, for wheels
  std::optional<std::string> yanked;                // PEP 592: empty = yanked without a reason
  std::optional<std::string> upload_time;           // PEP 700, JSON only
};

// One project page.
struct ProjectPage {
  std::string name;                   // PEP 503 normalized
  std::vector<std::string> versions;  // PEP 700, normalized, in order
  std::vector<PageFile> files;        // in page order
};

[[nodiscard]] std::string render_project_html(const ProjectPage& page);
[[nodiscard]] std::string render_project_json(const ProjectPage& page);

// The project list; `prefix` goes before each `name/` (empty: relative links).
[[nodiscard]] std::string render_root_html(std::span<const std::string> projects, std::string_view prefix);
[[nodiscard]] std::string render_root_json(std::span<const std::string> projects);

}  // namespace vwheel::index::detail
