// Opening an archive: the end-of-central-directory record (zip64 included) found from the end of
// the file, the central directory read record by record and checked (counts, overlaps, names that
// appear twice), and the names indexed for find().

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>

#include <fmt/format.h>

#include "vwheel/core/text.hpp"
#include "zip/archive_impl.hpp"

namespace vwheel::zip {

using namespace detail;

namespace {

// The first read at open: the end-of-central-directory record (22 bytes), the zip64 locator and
// record before it (76 bytes), a short comment and, for small archives, the central directory.
constexpr std::size_t initial_tail = 1024;

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

}  // namespace

std::optional<TailNeeds> tail_needs(std::string_view tail, std::uint64_t size,
                                    const std::function<bool(std::string_view name)>& wanted) {
  if (tail.size() > size) return std::nullopt;
  const std::uint64_t tail_start = size - tail.size();
  const auto eocd = find_eocd(tail, tail_start, size, false);
  if (!eocd) return std::nullopt;
  const char* e = tail.data() + *eocd;
  std::uint64_t count = load16(e + 10);
  std::uint64_t cd_size = load32(e + 12);
  std::uint64_t cd_offset = load32(e + 16);
  const std::uint64_t eocd_at = tail_start + *eocd;
  std::uint64_t cd_limit = eocd_at;
  // The zip64 records as Archive::Impl::load takes them: a locator right before the end record
  // counts unless it lies inside a central directory that needs no zip64 values.
  const bool needs_zip64 = count == 0xFFFF || cd_size == max32 || cd_offset == max32;
  const bool locator_in_cd = !needs_zip64 && eocd_at >= zip64_locator_size &&
                             cd_offset <= eocd_at - zip64_locator_size && cd_offset + cd_size == eocd_at;
  if (eocd_at >= zip64_locator_size && !locator_in_cd) {
    if (*eocd < zip64_locator_size) return std::nullopt;  // the locator is not in the tail
    const char* l = e - zip64_locator_size;
    if (load32(l) == zip64_locator_signature) {
      const std::uint64_t record_at = load64(l + 8);
      const std::uint64_t locator_at = eocd_at - zip64_locator_size;
      if (record_at < tail_start || record_at > locator_at || locator_at - record_at < zip64_eocd_size) {
        return std::nullopt;
      }
      const char* z = tail.data() + (record_at - tail_start);
      if (load32(z) != zip64_eocd_signature) return std::nullopt;
      count = load64(z + 32);
      cd_size = load64(z + 40);
      cd_offset = load64(z + 48);
      cd_limit = record_at;
    } else if (needs_zip64) {
      return std::nullopt;
    }
  }
  if (cd_offset > cd_limit || cd_size > cd_limit - cd_offset || count > cd_size / central_header_size) {
    return std::nullopt;
  }
  TailNeeds needs{cd_offset, cd_offset};
  if (cd_offset < tail_start) return needs;
  const std::string_view cd =
      tail.substr(static_cast<std::size_t>(cd_offset - tail_start), static_cast<std::size_t>(cd_size));
  std::size_t pos = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    Entry entry;
    auto n = parse_central_record(cd, pos, cd_offset, entry);
    if (!n) return std::nullopt;
    pos += *n;
    if (entry.local_header_offset < needs.wanted && wanted(entry.name)) needs.wanted = entry.local_header_offset;
  }
  return needs;
}

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

}  // namespace vwheel::zip
