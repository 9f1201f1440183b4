#pragma once
/// \file
/// Text helpers: one-line error messages, ASCII case folding.

#include <string>
#include <string_view>

namespace vwheel {

/// `text` made safe to quote inside a one-line message: newlines, carriage returns and other
/// control characters are escaped (`\n`, `\r`, `\xNN`); everything else is kept.
[[nodiscard]] std::string printable(std::string_view text);

/// `c` in lower case when it is an ASCII letter (no locale).
[[nodiscard]] constexpr char ascii_lower(char c) noexcept {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

/// `text` with its ASCII letters in lower case (no locale): header names, hashes, schemes.
[[nodiscard]] std::string ascii_lower(std::string_view text);

}  // namespace vwheel
