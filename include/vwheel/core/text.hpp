#pragma once
/// \file
/// Text helpers for one-line error messages.

#include <string>
#include <string_view>

namespace vwheel {

/// `text` made safe to quote inside a one-line message: newlines, carriage returns and other
/// control characters are escaped (`\n`, `\r`, `\xNN`); everything else is kept.
[[nodiscard]] std::string printable(std::string_view text);

}  // namespace vwheel
