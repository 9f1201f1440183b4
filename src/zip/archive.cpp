#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libdeflate.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <numeric>
#include <optional>

#include <fmt/format.h>

#include "vwheel/core/growing_file.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/zip/zip.hpp"
#include "zip/format.hpp"

namespace vwheel::zip {

using namespace detail;

namespace {

// The first read at open: the end-of-central-directory record (22 bytes), the zip64 locator and
// record before it (76 bytes), a short comment and, for small archives, the central directory.
constexpr std::size_t initial_tail = 1024;

struct DecompressorDeleter {
  void operator()(libdeflate_decompressor* d) const noexcept { libdeflate_free_decompressor(d); }
};

libdeflate_decompressor* thread_decompressor() {
  thread_local std::unique_ptr<libdeflate_decompressor, DecompressorDeleter> d(libdeflate_alloc_decompressor());
  if (!d) throw std::bad_alloc();
  return d.get();
}

// The end-of-central-directory record in `tail` (the last bytes of the file, from `tail_start`):
// the last signature whose comment ends exactly at the end of the file, else (with `lenient`) the
// last one whose comment fits before the end (trailing bytes after the archive).
std::optional<std::size_t> find_eocd(std::string_view tail, std::uint64_t tail_start, std::uint64_t size,
                                     bool lenient) {
  if (tail.size() < eocd_size) return std::nullopt;
  std::optional<std::size_t> fallback;
  for (std::size_t i = tail.size() - eocd_size + 1; i-- > 0;) {
    if (tail[i] != 'P' || load32(tail.data() + i) != eocd_signature) continue;
    const std::uint64_t end = tail_start + i + eocd_size + load16(tail.data() + i + 20);
    if (end == size) return i;
    if (lenient && end < size && !fallback) fallback = i;
  }
  return fallback;
}

// What read() and read_streamed() check before reading: a supported method, the size limit, and a
// stored member's two sizes agreeing.
Result<void> check_readable(const std::string& name, const Entry& entry, std::uint64_t max_size) {
  if (entry.method != static_cast<std::uint16_t>(Method::Store) &&
      entry.method != static_cast<std::uint16_t>(Method::Deflate)) {
    return fail(fmt::format("{}: member `{}`: compression method {} not supported (expected 0, stored, or 8, deflate)",
                            name, printable(entry.name), entry.method));
  }
  if (entry.uncompressed_size > max_size) {
    return fail(fmt::format("{}: member `{}`: uncompressed size {} exceeds the limit of {} bytes", name, printable(entry.name),
                            entry.uncompressed_size, max_size));
  }
  if (entry.method == static_cast<std::uint16_t>(Method::Store) && entry.compressed_size != entry.uncompressed_size) {
    return fail(fmt::format("{}: member `{}` is stored but its compressed size {} differs from its size {}", name,
                            printable(entry.name), entry.compressed_size, entry.uncompressed_size));
  }
  return {};
}

}  // namespace

struct Archive::Impl {
  std::filesystem::path path;
  std::string name;  // path as a string, for messages
  UniqueFd fd;
  std::uint64_t size = 0;
  std::vector<Entry> entries;
  std::vector<std::uint32_t> slots;  // hash table of entry index + 1 by name; 0: empty
  std::string comment;
  std::uint64_t cd_offset = 0;
  mutable std::atomic<std::uint64_t> bytes_read{0};
  // An archive still arriving (open_arriving): its last bytes in memory (shared with the caller,
  // not copied: a torch install holds one tail per large wheel), the rest read once the writer has
  // put them in the file.
  std::shared_ptr<const Arriving> arriving;
  std::uint64_t generation = 0;
  std::uint64_t arrived_tail_at = 0;
  // The same file opened for writing, for punch_out (-1 when it could not be).
  UniqueFd punch_fd;
  // read_once(): members that are not given back (null: read_once was not called).
  std::function<bool(const Entry&)> keep;

  // Gives back the member's bytes [local header, `to`) after read_once(), short of the tail.
  void release_until(const Entry& entry, std::uint64_t to) const {
    if (!keep || keep(entry)) return;
    arriving->growing->release(entry.local_header_offset, std::min(to, arrived_tail_at), generation);
  }

