#pragma once
// The `--yanked` file: one entry a line, `FILENAME[: reason]` or `PROJECT==VERSION[: reason]`,
// blank lines and `#` comment lines ignored. A file entry beats a version entry.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/pep440/version.hpp"

namespace vwheel::index::detail {

struct YankEntry {
  std::size_t line = 0;
  std::string text;      // the entry as written, without the reason
  std::string filename;  // set for a file entry
  std::string project;   // normalized; set for a version entry
  std::optional<pep440::Version> version;
  std::string reason;  // empty: yanked without a reason
};

class YankList {
 public:
  // Errors name `source`, the line and the entry: a version entry with an invalid project name
  // or version, a file entry with a `/`.
  [[nodiscard]] static Result<YankList> parse(std::string_view text, const std::string& source);

  // The entry that yanks this file, or null; marks it used.
  [[nodiscard]] const YankEntry* find(const std::string& filename, const std::string& project,
                                      const pep440::Version& version);
  // One warning per entry that matched no file.
  [[nodiscard]] std::vector<std::string> unused_warnings() const;

  [[nodiscard]] const std::vector<YankEntry>& entries() const noexcept { return entries_; }

 private:
  std::string source_;
  std::vector<YankEntry> entries_;
  std::vector<bool> used_;
  std::unordered_map<std::string, std::size_t> by_file_;
  std::map<std::string, std::vector<std::size_t>, std::less<>> by_project_;
};

}  // namespace vwheel::index::detail
