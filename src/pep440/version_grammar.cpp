#include "vwheel/core/text.hpp"
#include "pep440/version_grammar.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace vwheel::pep440::detail {
namespace {

constexpr bool is_sep(char c) noexcept { return c == '-' || c == '_' || c == '.'; }

char at(std::string_view s, std::size_t i) noexcept { return i < s.size() ? s[i] : '\0'; }

std::size_t count_digits(std::string_view s, std::size_t i) noexcept {
  std::size_t n = 0;
  while (i + n < s.size() && is_ascii_digit(s[i + n])) ++n;
  return n;
}

bool starts_with_ci(std::string_view s, std::size_t i, std::string_view word) noexcept {
  if (i > s.size() || s.size() - i < word.size()) return false;
  for (std::size_t k = 0; k < word.size(); ++k) {
    if (ascii_lower(s[i + k]) != word[k]) return false;
  }
  return true;
}

Number number_at(std::string_view s, std::size_t i, std::size_t n) { return *Number::from_digits(s.substr(i, n)); }

// Reads `[-_.]? [0-9]*` after a pre/post/dev keyword: returns the new position and the number
// (0 when absent). The separator is consumed even without digits, as the greedy regex does.
std::size_t read_optional_number(std::string_view s, std::size_t i, Number* number) {
  std::size_t k = i;
  if (is_sep(at(s, k))) ++k;
  const std::size_t d = count_digits(s, k);
  if (d == 0) {
    *number = Number();
    return k;
  }
  *number = number_at(s, k, d);
  return k + d;
}

struct Keyword {
  std::string_view text;
  PreReleaseKind kind;
};

// Longest spellings first so that e.g. `preview` is not read as `pre` + `view`.
constexpr std::array<Keyword, 8> kPreKeywords{{
    {"preview", PreReleaseKind::rc},
    {"alpha", PreReleaseKind::alpha},
    {"beta", PreReleaseKind::beta},
    {"pre", PreReleaseKind::rc},
    {"rc", PreReleaseKind::rc},
    {"a", PreReleaseKind::alpha},
    {"b", PreReleaseKind::beta},
    {"c", PreReleaseKind::rc},
}};
constexpr std::array<std::string_view, 3> kPostKeywords{"post", "rev", "r"};

}  // namespace

std::size_t match_version(std::string_view s, std::size_t pos, VersionParts* out, VersionSyntax syntax) {
  constexpr auto npos = std::string_view::npos;
  VersionParts local_parts;
  VersionParts& p = out != nullptr ? *out : local_parts;
  p = VersionParts{};
  std::size_t i = pos;
  if (ascii_lower(at(s, i)) == 'v') ++i;

  // epoch
  std::size_t d = count_digits(s, i);
  if (d == 0) return npos;
  if (at(s, i + d) == '!' && count_digits(s, i + d + 1) > 0) {
    p.epoch = number_at(s, i, d);
    i += d + 1;
    d = count_digits(s, i);
  }
  // release
  p.release.push_back(number_at(s, i, d));
  i += d;
  while (at(s, i) == '.' && (d = count_digits(s, i + 1)) > 0) {
    p.release.push_back(number_at(s, i + 1, d));
    i += 1 + d;
  }
  if (p.release.size() < syntax.min_release_parts) return npos;

  if (syntax.allow_wildcard && at(s, i) == '.' && at(s, i + 1) == '*') {
    p.wildcard = true;
    return i + 2;
  }

  // pre-release
  {
    std::size_t k = i;
    if (is_sep(at(s, k))) ++k;
    for (const auto& kw : kPreKeywords) {
      if (starts_with_ci(s, k, kw.text)) {
        PreRelease pre{kw.kind, Number()};
        i = read_optional_number(s, k + kw.text.size(), &pre.number);
        p.pre = pre;
        break;
      }
    }
  }
  // post-release: `-N` or `[-_.]? (post|rev|r) [-_.]? N?`
  if (at(s, i) == '-' && (d = count_digits(s, i + 1)) > 0) {
    p.post = number_at(s, i + 1, d);
    i += 1 + d;
  } else {
    std::size_t k = i;
    if (is_sep(at(s, k))) ++k;
    for (const auto kw : kPostKeywords) {
      if (starts_with_ci(s, k, kw)) {
        Number n;
        i = read_optional_number(s, k + kw.size(), &n);
        p.post = n;
        break;
      }
    }
  }
  // dev release
  {
    std::size_t k = i;
    if (is_sep(at(s, k))) ++k;
    if (starts_with_ci(s, k, "dev")) {
      Number n;
      i = read_optional_number(s, k + 3, &n);
      p.dev = n;
    }
  }
  // local version: `+[a-z0-9]+([-_.][a-z0-9]+)*`
  if (syntax.allow_local && at(s, i) == '+' && is_ascii_alnum(at(s, i + 1))) {
    std::size_t k = i + 1;
    while (true) {
      const std::size_t start = k;
      while (is_ascii_alnum(at(s, k))) ++k;
      const std::string_view part = s.substr(start, k - start);
      if (std::all_of(part.begin(), part.end(), is_ascii_digit)) {
        p.local.emplace_back(*Number::from_digits(part));
      } else {
        p.local.emplace_back(ascii_lower(part));
      }
      if (is_sep(at(s, k)) && is_ascii_alnum(at(s, k + 1))) {
        ++k;
        continue;
      }
      break;
    }
    i = k;
  }
  return i;
}

}  // namespace vwheel::pep440::detail
