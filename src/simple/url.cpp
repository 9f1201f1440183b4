// RFC 3986 reference resolution, percent decoding and the URL helpers of project pages.

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

#include "simple/common.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/simple/project_page.hpp"

namespace vwheel::simple {
namespace detail {

bool is_hex_digest(std::string_view s) noexcept {
  if (s.empty()) return false;
  for (char c : s) {
    if (!is_ascii_hex_digit(c)) return false;
  }
  return true;
}

bool is_hash_name(std::string_view s) noexcept {
  if (s.empty() || s.size() > 32) return false;
  for (char c : s) {
    const char l = ascii_lower(c);
    if (!((l >= 'a' && l <= 'z') || is_ascii_digit(l) || l == '_' || l == '-')) return false;
  }
  return true;
}

SplitUrl split_fragment(std::string_view url) noexcept {
  const auto hash = url.find('#');
  if (hash == std::string_view::npos) return {url, std::nullopt};
  return {url.substr(0, hash), url.substr(hash + 1)};
}

std::map<std::string, std::string> fragment_hashes(std::string_view fragment) {
  std::map<std::string, std::string> out;
  while (!fragment.empty()) {
    const auto amp = fragment.find('&');
    const std::string_view part = fragment.substr(0, amp);
    fragment = amp == std::string_view::npos ? std::string_view{} : fragment.substr(amp + 1);
    const auto eq = part.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view name = part.substr(0, eq);
    const std::string_view value = part.substr(eq + 1);
    if (!is_hash_name(name) || !is_hex_digest(value)) continue;
    static constexpr std::string_view kKnown[] = {"md5",    "sha1",     "sha224",   "sha256",  "sha384",
                                                  "sha512", "sha3_256", "sha3_512", "blake2b", "blake2s"};
    const std::string key = ascii_lower(name);
    bool known = false;
    for (const auto k : kKnown) known = known || k == key;
    if (known) out.emplace(key, ascii_lower(value));  // the first occurrence wins
  }
  return out;
}

Result<void> check_filename(std::string_view filename, std::string_view page_url) {
  if (filename.empty()) return fail(fmt::format("{}: a file has an empty name", printable(page_url)));
  if (filename == "." || filename == "..") {
    return fail(fmt::format("{}: invalid file name `{}`", printable(page_url), filename));
  }
  for (char ch : filename) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '/' || c == '\\' || c < 0x20 || c == 0x7f) {
      return fail(fmt::format("{}: invalid file name `{}` (contains a path separator or a control character)",
                              printable(page_url), excerpt(filename)));
    }
  }
  return {};
}

}  // namespace detail

namespace {

// The five components of RFC 3986 appendix B.
struct Uri {
  std::optional<std::string_view> scheme;
  std::optional<std::string_view> authority;
  std::string_view path;
  std::optional<std::string_view> query;
  std::optional<std::string_view> fragment;
};

bool valid_scheme(std::string_view s) noexcept {
  if (s.empty() || !is_ascii_alpha(s.front())) return false;
  for (char c : s) {
    if (!(is_ascii_alpha(c) || is_ascii_digit(c) || c == '+' || c == '-' || c == '.')) return false;
  }
  return true;
}

Uri split(std::string_view s) noexcept {
  Uri u;
  if (const auto i = s.find_first_of(":/?#");
      i != std::string_view::npos && s[i] == ':' && valid_scheme(s.substr(0, i))) {
    u.scheme = s.substr(0, i);
    s.remove_prefix(i + 1);
  }
  if (s.starts_with("//")) {
    const auto end = s.find_first_of("/?#", 2);
    u.authority = s.substr(2, end == std::string_view::npos ? std::string_view::npos : end - 2);
    s = end == std::string_view::npos ? std::string_view{} : s.substr(end);
  }
  const auto end = s.find_first_of("?#");
  u.path = s.substr(0, end);
  s = end == std::string_view::npos ? std::string_view{} : s.substr(end);
  if (s.starts_with('?')) {
    const auto hash = s.find('#');
    u.query = s.substr(1, hash == std::string_view::npos ? std::string_view::npos : hash - 1);
    s = hash == std::string_view::npos ? std::string_view{} : s.substr(hash);
  }
  if (s.starts_with('#')) u.fragment = s.substr(1);
  return u;
}

// RFC 3986 section 5.2.4, on segments: `.` is dropped, `..` drops the previous segment; either one
// in last position leaves a trailing slash. Linear in the length of the path.
std::string remove_dot_segments(std::string_view path) {
  const bool absolute = path.starts_with('/');
  if (absolute) path.remove_prefix(1);
  std::vector<std::string_view> out;
  while (true) {
    const auto slash = path.find('/');
    const std::string_view seg = path.substr(0, slash);
    const bool last = slash == std::string_view::npos;
    if (seg == "." || seg == "..") {
      if (seg == ".." && !out.empty()) out.pop_back();
      if (last) out.emplace_back();
    } else {
      out.push_back(seg);
    }
    if (last) break;
    path.remove_prefix(slash + 1);
  }
  std::string result = absolute ? "/" : "";
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (i > 0) result += '/';
    result += out[i];
  }
  return result;
}

// What a URL may hold literally besides unreserved characters: RFC 3986's gen-delims and
// sub-delims, and `%` (the text is already encoded: an existing `%XX` stays as it is).
constexpr std::string_view kUrlKeep = ":/?#[]@!$&'()*+,;=%";