  // Reads exactly `len` bytes at `offset` into `buf`; fails on an I/O error or a short file.
  [[nodiscard]] Result<void> read_at(char* buf, std::size_t len, std::uint64_t offset) const {
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
      auto ok = arriving->growing->read(buf, len, offset, generation,
                                        [this, &named](char* b, std::size_t l, std::uint64_t at) {
                                          auto r = read_file(b, l, at);
                                          named = !r;
                                          return r;
                                        });
      if (!ok && !named) return fail(ok.error().with_context(name));
      return ok;
    }
    return read_file(buf, len, offset);
  }

  [[nodiscard]] Result<void> read_file(char* buf, std::size_t len, std::uint64_t offset) const {
    const long long n = pread_full(fd.get(), buf, len, offset);
    if (n < 0) return fail(fmt::format("{}: read error at offset {}: {}", name, offset, std::strerror(errno)));
    bytes_read.fetch_add(static_cast<std::uint64_t>(n), std::memory_order_relaxed);
    if (static_cast<std::size_t>(n) != len) {
      return fail(fmt::format("{}: truncated: {} bytes at offset {} extend past the end of the file (size {})", name,
                              len, offset, offset + static_cast<std::uint64_t>(n)));
    }
    return {};
  }

  [[nodiscard]] Result<void> load(std::string_view tail, std::uint64_t tail_start, std::size_t eocd_index);
  class CentralDirectoryReader;
  [[nodiscard]] Result<void> parse_central_directory(CentralDirectoryReader& reader, std::uint64_t count);
  [[nodiscard]] Result<void> index_names();
  [[nodiscard]] const Entry* find(std::string_view key) const noexcept;
  [[nodiscard]] Result<void> check_spans();

  struct Member {
    std::string bytes;  // local header, then the data
    std::size_t data_at = 0;
  };
  [[nodiscard]] Result<Member> load_member(const Entry& entry) const;
  // Where the member's bytes end (its span, else the file's end), checked to hold its header and data.
  [[nodiscard]] Result<std::uint64_t> member_end(const Entry& entry) const;
  // Checks the local header `h` (at least the fixed part and the name) against `entry`; returns
  // the offset of the data from the header's start.
  [[nodiscard]] Result<std::size_t> check_local_header(std::string_view h, const Entry& entry, std::uint64_t end) const;
};

// The central directory, record by record: from the tail read at open when it holds it, else
// through a bounded buffer (a 20,000-member archive has a central directory of about 1.5 MB, and
// fresh memory is not free).
class Archive::Impl::CentralDirectoryReader {
 public:
  CentralDirectoryReader(const Impl& impl, std::string_view cached, std::uint64_t cached_at, std::uint64_t offset,
                         std::uint64_t size)
      : impl_(impl), cached_(cached), cached_at_(cached_at), position_(offset), end_(offset + size) {}

  [[nodiscard]] std::uint64_t position() const noexcept { return position_; }
  [[nodiscard]] std::uint64_t left() const noexcept { return end_ - position_; }

  // The next min(n, left()) bytes or more (n at most buffer_capacity).
  [[nodiscard]] Result<std::string_view> peek(std::size_t n) {
    n = static_cast<std::size_t>(std::min<std::uint64_t>(n, left()));
    if (position_ >= cached_at_) {
      return cached_.substr(static_cast<std::size_t>(position_ - cached_at_), static_cast<std::size_t>(left()));
    }
    if (window_.size() - window_pos_ < n) {
      window_.erase(0, window_pos_);
      window_pos_ = 0;
      const std::uint64_t from = position_ + window_.size();
      const auto more =
          static_cast<std::size_t>(std::min<std::uint64_t>(buffer_capacity - window_.size(), end_ - from));
      const std::size_t have = window_.size();
      window_.resize(have + more);
      // The part before the tail comes from the file, the rest from the tail.
      const auto from_file =
          static_cast<std::size_t>(std::min<std::uint64_t>(more, cached_at_ > from ? cached_at_ - from : 0));
      if (from_file > 0) {
        if (auto r = impl_.read_at(window_.data() + have, from_file, from); !r) return fail(r.error());
      }
      if (more > from_file) {
        std::memcpy(window_.data() + have + from_file, cached_.data() + (from + from_file - cached_at_),
                    more - from_file);
      }
    }
    return std::string_view(window_).substr(window_pos_);
  }

