#pragma once
// Private to the finder component: `.dist-info` members read from remote wheels (METADATA,
// variant.json) kept in the cache, so that the next run reads them from disk instead of making
// range requests, and an offline run can resolve wheels that have no PEP 658 metadata file (a
// find-links page's, an index's without them).
//
// `<cache>/wheel-members/<key>/<member>`: the key is the wheel's sha256 when its index gave one
// (a file with that digest never changes), else `url-<sha256 of the URL>`, valid while a HEAD
// request gives back the validators the server sent with the member (http/validators.hpp). A
// file is one line of JSON (the wheel's URL, its validators, whether the member is there), then
// the member's bytes.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "vwheel/finder/finder.hpp"
#include "vwheel/http/validators.hpp"

namespace vwheel::finder::detail {

/// The largest `.dist-info` member read from a wheel.
constexpr std::uint64_t kMaxMember = 64ULL << 20;

/// A member as kept.
struct KeptMember {
  std::string url;                             ///< the wheel's URL when it was read
  std::optional<http::Validators> validators;  ///< nullopt under a sha256 key (nothing to revalidate)
  std::optional<std::string> content;          ///< nullopt: the wheel has no such member
};

/// The member `{dist_info}/{suffix}` of the wheel file at `path`, at most kMaxMember bytes and
/// checked by the zip reader (sizes, CRC-32); nullopt when the wheel has none. Errors start with
/// `context` (the wheel's name or URL). Defined in remote_members.cpp.
[[nodiscard]] Result<std::optional<std::string>> read_member(const std::filesystem::path& path, std::string_view suffix,
                                                             const std::string& context);

/// Whether a wheel's members are kept under its URL's key (its index gave no sha256).
[[nodiscard]] bool kept_by_url(const File& wheel);

/// Where the member `suffix` of a remote wheel is kept under `cache_dir`; nullopt for a wheel on
/// disk, and for a name that is not one plain file name.
[[nodiscard]] std::optional<std::filesystem::path> kept_member_path(const std::filesystem::path& cache_dir,
                                                                    const File& wheel, std::string_view suffix);

/// The file's text.
[[nodiscard]] std::string kept_member_text(const KeptMember& member);

/// A file read back: nullopt unless it is as kept_member_text writes it. A damaged file is only
/// a range request again.
[[nodiscard]] std::optional<KeptMember> parse_kept_member(std::string_view text);

}  // namespace vwheel::finder::detail
