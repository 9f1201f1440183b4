#include "server/upload.hpp"

#include <fcntl.h>
#include <stdio.h>  // renameat2
#include <unistd.h>

#include <cerrno>
#include <exception>
#include <vector>

#include <fmt/format.h>

#include "server/http.hpp"
#include "vwheel/core/fd.hpp"
#include "vwheel/core/parallel.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/index/site.hpp"
#include "vwheel/pep440/version.hpp"
#include "vwheel/wheel/index_json.hpp"
#include "vwheel/wheel/wheel.hpp"
#include "vwheel/wheel_name/names.hpp"
#include "vwheel/wheel_name/wheel_name.hpp"

namespace vwheel::server {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kSdistSuffix = ".tar.gz";

bool ends_with(std::string_view s, std::string_view suffix) noexcept {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}


UploadStatus bad(std::string message) { return {400, std::move(message)}; }

// Moves `from` to `to` unless `to` exists (EEXIST); rename(2) with RENAME_NOREPLACE, or link(2)
// and unlink(2) on file systems without it.
int move_no_replace(const fs::path& from, const fs::path& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return errno;
  if (::link(from.c_str(), to.c_str()) != 0) return errno;
  ::unlink(from.c_str());
  return 0;
}

// The variant wheels of `project`/`version` (normalized) directly in `dir`.
std::vector<fs::path> variant_wheels_of(const fs::path& dir, std::string_view project, std::string_view version) {
  std::vector<fs::path> out;
  auto wheels = wheel::list_wheels(dir);
  if (!wheels) return out;
  for (auto& path : *wheels) {
    auto name = wheel_name::parse_wheel_name(path.filename().string());
    if (!name || !name->is_variant()) continue;
    if (wheel_name::canonicalize_name(name->name) != project) continue;
    if (pep440::normalized_or_verbatim(name->version) != version) continue;
    out.push_back(std::move(path));
  }
  return out;
}

bool has_magic(const fs::path& path, std::string_view magic) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return false;
  std::string buf(magic.size(), '\0');
  return pread_all(fd.get(), buf.data(), buf.size(), 0) == static_cast<long long>(magic.size()) && buf == magic;
}

}  // namespace

Result<DistributionName> check_upload_filename(std::string_view filename) {
  if (filename.empty()) return fail("the `content` file has no file name");
  if (filename.size() > 255) return fail("file name is longer than 255 bytes");
  for (unsigned char c : filename) {
    if (c < 0x20 || c == 0x7f || c == '/' || c == '\\' || c == ':') {
      return fail(fmt::format("file name `{}` must be a bare file name", printable(filename)));
    }
  }
  if (filename.front() == '.') return fail(fmt::format("file name `{}` must not start with `.`", printable(filename)));
  if (ends_with(filename, ".whl")) {
    auto name = wheel_name::parse_wheel_name(filename);
    if (!name) return fail(name.error());
    return DistributionName{name->name, name->version, true};
  }
  if (ends_with(filename, kSdistSuffix)) {
    const auto stem = filename.substr(0, filename.size() - kSdistSuffix.size());
    const auto dash = stem.rfind('-');
    if (dash == std::string_view::npos || dash == 0 || dash + 1 == stem.size()) {
      return fail(fmt::format("sdist file name `{}` is not `{{name}}-{{version}}.tar.gz`", printable(filename)));
    }
    const auto project = stem.substr(0, dash);
    const auto version = stem.substr(dash + 1);
    if (!wheel_name::is_valid_project_name(project)) {
      return fail(fmt::format("sdist file name `{}`: invalid project name", printable(filename)));
    }
    if (!pep440::Version::parse(version)) {
      return fail(fmt::format("sdist file name `{}`: invalid version `{}`", printable(filename), printable(version)));
    }
    return DistributionName{std::string(project), std::string(version), false};
  }
  return fail(fmt::format("`{}` is neither a wheel (.whl) nor an sdist (.tar.gz)", printable(filename)));
}

Uploader::Uploader(UploadConfig config) : config_(std::move(config)) {}

int Uploader::check_auth(std::string_view authorization) const {
  if (authorization.empty()) return 401;
  auto secret = http::authorization_secret(authorization);
  if (!secret) return 401;
  return http::constant_time_equal(*secret, config_.token) ? 0 : 403;
}

