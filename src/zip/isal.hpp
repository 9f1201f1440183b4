#pragma once
// Intel's ISA-L (libisal.so.2) through dlopen, as core loads libcrypto and http libcurl: its
// streaming inflate is what stream.cpp uses for members too large to inflate whole. Only the
// header (isa-l/igzip_lib.h, for the layout of its state) is used at build time; nothing links
// against the library, so commands that never inflate a large member never load it. Private to zip.
//
// Measured (bench/bench_inflate.cpp: a 64 MiB torch-shaped member deflated about 2:1, 1 MiB
// pieces, CRC-32 included; this project's 2-core machine): zlib 1.2.13 416 MiB/s, ISA-L 2.30
// 626 MiB/s (1.5x), libdeflate inflating the whole member at once 849 MiB/s. Most of a torch
// wheel's bytes are in members too large to inflate whole within the memory budget.

#include <isa-l/igzip_lib.h>

namespace vwheel::zip::detail {

struct Isal {
  void (*inflate_init)(inflate_state*) = nullptr;  // isal_inflate_init
  int (*inflate)(inflate_state*) = nullptr;        // isal_inflate
};

/// Loads libisal.so.2 once per process (thread-safe); null when it or a function is missing
/// (stream_member then uses zlib's inflate).
[[nodiscard]] const Isal* load_isal() noexcept;

}  // namespace vwheel::zip::detail
