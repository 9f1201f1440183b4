// libFuzzer target for what `vwheel index serve` parses from a request (server component): the
// request-target (path confinement), Range, Authorization (and base64), Accept and the upload's
// file name. The first byte picks the parser; the rest is the input. Each result is checked
// against what the server relies on.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "server/http.hpp"
#include "server/upload.hpp"

namespace {

namespace http = vwheel::server::http;

[[noreturn]] void die(const char* what, std::string_view input) {
  std::fprintf(stderr, "fuzz_server_http: %s\ninput: %.*s\n", what, static_cast<int>(input.size()), input.data());
  std::abort();
}

void target(std::string_view text) {
  auto t = http::parse_target(text);
  if (!t) return;
  for (const auto& segment : t->segments) {
    // Nothing that leaves the root or names a hidden file gets through.
    if (segment.empty() || segment == "." || segment == ".." || segment.front() == '.') die("unsafe segment", text);
    for (const char c : segment) {
      if (c == '/' || c == '\\' || c == '\0' || static_cast<unsigned char>(c) < 0x20) die("bad byte in segment", text);
    }
  }
  // The encoded path reads back as the same segments.
  auto back = http::parse_target(http::encode_path(t->segments, t->trailing_slash));
  if (!back || back->segments != t->segments) die("encode_path does not read back", text);
}

void range(std::string_view text, std::uint64_t size) {
  const auto r = http::parse_range(text, size);
  if (r.kind == http::RangeRequest::Kind::Partial && (r.first > r.last || r.last >= size)) {
    die("a partial range outside the representation", text);
  }
}

void authorization(std::string_view text) {
  (void)http::authorization_secret(text);
  if (auto decoded = http::base64_decode(text); decoded && decoded->size() > text.size()) {
    die("base64 decoded to more bytes than it had", text);
  }
}

void accept(std::string_view text) {
  const auto ranges = http::parse_accept(text);
  if (ranges.size() > 64) die("more than 64 media ranges", text);
  for (const auto& m : ranges) {
    if (m.q < 0 || m.q > 1000) die("q-value out of range", text);
  }
  (void)http::negotiate(text);
  (void)http::format_from_query(text);
}

void upload_filename(std::string_view text) {
  auto name = vwheel::server::check_upload_filename(text);
  if (!name) return;
  if (text.find('/') != std::string_view::npos || text.find('\\') != std::string_view::npos ||
      text.find('\0') != std::string_view::npos || text.empty() || text.front() == '.') {
    die("an unsafe upload file name was accepted", text);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 5) {
    case 0:
      target(text);
      break;
    case 1:
      range(text, (static_cast<std::uint64_t>(data[0]) << 4U) + 1);  // small sizes, 1..4081
      break;
    case 2:
      authorization(text);
      break;
    case 3:
      accept(text);
      break;
    default:
      upload_filename(text);
      break;
  }
  return 0;
}
