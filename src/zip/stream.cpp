// Archive::read_streamed's inflating half: a streaming inflate (libdeflate only inflates a whole
// buffer at once), ISA-L's where it loads (zip/isal.hpp), else zlib's, so that a member of any
// size passes through two bounded buffers.
#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <new>

#include <fmt/format.h>

#include "vwheel/core/text.hpp"
#include "zip/format.hpp"
#include "zip/isal.hpp"

namespace vwheel::zip::detail {
namespace {

std::atomic<StreamInflater> g_inflater{StreamInflater::automatic};

// Where the inflated bytes go: checked against the central directory's size, CRC'd and passed on.
class Output {
 public:
  Output(const Entry& entry, const ChunkSink& sink, std::string member)
      : entry_(entry), sink_(sink), member_(std::move(member)) {}
  Result<void> emit(const char* data, std::size_t n) {
    if (n > entry_.uncompressed_size - produced_) {
      return fail(fmt::format("{}: inflates to more than the {} bytes the central directory says", member_,
                              entry_.uncompressed_size));
    }
    if (n == 0) return {};
    crc_ = libdeflate_crc32(crc_, data, n);
    produced_ += n;
    return sink_(std::string_view(data, n));
  }
  [[nodiscard]] std::uint64_t produced() const noexcept { return produced_; }
  [[nodiscard]] std::uint32_t crc() const noexcept { return crc_; }
  [[nodiscard]] const std::string& member() const noexcept { return member_; }
  [[nodiscard]] Error corrupt() const {
    return Error(fmt::format("{}: corrupt deflate data after {} bytes", member_, produced_));
  }
  [[nodiscard]] Error truncated() const {
    return Error(fmt::format("{}: deflate data ends before the stream does (truncated or corrupt)", member_));
  }

 private:
  const Entry& entry_;
  const ChunkSink& sink_;
  std::string member_;
  std::uint32_t crc_ = 0;
  std::uint64_t produced_ = 0;
};

// A buffer of `size` bytes: the caller's, or one of its own.
class Buffer {
 public:
  Buffer(std::span<char> given, std::size_t size)
      : owned_(given.size() >= size ? nullptr : std::make_unique_for_overwrite<char[]>(size)),
        data_(owned_ ? owned_.get() : given.data()),
        size_(size) {}
  [[nodiscard]] char* get() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

 private:
  std::unique_ptr<char[]> owned_;
  char* data_;
  std::size_t size_;
};

// The member's compressed bytes, a chunk at a time.
class Input {
 public:
  Input(const ReadAt& read, std::uint64_t offset, std::uint64_t size, std::size_t chunk, std::span<char> scratch)
      : read_(read),
        offset_(offset),
        size_(size),
        chunk_(chunk),
        buf_(scratch, static_cast<std::size_t>(std::min<std::uint64_t>(chunk, size))) {}
  [[nodiscard]] bool exhausted() const noexcept { return consumed_ == size_; }
  // Reads the next piece (at most `chunk` bytes, fewer at the end) into the buffer and returns it.
  Result<std::string_view> next() {
    if (replay_) {
      replay_ = false;
      consumed_ = size_;
      return std::string_view(buf_.get(), static_cast<std::size_t>(size_));
    }
    const auto len = static_cast<std::size_t>(std::min<std::uint64_t>(chunk_, size_ - consumed_));
    if (auto r = read_(buf_.get(), len, offset_ + consumed_); !r) return fail(r.error());
    consumed_ += len;
    return std::string_view(buf_.get(), len);
  }
  // After a first next() that returned all of the member: the next next() returns it again
  // without reading it (read_streamed may have let the bytes go once read).
  void rewind() noexcept {
    replay_ = consumed_ == size_ && size_ <= chunk_;
    if (replay_) consumed_ = 0;
  }

