// HTML project pages (PEP 503): a small tokenizer that reads `<a>`, `<base>` and `<meta>` tags and
// skips everything else. Every byte is looked at a bounded number of times, so hostile pages
// (unterminated tags, millions of attributes) cost linear time.

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "simple/common.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/simple/project_page.hpp"

namespace vwheel::simple {
namespace {

// The attributes a tag of interest may carry; the first occurrence of each wins (as in HTML).
enum Attr : std::size_t { kHref, kRequiresPython, kYanked, kCoreMetadata, kDistInfoMetadata, kName, kContent, kCount };

std::optional<Attr> attr_index(std::string_view name) {
  static constexpr std::array<std::string_view, kCount> kNames = {
      "href",   "data-requires-python", "data-yanked", "data-core-metadata", "data-dist-info-metadata", "name",
      "content"};
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (ascii_iequals(name, kNames[i])) return static_cast<Attr>(i);
  }
  return std::nullopt;
}

enum class TagKind { Other, Anchor, Base, Meta, RawText };

TagKind tag_kind(std::string_view name) {
  if (ascii_iequals(name, "a")) return TagKind::Anchor;
  if (ascii_iequals(name, "base")) return TagKind::Base;
  if (ascii_iequals(name, "meta")) return TagKind::Meta;
  if (ascii_iequals(name, "script") || ascii_iequals(name, "style")) return TagKind::RawText;
  return TagKind::Other;
}

using Attrs = std::array<std::optional<std::string_view>, kCount>;

struct RawAnchor {
  std::string href;
  std::optional<std::string> requires_python, yanked, core_metadata, dist_info_metadata;
};

std::optional<std::string> unescaped(const std::optional<std::string_view>& v) {
  if (!v) return std::nullopt;
  return html_unescape(*v);
}

// PEP 658/714 attribute values: `true`, or `<hashname>=<hex>`; anything else (`false`, malformed)
// means the index does not serve the metadata file (as pip reads it).
std::optional<std::map<std::string, std::string>> metadata_attr(const std::optional<std::string>& value) {
  if (!value) return std::nullopt;
  const std::string_view v = ascii_trim(*value, is_html_space);
  if (ascii_iequals(v, "true")) return std::map<std::string, std::string>{};
  const auto eq = v.find('=');
  if (eq == std::string_view::npos) return std::nullopt;
  const std::string_view name = v.substr(0, eq);
  const std::string_view hex = v.substr(eq + 1);
  if (!detail::is_hash_name(name) || !detail::is_hex_digest(hex)) return std::nullopt;
  return std::map<std::string, std::string>{{ascii_lower(name), ascii_lower(hex)}};
}

// `<meta name="pypi:repository-version" content="1.0">` (PEP 629): the major version must be 1.
Result<void> check_repository_version(std::string_view version, std::string_view page_url) {
  const std::string_view v = ascii_trim(version, is_html_space);
  const auto dot = v.find('.');
  const std::string_view major = v.substr(0, dot);
  if (major != "1") {
    return fail(fmt::format("{}: unsupported repository version `{}` (expected 1.x)", printable(page_url),
                            excerpt(v, 40)));
  }
  return {};
}

// Skips the content of a raw text element (`<script>`, `<style>`) up to its end tag; returns the
// position of the `<` of the end tag, or the end of the page.
std::size_t skip_raw_text(std::string_view body, std::size_t i, std::string_view name) {
  while (true) {
    const auto lt = body.find("</", i);
    if (lt == std::string_view::npos) return body.size();
    const std::size_t after = lt + 2 + name.size();
    if (after <= body.size() && ascii_iequals(body.substr(lt + 2, name.size()), name) &&
        (after == body.size() || is_html_space(body[after]) || body[after] == '/' || body[after] == '>')) {
      return lt;
    }
    i = lt + 2;
  }
}

// As browsers do: leading and trailing whitespace is stripped, tabs and newlines dropped.
Result<std::string> clean_href(std::string_view raw, std::string_view page_url) {
  std::string href;
  for (char c : ascii_trim(raw, is_html_space)) {
    if (c != '\t' && c != '\n' && c != '\r') href += c;
  }
  if (href.size() > detail::kMaxUrl) {
    return fail(fmt::format("{}: link `{}` is longer than {} bytes", printable(page_url), excerpt(href),
                            detail::kMaxUrl));
  }
  return href;
}

Result<FileLink> make_link(const RawAnchor& a, const detail::Resolver& base, std::string_view page_url) {
  auto cleaned = clean_href(a.href, page_url);
  if (!cleaned) return fail(cleaned.error());
  const std::string& href = *cleaned;
  const auto [target, fragment] = detail::split_fragment(href);
  auto url = base.resolve(target);
  if (!url) {
    return fail(fmt::format("{}: link `{}`: {}", printable(page_url), excerpt(href), url.error().message));
  }
  FileLink link;
  link.url = std::move(url->url);
  link.filename = std::move(url->filename);
  if (fragment) link.hashes = detail::fragment_hashes(*fragment);
  if (is_variants_json_name(link.filename)) return link;  // PEP 825: its attributes are ignored
  if (a.requires_python) {
    const std::string_view rp = ascii_trim(*a.requires_python, is_html_space);
    if (!rp.empty()) link.requires_python = std::string(rp);
  }
  link.yanked = a.yanked;
  link.core_metadata = metadata_attr(a.core_metadata ? a.core_metadata : a.dist_info_metadata);
  return link;
}

}  // namespace