  void consume(std::size_t n) noexcept {
    position_ += n;
    if (!window_.empty()) window_pos_ += n;
  }

  static constexpr std::size_t buffer_capacity = 256 * 1024;  // more than the largest record (196,651 bytes)

 private:
  const Impl& impl_;
  std::string_view cached_;
  std::uint64_t cached_at_;
  std::uint64_t position_;
  std::uint64_t end_;
  std::string window_;
  std::size_t window_pos_ = 0;
};

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
  impl->fd = UniqueFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (impl->fd.get() < 0) return fail(fmt::format("{}: cannot open: {}", name, std::strerror(errno)));
  struct stat st {};
  if (::fstat(impl->fd.get(), &st) != 0) return fail(fmt::format("{}: cannot stat: {}", name, std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) return fail(fmt::format("{}: not a regular file", name));
  impl->size = static_cast<std::uint64_t>(st.st_size);
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
  if (impl->fd.get() < 0) return fail(fmt::format("{}: cannot open: {}", file.path.string(), std::strerror(errno)));
  // The same inode, whatever renames happened since it was opened.
  impl->punch_fd = UniqueFd(::open(fmt::format("/proc/self/fd/{}", impl->fd.get()).c_str(), O_WRONLY | O_CLOEXEC));
  impl->arriving = std::move(arriving);
  return open_impl(std::move(impl));
}

Result<Archive> Archive::open_impl(std::unique_ptr<Impl> impl) {
  const std::string& name = impl->name;

  const std::uint64_t size = impl->size;
  std::uint64_t tail_start = size - std::min<std::uint64_t>(size, initial_tail);
  std::string tail(static_cast<std::size_t>(size - tail_start), '\0');
  if (auto r = impl->read_at(tail.data(), tail.size(), tail_start); !r) return fail(r.error());
  std::optional<std::size_t> eocd = find_eocd(tail, tail_start, size, false);
  if (!eocd) {
    // A long archive comment (or bytes after the archive): look at the most the comment can span.
    const std::uint64_t wide_start = size - std::min<std::uint64_t>(size, eocd_size + max_comment_size);
    if (wide_start < tail_start) {
      std::string wide(static_cast<std::size_t>(tail_start - wide_start), '\0');
      if (auto r = impl->read_at(wide.data(), wide.size(), wide_start); !r) return fail(r.error());
      tail.insert(0, wide);
      tail_start = wide_start;
    }
    eocd = find_eocd(tail, tail_start, size, false);
    if (!eocd) eocd = find_eocd(tail, tail_start, size, true);
  }
  if (!eocd) {
    char head[4] = {};
    if (size >= 4 && impl->read_at(head, 4, 0) && load32(head) == local_header_signature) {
      return fail(
          fmt::format("{}: truncated zip archive: it starts with a local file header but has no "
                      "end-of-central-directory record (size {})",
                      name, size));
    }
    return fail(fmt::format("{}: not a zip archive (no end-of-central-directory record)", name));
  }
  if (auto r = impl->load(tail, tail_start, *eocd); !r) return fail(r.error());
  return Archive(std::move(impl));
}