// Rejects control characters; percent-encodes spaces, characters URLs may not contain literally
// and non-ASCII bytes (as browsers do).
Result<std::string> clean(std::string_view text, std::string_view what) {
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) {
      return fail(fmt::format("{} `{}` contains a control character", what, excerpt(text)));
    }
  }
  return percent_encode(text, kUrlKeep);
}

// The result must be an http(s) URL with a host, or a file URL with an absolute path.
Result<void> check_absolute(const Uri& u, const std::string& scheme, std::string_view text, std::string_view what) {
  if (scheme != "http" && scheme != "https" && scheme != "file") {
    return fail(fmt::format("{} `{}`: unsupported URL scheme `{}` (expected http, https or file)", what,
                            excerpt(text), excerpt(scheme, 20)));
  }
  if (scheme != "file" && (!u.authority || u.authority->empty())) {
    return fail(fmt::format("{} `{}`: the URL has no host", what, excerpt(text)));
  }
  if (scheme == "file" && !u.authority && !u.path.starts_with('/')) {
    return fail(fmt::format("{} `{}`: a file URL needs an absolute path", what, excerpt(text)));
  }
  return {};
}

}  // namespace

namespace detail {

namespace {

bool has_dot_segments(std::string_view path) noexcept {
  std::size_t start = 0;
  while (true) {
    const auto slash = path.find('/', start);
    const std::string_view seg =
        path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (seg == "." || seg == "..") return true;
    if (slash == std::string_view::npos) return false;
    start = slash + 1;
  }
}

std::string normalized_path(std::string_view path) {
  return has_dot_segments(path) ? remove_dot_segments(path) : std::string(path);
}

}  // namespace

Result<Resolver> Resolver::make(std::string_view base_text) {
  auto cleaned = clean(base_text, "base URL");
  if (!cleaned) return fail(cleaned.error());
  const Uri base = split(*cleaned);
  if (!base.scheme) {
    return fail(fmt::format("base URL `{}` is not absolute (expected http, https or file)", excerpt(base_text)));
  }
  Resolver r;
  r.scheme_ = ascii_lower(*base.scheme);
  if (auto ok = check_absolute(base, r.scheme_, base_text, "base URL"); !ok) return fail(ok.error());
  if (base.authority) r.authority_ = std::string(*base.authority);
  // The base's own dot segments are removed (as browsers do) so that every URL resolved from it,
  // the base itself included (an empty reference), is normalized and resolves to itself again
  // (fuzz_simple found `file:/a/./b` with an empty reference; seed regress-url-base-dot-segment).
  r.path_ = normalized_path(base.path);
  if (base.query) r.query_ = std::string(*base.query);
  if (base.authority && r.path_.empty()) {
    r.dir_.push_back('/');
  } else if (const auto slash = r.path_.rfind('/'); slash != std::string::npos) {
    r.dir_.assign(r.path_.data(), slash + 1);
  }
  return r;
}

Result<Resolver::Resolved> Resolver::resolve(std::string_view reference_text) const {
  auto ref_clean = clean(reference_text, "URL");
  if (!ref_clean) return fail(ref_clean.error());
  const Uri ref = split(*ref_clean);

  std::string scheme;
  std::optional<std::string_view> authority;
  std::string path;
  std::optional<std::string_view> query;
  if (ref.scheme) {
    scheme = ascii_lower(*ref.scheme);
    authority = ref.authority;
    path = normalized_path(ref.path);
    query = ref.query;
  } else {
    scheme = scheme_;
    if (ref.authority) {
      authority = ref.authority;
      path = normalized_path(ref.path);
      query = ref.query;
    } else {
      if (authority_) authority = *authority_;
      if (ref.path.empty()) {
        path = path_;
        query = ref.query ? ref.query : query_;
      } else {
        if (ref.path.starts_with('/')) {
          path = normalized_path(ref.path);
        } else {
          path.reserve(dir_.size() + ref.path.size());
          path = dir_;
          path += ref.path;
          if (has_dot_segments(ref.path)) path = remove_dot_segments(path);
        }
        query = ref.query;
      }
    }
  }
  Uri result;
  result.scheme = scheme;
  result.authority = authority;
  result.path = path;
  if (auto ok = check_absolute(result, scheme, reference_text, "URL"); !ok) return fail(ok.error());

  Resolved out;
  out.url.reserve(scheme.size() + 3 + (authority ? authority->size() : 0) + path.size() + 1 +
                  (query ? query->size() : 0));
  out.url = scheme;
  out.url += ':';
  if (authority) {
    out.url += "//";
    out.url += *authority;
  } else if (path.starts_with("//")) {
    out.url += "//";  // an empty authority, so that the path does not read as one
  }
  out.url += path;
  if (query) {
    out.url += '?';
    out.url += *query;
  }
  const auto slash = path.rfind('/');
  out.filename =
      percent_decode(slash == std::string::npos ? std::string_view(path) : std::string_view(path).substr(slash + 1));
  return out;
}

}  // namespace detail

Result<std::string> resolve_url(std::string_view base, std::string_view reference) {
  auto resolver = detail::Resolver::make(base);
  if (!resolver) return fail(resolver.error());
  auto resolved = resolver->resolve(reference);
  if (!resolved) return fail(resolved.error());
  return std::move(resolved->url);
}

std::string percent_decode(std::string_view text) {
  const auto hex = [](char c) { return static_cast<unsigned>(hex_digit_value(c)); };
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && is_ascii_hex_digit(text[i + 1]) && is_ascii_hex_digit(text[i + 2])) {
      out += static_cast<char>((hex(text[i + 1]) << 4U) | hex(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace vwheel::simple
