#pragma once
/// \file
/// The `RECORD` file of a wheel (binary distribution format): one CSV row per installed file,
/// `path,sha256=<urlsafe base64 digest without padding>,size`. Pure functions, no I/O.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"

namespace vwheel::wheel {

/// One row of a RECORD file.
struct RecordRow {
  std::string path;  ///< as written (unquoted)
  std::string hash;  ///< `algorithm=digest`, or empty (RECORD itself, signatures)
  std::string size;  ///< decimal size as written, or empty
};

/// Parses a RECORD file (CSV with `"` quoting, `\n` or `\r\n` line ends, blank lines ignored).
/// The error names the 1-based line and what is wrong (an unterminated quote, not 3 fields).
[[nodiscard]] Result<std::vector<RecordRow>> parse_record(std::string_view text);

/// The `sha256=...` hash field of `data` (urlsafe base64, no `=` padding).
[[nodiscard]] std::string record_hash(std::string_view data);

/// One RECORD line for a file, `\n`-terminated; the path is quoted when it contains `,`, `"`
/// or a line break.
[[nodiscard]] std::string record_line(std::string_view path, std::string_view data);

/// `record` without the rows whose path equals `path` (every other line kept byte for byte,
/// line endings included), with `line` appended when given. A last line without a line end
/// gets one before `line` is appended. Fails when `record` is not valid CSV.
[[nodiscard]] Result<std::string> replace_record_entry(std::string_view record, std::string_view path,
                                                       std::optional<std::string_view> line);

/// URL-safe base64 (RFC 4648 §5) without padding.
[[nodiscard]] std::string base64url_nopad(std::string_view data);

}  // namespace vwheel::wheel
