#pragma once
// The per-part state machine of an upload's multipart/form-data body, separate from the HTTP
// server so that a fuzzer and unit tests can drive it: cpp-httplib's multipart reader calls
// `on_part` with each part's headers and `on_data` with its bytes (in chunks of any size), and
// the receiver keeps the non-file fields in memory, streams the `content` file to a private
// temporary folder while hashing it, and enforces the limits. The first refusal sticks: every
// later call returns false and `failure()` says why (an HTTP status and a one-line message).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "server/upload.hpp"
#include "vwheel/core/fd.hpp"
#include "vwheel/core/hash.hpp"

namespace vwheel::server {

/// What an upload body may hold.
struct MultipartLimits {
  /// The largest `content` file (413 above it).
  std::uint64_t max_file_size = std::uint64_t{2} << 30;
  /// All non-file parts together, ignored file parts included (413 above it).
  std::uint64_t max_field_bytes = std::uint64_t{16} << 20;
  /// Parts of any kind (400 above it).
  std::size_t max_parts = 256;
};

/// Why a body was refused.
struct MultipartFailure {
  int status = 0;  ///< 0: not refused
  std::string message;
};

/// Receives one upload body. Not copyable: it owns the temporary folder (removed, with whatever
/// is left in it, when the receiver is destroyed) and the open file.
class MultipartReceiver {
 public:
  /// `temp_root` must exist; the file goes to a fresh `mkdtemp` folder inside it.
  MultipartReceiver(std::filesystem::path temp_root, MultipartLimits limits);
  ~MultipartReceiver();
  MultipartReceiver(const MultipartReceiver&) = delete;
  MultipartReceiver& operator=(const MultipartReceiver&) = delete;

  /// A part starts. `name` is its form field name, `filename` the `filename` parameter of its
  /// Content-Disposition (empty: a plain field). Only the part named `content` with a file name
  /// is kept as the file; other file parts (e.g. `gpg_signature`) count against the field limit
  /// and are dropped. False when the body is refused.
  bool on_part(std::string_view name, std::string_view filename);
  /// Bytes of the current part. False when the body is refused (also for bytes before any part).
  bool on_data(const char* data, std::size_t size);
  /// The body ended well: the file is flushed to disk (fsync) and closed, and its digest is
  /// filled in. False when the body was refused before or the file cannot be written.
  bool finish();
  /// Refuses the body from outside (e.g. the HTTP reader failed); keeps an earlier refusal.
  void refuse(int status, std::string message);

  /// What was received; `file`, `sha256` and `size` are final after `finish()`.
  [[nodiscard]] const UploadForm& form() const noexcept { return form_; }
  [[nodiscard]] const MultipartFailure& failure() const noexcept { return failure_; }
  [[nodiscard]] bool failed() const noexcept { return failure_.status != 0; }
  /// Parts seen so far (the one that made the count exceed the limit included).
  [[nodiscard]] std::size_t parts() const noexcept { return parts_; }
  /// Bytes of non-file parts seen so far.
  [[nodiscard]] std::uint64_t field_bytes() const noexcept { return field_bytes_; }

 private:
  enum class Part { None, Field, File, Ignored };
  bool fail(int status, std::string message);

  std::filesystem::path temp_root_;
  MultipartLimits limits_;
  UploadForm form_;
  std::filesystem::path temp_dir_;
  UniqueFd fd_;
  Sha256 sha_;
  Part part_ = Part::None;
  std::string* field_ = nullptr;
  std::uint64_t field_bytes_ = 0;
  std::size_t parts_ = 0;
  bool finished_ = false;
  MultipartFailure failure_;
};

}  // namespace vwheel::server
