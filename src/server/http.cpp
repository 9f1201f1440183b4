#include "server/http.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>

#include <fmt/format.h>

#include "vwheel/core/text.hpp"

namespace vwheel::server::http {
namespace {

constexpr std::string_view kTextHtml = "text/html; charset=utf-8";
constexpr std::string_view kSimpleHtml = "application/vnd.pypi.simple.v1+html";
constexpr std::string_view kSimpleJson = "application/vnd.pypi.simple.v1+json";

bool is_token_char(char c) noexcept {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_token(std::string_view s) noexcept { return !s.empty() && std::all_of(s.begin(), s.end(), is_token_char); }

// RFC 9110 qvalue: 0(.ddd)? | 1(.000)? -> thousandths.
std::optional<int> parse_qvalue(std::string_view v) noexcept {
  if (v.empty() || v.size() > 5) return std::nullopt;
  if (v[0] != '0' && v[0] != '1') return std::nullopt;
  int q = (v[0] - '0') * 1000;
  if (v.size() == 1) return q;
  if (v[1] != '.') return std::nullopt;
  int scale = 100;
  for (std::size_t i = 2; i < v.size(); ++i) {
    if (v[i] < '0' || v[i] > '9') return std::nullopt;
    q += (v[i] - '0') * scale;
    scale /= 10;
  }
  if (q > 1000) return std::nullopt;
  return q;
}

std::optional<std::uint64_t> parse_u64(std::string_view s) noexcept {
  if (s.empty()) return std::nullopt;
  std::uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

// Splits a comma-separated header list, honouring double quotes (entity tags may hold commas).
std::vector<std::string_view> split_list(std::string_view header, std::size_t max_items) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  bool quoted = false;
  for (std::size_t i = 0; i <= header.size(); ++i) {
    if (i < header.size() && header[i] == '"') quoted = !quoted;
    if (i == header.size() || (header[i] == ',' && !quoted)) {
      auto item = ascii_trim(header.substr(start, i - start), is_space_or_tab);
      if (!item.empty()) {
        if (out.size() == max_items) break;
        out.push_back(item);
      }
      start = i + 1;
    }
  }
  return out;
}

constexpr std::array<std::string_view, 7> kDays = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

}  // namespace

std::string_view content_type(PageFormat format) noexcept {
  switch (format) {
    case PageFormat::TextHtml:
      return kTextHtml;
    case PageFormat::SimpleHtml:
      return kSimpleHtml;
    case PageFormat::SimpleJson:
      return kSimpleJson;
  }
  return kTextHtml;
}

std::string_view page_file(PageFormat format) noexcept {
  return format == PageFormat::SimpleJson ? "index.json" : "index.html";
}

std::vector<MediaRange> parse_accept(std::string_view header) {
  std::vector<MediaRange> out;
  for (std::string_view element : split_list(header, 64)) {
    const auto semi = element.find(';');
    std::string_view media = ascii_trim(element.substr(0, semi), is_space_or_tab);
    const auto slash = media.find('/');
    if (slash == std::string_view::npos) continue;
    const auto type = media.substr(0, slash);
    const auto subtype = media.substr(slash + 1);
    if (!is_token(type) || !is_token(subtype) || (type == "*" && subtype != "*")) continue;
    MediaRange range{ascii_lower(type), ascii_lower(subtype), 1000};
    bool ok = true;
    std::string_view params = semi == std::string_view::npos ? std::string_view() : element.substr(semi + 1);
    while (!params.empty()) {
      const auto next = params.find(';');
      const auto param = ascii_trim(params.substr(0, next), is_space_or_tab);
      params = next == std::string_view::npos ? std::string_view() : params.substr(next + 1);
      const auto eq = param.find('=');
      if (eq == std::string_view::npos) continue;
      if (ascii_iequals(ascii_trim(param.substr(0, eq), is_space_or_tab), "q")) {
        auto q = parse_qvalue(ascii_trim(param.substr(eq + 1), is_space_or_tab));
        if (!q) {
          ok = false;
          break;
        }
        range.q = *q;
        break;  // parameters after q are accept-extensions
      }
    }
    if (ok) out.push_back(std::move(range));
  }
  return out;
}

std::optional<PageFormat> negotiate(std::string_view accept, PageFiles available) {
  if (ascii_trim(accept, is_space_or_tab).empty()) {  // any type: HTML first, as for */*
    if (available.html) return PageFormat::TextHtml;
    return available.json ? std::optional(PageFormat::SimpleJson) : std::nullopt;
  }
  const auto ranges = parse_accept(accept);
  struct Offer {
    PageFormat format;
    std::string_view type;
    std::string_view subtype;
    std::string_view alias;  // `latest` spelling, matched as the same representation
  };
  static constexpr std::array<Offer, 3> kOffers = {{
      {PageFormat::TextHtml, "text", "html", ""},
      {PageFormat::SimpleHtml, "application", "vnd.pypi.simple.v1+html", "vnd.pypi.simple.latest+html"},
      {PageFormat::SimpleJson, "application", "vnd.pypi.simple.v1+json", "vnd.pypi.simple.latest+json"},
  }};
  std::optional<PageFormat> best;
  int best_q = 0;
  for (const auto& offer : kOffers) {
    if (!available.has(offer.format)) continue;
    int specificity = -1;
    int q = 0;
    for (const auto& r : ranges) {
      int s = -1;
      if (r.type == "*" && r.subtype == "*") {
        s = 0;
      } else if (r.type == offer.type && r.subtype == "*") {
        s = 1;
      } else if (r.type == offer.type &&
                 (r.subtype == offer.subtype || (!offer.alias.empty() && r.subtype == offer.alias))) {
        s = 2;
      }
      // The most specific range decides; among equally specific ones the highest q.
      if (s > specificity || (s == specificity && s >= 0 && r.q > q)) {
        specificity = s;
        q = r.q;
      }
    }
    if (specificity >= 0 && q > 0 && q > best_q) {
      best = offer.format;
      best_q = q;
    }
  }
  return best;
}

std::string served_types(PageFiles files) {
  std::vector<std::string_view> types;
  if (files.html) {
    types.push_back("text/html");
    types.push_back(kSimpleHtml);
  }
  if (files.json) types.push_back(kSimpleJson);
  std::string out;
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (i > 0) out += i + 1 == types.size() ? " and " : ", ";
    out += types[i];
  }
  return out;
}

std::optional<PageFormat> format_from_query(std::string_view query) {
  while (!query.empty()) {
    const auto amp = query.find('&');
    const auto param = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (param.substr(0, 7) != "format=") continue;
    auto value = percent_decode(param.substr(7));
    if (!value) return std::nullopt;
    // `+` is kept (`v1+json` written as is) and a space taken for it (`+` decoded as form data).
    std::replace(value->begin(), value->end(), ' ', '+');
    const auto v = ascii_trim(*value, is_space_or_tab);
    if (ascii_iequals(v, "text/html")) return PageFormat::TextHtml;
    if (ascii_iequals(v, kSimpleHtml) || ascii_iequals(v, "application/vnd.pypi.simple.latest+html"))
      return PageFormat::SimpleHtml;
    if (ascii_iequals(v, kSimpleJson) || ascii_iequals(v, "application/vnd.pypi.simple.latest+json"))
      return PageFormat::SimpleJson;
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::string> percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    const int hi = hex_digit_value(text[i + 1]);
    const int lo = hex_digit_value(text[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

tl::expected<TargetPath, TargetError> parse_target(std::string_view target) {
  if (target.empty() || target.front() != '/') return tl::unexpected(TargetError::BadRequest);
  TargetPath out;
  const auto hash = target.find('#');
  if (hash != std::string_view::npos) target = target.substr(0, hash);
  const auto q = target.find('?');
  if (q != std::string_view::npos) {
    out.query = std::string(target.substr(q + 1));
    target = target.substr(0, q);
  }
  auto decoded = percent_decode(target);
  if (!decoded) return tl::unexpected(TargetError::BadRequest);
  for (unsigned char c : *decoded) {
    if (c < 0x20 || c == 0x7f || c == '\\') return tl::unexpected(TargetError::BadRequest);
  }
  std::string_view path = *decoded;
  out.trailing_slash = path.back() == '/';
  std::size_t start = 0;
  while (start <= path.size()) {
    auto end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const auto segment = path.substr(start, end - start);
    if (!segment.empty()) {
      // `.`, `..` and hidden names (`.vwheel`) are never served.
      if (segment.front() == '.') return tl::unexpected(TargetError::NotFound);
      out.segments.emplace_back(segment);
    }
    start = end + 1;
  }
  return out;
}

std::string encode_path(const std::vector<std::string>& segments, bool trailing_slash) {
  std::string out;
  for (const auto& s : segments) {
    out.push_back('/');
    out += percent_encode(s, "!$&'()*+,;=:@");  // RFC 3986 `pchar`
  }
  if (out.empty() || trailing_slash) out.push_back('/');
  return out;
}

RangeRequest parse_range(std::string_view header, std::uint64_t size) {
  RangeRequest full;
  header = ascii_trim(header, is_space_or_tab);
  if (!ascii_istarts_with(header, "bytes=")) return full;
  const auto spec = ascii_trim(header.substr(6), is_space_or_tab);
  if (spec.find(',') != std::string_view::npos) return full;  // several ranges: served whole
  const auto dash = spec.find('-');
  if (dash == std::string_view::npos) return full;
  const auto a = ascii_trim(spec.substr(0, dash), is_space_or_tab);
  const auto b = ascii_trim(spec.substr(dash + 1), is_space_or_tab);
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  if (a.empty()) {
    // Suffix range: the last n bytes.
    if (!is_ascii_digits(b)) return full;
    const std::uint64_t n = parse_u64(b).value_or(kMax);
    if (n == 0 || size == 0) return {RangeRequest::Kind::Unsatisfiable};
    return {RangeRequest::Kind::Partial, n >= size ? 0 : size - n, size - 1};
  }
  if (!is_ascii_digits(a) || (!b.empty() && !is_ascii_digits(b))) return full;
  const std::uint64_t first = parse_u64(a).value_or(kMax);
  const std::uint64_t last = b.empty() ? kMax : parse_u64(b).value_or(kMax);
  if (last < first) return full;  // invalid: ignored (RFC 9110 14.1.1)
  if (first >= size) return {RangeRequest::Kind::Unsatisfiable};
  return {RangeRequest::Kind::Partial, first, std::min(last, size - 1)};
}

std::string content_range(std::uint64_t first, std::uint64_t last, std::uint64_t size) {
  return fmt::format("bytes {}-{}/{}", first, last, size);
}

std::string make_etag(std::uint64_t inode, std::uint64_t size, std::int64_t mtime_ns) {
  return fmt::format("\"{:x}-{:x}-{:x}\"", inode, size, static_cast<std::uint64_t>(mtime_ns));
}

namespace {
std::string_view opaque_tag(std::string_view tag) noexcept {
  if (tag.size() >= 2 && tag[0] == 'W' && tag[1] == '/') tag.remove_prefix(2);
  return tag;
}
}  // namespace

bool if_none_match(std::string_view header, std::string_view etag) {
  if (ascii_trim(header, is_space_or_tab) == "*") return true;
  const auto mine = opaque_tag(etag);
  for (auto tag : split_list(header, 256)) {
    if (opaque_tag(tag) == mine) return true;
  }
  return false;
}

bool if_range_matches(std::string_view header, std::string_view etag, std::string_view last_modified) {
  header = ascii_trim(header, is_space_or_tab);
  if (header.empty()) return true;
  if (header.front() == '"') return header == etag;  // strong comparison
  if (ascii_istarts_with(header, "W/")) return false;  // weak tags never match If-Range
  return header == last_modified;
}

std::string format_http_date(std::time_t t) {
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  return fmt::format("{}, {:02d} {} {:04d} {:02d}:{:02d}:{:02d} GMT", kDays[static_cast<std::size_t>(tm.tm_wday) % 7],
                     tm.tm_mday, kMonths[static_cast<std::size_t>(tm.tm_mon) % 12], tm.tm_year + 1900, tm.tm_hour,
                     tm.tm_min, tm.tm_sec);
}

std::optional<std::time_t> parse_http_date(std::string_view text) {
  // "Sun, 06 Nov 1994 08:49:37 GMT"
  text = ascii_trim(text, is_space_or_tab);
  if (text.size() != 29 || text[3] != ',' || text[4] != ' ' || text[7] != ' ' || text[11] != ' ' || text[16] != ' ' ||
      text[19] != ':' || text[22] != ':' || text[25] != ' ' || text.substr(26) != "GMT") {
    return std::nullopt;
  }
  auto num = [&](std::size_t pos, std::size_t len) -> int {
    const auto s = text.substr(pos, len);
    if (!is_ascii_digits(s)) return -1;
    int v = 0;
    for (char c : s) v = v * 10 + (c - '0');
    return v;
  };
  const auto mon_it = std::find(kMonths.begin(), kMonths.end(), text.substr(8, 3));
  if (mon_it == kMonths.end()) return std::nullopt;
  std::tm tm{};
  tm.tm_mday = num(5, 2);
  tm.tm_mon = static_cast<int>(mon_it - kMonths.begin());
  tm.tm_year = num(12, 4) - 1900;
  tm.tm_hour = num(17, 2);
  tm.tm_min = num(20, 2);
  tm.tm_sec = num(23, 2);
  if (tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_year < 0 || tm.tm_hour < 0 || tm.tm_hour > 23 || tm.tm_min < 0 ||
      tm.tm_min > 59 || tm.tm_sec < 0 || tm.tm_sec > 60) {
    return std::nullopt;
  }
  return ::timegm(&tm);
}

std::string_view file_content_type(std::string_view filename) noexcept {
  auto ends = [&](std::string_view suffix) { return ascii_iends_with(filename, suffix); };
  if (ends(".whl")) return "application/octet-stream";
  if (ends(".metadata")) return "text/plain; charset=utf-8";
  if (ends(".json")) return "application/json";
  if (ends(".html") || ends(".htm")) return "text/html; charset=utf-8";
  if (ends(".tar.gz") || ends(".tgz")) return "application/gzip";
  if (ends(".zip")) return "application/zip";
  if (ends(".txt") || ends(".asc")) return "text/plain; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  return "application/octet-stream";
}

std::optional<std::string> authorization_secret(std::string_view header) {
  header = ascii_trim(header, is_space_or_tab);
  const auto space = header.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const auto scheme = header.substr(0, space);
  const auto value = ascii_trim(header.substr(space + 1), is_space_or_tab);
  if (value.empty()) return std::nullopt;
  if (ascii_iequals(scheme, "Bearer")) return std::string(value);
  if (ascii_iequals(scheme, "Basic")) {
    auto decoded = base64_decode(value);
    if (!decoded) return std::nullopt;
    const auto colon = decoded->find(':');
    if (colon == std::string::npos) return std::nullopt;
    return decoded->substr(colon + 1);
  }
  return std::nullopt;
}

std::optional<std::string> base64_decode(std::string_view text) {
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    int v;
    if (c >= 'A' && c <= 'Z') {
      v = c - 'A';
    } else if (c >= 'a' && c <= 'z') {
      v = c - 'a' + 26;
    } else if (c >= '0' && c <= '9') {
      v = c - '0' + 52;
    } else if (c == '+') {
      v = 62;
    } else if (c == '/') {
      v = 63;
    } else {
      return std::nullopt;
    }
    acc = (acc << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xffU));
    }
  }
  return out;
}

bool constant_time_equal(std::string_view a, std::string_view b) noexcept {
  // The length is not secret enough to hide; the content is compared without early exit.
  unsigned diff = a.size() == b.size() ? 0U : 1U;
  const std::size_t n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const auto x = static_cast<unsigned char>(i < a.size() ? a[i] : 0);
    const auto y = static_cast<unsigned char>(i < b.size() ? b[i] : 0);
    diff |= static_cast<unsigned>(x ^ y);
  }
  return diff == 0;
}

}  // namespace vwheel::server::http
