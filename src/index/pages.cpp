#include "index/pages.hpp"

#include <fmt/format.h>

#include "index/text.hpp"
#include "vwheel/simple/project_page.hpp"

namespace vwheel::index::detail {
namespace {

constexpr std::string_view kHtmlHead =
    "<!DOCTYPE html>\n"
    "<html>\n"
    "  <head>\n"
    "    <meta charset=\"utf-8\">\n"
    "    <meta name=\"pypi:repository-version\" content=\"1.1\">\n";

void append_metadata_hash(std::string& out, std::string_view key, const std::string& sha256) {
  out += ", \"";
  out += key;
  out += "\": {\"sha256\": ";
  append_json_string(out, sha256);
  out += '}';
}

}  // namespace

std::string render_project_html(const ProjectPage& page) {
  std::string out;
  out.reserve(512 + page.files.size() * (400 + 2 * page.name.size()));
  out += kHtmlHead;
  out += "    <title>Links for ";
  append_html(out, page.name);
  out += "</title>\n  </head>\n  <body>\n    <h1>Links for ";
  append_html(out, page.name);
  out += "</h1>\n";
  for (const auto& f : page.files) {
    out += "    <a href=\"";
    append_html(out, f.url);
    out += "#sha256=";
    out += f.sha256;
    out += '"';
    const bool attributes = !simple::is_variants_json_name(f.filename);  // PEP 825: none on these
    if (attributes && f.requires_python) {
      out += " data-requires-python=\"";
      append_html(out, *f.requires_python);
      out += '"';
    }
    if (attributes && f.yanked) {
      out += " data-yanked=\"";
      append_html(out, *f.yanked);
      out += '"';
    }
    if (attributes && f.core_metadata_sha256) {
      out += " data-core-metadata=\"sha256=";
      out += *f.core_metadata_sha256;
      out += "\" data-dist-info-metadata=\"sha256=";
      out += *f.core_metadata_sha256;
      out += '"';
    }
    out += '>';
    append_html(out, f.filename);
    out += "</a><br>\n";
  }
  out += "  </body>\n</html>\n";
  return out;
}

std::string render_project_json(const ProjectPage& page) {
  std::string out;
  out.reserve(256 + page.versions.size() * 16 + page.files.size() * (560 + 2 * page.name.size()));
  out += "{\"meta\": {\"api-version\": \"1.1\"}, \"name\": ";
  append_json_string(out, page.name);
  out += ", \"versions\": [";
  for (std::size_t i = 0; i < page.versions.size(); ++i) {
    if (i > 0) out += ", ";
    append_json_string(out, page.versions[i]);
  }
  out += "], \"files\": [";
  for (std::size_t i = 0; i < page.files.size(); ++i) {
    const auto& f = page.files[i];
    out += i == 0 ? "\n  {" : ",\n  {";
    out += "\"filename\": ";
    append_json_string(out, f.filename);
    out += ", \"url\": ";
    append_json_string(out, f.url);
    out += ", \"hashes\": {\"sha256\": ";
    append_json_string(out, f.sha256);
    out += '}';
    // PEP 825: a `*-variants.json` entry carries no `requires-python`, `yanked` or core metadata.
    if (!simple::is_variants_json_name(f.filename)) {
      if (f.requires_python) {
        out += ", \"requires-python\": ";
        append_json_string(out, *f.requires_python);
      }
      out += ", \"yanked\": ";
      if (!f.yanked) {
        out += "false";
      } else if (f.yanked->empty()) {
        out += "true";
      } else {
        append_json_string(out, *f.yanked);
      }
    }
    // PEP 714: `core-metadata` only. The old `dist-info-metadata` key is allowed in HTML alone:
    // pip 22.3 to 23.1 (Debian 12's pip 23.0.1 among them) crash on it in JSON.
    if (!simple::is_variants_json_name(f.filename) && f.core_metadata_sha256) append_metadata_hash(out, "core-metadata", *f.core_metadata_sha256);
    if (f.size) out += fmt::format(", \"size\": {}", *f.size);
    if (f.upload_time) {
      out += ", \"upload-time\": ";
      append_json_string(out, *f.upload_time);
    }
    out += '}';
  }
  out += page.files.empty() ? "]}\n" : "\n]}\n";
  return out;
}

std::string render_root_html(std::span<const std::string> projects, std::string_view prefix) {
  std::string out;
  out.reserve(256 + projects.size() * (2 * 24 + prefix.size() + 32));
  out += kHtmlHead;
  out += "    <title>Simple index</title>\n  </head>\n  <body>\n";
  for (const auto& p : projects) {
    out += "    <a href=\"";
    append_html(out, prefix);
    append_html(out, p);
    out += "/\">";
    append_html(out, p);
    out += "</a><br>\n";
  }
  out += "  </body>\n</html>\n";
  return out;
}

std::string render_root_json(std::span<const std::string> projects) {
  std::string out;
  out.reserve(64 + projects.size() * 32);
  out += "{\"meta\": {\"api-version\": \"1.1\"}, \"projects\": [";
  for (std::size_t i = 0; i < projects.size(); ++i) {
    out += i == 0 ? "\n  {\"name\": " : ",\n  {\"name\": ";
    append_json_string(out, projects[i]);
    out += '}';
  }
  out += projects.empty() ? "]}\n" : "\n]}\n";
  return out;
}

}  // namespace vwheel::index::detail
