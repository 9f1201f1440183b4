#pragma once
// RECORD digests: hashing data and files as a wheel's RECORD writes them, and which algorithms are
// accepted.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "vwheel/core/error.hpp"

namespace vwheel::install::detail {

/// `ALGO=urlsafe-b64-digest` of data for `sha256`, `sha384` or `sha512`; nullopt for any other algorithm.
[[nodiscard]] std::optional<std::string> record_digest(std::string_view algorithm, std::string_view data);
/// Whether a RECORD hash names an accepted algorithm (sha256, sha384, sha512; at least SHA-256
/// strength, as pip requires): the error says why not (md5 and sha1 are refused as too weak).
[[nodiscard]] Result<void> check_record_algorithm(std::string_view hash);
/// `sha256=...` of data.
[[nodiscard]] std::string record_sha256(std::string_view data);
/// Lowercase hex SHA-256 of a whole file (sha256_file: a bounded buffer, not the whole file).
[[nodiscard]] Result<std::string> file_sha256_hex(const std::filesystem::path& path);

}  // namespace vwheel::install::detail