std::string html_unescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (text[i] != '&') {
      out += text[i];
      continue;
    }
    std::size_t j = i + 1;
    if (j < n && text[j] == '#') {
      ++j;
      const bool hex = j < n && (text[j] == 'x' || text[j] == 'X');
      if (hex) ++j;
      const std::size_t start = j;
      std::uint32_t cp = 0;
      while (j < n && j - start < 8 && (hex ? is_ascii_hex_digit(text[j]) : is_ascii_digit(text[j]))) {
        cp = cp * (hex ? 16U : 10U) + static_cast<std::uint32_t>(hex_digit_value(text[j]));
        ++j;
      }
      if (j > start && j < n && text[j] == ';') {
        append_utf8(out, cp == 0 ? 0xFFFDU : cp);  // HTML maps `&#0;` to U+FFFD as well
        i = j;
        continue;
      }
    } else {
      const std::size_t start = j;
      while (j < n && j - start < 8 && (is_ascii_alpha(text[j]) || is_ascii_digit(text[j]))) ++j;
      if (j < n && text[j] == ';') {
        static constexpr std::pair<std::string_view, std::string_view> kNamed[] = {
            {"lt", "<"}, {"gt", ">"}, {"amp", "&"}, {"quot", "\""}, {"apos", "'"}, {"nbsp", "\xC2\xA0"}};
        const std::string_view name = text.substr(start, j - start);
        bool found = false;
        for (const auto& [k, v] : kNamed) {
          if (name == k) {
            out += v;
            found = true;
            break;
          }
        }
        if (found) {
          i = j;
          continue;
        }
      }
    }
    out += '&';  // not a reference we know: kept as written
  }
  return out;
}