 private:
  const ReadAt& read_;
  std::uint64_t offset_;
  std::uint64_t size_;
  std::size_t chunk_;
  std::uint64_t consumed_ = 0;
  bool replay_ = false;
  Buffer buf_;
};

// An inflate stream that is always ended.
class ZlibInflater {
 public:
  ZlibInflater() {
    // Negative window bits: raw deflate data, as zip stores it (no zlib header or trailer).
    const int rc = inflateInit2(&z_, -MAX_WBITS);
    if (rc == Z_MEM_ERROR) throw std::bad_alloc();
    ok_ = rc == Z_OK;
  }
  ZlibInflater(const ZlibInflater&) = delete;
  ZlibInflater& operator=(const ZlibInflater&) = delete;
  ~ZlibInflater() {
    if (ok_) inflateEnd(&z_);
  }
  [[nodiscard]] bool ok() const noexcept { return ok_; }
  z_stream& stream() noexcept { return z_; }

 private:
  z_stream z_{};
  bool ok_ = false;
};

Result<void> inflate_zlib(Input& in, Output& out, const Buffer& buf) {
  const std::size_t chunk = buf.size();
  ZlibInflater inflater;
  if (!inflater.ok()) return fail(fmt::format("{}: cannot start inflating (zlib)", out.member()));
  z_stream& z = inflater.stream();
  for (bool ended = false; !ended;) {
    if (z.avail_in == 0) {
      if (in.exhausted()) return fail(out.truncated());
      auto piece = in.next();
      if (!piece) return fail(piece.error());
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(piece->data()));
      z.avail_in = static_cast<uInt>(piece->size());
    }
    z.next_out = reinterpret_cast<Bytef*>(buf.get());
    z.avail_out = static_cast<uInt>(chunk);
    const int rc = inflate(&z, Z_NO_FLUSH);
    if (rc == Z_MEM_ERROR) throw std::bad_alloc();
    if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) return fail(out.corrupt());
    ended = rc == Z_STREAM_END;
    const std::size_t got = chunk - z.avail_out;
    if (rc == Z_BUF_ERROR && got == 0 && z.avail_in > 0) return fail(out.corrupt());
    if (auto ok = out.emit(buf.get(), got); !ok) return ok;
  }
  return {};
}

Result<void> inflate_isal(const Isal& isal, Input& in, Output& out, const Buffer& buf) {
  const std::size_t chunk = buf.size();
  // The state holds the 32 KiB window and ISA-L's decoding tables (85 KiB in all): on the heap, and
  // not zeroed (isal_inflate_init sets what it reads), as zeroing it cost a page fault per 4 KiB.
  const auto state = std::make_unique_for_overwrite<inflate_state>();
  isal.inflate_init(state.get());  // raw deflate (crc_flag ISAL_DEFLATE), the full window
  while (state->block_state != ISAL_BLOCK_FINISH) {
    // ISA-L may hold inflated bytes that did not fit the last output buffer: it is called again
    // without new input until it has nothing more to give.
    const bool refill = state->avail_in == 0 && !in.exhausted();
    if (refill) {
      auto piece = in.next();
      if (!piece) return fail(piece.error());
      state->next_in = reinterpret_cast<std::uint8_t*>(const_cast<char*>(piece->data()));
      state->avail_in = static_cast<std::uint32_t>(piece->size());
    }
    const auto avail_in = state->avail_in;
    state->next_out = reinterpret_cast<std::uint8_t*>(buf.get());
    state->avail_out = static_cast<std::uint32_t>(chunk);
    if (isal.inflate(state.get()) < 0) return fail(out.corrupt());
    const std::size_t got = chunk - state->avail_out;
    if (auto ok = out.emit(buf.get(), got); !ok) return ok;
    if (got == 0 && state->avail_in == avail_in && state->block_state != ISAL_BLOCK_FINISH) {
      // No progress: all input was given and the stream has not ended.
      if (in.exhausted() && state->avail_in == 0) return fail(out.truncated());
      if (!refill) return fail(out.corrupt());
    }
  }
  return {};
}

