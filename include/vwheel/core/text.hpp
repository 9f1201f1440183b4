#pragma once
/// \file
/// Text helpers shared by every component: one-line error messages, ASCII character classes,
/// trimming and case folding (never the C locale), strict UTF-8 decoding, validation and
/// encoding, Python's `str.isspace()` set, and TOML basic-string quoting. Each helper exists once
/// here so that a fix (e.g. rejecting overlong UTF-8) reaches every parser.

#include <cstddef>
#include <string>
#include <string_view>

namespace vwheel {

/// `text` made safe to quote inside a one-line message: newlines, carriage returns and other
/// control characters are escaped (`\n`, `\r`, `\xNN`); everything else is kept.
[[nodiscard]] std::string printable(std::string_view text);

/// Untrusted `text` (a value from a file, a server's answer) cut for quoting inside a one-line
/// message: `printable(text)` when it has at most `max` bytes, else its first `max` bytes (fewer
/// where byte `max` is inside a UTF-8 sequence, which is never split) made printable and followed
/// by `...`. The result may be longer than `max` by the escapes and the `...`.
[[nodiscard]] std::string excerpt(std::string_view text, std::size_t max = 120);

/// The first `max` bytes of `text`, or fewer so as to end on a UTF-8 sequence boundary (the bytes
/// are not validated otherwise); all of `text` when it is no longer than `max`.
[[nodiscard]] std::string_view utf8_prefix(std::string_view text, std::size_t max) noexcept;

// ---- Percent-encoding ----

/// `text` percent-encoded (RFC 3986 section 2.1): every byte other than an unreserved character
/// (`A-Z a-z 0-9 - . _ ~`) or one of `keep` becomes `%XX` with upper-case hex digits; non-ASCII
/// bytes (UTF-8) are encoded one by one. `keep` names the delimiters the caller's URL part may
/// hold literally, e.g. `/` for a path, `!$&'()*+,;=:@` for a path segment's `pchar`; with none,
/// the result is safe as any single component. `%` in `keep` marks `text` as already encoded.
[[nodiscard]] std::string percent_encode(std::string_view text, std::string_view keep = {});

// ---- URLs in messages ----

/// `text` with the secret of every URL's userinfo replaced by `****`, as pip shows them:
/// `https://alice:s3cret@host/x` -> `https://alice:****@host/x`, and a user alone (often a token)
/// `https://token@host/` -> `https://****@host/`. Every message, log line and report that shows a
/// URL passes it through this, since a URL may carry credentials (`--index-url`, a lock's `url`).
/// `text` may be one URL or a message quoting URLs: each `scheme://` starts an authority that ends
/// at `/`, `?`, `#`, whitespace, a quote, a backtick or `<>`; its userinfo is what precedes the
/// last `@` in it. So an `@` in a path or query is not userinfo, an IPv6 host (`[::1]`) and
/// percent-encoded characters are kept as they are, and text without such a URL is unchanged.
[[nodiscard]] std::string redact_url(std::string_view text);

/// `url` without its userinfo (`https://alice:s3cret@host/x` -> `https://host/x`), for what is
/// kept (a lock's URLs, cache keys) while the credentials are used only in memory; unchanged when
/// it has none. The userinfo is found as `redact_url` finds it.
[[nodiscard]] std::string url_without_userinfo(std::string_view url);

/// The userinfo of `url` (`alice:s3cret` of `https://alice:s3cret@host/x`, still percent-encoded),
/// empty when it has none.
[[nodiscard]] std::string_view url_userinfo(std::string_view url) noexcept;

// ---- ASCII character classes (no locale) ----

/// `c` is `0`-`9`.
[[nodiscard]] constexpr bool is_ascii_digit(char c) noexcept { return c >= '0' && c <= '9'; }

/// `s` is not empty and every character of it is `0`-`9`.
[[nodiscard]] constexpr bool is_ascii_digits(std::string_view s) noexcept {
  if (s.empty()) return false;
  for (char c : s) {
    if (!is_ascii_digit(c)) return false;
  }
  return true;
}

/// `c` is an ASCII letter.
[[nodiscard]] constexpr bool is_ascii_alpha(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/// `c` is an ASCII letter or digit.
[[nodiscard]] constexpr bool is_ascii_alnum(char c) noexcept { return is_ascii_digit(c) || is_ascii_alpha(c); }

/// The value of the hex digit `c` (`0-9a-fA-F`), or -1 when `c` is not one.
[[nodiscard]] constexpr int hex_digit_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// `c` is a hex digit (`0-9a-fA-F`).
[[nodiscard]] constexpr bool is_ascii_hex_digit(char c) noexcept { return hex_digit_value(c) >= 0; }

// ---- ASCII whitespace sets ----
// Formats disagree on what whitespace is, and a parser must use its format's set (an HTTP field
// value keeps a leading `\f`; HTML does not treat `\v` as space). Each set is named after where it
// comes from; `ascii_trim` takes the one the caller's format defines.

/// C `isspace()` in the "C" locale and Python's `bytes.isspace()`: space, `\t`, `\n`, `\v`, `\f`, `\r`.
[[nodiscard]] constexpr bool is_ascii_space(char c) noexcept { return c == ' ' || (c >= '\t' && c <= '\r'); }

/// Python's `str.isspace()` restricted to ASCII: `is_ascii_space` plus the separators 0x1C-0x1F.
[[nodiscard]] constexpr bool is_python_ascii_space(char c) noexcept {
  return is_ascii_space(c) || (c >= '\x1c' && c <= '\x1f');
}

/// WHATWG "ASCII whitespace" (HTML): space, `\t`, `\n`, `\f`, `\r`; not `\v`.
[[nodiscard]] constexpr bool is_html_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

/// Space or tab only: RFC 9110 optional whitespace (OWS) around HTTP field values, and blanks
/// inside one line of a format that splits on line breaks.
[[nodiscard]] constexpr bool is_space_or_tab(char c) noexcept { return c == ' ' || c == '\t'; }

/// `text` without leading and trailing characters for which `is_space` is true (by default
/// `is_ascii_space`).
[[nodiscard]] constexpr std::string_view ascii_trim(std::string_view text,
                                                    bool (*is_space)(char) noexcept = is_ascii_space) noexcept {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

// ---- ASCII case ----

/// `c` in lower case when it is an ASCII letter (no locale).
[[nodiscard]] constexpr char ascii_lower(char c) noexcept {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

/// `text` with its ASCII letters in lower case (no locale): header names, hashes, schemes.
[[nodiscard]] std::string ascii_lower(std::string_view text);

/// `a` and `b` are equal ignoring the case of ASCII letters (non-ASCII bytes must match exactly).
[[nodiscard]] constexpr bool ascii_iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  }
  return true;
}

/// `text` starts with `prefix`, ignoring the case of ASCII letters.
[[nodiscard]] constexpr bool ascii_istarts_with(std::string_view text, std::string_view prefix) noexcept {
  return text.size() >= prefix.size() && ascii_iequals(text.substr(0, prefix.size()), prefix);
}

/// `text` ends with `suffix`, ignoring the case of ASCII letters.
[[nodiscard]] constexpr bool ascii_iends_with(std::string_view text, std::string_view suffix) noexcept {
  return text.size() >= suffix.size() && ascii_iequals(text.substr(text.size() - suffix.size()), suffix);
}

// ---- UTF-8 (strict: RFC 3629, as Python's decoder) ----

/// The Unicode replacement character U+FFFD, UTF-8 encoded.
inline constexpr std::string_view kUtf8Replacement = "\xEF\xBF\xBD";

/// Decodes the UTF-8 sequence at `text[i]` into `cp` and returns its length (1 to 4), or returns 0
/// when the bytes there are not one valid sequence: a stray continuation byte, a lead byte
/// 0xC0/0xC1/0xF5-0xFF, a truncated sequence, an overlong form, a surrogate (U+D800-U+DFFF) or a
/// code point above U+10FFFF. `cp` is unspecified when 0 is returned. `i` must be < `text.size()`.
[[nodiscard]] std::size_t utf8_decode(std::string_view text, std::size_t i, char32_t& cp) noexcept;

/// The length (1 to 4) of the valid UTF-8 sequence at `text[i]`, or 0 (see `utf8_decode`).
[[nodiscard]] std::size_t utf8_length(std::string_view text, std::size_t i) noexcept;

/// `text` is entirely valid UTF-8 (see `utf8_decode` for what is rejected).
[[nodiscard]] bool is_valid_utf8(std::string_view text) noexcept;

/// Appends the valid UTF-8 sequence at `text[i]`, or U+FFFD when the bytes there are not one;
/// returns how many bytes of `text` that used (the sequence's length, or 1). `i` must be < `text.size()`.
std::size_t append_utf8_or_replacement(std::string& out, std::string_view text, std::size_t i);

/// `text` with every byte that does not belong to a valid UTF-8 sequence replaced by U+FFFD
/// (one replacement per byte).
[[nodiscard]] std::string to_valid_utf8(std::string_view text);

/// Appends the UTF-8 encoding of `cp`. Surrogates and values above U+10FFFF, which have no valid
/// encoding, are written as U+FFFD.
void append_utf8(std::string& out, char32_t cp);

/// Python's `str.isspace()` for one code point (also what `\s` matches in a `str` regex).
[[nodiscard]] constexpr bool is_python_space(char32_t cp) noexcept {
  return cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x1F) || cp == 0x85 || cp == 0xA0 ||
         cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
         cp == 0x205F || cp == 0x3000;
}

/// The length in bytes of the `is_python_space` character at `text[i]`, or 0 when there is none
/// there (also when the bytes there are not valid UTF-8). `i` must be < `text.size()`.
[[nodiscard]] std::size_t python_space_length(std::string_view text, std::size_t i) noexcept;

/// The length in bytes of the `is_python_space` character that ends `text`, or 0.
[[nodiscard]] std::size_t trailing_python_space_length(std::string_view text) noexcept;

/// Python's `str.strip()` of UTF-8 text: `text` without leading and trailing `is_python_space`
/// characters (U+00A0, U+3000, ... as well as ASCII whitespace and 0x1C-0x1F).
[[nodiscard]] std::string_view python_strip(std::string_view text) noexcept;

/// One JSON pointer reference token (RFC 6901) for `key`: `~` as `~0`, `/` as `~1`.
[[nodiscard]] std::string json_pointer_token(std::string_view key);

// ---- TOML ----

/// Appends `text` as a TOML basic string: `"..."` with `\"`, `\\`, `\b`, `\t`, `\n`, `\f`, `\r`,
/// other control characters and DEL as `\uXXXX` (upper-case hex); valid UTF-8 is kept as it is and
/// every byte of invalid UTF-8 is written as `\uFFFD`, so the result is always valid TOML.
void append_toml_string(std::string& out, std::string_view text);

/// `text` as a TOML basic string (see `append_toml_string`).
[[nodiscard]] std::string toml_string(std::string_view text);

/// A TOML key: bare when `key` is a non-empty run of `A-Za-z0-9_-`, else a basic string.
[[nodiscard]] std::string toml_key(std::string_view key);

}  // namespace vwheel
