// The shared text helpers: exact outputs, including hostile input (overlong and truncated UTF-8,
// surrogates, control characters).

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>

#include "vwheel/core/text.hpp"

using namespace std::string_view_literals;

namespace {

TEST(Printable, EscapesControlCharacters) {
  EXPECT_EQ(vwheel::printable("a\nb\rc\td\x01\x7f\xc3\xa9"sv), "a\\nb\\rc\td\\x01\\x7f\xc3\xa9");
}

TEST(Excerpt, ShortTextIsOnlyMadePrintable) {
  EXPECT_EQ(vwheel::excerpt("a\nb"sv, 10), "a\\nb");
  EXPECT_EQ(vwheel::excerpt("abcde"sv, 5), "abcde");
}

TEST(Excerpt, LongTextIsCutAndMarked) {
  EXPECT_EQ(vwheel::excerpt("abcdef"sv, 3), "abc...");
  EXPECT_EQ(vwheel::excerpt(std::string(500, 'x')), std::string(120, 'x') + "...");
  // The cut keeps its escapes: a control character inside the excerpt never reaches the message.
  EXPECT_EQ(vwheel::excerpt("a\x01" "bcdef"sv, 3), "a\\x01b...");
}

TEST(Excerpt, NeverSplitsAUtf8Sequence) {
  // "é" is two bytes at offsets 2-3: a cut at 3 would leave half of it.
  EXPECT_EQ(vwheel::excerpt("ab\xc3\xa9" "cd"sv, 3), "ab...");
  EXPECT_EQ(vwheel::excerpt("ab\xc3\xa9" "cd"sv, 4), "ab\xc3\xa9...");
  EXPECT_EQ(vwheel::utf8_prefix("\xe2\x82\xac"sv, 2), "");
  EXPECT_EQ(vwheel::utf8_prefix("abc"sv, 5), "abc");
}

TEST(PercentEncode, KeepsUnreservedEncodesTheRestUpperCase) {
  EXPECT_EQ(vwheel::percent_encode("AZaz09-._~"sv), "AZaz09-._~");
  EXPECT_EQ(vwheel::percent_encode("a b/c#d?e%"sv), "a%20b%2Fc%23d%3Fe%25");
  EXPECT_EQ(vwheel::percent_encode("\xc3\xa9\x01\x7f"sv), "%C3%A9%01%7F");
}

TEST(PercentEncode, KeepsTheCallersDelimiters) {
  EXPECT_EQ(vwheel::percent_encode("pkg-1.0+local-py3-none-any.whl"sv, "!+"), "pkg-1.0+local-py3-none-any.whl");
  EXPECT_EQ(vwheel::percent_encode("/tmp/a b/c:d"sv, "/"), "/tmp/a%20b/c%3Ad");
  EXPECT_EQ(vwheel::percent_encode("a:b@c;d=e"sv, "!$&'()*+,;=:@"), "a:b@c;d=e");
  // Only ASCII in `keep` counts: a non-ASCII byte there never lets one through unencoded.
  EXPECT_EQ(vwheel::percent_encode("\xc3\xa9"sv, "\xc3\xa9"sv), "%C3%A9");
}

TEST(IsAsciiDigit, OnlyZeroToNine) {
  EXPECT_TRUE(vwheel::is_ascii_digit('0'));
  EXPECT_TRUE(vwheel::is_ascii_digit('9'));
  EXPECT_FALSE(vwheel::is_ascii_digit('a'));
  EXPECT_FALSE(vwheel::is_ascii_digit('\xb2'));  // superscript two in Latin-1
}

TEST(IsAsciiAlpha, OnlyAsciiLetters) {
  EXPECT_TRUE(vwheel::is_ascii_alpha('z'));
  EXPECT_TRUE(vwheel::is_ascii_alpha('Z'));
  EXPECT_FALSE(vwheel::is_ascii_alpha('_'));
  EXPECT_FALSE(vwheel::is_ascii_alpha('\xe9'));
}

TEST(IsAsciiAlnum, LettersAndDigits) {
  EXPECT_TRUE(vwheel::is_ascii_alnum('7'));
  EXPECT_TRUE(vwheel::is_ascii_alnum('q'));
  EXPECT_FALSE(vwheel::is_ascii_alnum('-'));
  EXPECT_FALSE(vwheel::is_ascii_alnum('\xc3'));
}

TEST(HexDigitValue, BothCases) {
  EXPECT_EQ(vwheel::hex_digit_value('0'), 0);
  EXPECT_EQ(vwheel::hex_digit_value('a'), 10);
  EXPECT_EQ(vwheel::hex_digit_value('F'), 15);
  EXPECT_EQ(vwheel::hex_digit_value('g'), -1);
  EXPECT_EQ(vwheel::hex_digit_value('\0'), -1);
}

TEST(IsAsciiHexDigit, HexOnly) {
  EXPECT_TRUE(vwheel::is_ascii_hex_digit('c'));
  EXPECT_TRUE(vwheel::is_ascii_hex_digit('C'));
  EXPECT_FALSE(vwheel::is_ascii_hex_digit('x'));
}

// Every byte for which `is_space` holds, in order.
std::string members(bool (*is_space)(char) noexcept) {
  std::string out;
  for (int i = 0; i < 256; ++i) {
    if (is_space(static_cast<char>(i))) out += static_cast<char>(i);
  }
  return out;
}

TEST(IsAsciiSpace, CLocaleSet) { EXPECT_EQ(members(vwheel::is_ascii_space), "\t\n\v\f\r "); }

TEST(IsPythonAsciiSpace, WithInformationSeparators) {
  EXPECT_EQ(members(vwheel::is_python_ascii_space), "\t\n\v\f\r\x1c\x1d\x1e\x1f ");
}

TEST(IsHtmlSpace, WhatwgSetWithoutVerticalTab) { EXPECT_EQ(members(vwheel::is_html_space), "\t\n\f\r "); }

TEST(IsSpaceOrTab, HttpOws) { EXPECT_EQ(members(vwheel::is_space_or_tab), "\t "); }

TEST(AsciiTrim, UsesTheGivenSet) {
  EXPECT_EQ(vwheel::ascii_trim(" \t\v\f\r\nx y\n\r\f\v\t "), "x y");
  EXPECT_EQ(vwheel::ascii_trim("   "), "");
  EXPECT_EQ(vwheel::ascii_trim(""), "");
  EXPECT_EQ(vwheel::ascii_trim("\xc2\xa0x\xc2\xa0"), "\xc2\xa0x\xc2\xa0");  // non-ASCII space is kept
  EXPECT_EQ(vwheel::ascii_trim("\v x \v", vwheel::is_html_space), "\v x \v");
  EXPECT_EQ(vwheel::ascii_trim(" \fx\f ", vwheel::is_space_or_tab), "\fx\f");
  EXPECT_EQ(vwheel::ascii_trim("\x1c x \x1f", vwheel::is_python_ascii_space), "x");
  EXPECT_EQ(vwheel::ascii_trim("\x1c x \x1f"), "\x1c x \x1f");
}

TEST(AsciiLower, OnlyAsciiLetters) {
  EXPECT_EQ(vwheel::ascii_lower('Q'), 'q');
  EXPECT_EQ(vwheel::ascii_lower('@'), '@');
  EXPECT_EQ(vwheel::ascii_lower("ABC-xyz_\xc3\x89"sv), "abc-xyz_\xc3\x89");  // É stays
}

TEST(AsciiIequals, CaseInsensitiveSameLength) {
  EXPECT_TRUE(vwheel::ascii_iequals("Content-Type", "content-TYPE"));
  EXPECT_TRUE(vwheel::ascii_iequals("", ""));
  EXPECT_FALSE(vwheel::ascii_iequals("abc", "abcd"));
  EXPECT_FALSE(vwheel::ascii_iequals("\xc3\xa9", "\xc3\x89"));  // é vs É: not ASCII
  EXPECT_FALSE(vwheel::ascii_iequals("[", "{"));                // 0x5B vs 0x7B differ by 0x20 too
}

TEST(AsciiIstartsWith, Prefix) {
  EXPECT_TRUE(vwheel::ascii_istarts_with("HTTPS://x", "https:"));
  EXPECT_TRUE(vwheel::ascii_istarts_with("abc", ""));
  EXPECT_FALSE(vwheel::ascii_istarts_with("ht", "http"));
  EXPECT_FALSE(vwheel::ascii_istarts_with("W/\"x\"", "w-"));
}

TEST(AsciiIendsWith, Suffix) {
  EXPECT_TRUE(vwheel::ascii_iends_with("pkg-1.0-py3-none-any.WHL", ".whl"));
  EXPECT_TRUE(vwheel::ascii_iends_with("x", ""));
  EXPECT_FALSE(vwheel::ascii_iends_with("hl", ".whl"));
  EXPECT_FALSE(vwheel::ascii_iends_with("a.htm", ".html"));
}

TEST(Utf8Decode, ValidAndHostileSequences) {
  char32_t cp = 0;
  EXPECT_EQ(vwheel::utf8_decode("A", 0, cp), 1U);
  EXPECT_EQ(cp, U'A');
  EXPECT_EQ(vwheel::utf8_decode("\xc3\xa9", 0, cp), 2U);
  EXPECT_EQ(cp, U'\u00e9');
  EXPECT_EQ(vwheel::utf8_decode("\xe2\x82\xac", 0, cp), 3U);
  EXPECT_EQ(cp, U'\u20ac');
  EXPECT_EQ(vwheel::utf8_decode("\xf0\x9f\x98\x80", 0, cp), 4U);
  EXPECT_EQ(cp, U'\U0001F600');
  EXPECT_EQ(vwheel::utf8_decode("\xf4\x8f\xbf\xbf", 0, cp), 4U);  // U+10FFFF, the last code point
  EXPECT_EQ(cp, U'\U0010FFFF');
  EXPECT_EQ(vwheel::utf8_decode("x\xc3\xa9", 1, cp), 2U);

  // Overlong forms of '/', U+0000, U+07FF and U+FFFF.
  EXPECT_EQ(vwheel::utf8_decode("\xc0\xaf", 0, cp), 0U);
  EXPECT_EQ(vwheel::utf8_decode("\xc1\xbf", 0, cp), 0U);
  EXPECT_EQ(vwheel::utf8_decode("\xe0\x80\xaf", 0, cp), 0U);
  EXPECT_EQ(vwheel::utf8_decode("\xe0\x9f\xbf", 0, cp), 0U);
  EXPECT_EQ(vwheel::utf8_decode("\xf0\x8f\xbf\xbf", 0, cp), 0U);
  // Surrogates U+D800 and U+DFFF; U+110000; bytes that never start a sequence.
  EXPECT_EQ(vwheel::utf8_decode("\xed\xa0\x80", 0, cp), 0U);
  EXPECT_EQ(vwheel::utf8_decode("\xed\xbf\xbf", 0, cp), 0U);
  EXPECT_EQ(vwheel::utf8_decode("\xf4\x90\x80\x80", 0, cp), 0U);
  EXPECT_EQ(vwheel::utf8_decode("\xf5\x80\x80\x80", 0, cp), 0U);
  EXPECT_EQ(vwheel::utf8_decode("\xff", 0, cp), 0U);
  EXPECT_EQ(vwheel::utf8_decode("\x80", 0, cp), 0U);
  // Truncated sequences, at the end of the text and before an ASCII byte.
  EXPECT_EQ(vwheel::utf8_decode("\xc3", 0, cp), 0U);
  EXPECT_EQ(vwheel::utf8_decode("\xe2\x82", 0, cp), 0U);
  EXPECT_EQ(vwheel::utf8_decode("\xf0\x9f\x98", 0, cp), 0U);
  EXPECT_EQ(vwheel::utf8_decode("\xe2\x82"
                                "A",
                                0, cp),
            0U);
  EXPECT_EQ(vwheel::utf8_decode("\xf0\x9f\x98\xc3\xa9"sv, 0, cp), 0U);
}

TEST(Utf8Length, MatchesDecode) {
  EXPECT_EQ(vwheel::utf8_length("\xe2\x82\xac", 0), 3U);
  EXPECT_EQ(vwheel::utf8_length("\xed\x9f\xbf", 0), 3U);  // U+D7FF, just below the surrogates
  EXPECT_EQ(vwheel::utf8_length("\xed\xa0\x80", 0), 0U);
  EXPECT_EQ(vwheel::utf8_length("\xc0\x80", 0), 0U);
  EXPECT_EQ(vwheel::utf8_length("\0"sv, 0), 1U);
}

TEST(IsValidUtf8, WholeText) {
  EXPECT_TRUE(vwheel::is_valid_utf8(""));
  EXPECT_TRUE(vwheel::is_valid_utf8("plain \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"));
  EXPECT_TRUE(vwheel::is_valid_utf8("nul\0inside"sv));
  EXPECT_FALSE(vwheel::is_valid_utf8("a\xc0\xafz"));          // overlong '/'
  EXPECT_FALSE(vwheel::is_valid_utf8("a\xe0\x80\xafz"));      // overlong '/', 3 bytes
  EXPECT_FALSE(vwheel::is_valid_utf8("a\xed\xa0\x80z"));      // surrogate
  EXPECT_FALSE(vwheel::is_valid_utf8("a\xf4\x90\x80\x80z"));  // above U+10FFFF
  EXPECT_FALSE(vwheel::is_valid_utf8("tail\xe2\x82"));        // truncated
  EXPECT_FALSE(vwheel::is_valid_utf8("\xa9"));                // lone continuation
}

TEST(ToValidUtf8, OneReplacementPerBadByte) {
  EXPECT_EQ(vwheel::to_valid_utf8("ok \xc3\xa9"), "ok \xc3\xa9");
  EXPECT_EQ(vwheel::to_valid_utf8("a\xc0\xafz"), "a\xef\xbf\xbd\xef\xbf\xbdz");
  EXPECT_EQ(vwheel::to_valid_utf8("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(vwheel::to_valid_utf8("x\xe2\x82"), "x\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(vwheel::to_valid_utf8(""), "");
}

TEST(AppendUtf8, EncodesAndReplacesInvalidCodePoints) {
  std::string out;
  vwheel::append_utf8(out, U'A');
  vwheel::append_utf8(out, 0xE9);
  vwheel::append_utf8(out, 0x20AC);
  vwheel::append_utf8(out, 0x1F600);
  EXPECT_EQ(out, "A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
  out.clear();
  vwheel::append_utf8(out, 0);
  EXPECT_EQ(out, std::string(1, '\0'));
  out.clear();
  vwheel::append_utf8(out, 0xD800);
  vwheel::append_utf8(out, 0xDFFF);
  vwheel::append_utf8(out, 0x110000);
  vwheel::append_utf8(out, 0xFFFFFFFF);
  EXPECT_EQ(out, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
}

TEST(IsPythonSpace, StrIsspaceSet) {
  for (char32_t cp : {U' ', U'\t', U'\n', U'\v', U'\f', U'\r', U'\x1c', U'\x1f', U'\u0085', U'\u00a0', U'\u1680',
                      U'\u2000', U'\u200a', U'\u2028', U'\u2029', U'\u202f', U'\u205f', U'\u3000'}) {
    EXPECT_TRUE(vwheel::is_python_space(cp)) << static_cast<unsigned>(cp);
  }
  for (char32_t cp : {U'x', U'\0', U'\x1b', U'\u200b', U'\u180e', U'\ufeff', U'\u2060'}) {
    EXPECT_FALSE(vwheel::is_python_space(cp)) << static_cast<unsigned>(cp);
  }
}

TEST(PythonSpaceLength, StrictDecoding) {
  EXPECT_EQ(vwheel::python_space_length(" x", 0), 1U);
  EXPECT_EQ(vwheel::python_space_length("\xc2\xa0", 0), 2U);
  EXPECT_EQ(vwheel::python_space_length("\xe3\x80\x80", 0), 3U);  // U+3000
  EXPECT_EQ(vwheel::python_space_length("x", 0), 0U);
  EXPECT_EQ(vwheel::python_space_length("\xe0\x82\xa0", 0), 0U);  // overlong U+00A0 is not a space
  EXPECT_EQ(vwheel::python_space_length("\xc2", 0), 0U);          // truncated
}

TEST(TrailingPythonSpaceLength, LastCharacter) {
  EXPECT_EQ(vwheel::trailing_python_space_length("x "), 1U);
  EXPECT_EQ(vwheel::trailing_python_space_length("x\xc2\xa0"), 2U);
  EXPECT_EQ(vwheel::trailing_python_space_length("x\xe2\x80\xa8"), 3U);  // U+2028
  EXPECT_EQ(vwheel::trailing_python_space_length("x"), 0U);
  EXPECT_EQ(vwheel::trailing_python_space_length(""), 0U);
  EXPECT_EQ(vwheel::trailing_python_space_length("\xa0"), 0U);  // a lone continuation byte
}

TEST(PythonStrip, UnicodeWhitespace) {
  EXPECT_EQ(vwheel::python_strip("\xe3\x80\x80 \t\xc2\xa0x y\x1c\xe2\x80\xaf\n"), "x y");
  EXPECT_EQ(vwheel::python_strip(" \xc2\xa0 "), "");
  EXPECT_EQ(vwheel::python_strip("\xe2\x80\x8bx"), "\xe2\x80\x8bx");  // U+200B is not whitespace
  EXPECT_EQ(vwheel::python_strip("\xc2x\xc2"), "\xc2x\xc2");          // invalid bytes stay
}

TEST(TomlString, EscapesAndReplacesInvalidUtf8) {
  EXPECT_EQ(vwheel::toml_string("plain"), "\"plain\"");
  EXPECT_EQ(vwheel::toml_string("q\"b\\"), "\"q\\\"b\\\\\"");
  EXPECT_EQ(vwheel::toml_string("\b\t\n\f\r"), "\"\\b\\t\\n\\f\\r\"");
  EXPECT_EQ(vwheel::toml_string("\0\x01\x1b\x1f\x7f"sv), "\"\\u0000\\u0001\\u001B\\u001F\\u007F\"");
  EXPECT_EQ(vwheel::toml_string("caf\xc3\xa9 \xf0\x9f\x98\x80"), "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"");
  EXPECT_EQ(vwheel::toml_string("a\xc0\xaf"), "\"a\\uFFFD\\uFFFD\"");           // overlong
  EXPECT_EQ(vwheel::toml_string("\xed\xa0\x80"), "\"\\uFFFD\\uFFFD\\uFFFD\"");  // surrogate
  EXPECT_EQ(vwheel::toml_string("x\xe2\x82"), "\"x\\uFFFD\\uFFFD\"");           // truncated
  EXPECT_EQ(vwheel::toml_string(""), "\"\"");
}

TEST(AppendTomlString, Appends) {
  std::string out = "k = ";
  vwheel::append_toml_string(out, "v\n");
  EXPECT_EQ(out, "k = \"v\\n\"");
}

TEST(TomlKey, BareOrQuoted) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"name_1-x", "name_1-x"},           {"a.b", "\"a.b\""},  {"", "\"\""},
      {"caf\xc3\xa9", "\"caf\xc3\xa9\""}, {"x\n", "\"x\\n\""},
  };
  for (const auto& [key, expected] : cases) EXPECT_EQ(vwheel::toml_key(key), expected) << key;
}

TEST(AppendUtf8OrReplacement, OneCharacterAtATime) {
  std::string out;
  EXPECT_EQ(vwheel::append_utf8_or_replacement(out, "\xe2\x82\xacx", 0), 3U);
  EXPECT_EQ(vwheel::append_utf8_or_replacement(out, "\xe2\x82\xacx", 3), 1U);
  EXPECT_EQ(vwheel::append_utf8_or_replacement(out, "\xe0\x80\xaf", 0), 1U);  // overlong: one byte replaced
  EXPECT_EQ(out, "\xe2\x82\xacx\xef\xbf\xbd");
}

}  // namespace

namespace {

struct UrlCase {
  std::string_view in;
  std::string_view redacted;
  std::string_view without;
  std::string_view userinfo;
};

// Credentials in URLs (issue 51): what a message shows, what is stored, what is sent.
constexpr UrlCase kUrlCases[] = {
    {"https://alice:s3cret@host/x", "https://alice:****@host/x", "https://host/x", "alice:s3cret"},
    {"https://token@host/", "https://****@host/", "https://host/", "token"},
    {"https://host/x", "https://host/x", "https://host/x", ""},
    {"https://alice:s3cret@host", "https://alice:****@host", "https://host", "alice:s3cret"},
    {"http://alice:s3cret@127.0.0.1:8080/simple/", "http://alice:****@127.0.0.1:8080/simple/",
     "http://127.0.0.1:8080/simple/", "alice:s3cret"},
    // `@` in the path, query or fragment is not userinfo.
    {"https://host/a@b/c.whl", "https://host/a@b/c.whl", "https://host/a@b/c.whl", ""},
    {"https://host?u=a:b@c", "https://host?u=a:b@c", "https://host?u=a:b@c", ""},
    {"https://host#a:b@c", "https://host#a:b@c", "https://host#a:b@c", ""},
    // The last `@` of the authority ends the userinfo (an unencoded `@` in a password).
    {"https://alice:p@ss@host/x", "https://alice:****@host/x", "https://host/x", "alice:p@ss"},
    // Percent-encoded characters are kept as they are.
    {"https://al%40ice:s%3Acret@host/%7Ex", "https://al%40ice:****@host/%7Ex", "https://host/%7Ex", "al%40ice:s%3Acret"},
    // IPv6 hosts.
    {"http://alice:pw@[::1]:8080/simple/", "http://alice:****@[::1]:8080/simple/", "http://[::1]:8080/simple/",
     "alice:pw"},
    {"http://[::1]:8080/a@b", "http://[::1]:8080/a@b", "http://[::1]:8080/a@b", ""},
    // A password alone, an empty one, an empty userinfo.
    {"https://:pw@host/", "https://:****@host/", "https://host/", ":pw"},
    {"https://alice:@host/", "https://alice:****@host/", "https://host/", "alice:"},
    {"https://@host/", "https://@host/", "https://host/", ""},
    // Other schemes, and no URL at all.
    {"git+https://u:p@host/r.git", "git+https://u:****@host/r.git", "git+https://host/r.git", "u:p"},
    {"file:///tmp/a@b.whl", "file:///tmp/a@b.whl", "file:///tmp/a@b.whl", ""},
    {"alice:s3cret@host/x", "alice:s3cret@host/x", "alice:s3cret@host/x", ""},
    {"", "", "", ""},
    {"://u:p@host", "://u:p@host", "://u:p@host", ""},
};

TEST(RedactUrl, Table) {
  for (const auto& c : kUrlCases) {
    EXPECT_EQ(vwheel::redact_url(c.in), c.redacted) << c.in;
    EXPECT_EQ(vwheel::url_without_userinfo(c.in), c.without) << c.in;
    EXPECT_EQ(vwheel::url_userinfo(c.in), c.userinfo) << c.in;
  }
}

TEST(RedactUrl, EveryUrlOfAMessage) {
  EXPECT_EQ(vwheel::redact_url("https://alice:s3cret@h/a.whl: HTTP 404 (redirected from http://tok@h2/b)"),
            "https://alice:****@h/a.whl: HTTP 404 (redirected from http://****@h2/b)");
  EXPECT_EQ(vwheel::redact_url("`https://alice:s3cret@h/a.whl`: sha256 mismatch, mail bob@example.com"),
            "`https://alice:****@h/a.whl`: sha256 mismatch, mail bob@example.com");
  EXPECT_EQ(vwheel::redact_url("wheel 'https://u:p@h/x' and \"https://v:q@h/y\""),
            "wheel 'https://u:****@h/x' and \"https://v:****@h/y\"");
}

}  // namespace
