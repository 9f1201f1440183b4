// Reading an open archive's members: whole (libdeflate, for members that fit a buffer), streamed,
// or raw; the members of an archive still arriving are read from memory or the file as they come,
// and given back (read_once, punch_out) once read.

#include <fcntl.h>
#include <unistd.h>

#include <libdeflate.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <new>

#include <fmt/format.h>

#include "vwheel/core/fs.hpp"
#include "vwheel/core/text.hpp"
#include "zip/archive_impl.hpp"

namespace vwheel::zip {

using namespace detail;

namespace detail {
namespace {

struct DecompressorDeleter {
  void operator()(libdeflate_decompressor* d) const noexcept { libdeflate_free_decompressor(d); }
};

}  // namespace

libdeflate_decompressor* thread_decompressor() {
  thread_local std::unique_ptr<libdeflate_decompressor, DecompressorDeleter> d(libdeflate_alloc_decompressor());
  if (!d) throw std::bad_alloc();
  return d.get();
}

}  // namespace detail

namespace {

// What read() and read_streamed() check before reading: a supported method, the size limit, and a
// stored member's two sizes agreeing.
Result<void> check_readable(const std::string& name, const Entry& entry, std::uint64_t max_size) {
  if (entry.method != static_cast<std::uint16_t>(Method::Store) &&
      entry.method != static_cast<std::uint16_t>(Method::Deflate)) {
    return fail(fmt::format("{}: member `{}`: compression method {} not supported (expected 0, stored, or 8, deflate)",
                            name, printable(entry.name), entry.method));
  }
  if (entry.uncompressed_size > max_size) {
    return fail(fmt::format("{}: member `{}`: uncompressed size {} exceeds the limit of {} bytes", name,
                            printable(entry.name), entry.uncompressed_size, max_size));
  }
  if (entry.method == static_cast<std::uint16_t>(Method::Store) && entry.compressed_size != entry.uncompressed_size) {
    return fail(fmt::format("{}: member `{}` is stored but its compressed size {} differs from its size {}", name,
                            printable(entry.name), entry.compressed_size, entry.uncompressed_size));
  }
  return {};
}

}  // namespace

Result<void> Archive::Impl::read_at(char* buf, std::size_t len, std::uint64_t offset) const {
  if (arriving) {
    if (offset > size || len > size - offset) {
      return fail(fmt::format("{}: truncated: {} bytes at offset {} extend past the end of the file (size {})", name,
                              len, offset, size));
    }
    // The part in the tail comes from memory, the rest from the file once it is there.
    const std::uint64_t end = offset + len;
    if (end > arrived_tail_at) {
      const std::uint64_t from = std::max(offset, arrived_tail_at);
      std::memcpy(buf + (from - offset), arriving->tail.data() + (from - arrived_tail_at),
                  static_cast<std::size_t>(end - from));
      len = static_cast<std::size_t>(from - offset);
      if (len == 0) return {};
    }
    // Bytes the writer still holds in memory come from there (read_once), the rest from the file.
    bool named = false;  // read_file's errors name the file already
    auto ok =
        arriving->growing->read(buf, len, offset, generation, [this, &named](char* b, std::size_t l, std::uint64_t at) {
          auto r = read_file(b, l, at);
          named = !r;
          return r;
        });
    if (!ok && !named) return fail(ok.error().with_context(name));
    return ok;
  }
  return read_file(buf, len, offset);
}

Result<void> Archive::Impl::read_file(char* buf, std::size_t len, std::uint64_t offset) const {
  const long long n = pread_all(fd.get(), buf, len, offset);
  if (n < 0) return fail(fmt::format("{}: read error at offset {}: {}", name, offset, errno_text(errno)));
  bytes_read.fetch_add(static_cast<std::uint64_t>(n), std::memory_order_relaxed);
  if (static_cast<std::size_t>(n) != len) {
    return fail(fmt::format("{}: truncated: {} bytes at offset {} extend past the end of the file (size {})", name, len,
                            offset, offset + static_cast<std::uint64_t>(n)));
  }
  return {};
}

Archive::Archive(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Archive::Archive(Archive&&) noexcept = default;
Archive& Archive::operator=(Archive&&) noexcept = default;
Archive::~Archive() = default;

const std::filesystem::path& Archive::path() const noexcept { return impl_->path; }
std::uint64_t Archive::file_size() const noexcept { return impl_->size; }
const std::vector<Entry>& Archive::entries() const noexcept { return impl_->entries; }
const std::string& Archive::comment() const noexcept { return impl_->comment; }
std::uint64_t Archive::central_directory_offset() const noexcept { return impl_->cd_offset; }
std::uint64_t Archive::bytes_read() const noexcept { return impl_->bytes_read.load(std::memory_order_relaxed); }

bool Archive::punch_out(const Entry& entry) const noexcept {
  if (!impl_->arriving || impl_->punch_fd.get() < 0) return false;
  constexpr std::uint64_t kBlock = 4096;
  const std::uint64_t from = (entry.local_header_offset + kBlock - 1) / kBlock * kBlock;
  const std::uint64_t to = std::min(entry.span_end, impl_->arrived_tail_at) / kBlock * kBlock;
  if (to <= from) return false;
  return ::fallocate(impl_->punch_fd.get(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(from),
                     static_cast<off_t>(to - from)) == 0;
}

void Archive::read_once(std::function<bool(const Entry&)> keep) {
  if (!impl_->arriving || !keep) return;
  impl_->keep = std::move(keep);
  impl_->arriving->growing->read_once(impl_->generation);
}

void Archive::release(const Entry& entry) const {
  if (impl_->keep) impl_->release_until(entry, entry.span_end);
}

void Archive::done_reading() const {
  if (impl_->keep) impl_->arriving->growing->done_reading(impl_->generation);
}

bool Archive::dropped() const { return impl_->keep && impl_->arriving->growing->dropped(impl_->generation); }

const Entry* Archive::find(std::string_view name) const noexcept { return impl_->find(name); }

int ArchiveAccess::fd(const Archive& archive) noexcept { return archive.impl_->fd.get(); }
void ArchiveAccess::count_read(const Archive& archive, std::uint64_t bytes) noexcept {
  archive.impl_->bytes_read.fetch_add(bytes, std::memory_order_relaxed);
}

Result<Archive> Archive::open(const std::filesystem::path& path) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->name = path.string();
  const std::string& name = impl->name;
  auto opened = open_regular_file(path);  // a FIFO named x.whl is refused, never waited on
  if (!opened) return fail(opened.error());
  impl->fd = UniqueFd(opened->fd.release());
  impl->size = static_cast<std::uint64_t>(opened->info.st_size);
  if (impl->size == 0) return fail(fmt::format("{}: not a zip archive (empty file)", name));
  return open_impl(std::move(impl));
}

Result<Archive> Archive::open_arriving(std::shared_ptr<const Arriving> arriving) {
  if (!arriving || !arriving->growing || arriving->size == 0 || arriving->tail.size() > arriving->size) {
    return fail(fmt::format("{}: not an arriving archive", arriving ? arriving->path.string() : std::string("(none)")));
  }
  const Arriving& file = *arriving;
  auto impl = std::make_unique<Impl>();
  impl->path = file.final_path.empty() ? file.path : file.final_path;
  impl->name = impl->path.string();
  impl->size = file.size;
  impl->arrived_tail_at = file.size - file.tail.size();
  // The writer creates the file with its first write; a file finished without any (complete
  // from an earlier run) is at its final path already.
  impl->generation = file.growing->generation();
  if (auto ok = file.growing->wait_for(0, impl->generation); !ok) return fail(ok.error().with_context(impl->name));
  impl->fd = UniqueFd(::open(file.path.c_str(), O_RDONLY | O_CLOEXEC));
  if (impl->fd.get() < 0 && errno == ENOENT && !file.final_path.empty()) {
    impl->fd = UniqueFd(::open(file.final_path.c_str(), O_RDONLY | O_CLOEXEC));
  }
  if (impl->fd.get() < 0) return fail(fmt::format("{}: cannot open: {}", file.path.string(), errno_text(errno)));
  // The same inode, whatever renames happened since it was opened.
  impl->punch_fd = UniqueFd(::open(fmt::format("/proc/self/fd/{}", impl->fd.get()).c_str(), O_WRONLY | O_CLOEXEC));
  impl->arriving = std::move(arriving);
  return open_impl(std::move(impl));
}

Result<std::size_t> Archive::Impl::check_local_header(std::string_view h, const Entry& entry, std::uint64_t end) const {
  const std::uint64_t offset = entry.local_header_offset;
  if (load32(h.data()) != local_header_signature) {
    return fail(
        fmt::format("{}: member `{}`: no local file header at offset {} (the central directory points "
                    "elsewhere)",
                    name, printable(entry.name), offset));
  }
  const std::uint16_t flags = load16(h.data() + 6);
  const std::uint16_t method = load16(h.data() + 8);
  const std::size_t name_len = load16(h.data() + 26);
  const std::size_t extra_len = load16(h.data() + 28);
  if (name_len != entry.name.size() || std::memcmp(h.data() + local_header_size, entry.name.data(), name_len) != 0) {
    return fail(fmt::format("{}: member `{}`: the local header at offset {} names `{}`", name, printable(entry.name),
                            offset, printable(h.substr(local_header_size, std::min(name_len, entry.name.size())))));
  }
  if ((flags & flag_encrypted) != 0) {
    return fail(fmt::format("{}: member `{}` is encrypted, not supported", name, printable(entry.name)));
  }
  if (method != entry.method) {
    return fail(fmt::format("{}: member `{}`: the local header says compression method {}, the central directory {}",
                            name, printable(entry.name), method, entry.method));
  }
  const std::size_t data_at = local_header_size + entry.name.size() + extra_len;
  if (end - offset < data_at || end - offset - data_at < entry.compressed_size) {
    return fail(
        fmt::format("{}: member `{}`: data after a {}-byte local extra field extends past the member's end "
                    "at offset {}",
                    name, printable(entry.name), extra_len, end));
  }
  return data_at;
}

Result<std::uint64_t> Archive::Impl::member_end(const Entry& entry) const {
  const std::size_t fixed = local_header_size + entry.name.size();
  const std::uint64_t offset = entry.local_header_offset;
  const std::uint64_t end = entry.span_end != 0 ? std::min(entry.span_end, size) : size;
  if (offset > end || end - offset < fixed || end - offset - fixed < entry.compressed_size) {
    return fail(fmt::format("{}: member `{}` at offset {} ({} bytes compressed) does not fit in the file (size {})",
                            name, printable(entry.name), offset, entry.compressed_size, size));
  }
  return end;
}

Result<Archive::Impl::Member> Archive::Impl::load_member(const Entry& entry) const {
  auto end = member_end(entry);
  if (!end) return fail(end.error());
  const std::uint64_t offset = entry.local_header_offset;
  // One read for header and data: the local extra field usually is the central one plus at most a
  // zip64 field; a longer one costs a second read.
  const std::uint64_t guess = local_header_size + entry.name.size() + entry.extra.size() + 32 + entry.compressed_size;
  Member m;
  m.bytes.resize(static_cast<std::size_t>(std::min(guess, *end - offset)));
  if (auto r = read_at(m.bytes.data(), m.bytes.size(), offset); !r) return fail(r.error());
  auto data_at = check_local_header(m.bytes, entry, *end);
  if (!data_at) return fail(data_at.error());
  m.data_at = *data_at;
  const std::size_t total = m.data_at + static_cast<std::size_t>(entry.compressed_size);
  if (m.bytes.size() < total) {
    const std::size_t have = m.bytes.size();
    m.bytes.resize(total);
    if (auto r = read_at(m.bytes.data() + have, total - have, offset + have); !r) return fail(r.error());
  }
  m.bytes.resize(total);
  return m;
}

namespace {

// Inflates a whole member's `in` into `out` (its uncompressed size) with libdeflate.
Result<void> inflate_whole(const std::string& name, const Entry& entry, std::string_view in, char* out) {
  std::size_t produced = 0;
  const auto size = static_cast<std::size_t>(entry.uncompressed_size);
  const libdeflate_result r =
      libdeflate_deflate_decompress(thread_decompressor(), in.data(), in.size(), out, size, &produced);
  if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
    return fail(fmt::format("{}: member `{}` inflates to more than the {} bytes the central directory says", name,
                            printable(entry.name), entry.uncompressed_size));
  }
  if (r != LIBDEFLATE_SUCCESS) {
    return fail(fmt::format("{}: member `{}`: corrupt deflate data", name, printable(entry.name)));
  }
  if (produced != size) {
    return fail(fmt::format("{}: member `{}` inflates to {} bytes, the central directory says {}", name,
                            printable(entry.name), produced, entry.uncompressed_size));
  }
  return {};
}

Result<void> check_crc(const std::string& name, const Entry& entry, std::string_view content) {
  const std::uint32_t crc = crc32(content);
  if (crc != entry.crc32) {
    return fail(fmt::format("{}: member `{}`: CRC-32 mismatch: the data has {:08x}, the central directory says {:08x}",
                            name, printable(entry.name), crc, entry.crc32));
  }
  return {};
}

bool stored(const Entry& entry) noexcept { return entry.method == static_cast<std::uint16_t>(Method::Store); }

}  // namespace

Result<std::string> Archive::read(const Entry& entry, std::uint64_t max_size) const {
  const std::string& name = impl_->name;
  if (auto ok = check_readable(name, entry, max_size); !ok) return fail(ok.error());
  auto member = impl_->load_member(entry);
  if (!member) return fail(member.error());
  std::string out;
  if (stored(entry)) {
    out = std::move(member->bytes);
    out.erase(0, member->data_at);
  } else {
    out.resize(static_cast<std::size_t>(entry.uncompressed_size));
    const std::string_view in = std::string_view(member->bytes).substr(member->data_at);
    if (auto ok = inflate_whole(name, entry, in, out.data()); !ok) return fail(ok.error());
  }
  if (auto ok = check_crc(name, entry, out); !ok) return fail(ok.error());
  return out;
}

std::uint64_t Archive::scratch_size(const Entry& entry) noexcept {
  return local_header_size + entry.name.size() + 0xFFFF + entry.compressed_size +
         (stored(entry) ? 0 : entry.uncompressed_size);
}

Result<std::string_view> Archive::read_into(const Entry& entry, std::span<char> scratch, std::uint64_t max_size) const {
  const Impl& impl = *impl_;
  if (auto ok = check_readable(impl.name, entry, max_size); !ok) return fail(ok.error());
  if (scratch.size() < scratch_size(entry)) {
    return fail(fmt::format("{}: member `{}`: {} bytes to read it into, {} needed", impl.name, printable(entry.name),
                            scratch.size(), scratch_size(entry)));
  }
  auto end = impl.member_end(entry);
  if (!end) return fail(end.error());
  const std::uint64_t offset = entry.local_header_offset;
  // As load_member: one read for the header and the data, unless the local extra field is long.
  const auto guess = static_cast<std::size_t>(
      std::min<std::uint64_t>({local_header_size + entry.name.size() + entry.extra.size() + 32 + entry.compressed_size,
                               *end - offset, scratch.size()}));
  if (auto r = impl.read_at(scratch.data(), guess, offset); !r) return fail(r.error());
  auto data_at = impl.check_local_header(std::string_view(scratch.data(), guess), entry, *end);
  if (!data_at) return fail(data_at.error());
  const std::size_t total = *data_at + static_cast<std::size_t>(entry.compressed_size);
  if (guess < total) {
    if (auto r = impl.read_at(scratch.data() + guess, total - guess, offset + guess); !r) return fail(r.error());
  }
  const std::string_view data(scratch.data() + *data_at, static_cast<std::size_t>(entry.compressed_size));
  std::string_view content = data;
  if (!stored(entry)) {
    char* out = scratch.data() + total;
    if (auto ok = inflate_whole(impl.name, entry, data, out); !ok) return fail(ok.error());
    content = std::string_view(out, static_cast<std::size_t>(entry.uncompressed_size));
  }
  if (auto ok = check_crc(impl.name, entry, content); !ok) return fail(ok.error());
  return content;
}

Result<void> Archive::read_streamed(const Entry& entry, const ChunkSink& sink, std::size_t chunk,
                                    std::uint64_t max_size, std::span<char> scratch) const {
  const Impl& impl = *impl_;
  if (auto ok = check_readable(impl.name, entry, max_size); !ok) return fail(ok.error());
  auto end = impl.member_end(entry);
  if (!end) return fail(end.error());
  const std::uint64_t offset = entry.local_header_offset;
  std::string header(
      static_cast<std::size_t>(std::min<std::uint64_t>(local_header_size + entry.name.size() + max16, *end - offset)),
      '\0');
  if (auto r = impl.read_at(header.data(), header.size(), offset); !r) return fail(r.error());
  auto data_at = impl.check_local_header(header, entry, *end);
  if (!data_at) return fail(data_at.error());
  // After read_once(), each piece read is given back at once (the stream reads each byte once).
  const auto read = [&impl, &entry](char* buf, std::size_t len, std::uint64_t at) -> Result<void> {
    auto ok = impl.read_at(buf, len, at);
    if (ok && impl.keep) impl.release_until(entry, at + len);
    return ok;
  };
  return stream_member(impl.name, entry, offset + *data_at, read, sink, std::max<std::size_t>(chunk, 4096), scratch);
}

Result<std::string> Archive::read_raw(const Entry& entry) const {
  auto member = impl_->load_member(entry);
  if (!member) return fail(member.error());
  std::string out = std::move(member->bytes);
  out.erase(0, member->data_at);
  return out;
}

}  // namespace vwheel::zip
