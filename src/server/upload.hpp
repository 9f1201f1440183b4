#pragma once
// Uploads compatible with `twine upload` (the legacy PyPI upload API): a multipart/form-data POST
// with `:action=file_upload`, `name`, `version`, the file in `content` and optional digests.
// The file is streamed to a private temporary folder inside the wheel folder, checked (file name,
// digest, the wheel opens, its variant.json is valid and merges with the version's other variant
// wheels), linked into the wheel folder without replacing anything, and the site is rebuilt; all of
// that after the body is read is serialized by one mutex.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "vwheel/core/error.hpp"

namespace vwheel::server {

/// Where uploads go and how they are checked.
struct UploadConfig {
  std::filesystem::path wheel_dir;  ///< canonical
  std::filesystem::path site_dir;
  std::string token;
  std::uint64_t max_file_size = 0;
  /// Receives the warnings of site rebuilds (may be empty).
  std::function<void(const std::string&)> on_warning;
};

/// An HTTP outcome: a status and a one-line message.
struct UploadStatus {
  int status = 200;
  std::string message;
};

/// The fields and file of one upload, as received.
struct UploadForm {
  std::map<std::string, std::string> fields;  ///< every non-file part (last one wins)
  std::string filename;                       ///< of the `content` part
  std::filesystem::path file;                 ///< where its bytes were written (`{temp}/{filename}`)
  std::string sha256;                         ///< lowercase hex of the bytes
  std::uint64_t size = 0;
};

/// Checks an upload's file name: a bare name (no separators, NUL or control characters, not
/// hidden) that is a wheel file name (PEP 825) or an sdist (`{name}-{version}.tar.gz` or `.zip`).
/// Returns the project name and version parsed from it.
struct DistributionName {
  std::string project;  ///< as written in the file name
  std::string version;
  bool is_wheel = false;
};
[[nodiscard]] Result<DistributionName> check_upload_filename(std::string_view filename);

/// Runs uploads for one wheel folder.
class Uploader {
 public:
  explicit Uploader(UploadConfig config);

  [[nodiscard]] const UploadConfig& config() const noexcept { return config_; }
  /// The folder per-upload temporary folders are made in (`{wheel_dir}/.vwheel-upload`).
  [[nodiscard]] std::filesystem::path temp_root() const { return config_.wheel_dir / ".vwheel-upload"; }

  /// 0 when the Authorization header carries the token, else 401 (none or unreadable) or 403.
  [[nodiscard]] int check_auth(std::string_view authorization) const;

  /// Validates a received upload and, when it is acceptable, moves it into the wheel folder and
  /// rebuilds the site. Serialized.
  [[nodiscard]] UploadStatus commit(const UploadForm& form);

 private:
  UploadConfig config_;
  std::mutex mutex_;
};

}  // namespace vwheel::server
