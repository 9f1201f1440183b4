#pragma once
// Private to the zip component: the records of the zip format (PKWARE APPNOTE 6.3), little-endian
// helpers, and the file-descriptor helpers the reader and the writer share.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "vwheel/core/error.hpp"
#include "vwheel/core/fd.hpp"
#include "vwheel/zip/zip.hpp"

struct libdeflate_decompressor;  // <libdeflate.h>

namespace vwheel::zip {

// What write_archive needs of a source Archive beyond its public interface (a friend of Archive).
struct ArchiveAccess {
  static int fd(const Archive& archive) noexcept;
  static void count_read(const Archive& archive, std::uint64_t bytes) noexcept;
};

namespace detail {

inline constexpr std::uint32_t local_header_signature = 0x04034b50;    // PK\3\4
inline constexpr std::uint32_t central_header_signature = 0x02014b50;  // PK\1\2
inline constexpr std::uint32_t eocd_signature = 0x06054b50;            // PK\5\6
inline constexpr std::uint32_t zip64_eocd_signature = 0x06064b50;      // PK\6\6
inline constexpr std::uint32_t zip64_locator_signature = 0x07064b50;   // PK\6\7

inline constexpr std::size_t local_header_size = 30;
inline constexpr std::size_t central_header_size = 46;
inline constexpr std::size_t eocd_size = 22;
inline constexpr std::size_t zip64_eocd_size = 56;
inline constexpr std::size_t zip64_locator_size = 20;
inline constexpr std::size_t max_comment_size = 0xFFFF;

inline constexpr std::uint16_t zip64_extra_id = 0x0001;
inline constexpr std::uint32_t max32 = 0xFFFFFFFF;
inline constexpr std::uint16_t max16 = 0xFFFF;

inline constexpr std::uint16_t flag_encrypted = 0x0001;
inline constexpr std::uint16_t flag_data_descriptor = 0x0008;
inline constexpr std::uint16_t flag_utf8 = 0x0800;

inline std::uint16_t load16(const char* p) noexcept {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<std::uint16_t>(u[0] | (u[1] << 8));
}
inline std::uint32_t load32(const char* p) noexcept {
  return std::uint32_t{load16(p)} | (std::uint32_t{load16(p + 2)} << 16);
}
inline std::uint64_t load64(const char* p) noexcept {
  return std::uint64_t{load32(p)} | (std::uint64_t{load32(p + 4)} << 32);
}

inline char* store16(char* p, std::uint16_t v) noexcept {
  p[0] = static_cast<char>(v & 0xFF);
  p[1] = static_cast<char>(v >> 8);
  return p + 2;
}
inline char* store32(char* p, std::uint32_t v) noexcept {
  store16(p, static_cast<std::uint16_t>(v & 0xFFFF));
  return store16(p + 2, static_cast<std::uint16_t>(v >> 16));
}
inline char* store64(char* p, std::uint64_t v) noexcept {
  store32(p, static_cast<std::uint32_t>(v & 0xFFFFFFFF));
  return store32(p + 4, static_cast<std::uint32_t>(v >> 32));
}

// The low 32 bits of `v`, or 0xFFFFFFFF (meaning "in the zip64 extra field") when it does not fit.
inline std::uint32_t clamp32(std::uint64_t v) noexcept { return v >= max32 ? max32 : static_cast<std::uint32_t>(v); }

// Parses the central-directory record at `cd[pos]` into `entry` (zip64 extra field applied and
// removed from `entry.extra`; span_end left 0); `cd_offset` is where `cd` starts in the file, for
// messages. Returns the record's size. Errors say what is wrong, without the file name.
Result<std::size_t> parse_central_record(std::string_view cd, std::size_t pos, std::uint64_t cd_offset, Entry& entry);

// Whether the central-directory record of `entry` at `offset` needs a zip64 extra field.
inline bool needs_zip64(const Entry& entry, std::uint64_t offset) noexcept {
  return entry.compressed_size >= max32 || entry.uncompressed_size >= max32 || offset >= max32;
}

// The size of the record append_central_record writes.
std::size_t central_record_size(const Entry& entry, std::uint64_t offset) noexcept;

// Appends the central-directory record of `entry` with its local header at `offset`: the entry's
// fields as they are, a zip64 extra field first among the extra fields when a size or the offset
// needs one (version needed raised to 4.5 then). The caller checks that the extra fields fit.
void append_central_record(std::string& out, const Entry& entry, std::uint64_t offset);

// This thread's libdeflate decompressor (allocated on first use; std::bad_alloc when it cannot be).
libdeflate_decompressor* thread_decompressor();

// Reads `len` bytes at `offset` of the archive into `buf` (Archive::Impl::read_at).
using ReadAt = std::function<Result<void>(char* buf, std::size_t len, std::uint64_t offset)>;

// The inflater stream_member uses for deflated members: `automatic` is ISA-L's when libisal.so.2
// loads (isal.hpp: 1.5 times zlib's speed), else zlib's.
enum class StreamInflater { automatic, zlib, isal };

// Chooses the inflater for the whole process (default `automatic`); the tests and fuzz_zip run
// both on the same input. Returns false, changing nothing, when `isal` cannot be loaded.
bool set_stream_inflater(StreamInflater inflater) noexcept;

// The streaming half of Archive::read_streamed (stream.cpp): the data of `entry` starts at
// `data_offset`; stores or inflates it to `sink` in pieces of at most `chunk` bytes, checking the
// size (never more than the central directory says) and the CRC-32. Errors name `archive_name`
// and the member.
// Its two `chunk`-sized buffers (compressed, inflated) are in `scratch` when it holds 2 x `chunk`
// bytes, else allocated.
Result<void> stream_member(const std::string& archive_name, const Entry& entry, std::uint64_t data_offset,
                           const ReadAt& read, const ChunkSink& sink, std::size_t chunk, std::span<char> scratch = {});

}  // namespace detail
}  // namespace vwheel::zip
