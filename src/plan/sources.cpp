#include "vwheel/plan/sources.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "vwheel/core/text.hpp"
#include "vwheel/markers/requirement.hpp"
#include "vwheel/simple/project_page.hpp"

namespace vwheel::plan {

namespace {

bool is_hex64(std::string_view s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), is_ascii_hex_digit);
}

}  // namespace

bool looks_like_path(std::string_view text) {
  const auto t = ascii_trim(text);
  if (t.empty()) return false;
  if (t.front() == '.' || t.front() == '/' || t.front() == '~') return true;
  if (t.find('/') != std::string_view::npos) return true;
  return t.ends_with(".whl") || t.ends_with(".tar.gz") || t.ends_with(".zip");
}

Result<std::optional<SourceRef>> parse_source(std::string_view text) {
  const auto t = ascii_trim(text);
  SourceRef ref;
  ref.text = std::string(t);
  // A direct reference is a PEP 508 requirement with a URL; a path never parses as one with a
  // name before ` @ ` (pip's order: a requirement first, a path when it looks like one).
  if (t.find('@') != std::string_view::npos && !looks_like_path(t.substr(0, t.find('@')))) {
    auto parsed = markers::Requirement::parse(t);
    if (parsed && !parsed->url.empty()) {
      ref.name = parsed->name;
      std::string_view url = parsed->url;
      if (const auto hash = url.find('#'); hash != std::string_view::npos) {
        auto fragment = url.substr(hash + 1);
        while (!fragment.empty()) {
          const auto amp = fragment.find('&');
          const auto part = fragment.substr(0, amp);
          fragment = amp == std::string_view::npos ? std::string_view{} : fragment.substr(amp + 1);
          if (part.starts_with("sha256=") && is_hex64(part.substr(7))) {
            ref.sha256 = ascii_lower(part.substr(7));
          } else if (!part.starts_with("egg=")) {
            return fail(fmt::format("`{}`: the URL fragment `{}` is not supported (expected `sha256=` and 64 hex digits)",
                                    ref.text, part));
          }
        }
        url = url.substr(0, hash);
      }
      if (url.starts_with("file:")) {
        // file:///abs, file://localhost/abs and file:/abs (RFC 8089).
        auto rest = url.substr(5);
        if (rest.starts_with("//")) {
          rest.remove_prefix(2);
          const auto slash = rest.find('/');
          const auto host = rest.substr(0, slash);
          if (!host.empty() && host != "localhost") {
            return fail(fmt::format("`{}`: a file URL on another host (`{}`) is not supported", ref.text, host));
          }
          rest = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash);
        }
        if (rest.empty()) return fail(fmt::format("`{}`: the file URL names no path", ref.text));
        ref.path = simple::percent_decode(rest);
      } else if (url.starts_with("https://") || url.starts_with("http://")) {
        ref.url = std::string(url);
      } else {
        return fail(fmt::format("`{}`: only file, https and http URLs are supported (not `{}`)", ref.text,
                                url.substr(0, url.find(':'))));
      }
      return std::optional<SourceRef>(std::move(ref));
    }
  }
  if (!looks_like_path(t)) return std::optional<SourceRef>();
  ref.path = ref.text;
  return std::optional<SourceRef>(std::move(ref));
}

Result<SourceRef> parse_editable(std::string_view text) {
  const auto t = ascii_trim(text);
  if (t.empty()) return fail("-e/--editable needs the path of a project directory");
  if (t.find("://") != std::string_view::npos || t.find('@') != std::string_view::npos) {
    return fail(fmt::format("`-e {}`: an editable install needs the path of a local project directory", t));
  }
  SourceRef ref;
  ref.text = fmt::format("-e {}", t);
  ref.path = std::string(t);
  ref.editable = true;
  return ref;
}

}  // namespace vwheel::plan