// A deflated member that fits one piece both ways, inflated at once with libdeflate into `buf`:
// true when it was, and `out` has had all of it. False when it does not fit, or when anything is
// wrong with it: then `out` has had nothing, and `in` is rewound to its one piece, so that the
// streaming inflater goes over the same bytes (nothing is read twice) and says what is wrong in
// its own words: both ways fail alike.
// Why: most members are small (every wheel's .dist-info files, most .py files), and ISA-L's state
// (85 KiB, new pages for each member) cost more than inflating them. A warm install of 50 small
// wheels spent 14% of its time there, checking their cached .dist-info files.
Result<bool> inflate_small(const Entry& entry, Input& in, Output& out, std::size_t chunk, const Buffer& buf) {
  if (entry.compressed_size > chunk || entry.uncompressed_size > buf.size()) return false;
  auto piece = in.next();  // all of it: it fits one piece
  if (!piece) return fail(piece.error());
  const auto size = static_cast<std::size_t>(entry.uncompressed_size);
  std::size_t produced = 0;
  if (libdeflate_deflate_decompress(thread_decompressor(), piece->data(), piece->size(), buf.get(), size, &produced) !=
          LIBDEFLATE_SUCCESS ||
      produced != size) {
    in.rewind();
    return false;
  }
  if (auto ok = out.emit(buf.get(), size); !ok) return fail(ok.error());
  return true;
}

}  // namespace

bool set_stream_inflater(StreamInflater inflater) noexcept {
  if (inflater == StreamInflater::isal && load_isal() == nullptr) return false;
  g_inflater.store(inflater, std::memory_order_relaxed);
  return true;
}

Result<void> stream_member(const std::string& archive_name, const Entry& entry, std::uint64_t data_offset,
                           const ReadAt& read, const ChunkSink& sink, std::size_t chunk, std::span<char> scratch) {
  Output out(entry, sink, fmt::format("{}: member `{}`", archive_name, printable(entry.name)));
  const bool given = scratch.size() >= 2 * chunk;
  Input in(read, data_offset, entry.compressed_size, chunk, given ? scratch.first(chunk) : std::span<char>());
  if (entry.method == static_cast<std::uint16_t>(Method::Store)) {
    // (read_streamed refused a stored member whose two sizes differ)
    while (!in.exhausted()) {
      auto piece = in.next();
      if (!piece) return fail(piece.error());
      if (auto ok = out.emit(piece->data(), piece->size()); !ok) return ok;
    }
  } else {
    const auto choice = g_inflater.load(std::memory_order_relaxed);
    // Never more than the member needs (a new chunk for each small member cost more than its
    // inflating), but room for a few of zlib's or ISA-L's steps, whatever the member says.
    const auto out_size = static_cast<std::size_t>(
        std::min<std::uint64_t>(chunk, std::max<std::uint64_t>(entry.uncompressed_size, 64 << 10)));
    const Buffer buf(given ? scratch.subspan(chunk, chunk) : std::span<char>(), out_size);
    bool whole = false;
    if (choice == StreamInflater::automatic) {
      auto small = inflate_small(entry, in, out, chunk, buf);
      if (!small) return fail(small.error());
      whole = *small;
    }
    if (!whole) {
      const Isal* isal = choice == StreamInflater::zlib ? nullptr : load_isal();
      auto ok = isal != nullptr ? inflate_isal(*isal, in, out, buf) : inflate_zlib(in, out, buf);
      if (!ok) return ok;
    }
  }
  if (out.produced() != entry.uncompressed_size) {
    return fail(fmt::format("{} inflates to {} bytes, the central directory says {}", out.member(), out.produced(),
                            entry.uncompressed_size));
  }
  if (out.crc() != entry.crc32) {
    return fail(fmt::format("{}: CRC-32 mismatch: the data has {:08x}, the central directory says {:08x}", out.member(),
                            out.crc(), entry.crc32));
  }
  return {};
}

}  // namespace vwheel::zip::detail
