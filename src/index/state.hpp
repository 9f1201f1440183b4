#pragma once
// SITE/.vwheel/state.json: what the previous build saw and wrote, so the next one re-hashes only
// changed files and rewrites only changed pages. Everything read back is checked (project names
// normalized, file names one safe path component) before it is used to name a path.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "vwheel/core/error.hpp"

namespace vwheel::index::detail {

inline constexpr int kStateFormat = 1;

// A source file's identity; a file whose identity is unchanged is not read again.
struct FileStat {
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::uint64_t inode = 0;
  std::uint64_t device = 0;

  bool operator==(const FileStat&) const = default;
};

// One distribution file of the previous build.
struct FileState {
  std::string project;  // normalized
  FileStat stat;        // of the source file
  std::string sha256;
  std::uint64_t site_inode = 0;  // of SITE/files/<project>/<file> (the source's when hard-linked)
  std::optional<std::string> metadata_sha256;
  std::uint64_t metadata_size = 0;
  std::optional<std::string> requires_python;
};

// One `{name}-{version}-variants.json` of the previous build.
struct VariantsState {
  std::string project;
  std::string inputs;  // sha256 over its wheels' names and hashes
  std::string sha256;
  std::uint64_t size = 0;
};

struct State {
  std::string base_url;
  std::string yanked_sha256;                         // empty without --yanked
  std::unordered_map<std::string, FileState> files;  // by file name
  std::map<std::string, VariantsState> variants;     // by file name
  std::map<std::string, std::string> pages;          // project -> sha256 of its two pages
  std::string root;                                  // sha256 of the two root pages
};

// True for a name `[a-z0-9]` runs joined by single `-`.
[[nodiscard]] bool is_safe_project(std::string_view name) noexcept;
// True for one path component that is neither hidden nor `.`/`..`, without `/`, `\` or NUL.
[[nodiscard]] bool is_safe_filename(std::string_view name) noexcept;

// The state is JSON, one array per file, written and read here without a DOM: for 10,000 wheels
// nlohmann::json took 0.5 s of a 1 s no-op rebuild. `parse_state` reads what `serialize_state`
// writes (any key order, unknown keys skipped); errors name what is wrong, and the caller then
// builds from scratch.
[[nodiscard]] Result<State> parse_state(std::string_view text);
[[nodiscard]] std::string serialize_state(const State& state);

}  // namespace vwheel::index::detail
