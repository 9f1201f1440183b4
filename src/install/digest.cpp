#include "digest.hpp"

#include <fmt/format.h>

#include "vwheel/core/hash.hpp"
#include "vwheel/wheel/record.hpp"

namespace vwheel::install::detail {
namespace fs = std::filesystem;

namespace {

std::string sha256_raw(std::string_view data) {
  const auto d = sha256(data);
  return std::string(reinterpret_cast<const char*>(d.data()), d.size());
}


}  // namespace

std::optional<std::string> record_digest(std::string_view algorithm, std::string_view data) {
  if (algorithm == "sha256") return record_sha256(data);
  if (algorithm == "sha384") {
    const auto d = sha384(data);
    return "sha384=" + wheel::base64url_nopad(std::string_view(reinterpret_cast<const char*>(d.data()), d.size()));
  }
  if (algorithm == "sha512") {
    const auto d = sha512(data);
    return "sha512=" + wheel::base64url_nopad(std::string_view(reinterpret_cast<const char*>(d.data()), d.size()));
  }
  return std::nullopt;
}

Result<void> check_record_algorithm(std::string_view hash) {
  const auto eq = hash.find('=');
  const auto algo = hash.substr(0, eq);
  if (eq != std::string_view::npos && (algo == "sha256" || algo == "sha384" || algo == "sha512")) return {};
  if (eq != std::string_view::npos && (algo == "md5" || algo == "sha1" || algo == "sha224")) {
    return fail(fmt::format("RECORD hash `{}`: {} is too weak (sha256, sha384 or sha512 expected)", hash, algo));
  }
  return fail(fmt::format("RECORD hash `{}`: expected sha256=, sha384= or sha512= and a digest", hash));
}

std::string record_sha256(std::string_view data) { return "sha256=" + wheel::base64url_nopad(sha256_raw(data)); }

Result<std::string> file_sha256_hex(const fs::path& path) {
  auto digest = sha256_file(path);
  if (!digest) return fail(digest.error());
  return std::move(digest->sha256);
}
}  // namespace vwheel::install::detail
