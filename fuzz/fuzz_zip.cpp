// libFuzzer target: zip archives (hostile wheels). The bytes are written to a file; opening it
// must fail cleanly or give entries inside the file; reading every member must not crash, and
// streaming it (ISA-L's and zlib's inflate: the same verdict and bytes) must give what reading it
// whole (libdeflate) gives whenever both succeed; a raw rewrite of an opened archive must open
// again with the same names. zip::tail_needs, on the input's last bytes, must agree with the
// archive opened whole: the same central directory, and its first member where every member is wanted.
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

#include "vwheel/zip/zip.hpp"
#include "zip/format.hpp"

namespace {

using vwheel::zip::detail::StreamInflater;

std::filesystem::path scratch(const char* what) {
  return std::filesystem::temp_directory_path() / ("vwheel-fuzz-zip-" + std::to_string(::getpid()) + what);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto input = scratch(".zip");
  static const auto output = scratch("-out.zip");
  if (std::FILE* f = std::fopen(input.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  } else {
    return 0;
  }
  auto archive = vwheel::zip::Archive::open(input);
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const auto every = [](std::string_view) { return true; };
  const auto needs = vwheel::zip::tail_needs(bytes, size, every);
  if (needs && needs->wanted > needs->central_directory) __builtin_trap();
  for (const std::size_t n : {size / 2, std::min<std::size_t>(size, 1024)}) {
    const auto part = vwheel::zip::tail_needs(bytes.substr(size - n), size, every);
    if (part && needs && part->central_directory != needs->central_directory) __builtin_trap();
  }
  if (archive && needs) {
    std::uint64_t first = archive->central_directory_offset();
    for (const auto& e : archive->entries()) first = std::min(first, e.local_header_offset);
    if (needs->central_directory != archive->central_directory_offset() || needs->wanted != first) __builtin_trap();
  }
  if (!archive) {
    if (archive.error().message.find('\n') != std::string::npos) __builtin_trap();
    return 0;
  }
  vwheel::zip::WritePlan plan;
  for (std::size_t i = 0; i < archive->entries().size(); ++i) {
    const auto& e = archive->entries()[i];
    if (e.local_header_offset >= archive->file_size() || e.span_end > archive->file_size()) __builtin_trap();
    auto whole = archive->read(e, 1 << 20);
    // Streamed with each inflater (ISA-L's, zlib's, and the default, which inflates a member that
    // fits one piece with libdeflate): the same verdict, the same bytes.
    std::string streamed[3];
    bool ok[3] = {false, false, false};
    const StreamInflater inflaters[3] = {StreamInflater::isal, StreamInflater::zlib, StreamInflater::automatic};
    for (int k = 0; k < 3; ++k) {
      if (!vwheel::zip::detail::set_stream_inflater(inflaters[k])) __builtin_trap();  // libisal.so.2 is a dependency
      ok[k] = static_cast<bool>(archive->read_streamed(
          e,
          [&](std::string_view piece) -> vwheel::Result<void> {
            streamed[k].append(piece);
            return {};
          },
          4096, 1 << 20));
    }
    for (int k = 1; k < 3; ++k) {
      if (ok[0] != ok[k] || (ok[0] && streamed[0] != streamed[k])) __builtin_trap();
    }
    if (whole && ok[0] && streamed[0] != *whole) __builtin_trap();
    (void)archive->read_raw(e);
    plan.members.emplace_back(i);
  }
  if (auto ok = vwheel::zip::write_archive(&*archive, plan, output); ok) {
    auto again = vwheel::zip::Archive::open(output);
    if (!again || again->entries().size() != archive->entries().size()) __builtin_trap();
    for (std::size_t i = 0; i < again->entries().size(); ++i) {
      if (again->entries()[i].name != archive->entries()[i].name) __builtin_trap();
    }
  }
  return 0;
}