// `tail` holds the end of the file from offset `tail_start`, with the end-of-central-directory
// record at `tail[eocd_index]`; the bytes before it are read only when needed.
Result<void> Archive::Impl::load(std::string_view tail, std::uint64_t tail_start, std::size_t eocd_index) {
  const std::string_view cached = tail;
  const std::uint64_t cached_at = tail_start;
  const std::uint64_t eocd_at = tail_start + eocd_index;
  std::string scratch;
  // The file bytes [offset, offset + len), from `tail` when it holds them.
  const auto fetch = [&](std::uint64_t offset, std::size_t len) -> Result<std::string_view> {
    if (offset >= cached_at && offset + len <= cached_at + cached.size()) {
      return cached.substr(static_cast<std::size_t>(offset - cached_at), len);
    }
    scratch.assign(len, '\0');
    if (auto r = read_at(scratch.data(), len, offset); !r) return fail(r.error());
    return std::string_view(scratch);
  };

  const char* e = tail.data() + eocd_index;
  std::uint64_t disk = load16(e + 4);
  std::uint64_t cd_disk = load16(e + 6);
  std::uint64_t count_here = load16(e + 8);
  std::uint64_t count = load16(e + 10);
  std::uint64_t cd_size = load32(e + 12);
  cd_offset = load32(e + 16);
  const std::size_t comment_len = load16(e + 20);
  comment.assign(tail.substr(eocd_index + eocd_size, comment_len));
  std::uint64_t cd_limit = eocd_at;  // where the central directory must end at the latest

  // Bytes that look like a zip64 locator but lie inside the central directory the record describes
  // (a member's extra field or comment ending right before the record) are not one, when the
  // record needs no zip64 values: else an archive that names its central directory correctly
  // would be refused for what its last member's extra field happens to hold.
  const bool needs_zip64 = disk == 0xFFFF || cd_disk == 0xFFFF || count_here == 0xFFFF || count == 0xFFFF ||
                           cd_size == max32 || cd_offset == max32;
  const bool locator_in_cd = !needs_zip64 && eocd_at >= zip64_locator_size &&
                             cd_offset <= eocd_at - zip64_locator_size && cd_offset + cd_size == eocd_at;
  if (eocd_at >= zip64_locator_size && !locator_in_cd) {
    auto locator = fetch(eocd_at - zip64_locator_size, zip64_locator_size);
    if (!locator) return fail(locator.error());
    const char* l = locator->data();
    if (load32(l) == zip64_locator_signature) {
      const std::uint32_t record_disk = load32(l + 4);
      const std::uint64_t record_at = load64(l + 8);
      const std::uint32_t disks = load32(l + 16);
      if (record_disk != 0 || disks > 1) {
        return fail(fmt::format("{}: multi-disk archive ({} disks), not supported", name, disks));
      }
      const std::uint64_t locator_at = eocd_at - zip64_locator_size;
      if (record_at > locator_at || locator_at - record_at < zip64_eocd_size) {
        return fail(
            fmt::format("{}: zip64 end-of-central-directory record at offset {} does not fit before its "
                        "locator at offset {}",
                        name, record_at, locator_at));
      }
      auto record = fetch(record_at, zip64_eocd_size);
      if (!record) return fail(record.error());
      if (load32(record->data()) != zip64_eocd_signature) {
        if (locator_at >= zip64_eocd_size) {
          auto before = fetch(locator_at - zip64_eocd_size, zip64_eocd_size);
          if (before && load32(before->data()) == zip64_eocd_signature) {
            return fail(
                fmt::format("{}: the offsets in the archive are {} bytes short: data before the archive "
                            "(self-extracting or prefixed archives are not supported)",
                            name, locator_at - zip64_eocd_size - record_at));
          }
        }
        return fail(
            fmt::format("{}: no zip64 end-of-central-directory record at offset {} (where its locator at "
                        "offset {} points)",
                        name, record_at, locator_at));
      }
      const char* z = record->data();
      disk = load32(z + 16);
      cd_disk = load32(z + 20);
      count_here = load64(z + 24);
      count = load64(z + 32);
      cd_size = load64(z + 40);
      cd_offset = load64(z + 48);
      cd_limit = record_at;
    }
  }

  if (disk != 0 || cd_disk != 0 || count_here != count) {
    return fail(
        fmt::format("{}: multi-disk archive (this is disk {}, the central directory is on disk {}, {} of {} "
                    "entries on this disk), not supported",
                    name, disk, cd_disk, count_here, count));
  }
  if (cd_offset > size || cd_size > size - cd_offset) {
    return fail(
        fmt::format("{}: truncated: central directory at offset {} (size {}) extends past the end of the "
                    "file (size {})",
                    name, cd_offset, cd_size, size));
  }
  if (cd_offset + cd_size > cd_limit) {
    return fail(
        fmt::format("{}: central directory at offset {} (size {}) overlaps the end-of-central-directory "
                    "records at offset {}",
                    name, cd_offset, cd_size, cd_limit));
  }
  if (count > cd_size / central_header_size) {
    return fail(
        fmt::format("{}: central directory of {} bytes cannot hold the {} entries the "
                    "end-of-central-directory record announces",
                    name, cd_size, count));
  }

  if (count >= std::numeric_limits<std::uint32_t>::max()) {
    return fail(fmt::format("{}: {} entries, more than this reader supports", name, count));
  }

  // With a gap between the central directory and the end records, the offsets may all be short by
  // the size of data before the archive.
  if (cd_size > 0 && cd_offset + cd_size < cd_limit) {
    auto first = fetch(cd_offset, 4);
    if (!first) return fail(first.error());
    if (load32(first->data()) != central_header_signature) {
      auto shifted = fetch(cd_limit - cd_size, 4);
      if (shifted && load32(shifted->data()) == central_header_signature) {
        return fail(
            fmt::format("{}: the central directory is not at offset {} but {} bytes later: data before the "
                        "archive (self-extracting or prefixed archives are not supported)",
                        name, cd_offset, cd_limit - cd_size - cd_offset));
      }
    }
  }

  CentralDirectoryReader reader(*this, cached, cached_at, cd_offset, cd_size);
  if (auto r = parse_central_directory(reader, count); !r) return r;
  return check_spans();
}

