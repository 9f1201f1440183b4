// Archive::read_streamed's inflating half: zlib's streaming inflate (libdeflate only inflates a
// whole buffer at once), so that a member of any size passes through two bounded buffers.
#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <memory>
#include <new>

#include <fmt/format.h>

#include "vwheel/core/text.hpp"
#include "zip/format.hpp"

namespace vwheel::zip::detail {
namespace {

// An inflate stream that is always ended.
class Inflater {
 public:
  Inflater() {
    // Negative window bits: raw deflate data, as zip stores it (no zlib header or trailer).
    const int rc = inflateInit2(&z_, -MAX_WBITS);
    if (rc == Z_MEM_ERROR) throw std::bad_alloc();
    ok_ = rc == Z_OK;
  }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
  ~Inflater() {
    if (ok_) inflateEnd(&z_);
  }
  [[nodiscard]] bool ok() const noexcept { return ok_; }
  z_stream& stream() noexcept { return z_; }

 private:
  z_stream z_{};
  bool ok_ = false;
};

}  // namespace

Result<void> stream_member(const std::string& archive_name, const Entry& entry, std::uint64_t data_offset,
                           const ReadAt& read, const ChunkSink& sink, std::size_t chunk) {
  const auto member = [&] { return fmt::format("{}: member `{}`", archive_name, printable(entry.name)); };
  std::uint32_t crc = 0;
  std::uint64_t produced = 0;
  const std::uint64_t compressed = entry.compressed_size;
  const auto in = std::make_unique_for_overwrite<char[]>(chunk);
  if (entry.method == static_cast<std::uint16_t>(Method::Store)) {
    for (std::uint64_t done = 0; done < compressed;) {
      const auto len = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, compressed - done));
      if (auto r = read(in.get(), len, data_offset + done); !r) return r;
      crc = libdeflate_crc32(crc, in.get(), len);
      if (auto r = sink(std::string_view(in.get(), len)); !r) return r;
      done += len;
    }
    produced = compressed;
  } else {
    Inflater inflater;
    if (!inflater.ok()) return fail(fmt::format("{}: cannot start inflating (zlib)", member()));
    z_stream& z = inflater.stream();
    const auto out = std::make_unique_for_overwrite<char[]>(chunk);
    std::uint64_t consumed = 0;  // compressed bytes read so far
    bool ended = false;
    while (!ended) {
      if (z.avail_in == 0) {
        if (consumed == compressed) {
          return fail(fmt::format("{}: deflate data ends before the stream does (truncated or corrupt)", member()));
        }
        const auto len = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, compressed - consumed));
        if (auto r = read(in.get(), len, data_offset + consumed); !r) return r;
        consumed += len;
        z.next_in = reinterpret_cast<Bytef*>(in.get());
        z.avail_in = static_cast<uInt>(len);
      }
      z.next_out = reinterpret_cast<Bytef*>(out.get());
      z.avail_out = static_cast<uInt>(chunk);
      const int rc = inflate(&z, Z_NO_FLUSH);
      if (rc == Z_MEM_ERROR) throw std::bad_alloc();
      if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
        return fail(fmt::format("{}: corrupt deflate data after {} bytes", member(), produced));
      }
      ended = rc == Z_STREAM_END;
      const std::size_t got = chunk - z.avail_out;
      if (rc == Z_BUF_ERROR && got == 0 && z.avail_in > 0) {
        return fail(fmt::format("{}: corrupt deflate data after {} bytes", member(), produced));
      }
      if (got > entry.uncompressed_size - produced) {
        return fail(fmt::format("{}: inflates to more than the {} bytes the central directory says", member(),
                                entry.uncompressed_size));
      }
      if (got > 0) {
        crc = libdeflate_crc32(crc, out.get(), got);
        produced += got;
        if (auto r = sink(std::string_view(out.get(), got)); !r) return r;
      }
    }
  }
  if (produced != entry.uncompressed_size) {
    return fail(fmt::format("{} inflates to {} bytes, the central directory says {}", member(), produced,
                            entry.uncompressed_size));
  }
  if (crc != entry.crc32) {
    return fail(fmt::format("{}: CRC-32 mismatch: the data has {:08x}, the central directory says {:08x}", member(),
                            crc, entry.crc32));
  }
  return {};
}

}  // namespace vwheel::zip::detail