Result<ProjectPage> parse_html_page(std::string_view body, std::string_view page_url) {
  ProjectPage page;
  page.url = std::string(page_url);
  std::vector<RawAnchor> anchors;
  std::optional<std::string> base_href;
  const std::size_t n = body.size();
  const auto unterminated = [&](std::string_view what, std::size_t at) {
    return fail(fmt::format("{}: unterminated {} at byte {}", printable(page_url), what, at));
  };

  std::size_t i = 0;
  while (i < n) {
    const auto lt = body.find('<', i);
    if (lt == std::string_view::npos) break;
    i = lt + 1;
    if (i >= n) break;  // a lone `<` at the end is text
    const char c = body[i];
    if (body.substr(lt, 4) == "<!--") {
      const auto end = body.find("-->", lt + 4);
      if (end == std::string_view::npos) return unterminated("comment", lt);
      i = end + 3;
      continue;
    }
    if (c == '!' || c == '?' || c == '/') {  // declarations, processing instructions, end tags
      const auto end = body.find('>', i);
      if (end == std::string_view::npos) return unterminated("tag", lt);
      i = end + 1;
      continue;
    }
    if (!is_ascii_alpha(c)) continue;  // `<` followed by something else is text

    // A start tag: its name, then attributes up to `>`.
    std::size_t j = i;
    while (j < n && !is_html_space(body[j]) && body[j] != '/' && body[j] != '>') ++j;
    const std::string_view name = body.substr(i, j - i);
    const TagKind kind = tag_kind(name);
    Attrs attrs{};
    bool closed = false;
    while (j < n) {
      while (j < n && (is_html_space(body[j]) || body[j] == '/')) ++j;
      if (j >= n) break;
      if (body[j] == '>') {
        ++j;
        closed = true;
        break;
      }
      std::size_t k = j + 1;  // a name may start with `=`
      while (k < n && !is_html_space(body[k]) && body[k] != '/' && body[k] != '>' && body[k] != '=') ++k;
      const std::string_view attr_name = body.substr(j, k - j);
      j = k;
      while (j < n && is_html_space(body[j])) ++j;
      std::string_view value;
      if (j < n && body[j] == '=') {
        ++j;
        while (j < n && is_html_space(body[j])) ++j;
        if (j >= n) break;
        if (body[j] == '"' || body[j] == '\'') {
          const auto end = body.find(body[j], j + 1);
          if (end == std::string_view::npos) return unterminated("attribute value", j);
          value = body.substr(j + 1, end - j - 1);
          j = end + 1;
        } else {
          k = j;
          while (k < n && !is_html_space(body[k]) && body[k] != '>') ++k;
          value = body.substr(j, k - j);
          j = k;
        }
      }
      if (kind == TagKind::Anchor || kind == TagKind::Base || kind == TagKind::Meta) {
        if (const auto idx = attr_index(attr_name); idx && !attrs[*idx]) attrs[*idx] = value;
      }
    }
    if (!closed) return unterminated(fmt::format("tag `<{}`", excerpt(name, 40)), lt);
    i = j;

    switch (kind) {
      case TagKind::Anchor:
        if (attrs[kHref]) {
          anchors.push_back(RawAnchor{html_unescape(*attrs[kHref]), unescaped(attrs[kRequiresPython]),
                                      unescaped(attrs[kYanked]), unescaped(attrs[kCoreMetadata]),
                                      unescaped(attrs[kDistInfoMetadata])});
        }
        break;
      case TagKind::Base:
        if (!base_href && attrs[kHref]) base_href = html_unescape(*attrs[kHref]);
        break;
      case TagKind::Meta:
        if (attrs[kName] && attrs[kContent] &&
            ascii_iequals(ascii_trim(*attrs[kName], is_html_space), "pypi:repository-version")) {
          std::string version = html_unescape(*attrs[kContent]);
          if (auto ok = check_repository_version(version, page_url); !ok) return fail(ok.error());
          if (!page.api_version) page.api_version = std::string(ascii_trim(version, is_html_space));
        }
        break;
      case TagKind::RawText:
        i = skip_raw_text(body, i, name);
        break;
      case TagKind::Other:
        break;
    }
  }

  // The first `<base href>` applies to every link of the page, wherever it stands.
  auto page_base = detail::Resolver::make(page_url);
  if (!page_base) return fail(fmt::format("{}: {}", printable(page_url), page_base.error().message));
  std::optional<detail::Resolver> base_resolver;
  if (base_href) {
    auto href = clean_href(*base_href, page_url);
    if (!href) return fail(href.error());
    auto resolved = page_base->resolve(*href);
    if (!resolved) return fail(fmt::format("{}: `<base href>`: {}", printable(page_url), resolved.error().message));
    auto made = detail::Resolver::make(resolved->url);
    if (!made) return fail(fmt::format("{}: `<base href>`: {}", printable(page_url), made.error().message));
    base_resolver = std::move(*made);
  }
  const detail::Resolver& base = base_resolver ? *base_resolver : *page_base;

  page.files.reserve(anchors.size());
  // Short relative links under a long base URL could make the result much larger than the page.
  const std::size_t budget = detail::output_budget(body.size());
  std::size_t used = 0;
  for (const auto& a : anchors) {
    auto link = make_link(a, base, page_url);
    if (!link) return fail(link.error());
    used += link->url.size();
    if (used > budget) {
      return fail(fmt::format("{}: the links resolve to more than {} bytes of URLs", printable(page_url), budget));
    }
    if (link->filename.empty()) continue;  // a link to a directory (another page), not a file
    if (auto ok = detail::check_filename(link->filename, page_url); !ok) return fail(ok.error());
    page.files.push_back(std::move(*link));
  }
  return page;
}

}  // namespace vwheel::simple
