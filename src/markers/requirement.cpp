#include "vwheel/markers/requirement.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "markers/parser.hpp"
#include "vwheel/core/text.hpp"

namespace vwheel::markers {
namespace {

constexpr bool is_scheme_char(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
}

// A URL needs `scheme://` and, except for `file:` and a VCS's `git+file:`, a host (as packaging,
// which also rejects `file:` URLs without `//`; pip takes `git+file:///srv/repo`).
bool is_valid_url(std::string_view url) noexcept {
  const auto colon = url.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  const auto scheme = url.substr(0, colon);
  const char first = scheme.front();
  if (!is_ascii_alpha(first)) return false;
  if (!std::all_of(scheme.begin(), scheme.end(), is_scheme_char)) return false;
  const auto rest = url.substr(colon + 1);
  if (!rest.starts_with("//")) return false;
  if (ascii_iequals(scheme, "file") || ascii_iequals(scheme, "git+file")) return true;
  const auto host_end = rest.find_first_of("/?#", 2);
  return (host_end == std::string_view::npos ? rest.size() : host_end) > 2;
}

}  // namespace

Result<Requirement> Requirement::parse(std::string_view text) {
  MarkerParser p(text, "requirement");
  Requirement req;

  p.skip_ws();
  const auto name = p.peek_identifier();
  if (name.empty()) return p.error("expected a package name", p.pos());
  req.name = std::string(name);
  p.advance(name.size());
  p.skip_ws();

  // extras
  if (p.peek() == '[') {
    const std::size_t open = p.pos();
    p.advance();
    p.skip_ws();
    if (auto first = p.peek_identifier(); !first.empty()) {
      req.extras.emplace_back(first);
      p.advance(first.size());
      while (true) {
        p.skip_ws();
        if (!p.peek_identifier().empty()) return p.error("expected a comma between extra names", p.pos());
        if (p.peek() != ',') break;
        p.advance();
        p.skip_ws();
        const auto extra = p.peek_identifier();
        if (extra.empty()) return p.error("expected an extra name after the comma", p.pos());
        req.extras.emplace_back(extra);
        p.advance(extra.size());
      }
    }
    p.skip_ws();
    if (p.peek() != ']') {
      return p.error(fmt::format("expected `]` to close the extras opened at column {}", open + 1), p.pos());
    }
    p.advance();
    std::sort(req.extras.begin(), req.extras.end());
    req.extras.erase(std::unique(req.extras.begin(), req.extras.end()), req.extras.end());
    p.skip_ws();
  }

  auto parse_marker_tail = [&](std::string_view after) -> Result<void> {
    if (p.peek() != ';') return p.error(fmt::format("expected end or semicolon (after {})", after), p.pos());
    p.advance();
    auto parsed = p.parse_marker();
    if (!parsed) return fail(parsed.error());
    req.marker = std::move(*parsed);
    p.skip_ws();
    if (!p.at_end()) return p.error("expected `and`, `or` or the end of the requirement", p.pos());
    return {};
  };

  if (p.peek() == '@') {
    p.advance();
    p.skip_ws();
    const std::size_t url_start = p.pos();
    const auto rest = text.substr(url_start);
    const auto url = rest.substr(0, rest.find_first_of(" \t"));
    if (url.empty()) return p.error("expected a URL after `@`", url_start);
    if (!is_valid_url(url)) {
      return p.error(fmt::format("invalid URL `{}` (expected `scheme://host/...` or `file://...`)", printable(url)),
                     url_start);
    }
    req.url = std::string(url);
    p.advance(url.size());
    p.skip_ws();
    if (p.at_end()) return req;
    if (auto r = parse_marker_tail("URL and whitespace"); !r) return fail(r.error());
    return req;
  }

  // version specifiers, possibly parenthesized
  const bool parens = p.peek() == '(';
  const std::size_t open = p.pos();
  if (parens) {
    p.advance();
    p.skip_ws();
  }
  std::string specs;
  while (const std::size_t n = pep440::match_specifier(text.substr(p.pos()))) {
    if (!specs.empty()) specs += ',';
    specs += text.substr(p.pos(), n);
    p.advance(n);
    p.skip_ws();
    if (p.peek() != ',') break;
    p.advance();
    p.skip_ws();
  }
  if (parens) {
    p.skip_ws();
    if (p.peek() != ')') {
      return p.error(fmt::format("expected a version specifier or `)` to close the `(` at column {}", open + 1),
                     p.pos());
    }
    p.advance();
  }
  if (!specs.empty()) {
    auto set = pep440::SpecifierSet::parse(specs);
    if (!set) return p.error(set.error().message, open);
    req.specifier = std::move(*set);
  }
  p.skip_ws();
  if (p.at_end()) return req;
  if (auto r = parse_marker_tail(specs.empty() ? "name and no valid version specifier" : "version specifier"); !r) {
    return fail(r.error());
  }
  return req;
}

std::string Requirement::to_string() const {
  std::string out = name;
  if (!extras.empty()) {
    out += '[';
    for (std::size_t i = 0; i < extras.size(); ++i) {
      if (i != 0) out += ',';
      out += extras[i];
    }
    out += ']';
  }
  out += specifier.to_string();
  if (!url.empty()) {
    out += " @ ";
    out += url;
    if (marker) out += ' ';
  }
  if (marker) {
    out += "; ";
    out += marker->to_string();
  }
  return out;
}

Result<bool> Requirement::applies_to(const Environment& env) const {
  if (!marker) return true;
  return marker->evaluate(env);
}

}  // namespace vwheel::markers
