// libFuzzer target for the simple component: the bytes are read as an HTML and a JSON project
// page, as a core metadata file, and (split at the first newline) as a base URL and a reference.
// Invariants: errors are one line naming the page; parsed files have a safe, non-empty name, an
// absolute http(s)/file URL without fragment and lower-case hex hashes; a resolved URL resolves
// to itself; unescaping and decoding never grow the text.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "vwheel/simple/core_metadata.hpp"
#include "vwheel/simple/project_page.hpp"

namespace {

using namespace vwheel::simple;

constexpr std::string_view kPage = "https://index.example/simple/pkg/";

[[noreturn]] void die(const char* what, std::string_view detail) {
  std::fprintf(stderr, "fuzz_simple: %s\n%.*s\n", what, static_cast<int>(detail.size()), detail.data());
  std::abort();
}

bool lower_hex(std::string_view s) {
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return !s.empty();
}

void check_page(const vwheel::Result<ProjectPage>& page, std::string_view body) {
  if (!page) {
    const auto& msg = page.error().message;
    if (!msg.starts_with(std::string(kPage) + ": ")) die("page error does not name the URL", msg);
    if (msg.find('\n') != std::string::npos || msg.find('\r') != std::string::npos) die("multi-line error", msg);
    return;
  }
  if (page->url != kPage) die("page URL changed", page->url);
  for (const auto& f : page->files) {
    if (f.filename.empty() || f.filename == "." || f.filename == ".." ||
        f.filename.find_first_of(std::string_view("/\\\0", 3)) != std::string::npos) {
      die("unsafe file name", f.filename);
    }
    if (!(f.url.starts_with("https://") || f.url.starts_with("http://") || f.url.starts_with("file:"))) {
      die("file URL is not absolute", f.url);
    }
    if (f.url.find('#') != std::string::npos) die("file URL has a fragment", f.url);
    auto again = resolve_url(kPage, f.url);
    if (!again || *again != f.url) die("a file URL does not resolve to itself", f.url);
    for (const auto& [alg, hex] : f.hashes) {
      if (!lower_hex(hex) || alg.empty()) die("bad hash", alg + "=" + hex);
    }
    if (f.core_metadata) {
      for (const auto& [alg, hex] : *f.core_metadata) {
        if (!lower_hex(hex) || alg.empty()) die("bad metadata hash", alg + "=" + hex);
      }
    }
  }
  (void)body;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  check_page(parse_html_page(text, kPage), text);
  check_page(parse_json_page(text, kPage), text);
  check_page(parse_project_page(text, "application/vnd.pypi.simple.v1+json", kPage), text);

  if (html_unescape(text).size() > text.size()) die("html_unescape grew the text", text);
  if (percent_decode(text).size() > text.size()) die("percent_decode grew the text", text);

  auto md = parse_core_metadata(text, "fuzz.metadata");
  if (!md) {
    if (!md.error().message.starts_with("fuzz.metadata: "))
      die("metadata error does not name the source", md.error().message);
  } else {
    if (md->name.empty() || md->version.empty()) die("metadata without name or version", text);
    auto reqs = parse_requires_dist(*md, "fuzz.metadata");
    if (reqs && reqs->size() != md->requires_dist.size()) die("requirement count differs", text);
  }

  if (const auto nl = text.find('\n'); nl != std::string_view::npos) {
    const std::string_view base = text.substr(0, nl);
    const std::string_view ref = text.substr(nl + 1);
    if (auto url = resolve_url(base, ref)) {
      if (url->find('#') != std::string::npos) die("resolved URL has a fragment", *url);
      auto again = resolve_url(base, *url);
      if (!again || *again != *url) die("a resolved URL does not resolve to itself", *url);
      auto self = resolve_url(*url, "");
      if (!self || *self != *url) die("a resolved URL is not a valid base", *url);
    } else if (url.error().message.find('\n') != std::string::npos) {
      die("multi-line URL error", url.error().message);
    }
  }
  return 0;
}