Result<void> Archive::Impl::parse_central_directory(CentralDirectoryReader& reader, std::uint64_t count) {
  entries.resize(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < entries.size(); ++i) {
    Entry& entry = entries[i];
    auto head = reader.peek(central_header_size);
    if (!head) return fail(head.error());
    std::size_t need = central_header_size;
    if (head->size() >= central_header_size) {
      need += std::size_t{load16(head->data() + 28)} + load16(head->data() + 30) + load16(head->data() + 32);
    }
    auto record = reader.peek(need);
    if (!record) return fail(record.error());
    auto used = parse_central_record(*record, 0, reader.position(), entry);
    if (!used) return fail(used.error().with_context(name));
    reader.consume(*used);
    if ((entry.flags & flag_encrypted) != 0) {
      return fail(fmt::format("{}: member `{}` is encrypted, not supported", name, printable(entry.name)));
    }
  }
  if (reader.left() != 0) {
    return fail(
        fmt::format("{}: central directory has {} bytes after its {} entries (the entry count in the "
                    "end-of-central-directory record is wrong)",
                    name, reader.left(), entries.size()));
  }
  return index_names();
}

// Open addressing over the entry indices: one allocation, where a node-based map would make one
// per member.
Result<void> Archive::Impl::index_names() {
  std::size_t capacity = 16;
  while (capacity < 2 * entries.size()) capacity *= 2;
  slots.assign(capacity, 0);
  const std::size_t mask = capacity - 1;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string& key = entries[i].name;
    for (std::size_t s = std::hash<std::string_view>{}(key)&mask;; s = (s + 1) & mask) {
      if (slots[s] == 0) {
        slots[s] = static_cast<std::uint32_t>(i + 1);
        break;
      }
      if (entries[slots[s] - 1].name == key) {
        return fail(fmt::format("{}: member name `{}` appears twice in the central directory (entries {} and {})", name,
                                printable(key), slots[s] - 1, i));
      }
    }
  }
  return {};
}

const Entry* Archive::Impl::find(std::string_view key) const noexcept {
  if (slots.empty()) return nullptr;
  const std::size_t mask = slots.size() - 1;
  for (std::size_t s = std::hash<std::string_view>{}(key)&mask; slots[s] != 0; s = (s + 1) & mask) {
    const Entry& entry = entries[slots[s] - 1];
    if (entry.name == key) return &entry;
  }
  return nullptr;
}

