// Format control and PEP 643's static sdist metadata (plan/sdist.hpp).

#include "vwheel/plan/sdist.hpp"

#include <fmt/format.h>

#include "vwheel/core/text.hpp"
#include "vwheel/pep440/version.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::plan {

namespace {
constexpr std::string_view kAll = ":all:";
constexpr std::string_view kNone = ":none:";
}  // namespace

// pip's FormatControl.get_allowed_formats: a name given explicitly wins over `:all:` of the other.
bool FormatControl::allows_wheel(std::string_view name) const {
  const std::string n(name);
  if (no_binary.contains(n)) return false;
  if (only_binary.contains(n)) return true;
  return !no_binary.contains(std::string(kAll));
}

bool FormatControl::allows_sdist(std::string_view name) const {
  const std::string n(name);
  if (only_binary.contains(n)) return false;
  if (no_binary.contains(n)) return true;
  return !only_binary.contains(std::string(kAll));
}

Result<void> add_format_option(FormatControl& control, bool no_binary, std::string_view value) {
  auto& mine = no_binary ? control.no_binary : control.only_binary;
  auto& other = no_binary ? control.only_binary : control.no_binary;
  const char* option = no_binary ? "--no-binary" : "--only-binary";
  std::size_t at = 0;
  while (at <= value.size()) {
    auto comma = value.find(',', at);
    if (comma == std::string_view::npos) comma = value.size();
    const auto item = ascii_trim(value.substr(at, comma - at));
    at = comma + 1;
    if (item == kAll) {
      mine.clear();
      mine.emplace(kAll);
      other.erase(std::string(kAll));
    } else if (item == kNone) {
      mine.clear();
    } else if (item.empty() || !wheel_name::is_valid_project_name(item)) {
      return fail(fmt::format("{} `{}`: expected :all:, :none: or comma-separated project names", option, value));
    } else {
      auto name = wheel_name::canonicalize_name(item);
      other.erase(name);
      mine.insert(std::move(name));
    }
  }
  return {};
}

bool sdist_metadata_is_static(std::string_view pkg_info) {
  std::optional<pep440::Version> version;
  bool dynamic = false;
  while (!pkg_info.empty()) {
    auto nl = pkg_info.find('\n');
    auto line = pkg_info.substr(0, nl);
    pkg_info = nl == std::string_view::npos ? std::string_view{} : pkg_info.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;  // the headers end; the description follows
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || is_space_or_tab(line.front())) continue;
    const auto key = ascii_trim(line.substr(0, colon));
    const auto val = ascii_trim(line.substr(colon + 1));
    if (ascii_iequals(key, "Metadata-Version") && !version) {
      auto v = pep440::Version::parse(val);
      if (v) version = *v;
    } else if (ascii_iequals(key, "Dynamic")) {
      for (std::string_view field : {"Requires-Dist", "Requires-Python", "Provides-Extra"}) {
        if (ascii_iequals(val, field)) dynamic = true;
      }
    }
  }
  static const auto first = *pep440::Version::parse("2.2");
  return version && *version >= first && !dynamic;
}

}  // namespace vwheel::plan
