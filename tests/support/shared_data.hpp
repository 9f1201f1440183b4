#pragma once
// Locating the reference material in ../shared (next to the checkout). Tests that need it call
// VWHEEL_REQUIRE_SHARED(path) which skips the test with a message when it is absent.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace vwheel::testing {

/// The `shared` folder: $VWHEEL_SHARED_DIR, else `<source>/../shared`.
inline std::filesystem::path shared_dir() {
  if (const char* env = std::getenv("VWHEEL_SHARED_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  return std::filesystem::path(VWHEEL_SOURCE_DIR).parent_path() / "shared";
}

/// The project's source tree.
inline std::filesystem::path source_dir() { return VWHEEL_SOURCE_DIR; }

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace vwheel::testing

/// Skips the current test (with a message) when `relpath` under the shared folder is missing;
/// otherwise declares `shared_path` pointing at it.
#define VWHEEL_REQUIRE_SHARED(relpath)                                                      \
  const std::filesystem::path shared_path = ::vwheel::testing::shared_dir() / (relpath);    \
  if (!std::filesystem::exists(shared_path)) {                                              \
    GTEST_SKIP() << "reference data not found: " << shared_path.string()                    \
                 << " (set VWHEEL_SHARED_DIR or place ../shared next to the checkout)";     \
  }
