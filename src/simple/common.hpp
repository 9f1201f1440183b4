#pragma once
// Private helpers of the simple component.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "vwheel/core/error.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/simple/project_page.hpp"

namespace vwheel::simple::detail {

// The longest link (href, `<base href>`, JSON `url`) a page may hold.
inline constexpr std::size_t kMaxUrl = 16 * 1024;
// The most URL bytes a page of `size` bytes may resolve to (all its files together).
[[nodiscard]] constexpr std::size_t output_budget(std::size_t size) noexcept { return 8 * size + 8 * 1024 * 1024; }

// Non-empty and all hex digits.
[[nodiscard]] bool is_hex_digest(std::string_view s) noexcept;
// A hash algorithm name as PEP 503/691 allow it: `[a-z0-9_-]+` after lower-casing, at most 32 chars.
[[nodiscard]] bool is_hash_name(std::string_view s) noexcept;

// Splits a URL (already resolved, so absolute) into the URL without its fragment and the fragment
// (without `#`), if any.
struct SplitUrl {
  std::string_view without_fragment;
  std::optional<std::string_view> fragment;
};
[[nodiscard]] SplitUrl split_fragment(std::string_view url) noexcept;

// Hashes named in a URL fragment (`sha256=<hex>`, several joined with `&`); other parts (`egg=`,
// malformed ones) are ignored.
[[nodiscard]] std::map<std::string, std::string> fragment_hashes(std::string_view fragment);

// A base URL parsed once, to resolve many references against it (RFC 3986 section 5.2).
class Resolver {
 public:
  // Errors as `resolve_url` gives them for the base.
  [[nodiscard]] static Result<Resolver> make(std::string_view base);

  struct Resolved {
    std::string url;       // absolute, without fragment
    std::string filename;  // the percent-decoded last path segment
  };
  // `reference` must not contain a fragment worth keeping: it is dropped.
  [[nodiscard]] Result<Resolved> resolve(std::string_view reference) const;

 private:
  Resolver() = default;
  std::string scheme_;                    // lower-case
  std::optional<std::string> authority_;  // as written
  std::string path_;                      // without dot segments
  std::optional<std::string> query_;
  std::string dir_;  // the path up to its last `/`, what a relative path is appended to
};

// Checks a file name from an index: non-empty, not `.`/`..`, no `/`, `\`, NUL or other control
// characters (a page must not make the installer write outside its directory).
[[nodiscard]] Result<void> check_filename(std::string_view filename, std::string_view page_url);

}  // namespace vwheel::simple::detail