UploadStatus Uploader::commit(const UploadForm& form) {
  std::lock_guard lock(mutex_);
  try {
    // Messages about the received file name it as uploaded, not by its temporary path.
    const std::string temp_path = form.file.string();
    auto about_upload = [&](std::string message) {
      for (auto at = message.find(temp_path); !temp_path.empty() && at != std::string::npos;
           at = message.find(temp_path, at + form.filename.size())) {
        message.replace(at, temp_path.size(), form.filename);
      }
      return bad(std::move(message));
    };
    auto field = [&](const char* key) -> const std::string* {
      auto it = form.fields.find(key);
      return it == form.fields.end() ? nullptr : &it->second;
    };
    const auto* action = field(":action");
    if (action == nullptr) return bad("missing the `:action` field (expected `file_upload`)");
    if (*action != "file_upload") {
      return bad(fmt::format("unsupported :action `{}` (expected `file_upload`)", printable(*action)));
    }
    if (const auto* pv = field("protocol_version"); pv != nullptr && *pv != "1") {
      return bad(fmt::format("unsupported protocol_version `{}` (expected 1)", printable(*pv)));
    }
    if (form.filename.empty()) return bad("missing the `content` file");
    auto dist = check_upload_filename(form.filename);
    if (!dist) return bad(dist.error().message);
    const std::string project = wheel_name::canonicalize_name(dist->project);
    const std::string version = pep440::normalized_or_verbatim(dist->version);
    if (const auto* name = field("name"); name != nullptr && wheel_name::canonicalize_name(*name) != project) {
      return bad(fmt::format("name `{}` does not match the file name `{}`", printable(*name), form.filename));
    }
    if (const auto* v = field("version"); v != nullptr && pep440::normalized_or_verbatim(*v) != version) {
      return bad(fmt::format("version `{}` does not match the file name `{}`", printable(*v), form.filename));
    }
    if (const auto* digest = field("sha256_digest");
        digest != nullptr && !digest->empty() && ascii_lower(*digest) != form.sha256) {
      return bad(
          fmt::format("sha256_digest does not match the content of `{}` (sha256 {})", form.filename, form.sha256));
    }
    if (form.size == 0) return bad(fmt::format("`{}` is empty", form.filename));

    // Already there? Compared without case, as the index would show both under one name.
    const std::string lower_name = ascii_lower(form.filename);
    for (const auto& entry : fs::directory_iterator(config_.wheel_dir)) {
      if (ascii_lower(entry.path().filename().string()) == lower_name) {
        return {409, fmt::format("`{}` already exists", entry.path().filename().string())};
      }
    }

    if (dist->is_wheel) {
      auto opened = wheel::open_wheel(form.file);
      if (!opened) return about_upload(opened.error().message);
      auto variant = wheel::read_variant_json(*opened);
      if (!variant) return about_upload(variant.error().message);
      if (variant->has_value()) {
        auto wheels = variant_wheels_of(config_.wheel_dir, project, version);
        wheels.push_back(form.file);
        auto merged = wheel::build_index_json(wheels);
        if (!merged) return about_upload(merged.error().message);
      }
    } else if (!has_magic(form.file, "\x1f\x8b")) {
      return bad(fmt::format("`{}` is not gzip-compressed", form.filename));
    }

    const fs::path dest = config_.wheel_dir / form.filename;
    if (const int err = move_no_replace(form.file, dest); err != 0) {
      if (err == EEXIST) return {409, fmt::format("`{}` already exists", form.filename)};
      return {500, fmt::format("{}: cannot move into place: {}", dest.string(), errno_text(err))};
    }
    index::BuildOptions options;
    options.wheel_dir = config_.wheel_dir;
    options.site = config_.site_dir;
    options.jobs = default_jobs();
    // Files already there that cannot be indexed stay out of the index (as on start) without
    // blocking uploads; the new file was checked above, and a warning about it undoes the upload.
    options.skip_invalid = true;
    Result<index::BuildReport> built = fail("not built");
    try {
      built = index::build_site(options);
    } catch (const std::exception& e) {
      ::unlink(dest.c_str());
      return {500, fmt::format("the index cannot be rebuilt with `{}`: {}", form.filename, e.what())};
    }
    if (!built) {
      ::unlink(dest.c_str());
      return bad(fmt::format("the index cannot be rebuilt with `{}`: {}", form.filename, built.error().message));
    }
    for (const auto& warning : built->warnings) {
      if (warning.find(form.filename) != std::string::npos) {
        // The build skipped the new file: take it back out so the folder matches the index.
        ::unlink(dest.c_str());
        try {
          (void)index::build_site(options);
        } catch (const std::exception&) {
        }
        return bad(warning);
      }
    }
    if (config_.on_warning) {
      for (const auto& warning : built->warnings) config_.on_warning(warning);
    }
    return {200, fmt::format("uploaded {}", form.filename)};
  } catch (const std::exception& e) {
    return {500, fmt::format("upload failed: {}", e.what())};
  }
}

}  // namespace vwheel::server
