#include "server/multipart.hpp"

#include <fcntl.h>
#include <stdlib.h>  // mkdtemp
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <utility>

#include <fmt/format.h>

namespace vwheel::server {
namespace {

namespace fs = std::filesystem;

std::string describe_size(std::uint64_t bytes) {
  constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
  if (bytes >= kMiB && bytes % kMiB == 0) return fmt::format("{} MiB", bytes / kMiB);
  return fmt::format("{} bytes", bytes);
}

}  // namespace

MultipartReceiver::MultipartReceiver(fs::path temp_root, MultipartLimits limits)
    : temp_root_(std::move(temp_root)), limits_(limits) {}

MultipartReceiver::~MultipartReceiver() {
  if (!temp_dir_.empty()) {
    std::error_code ec;
    fs::remove_all(temp_dir_, ec);
  }
}

bool MultipartReceiver::fail(int status, std::string message) {
  refuse(status, std::move(message));
  return false;
}

void MultipartReceiver::refuse(int status, std::string message) {
  if (failure_.status != 0) return;
  failure_.status = status;
  failure_.message = std::move(message);
}

bool MultipartReceiver::on_part(std::string_view name, std::string_view filename) {
  if (failed() || finished_) return false;
  if (++parts_ > limits_.max_parts) {
    return fail(400, fmt::format("too many form fields (more than {} parts)", limits_.max_parts));
  }
  field_ = nullptr;
  if (filename.empty()) {
    part_ = Part::Field;
    // A repeated field replaces the earlier value (its bytes still count against the limit).
    field_ = &form_.fields[std::string(name)];
    field_->clear();
    return true;
  }
  if (name != "content") {
    part_ = Part::Ignored;  // e.g. gpg_signature
    return true;
  }
  if (fd_ || !form_.filename.empty()) return fail(400, "more than one `content` file");
  auto checked = check_upload_filename(filename);
  if (!checked) return fail(400, checked.error().message);
  std::string pattern = (temp_root_ / "XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return fail(500,
                fmt::format("{}: cannot create a temporary folder: {}", temp_root_.string(), errno_text(errno)));
  }
  temp_dir_ = pattern;
  form_.filename = std::string(filename);
  form_.file = temp_dir_ / form_.filename;
  fd_.reset(::open(form_.file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (!fd_) return fail(500, fmt::format("{}: cannot create: {}", form_.file.string(), errno_text(errno)));
  part_ = Part::File;
  return true;
}

bool MultipartReceiver::on_data(const char* data, std::size_t size) {
  if (failed() || finished_) return false;
  switch (part_) {
    case Part::File:
      if (size > limits_.max_file_size - form_.size) {
        return fail(413, fmt::format("the file is larger than the limit of {} bytes", limits_.max_file_size));
      }
      if (const int err = write_all(fd_.get(), {data, size}); err != 0) {
        return fail(500, fmt::format("{}: write error: {}", form_.file.string(), errno_text(err)));
      }
      sha_.update(std::string_view(data, size));
      form_.size += size;
      return true;
    case Part::Field:
    case Part::Ignored:
      if (size > limits_.max_field_bytes - field_bytes_) {
        field_bytes_ += size;
        return fail(413, fmt::format("the form fields are larger than {}", describe_size(limits_.max_field_bytes)));
      }
      field_bytes_ += size;
      if (field_ != nullptr) field_->append(data, size);
      return true;
    case Part::None:
      break;
  }
  return fail(400, "malformed multipart/form-data body");
}

bool MultipartReceiver::finish() {
  if (failed()) return false;
  if (finished_) return true;
  finished_ = true;
  if (fd_) {
    const int fd = fd_.release();
    const bool synced = ::fsync(fd) == 0;
    const int sync_errno = errno;
    if (::close(fd) != 0 || !synced) {
      return fail(500, fmt::format("{}: write error: {}", form_.file.string(),
                                   errno_text(synced ? errno : sync_errno)));
    }
    form_.sha256 = to_hex(sha_.finish());
  }
  return true;
}

}  // namespace vwheel::server
