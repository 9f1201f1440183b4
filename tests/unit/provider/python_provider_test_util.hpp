#pragma once
// The Python provider's tests (test_python_provider.cpp, test_python_provider_env.cpp): the
// fixture provider's namespace, a scratch folder, and counting what a run left in a folder.

#include <stdlib.h>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace vwheel::provider::test {

namespace fs = std::filesystem;

inline constexpr const char* kNs = "fictional_hw";

/// A fresh folder under the system's temporary folder, removed at the end of the test.
class ScratchDir {
 public:
  ScratchDir() {
    std::string templ = (fs::temp_directory_path() / "vwheel-pytest-XXXXXX").string();
    if (::mkdtemp(templ.data()) != nullptr) path_ = templ;
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  [[nodiscard]] const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

inline std::size_t count_entries(const fs::path& dir, std::string_view prefix) {
  std::size_t n = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().filename().string().rfind(prefix, 0) == 0) ++n;
  }
  return n;
}

}  // namespace vwheel::provider::test
