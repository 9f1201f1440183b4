#pragma once
// Private to the toml_edit component: what the scanner and the editor share.

#include <cstddef>

#include "vwheel/core/text.hpp"

namespace vwheel::toml_edit::detail {

/// "No statement": an index that is not one.
inline constexpr std::size_t kNone = static_cast<std::size_t>(-1);

/// A character of a bare TOML key (`A-Za-z0-9_-`).
[[nodiscard]] constexpr bool is_bare_key_char(char c) noexcept { return is_ascii_alnum(c) || c == '_' || c == '-'; }

}  // namespace vwheel::toml_edit::detail