Result<void> Archive::Impl::check_spans() {
  std::vector<std::uint32_t> order(entries.size());
  std::iota(order.begin(), order.end(), 0U);
  const auto by_offset = [this](std::uint32_t a, std::uint32_t b) {
    return entries[a].local_header_offset < entries[b].local_header_offset;
  };
  if (!std::is_sorted(order.begin(), order.end(), by_offset)) std::sort(order.begin(), order.end(), by_offset);
  for (std::size_t k = 0; k < order.size(); ++k) {
    Entry& entry = entries[order[k]];
    const bool last = k + 1 == order.size();
    const std::uint64_t next = last ? cd_offset : entries[order[k + 1]].local_header_offset;
    if (!last && next == entry.local_header_offset) {
      return fail(fmt::format("{}: members `{}` and `{}` both start at offset {}", name, printable(entry.name),
                              printable(entries[order[k + 1]].name), next));
    }
    // A lower bound of the member's bytes: the local header with the same name and no extra field,
    // the data, and a data descriptor without signature.
    const std::uint64_t minimum =
        local_header_size + entry.name.size() + ((entry.flags & flag_data_descriptor) != 0 ? 12 : 0);
    if (entry.local_header_offset > next || next - entry.local_header_offset < minimum ||
        next - entry.local_header_offset - minimum < entry.compressed_size) {
      if (last) {
        return fail(
            fmt::format("{}: member `{}` at offset {} ({} bytes compressed) extends into the central "
                        "directory at offset {}",
                        name, printable(entry.name), entry.local_header_offset, entry.compressed_size, cd_offset));
      }
      return fail(fmt::format("{}: member `{}` at offset {} ({} bytes compressed) overlaps member `{}` at offset {}",
                              name, printable(entry.name), entry.local_header_offset, entry.compressed_size,
                              printable(entries[order[k + 1]].name), next));
    }
    entry.span_end = next;
  }
  return {};
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
    return fail(fmt::format("{}: member `{}`: the local header at offset {} names `{}`", name, printable(entry.name), offset,
                            printable(h.substr(local_header_size, std::min(name_len, entry.name.size())))));
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

Result<std::string> Archive::read(const Entry& entry, std::uint64_t max_size) const {
  const std::string& name = impl_->name;
  if (auto ok = check_readable(name, entry, max_size); !ok) return fail(ok.error());
  auto member = impl_->load_member(entry);
  if (!member) return fail(member.error());
  std::string out;
  if (entry.method == static_cast<std::uint16_t>(Method::Store)) {
    out = std::move(member->bytes);
    out.erase(0, member->data_at);
  } else {
    out.resize(static_cast<std::size_t>(entry.uncompressed_size));
    std::size_t produced = 0;
    const libdeflate_result r =
        libdeflate_deflate_decompress(thread_decompressor(), member->bytes.data() + member->data_at,
                                      member->bytes.size() - member->data_at, out.data(), out.size(), &produced);
    if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
      return fail(fmt::format("{}: member `{}` inflates to more than the {} bytes the central directory says", name,
                              printable(entry.name), entry.uncompressed_size));
    }
    if (r != LIBDEFLATE_SUCCESS) {
      return fail(fmt::format("{}: member `{}`: corrupt deflate data", name, printable(entry.name)));
    }
    if (produced != out.size()) {
      return fail(fmt::format("{}: member `{}` inflates to {} bytes, the central directory says {}", name, printable(entry.name),
                              produced, entry.uncompressed_size));
    }
  }
  const std::uint32_t crc = crc32(out);
  if (crc != entry.crc32) {
    return fail(fmt::format("{}: member `{}`: CRC-32 mismatch: the data has {:08x}, the central directory says {:08x}",
                            name, printable(entry.name), crc, entry.crc32));
  }
  return out;
}

Result<void> Archive::read_streamed(const Entry& entry, const ChunkSink& sink, std::size_t chunk,
                                    std::uint64_t max_size) const {
  const Impl& impl = *impl_;
  if (auto ok = check_readable(impl.name, entry, max_size); !ok) return fail(ok.error());
  auto end = impl.member_end(entry);
  if (!end) return fail(end.error());
  const std::uint64_t offset = entry.local_header_offset;
  std::string header(static_cast<std::size_t>(std::min<std::uint64_t>(
                         local_header_size + entry.name.size() + max16, *end - offset)),
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
  return stream_member(impl.name, entry, offset + *data_at, read, sink, std::max<std::size_t>(chunk, 4096));
}

Result<std::string> Archive::read_raw(const Entry& entry) const {
  auto member = impl_->load_member(entry);
  if (!member) return fail(member.error());
  std::string out = std::move(member->bytes);
  out.erase(0, member->data_at);
  return out;
}

}  // namespace vwheel::zip
