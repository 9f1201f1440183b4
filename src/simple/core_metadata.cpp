// Core metadata files (RFC 822 style headers).

#include "vwheel/simple/core_metadata.hpp"

#include <fmt/format.h>

#include <string>
#include <string_view>

#include "simple/common.hpp"
#include "vwheel/core/text.hpp"

namespace vwheel::simple {
namespace {

// A header line as Python's email parser accepts it: a name of printable ASCII without spaces or
// `:`, then `:`.
bool header_name(std::string_view name) {
  if (name.empty()) return false;
  for (char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (c <= 0x20 || c >= 0x7f || c == ':') return false;
  }
  return true;
}

}  // namespace

Result<CoreMetadata> parse_core_metadata(std::string_view text, const std::string& source) {
  CoreMetadata md;
  bool have_name = false, have_version = false, have_metadata_version = false, have_requires_python = false;
  std::string requires_python;
  std::string* current = nullptr;  // the value a continuation line extends
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;  // the body (the description) starts here
    if (line.front() == ' ' || line.front() == '\t') {
      if (current != nullptr) {
        const std::string_view more = ascii_trim(line, is_html_space);
        if (!more.empty()) {
          if (!current->empty()) *current += ' ';
          *current += more;
        }
      }
      continue;
    }
    current = nullptr;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || !header_name(line.substr(0, colon))) {
      // Not a header: as in Python's email parser, the headers end (without a blank line).
      break;
    }
    const std::string_view key = line.substr(0, colon);
    const std::string value(ascii_trim(line.substr(colon + 1), is_html_space));
    const auto single = [&](bool& have, std::string& field) {
      if (have) return;  // the first occurrence wins
      have = true;
      field = value;
      current = &field;
    };
    if (ascii_iequals(key, "Name")) {
      single(have_name, md.name);
    } else if (ascii_iequals(key, "Version")) {
      single(have_version, md.version);
    } else if (ascii_iequals(key, "Metadata-Version")) {
      single(have_metadata_version, md.metadata_version);
    } else if (ascii_iequals(key, "Requires-Python")) {
      single(have_requires_python, requires_python);
    } else if (ascii_iequals(key, "Requires-Dist")) {
      md.requires_dist.push_back(value);
      current = &md.requires_dist.back();
    } else if (ascii_iequals(key, "Provides-Extra")) {
      md.provides_extra.push_back(value);
      current = &md.provides_extra.back();
    }
  }
  // A `Requires-Dist:` or `Provides-Extra:` with nothing after it says nothing.
  std::erase_if(md.requires_dist, [](const std::string& s) { return s.empty(); });
  std::erase_if(md.provides_extra, [](const std::string& s) { return s.empty(); });
  if (md.name.empty()) {
    return fail(fmt::format("{}: core metadata has no `Name`", printable(source)));
  }
  if (md.version.empty()) {
    return fail(fmt::format("{}: core metadata has no `Version` (project `{}`)", printable(source),
                            excerpt(md.name, 80)));
  }
  if (!requires_python.empty()) md.requires_python = std::move(requires_python);
  return md;
}

Result<std::vector<markers::Requirement>> parse_requires_dist(const CoreMetadata& md, const std::string& source) {
  std::vector<markers::Requirement> out;
  out.reserve(md.requires_dist.size());
  for (const auto& text : md.requires_dist) {
    auto r = markers::Requirement::parse(text);
    if (!r) {
      return fail(
          fmt::format("{}: `Requires-Dist: {}`: {}", printable(source), excerpt(text, 200), r.error().message));
    }
    out.push_back(std::move(*r));
  }
  return out;
}

}  // namespace vwheel::simple
