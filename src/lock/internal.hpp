#pragma once
// Private to the lock component: TOML text helpers shared by the reader and the writer.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/toml.hpp"

namespace vwheel::lock::detail {

/// A value for an error message: backquoted, one line (control characters and invalid UTF-8
/// escaped), cut to about 80 bytes with `...`.
[[nodiscard]] std::string backquoted(std::string_view s);

/// The canonical text of a TOML date-time: `YYYY-MM-DDTHH:MM:SS[.fraction]` then `Z` (offset 0),
/// `+HH:MM`/`-HH:MM`, or nothing (a local date-time). The fraction has no trailing zeros.
[[nodiscard]] std::string format_date_time(const toml::date_time& value);

/// The canonical text of a TOML date-time read by toml++ (`YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM)`,
/// no offset for a local date-time); nullopt when `text` is not one TOML date-time.
[[nodiscard]] std::optional<std::string> canonical_date_time(std::string_view text);

/// True for non-empty text of hex digits.
[[nodiscard]] bool is_hex(std::string_view s) noexcept;

/// The number of hex digits of a known hash algorithm's digest (`sha256` -> 64); 0 when unknown.
[[nodiscard]] std::size_t hex_digest_length(std::string_view algorithm) noexcept;

}  // namespace vwheel::lock::detail
