#include "index/yanked.hpp"

#include <fmt/format.h>

#include "vwheel/core/text.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::index::detail {

Result<YankList> YankList::parse(std::string_view text, const std::string& source) {
  YankList out;
  out.source_ = source;
  std::size_t line_no = 0;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++line_no;
    line = ascii_trim(line);
    if (line.empty() || line.front() == '#') continue;
    YankEntry e;
    e.line = line_no;
    std::string_view spec = line;
    if (const auto colon = line.find(':'); colon != std::string_view::npos) {
      spec = ascii_trim(line.substr(0, colon));
      e.reason = std::string(ascii_trim(line.substr(colon + 1)));
    }
    e.text = std::string(spec);
    const auto where = [&] { return fmt::format("{}:{}: `{}`", source, line_no, spec); };
    if (spec.empty()) return fail(fmt::format("{}: expected FILENAME or PROJECT==VERSION before `:`", where()));
    if (const auto eq = spec.find("=="); eq != std::string_view::npos) {
      const auto project = ascii_trim(spec.substr(0, eq));
      const auto version = ascii_trim(spec.substr(eq + 2));
      if (!wheel_name::is_valid_project_name(project)) {
        return fail(fmt::format("{}: `{}` is not a valid project name", where(), project));
      }
      auto v = pep440::Version::parse(version);
      if (!v) return fail(fmt::format("{}: `{}` is not a valid PEP 440 version", where(), version));
      e.project = wheel_name::canonicalize_name(project);
      e.version = std::move(*v);
      out.by_project_[e.project].push_back(out.entries_.size());
    } else {
      if (spec.find_first_of("/\\ \t") != std::string_view::npos) {
        return fail(fmt::format("{}: expected a file name (no `/`, no spaces) or PROJECT==VERSION", where()));
      }
      e.filename = std::string(spec);
      out.by_file_.emplace(e.filename, out.entries_.size());
    }
    out.entries_.push_back(std::move(e));
  }
  out.used_.assign(out.entries_.size(), false);
  return out;
}

const YankEntry* YankList::find(const std::string& filename, const std::string& project,
                                const pep440::Version& version) {
  if (auto it = by_file_.find(filename); it != by_file_.end()) {
    used_[it->second] = true;
    return &entries_[it->second];
  }
  if (auto it = by_project_.find(project); it != by_project_.end()) {
    for (const std::size_t i : it->second) {
      if (*entries_[i].version == version) {
        used_[i] = true;
        return &entries_[i];
      }
    }
  }
  return nullptr;
}

std::vector<std::string> YankList::unused_warnings() const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (used_[i]) continue;
    const auto& e = entries_[i];
    out.push_back(fmt::format("{}:{}: `{}` matches no file in the index, ignored", source_, e.line, e.text));
  }
  return out;
}

}  // namespace vwheel::index::detail
