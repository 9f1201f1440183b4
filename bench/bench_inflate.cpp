// Inflating a large member: the streaming inflaters of src/zip/stream.cpp (ISA-L's, loaded with
// dlopen, and zlib's, its fallback) in 1 MiB pieces, against libdeflate inflating the whole member
// at once (what members up to ExtractSettings::whole_member_max get). The input is a 64 MiB
// torch-shaped member: pages half random, half runs of a few bytes (bench/make_torch_wheel.py),
// deflated at level 6, about 2:1. The ratio decided the choice in src/zip/isal.hpp.
#include <benchmark/benchmark.h>
#include <libdeflate.h>

#include <cstring>
#include <random>
#include <string>

#include "zip/format.hpp"

namespace {

using vwheel::zip::detail::StreamInflater;

struct Member {
  std::string content;
  std::string deflated;
  vwheel::zip::Entry entry;
};

const Member& member() {
  static const Member m = [] {
    Member out;
    constexpr std::size_t kSize = std::size_t{64} << 20;
    std::mt19937_64 rng(17);
    std::string pool(std::size_t{16} << 20, '\0');
    for (auto& c : pool) c = static_cast<char>(rng());
    out.content.reserve(kSize);
    while (out.content.size() < kSize) {
      out.content.append(pool, rng() % (pool.size() - 2048), 2048);
      out.content.append(1024, static_cast<char>(rng() % 4));
      out.content.append(1024, '\0');
    }
    auto* c = libdeflate_alloc_compressor(6);
    out.deflated.resize(libdeflate_deflate_compress_bound(c, out.content.size()));
    out.deflated.resize(libdeflate_deflate_compress(c, out.content.data(), out.content.size(), out.deflated.data(),
                                                    out.deflated.size()));
    libdeflate_free_compressor(c);
    out.entry.name = "torch/lib/libtorch_cuda.so";
    out.entry.method = 8;
    out.entry.crc32 = libdeflate_crc32(0, out.content.data(), out.content.size());
    out.entry.compressed_size = out.deflated.size();
    out.entry.uncompressed_size = out.content.size();
    return out;
  }();
  return m;
}

void BM_InflateStreamed(benchmark::State& state, StreamInflater inflater) {
  const auto& m = member();
  if (!vwheel::zip::detail::set_stream_inflater(inflater)) {
    state.SkipWithError("libisal.so.2 cannot be loaded");
    return;
  }
  const vwheel::zip::detail::ReadAt read = [&](char* buf, std::size_t len, std::uint64_t at) -> vwheel::Result<void> {
    std::memcpy(buf, m.deflated.data() + at, len);
    return {};
  };
  for (auto _ : state) {
    std::uint64_t total = 0;
    auto ok = vwheel::zip::detail::stream_member(
        "bench.whl", m.entry, 0, read,
        [&](std::string_view piece) -> vwheel::Result<void> {
          total += piece.size();
          return {};
        },
        std::size_t{1} << 20);
    if (!ok || total != m.content.size()) state.SkipWithError("inflate failed");
  }
  vwheel::zip::detail::set_stream_inflater(StreamInflater::automatic);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * m.content.size()));
}
BENCHMARK_CAPTURE(BM_InflateStreamed, isal, StreamInflater::isal)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_InflateStreamed, zlib, StreamInflater::zlib)->Unit(benchmark::kMillisecond);

void BM_InflateWholeLibdeflate(benchmark::State& state) {
  const auto& m = member();
  std::string out(m.content.size(), '\0');
  auto* d = libdeflate_alloc_decompressor();
  for (auto _ : state) {
    std::size_t got = 0;
    if (libdeflate_deflate_decompress(d, m.deflated.data(), m.deflated.size(), out.data(), out.size(), &got) !=
            LIBDEFLATE_SUCCESS ||
        got != out.size()) {
      state.SkipWithError("inflate failed");
    }
    benchmark::DoNotOptimize(out.data());
  }
  libdeflate_free_decompressor(d);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * m.content.size()));
}
BENCHMARK(BM_InflateWholeLibdeflate)->Unit(benchmark::kMillisecond);

}  // namespace
