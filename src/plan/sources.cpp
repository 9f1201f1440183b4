#include "vwheel/plan/sources.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "vwheel/core/text.hpp"
#include "vwheel/markers/requirement.hpp"
#include "vwheel/simple/project_page.hpp"

namespace vwheel::plan {

namespace {

bool is_hex64(std::string_view s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), is_ascii_hex_digit);
}

/// A `git+` reference's URL (after `git+`): the repository's URL and the `@REV` after its path.
Result<std::optional<SourceRef>> parse_git(SourceRef ref, std::string_view url) {
  const auto scheme_end = url.find("://");
  const auto scheme = url.substr(0, scheme_end);
  if (scheme_end == std::string_view::npos ||
      (scheme != "https" && scheme != "http" && scheme != "ssh" && scheme != "git" && scheme != "file")) {
    return fail(fmt::format("`{}`: expected git+https://, git+http://, git+ssh://, git+git:// or git+file://",
                            redact_url(ref.text)));
  }
  // The revision is after the last `@` of the path, never the userinfo's (`ssh://git@host/r@v1`).
  const auto path_start = url.find('/', scheme_end + 3);
  std::string_view repo = url;
  if (const auto at = url.rfind('@');
      at != std::string_view::npos && path_start != std::string_view::npos && at > path_start) {
    repo = url.substr(0, at);
    const auto rev = url.substr(at + 1);
    if (rev.empty()) return fail(fmt::format("`{}`: the revision after `@` is empty", redact_url(ref.text)));
    ref.revision = simple::percent_decode(rev);
  }
  if (path_start == std::string_view::npos || repo.size() <= path_start + 1) {
    return fail(fmt::format("`{}`: the URL names no repository", redact_url(ref.text)));
  }
  ref.git_url = std::string(repo);
  return std::optional<SourceRef>(std::move(ref));
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
  // A bare `git+URL` is one too (pip's older form), named by its `#egg=` if anything.
  const bool bare_vcs = t.starts_with("git+") && t.find_first_of(" \t") == std::string_view::npos;
  if (bare_vcs || (t.find('@') != std::string_view::npos && !looks_like_path(t.substr(0, t.find('@'))))) {
    auto parsed = bare_vcs ? Result<markers::Requirement>() : markers::Requirement::parse(t);
    if (bare_vcs || (parsed && !parsed->url.empty())) {
      if (!bare_vcs) ref.name = parsed->name;
      std::string_view url = bare_vcs ? t : std::string_view(parsed->url);
      const bool git = url.starts_with("git+");
      if (const auto hash = url.find('#'); hash != std::string_view::npos) {
        auto fragment = url.substr(hash + 1);
        while (!fragment.empty()) {
          const auto amp = fragment.find('&');
          const auto part = fragment.substr(0, amp);
          fragment = amp == std::string_view::npos ? std::string_view{} : fragment.substr(amp + 1);
          if (part.starts_with("sha256=") && is_hex64(part.substr(7)) && !git) {
            ref.sha256 = ascii_lower(part.substr(7));
          } else if (part.starts_with("subdirectory=") && git) {
            auto sub = simple::percent_decode(part.substr(13));
            const auto rel = std::filesystem::path(sub).lexically_normal();
            if (sub.empty() || rel.is_absolute() || rel.empty() || *rel.begin() == "..") {
              return fail(fmt::format("`{}`: `{}` is not a folder inside the repository", redact_url(ref.text), part));
            }
            ref.subdirectory = rel.generic_string();
            if (ref.subdirectory->ends_with('/')) ref.subdirectory->pop_back();
          } else if (part.starts_with("egg=")) {
            if (!ref.name && part.size() > 4) ref.name = std::string(part.substr(4));
          } else {
            return fail(fmt::format("`{}`: the URL fragment `{}` is not supported (expected {})", redact_url(ref.text),
                                    part, git ? "`subdirectory=`" : "`sha256=` and 64 hex digits"));
          }
        }
        url = url.substr(0, hash);
      }
      if (git) return parse_git(std::move(ref), url.substr(4));
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

SourceRef git_source(std::string name, std::string url, std::string commit, std::optional<std::string> subdirectory) {
  SourceRef ref;
  ref.text = fmt::format("{} @ git+{}@{}{}", name, url, commit, subdirectory ? "#subdirectory=" + *subdirectory : "");
  ref.name = std::move(name);
  ref.git_url = std::move(url);
  ref.revision = std::move(commit);
  ref.subdirectory = std::move(subdirectory);
  return ref;
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
