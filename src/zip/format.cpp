#include "zip/format.hpp"

#include <libdeflate.h>

#include <algorithm>
#include <cerrno>

#include <fmt/format.h>

#include "vwheel/core/text.hpp"

namespace vwheel::zip {

std::uint32_t Entry::unix_mode() const noexcept { return (version_made_by >> 8) == 3 ? external_attributes >> 16 : 0; }

std::uint32_t crc32(std::string_view data) noexcept { return libdeflate_crc32(0, data.data(), data.size()); }

std::pair<std::uint16_t, std::uint16_t> dos_time_date(std::int64_t unix_seconds) noexcept {
  constexpr std::int64_t first = 315532800;  // 1980-01-01T00:00:00Z
  constexpr std::int64_t last = 4354819199;  // 2107-12-31T23:59:59Z
  const std::int64_t t = std::clamp(unix_seconds, first, last);
  const std::int64_t secs = t % 86400;
  // Civil date from days since 1970-01-01 (H. Hinnant's algorithm; t >= 0 here).
  const std::int64_t z = t / 86400 + 719468;
  const std::int64_t era = z / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const std::int64_t day = doy - (153 * mp + 2) / 5 + 1;
  const std::int64_t month = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const auto time = static_cast<std::uint16_t>(((secs / 3600) << 11) | (((secs / 60) % 60) << 5) | ((secs % 60) / 2));
  const auto date = static_cast<std::uint16_t>(((year - 1980) << 9) | (month << 5) | day);
  return {time, date};
}

namespace detail {

Result<std::size_t> parse_central_record(std::string_view cd, std::size_t pos, std::uint64_t cd_offset, Entry& entry) {
  if (cd.size() - pos < central_header_size) {
    return fail(fmt::format("central directory record at offset {} is cut short ({} bytes, expected at least {})",
                            cd_offset + pos, cd.size() - pos, central_header_size));
  }
  const char* p = cd.data() + pos;
  if (load32(p) != central_header_signature) {
    return fail(fmt::format("no central directory record signature (PK\\1\\2) at offset {}", cd_offset + pos));
  }
  entry.version_made_by = load16(p + 4);
  entry.version_needed = load16(p + 6);
  entry.flags = load16(p + 8);
  entry.method = load16(p + 10);
  entry.dos_time = load16(p + 12);
  entry.dos_date = load16(p + 14);
  entry.crc32 = load32(p + 16);
  const std::uint32_t compressed32 = load32(p + 20);
  const std::uint32_t uncompressed32 = load32(p + 24);
  const std::size_t name_len = load16(p + 28);
  const std::size_t extra_len = load16(p + 30);
  const std::size_t comment_len = load16(p + 32);
  const std::uint16_t disk16 = load16(p + 34);
  entry.internal_attributes = load16(p + 36);
  entry.external_attributes = load32(p + 38);
  const std::uint32_t offset32 = load32(p + 42);
  const std::size_t total = central_header_size + name_len + extra_len + comment_len;
  if (cd.size() - pos < total) {
    return fail(
        fmt::format("central directory record at offset {} ({} bytes with name, extra field and comment) runs past the "
                    "end of the central directory",
                    cd_offset + pos, total));
  }
  entry.name.assign(p + central_header_size, name_len);
  const std::string_view extra(p + central_header_size + name_len, extra_len);
  entry.comment.assign(p + central_header_size + name_len + extra_len, comment_len);
  entry.compressed_size = compressed32;
  entry.uncompressed_size = uncompressed32;
  entry.local_header_offset = offset32;
  std::uint32_t disk = disk16;

  // Walk the extra fields; the first zip64 field is applied and cut out. A malformed tail (a field
  // longer than what is left) is kept as it is.
  std::size_t i = 0;
  std::size_t zip64_at = extra.size();
  std::size_t zip64_len = 0;
  while (i + 4 <= extra.size()) {
    const std::uint16_t id = load16(extra.data() + i);
    const std::size_t len = load16(extra.data() + i + 2);
    if (i + 4 + len > extra.size()) break;
    if (id == zip64_extra_id && zip64_at == extra.size()) {
      zip64_at = i;
      zip64_len = 4 + len;
      const char* f = extra.data() + i + 4;
      std::size_t q = 0;
      const auto take = [&](std::uint64_t& value, std::size_t bytes, const char* what) -> Result<void> {
        if (q + bytes > len) {
          return fail(
              fmt::format("member `{}`: zip64 extra field ({} bytes) lacks the {} its central directory "
                          "record defers to it",
                          printable(entry.name), len, what));
        }
        value = bytes == 8 ? load64(f + q) : load32(f + q);
        q += bytes;
        return {};
      };
      if (uncompressed32 == max32) {
        if (auto r = take(entry.uncompressed_size, 8, "uncompressed size"); !r) return fail(r.error());
      }
      if (compressed32 == max32) {
        if (auto r = take(entry.compressed_size, 8, "compressed size"); !r) return fail(r.error());
      }
      if (offset32 == max32) {
        if (auto r = take(entry.local_header_offset, 8, "local header offset"); !r) return fail(r.error());
      }
      if (disk16 == max16) {
        std::uint64_t disk64 = 0;
        if (auto r = take(disk64, 4, "disk number"); !r) return fail(r.error());
        disk = static_cast<std::uint32_t>(disk64);
      }
    }
    i += 4 + len;
  }
  if (zip64_len == 0) {
    entry.extra.assign(extra);
  } else {
    entry.extra.assign(extra.substr(0, zip64_at));
    entry.extra.append(extra.substr(zip64_at + zip64_len));
  }
  if (disk != 0) {
    return fail(fmt::format("member `{}` starts on disk {}: multi-disk archives are not supported", printable(entry.name), disk));
  }
  return total;
}

std::size_t central_record_size(const Entry& entry, std::uint64_t offset) noexcept {
  std::size_t zip64 = 0;
  if (needs_zip64(entry, offset)) {
    zip64 = 4 + (entry.uncompressed_size >= max32 ? 8 : 0) + (entry.compressed_size >= max32 ? 8 : 0) +
            (offset >= max32 ? 8 : 0);
  }
  return central_header_size + entry.name.size() + zip64 + entry.extra.size() + entry.comment.size();
}

void append_central_record(std::string& out, const Entry& entry, std::uint64_t offset) {
  char zip64[28];
  std::size_t zip64_len = 0;
  std::uint16_t version_needed = entry.version_needed;
  if (needs_zip64(entry, offset)) {
    char* q = zip64 + 4;
    if (entry.uncompressed_size >= max32) q = store64(q, entry.uncompressed_size);
    if (entry.compressed_size >= max32) q = store64(q, entry.compressed_size);
    if (offset >= max32) q = store64(q, offset);
    zip64_len = static_cast<std::size_t>(q - zip64);
    store16(zip64, zip64_extra_id);
    store16(zip64 + 2, static_cast<std::uint16_t>(zip64_len - 4));
    if ((version_needed & 0xFF) < 45) version_needed = static_cast<std::uint16_t>((version_needed & 0xFF00) | 45);
  }
  char h[central_header_size];
  char* q = store32(h, central_header_signature);
  q = store16(q, entry.version_made_by);
  q = store16(q, version_needed);
  q = store16(q, entry.flags);
  q = store16(q, entry.method);
  q = store16(q, entry.dos_time);
  q = store16(q, entry.dos_date);
  q = store32(q, entry.crc32);
  q = store32(q, clamp32(entry.compressed_size));
  q = store32(q, clamp32(entry.uncompressed_size));
  q = store16(q, static_cast<std::uint16_t>(entry.name.size()));
  q = store16(q, static_cast<std::uint16_t>(zip64_len + entry.extra.size()));
  q = store16(q, static_cast<std::uint16_t>(entry.comment.size()));
  q = store16(q, 0);  // disk number start
  q = store16(q, entry.internal_attributes);
  q = store32(q, entry.external_attributes);
  store32(q, clamp32(offset));
  out.append(h, central_header_size);
  out.append(entry.name);
  out.append(zip64, zip64_len);
  out.append(entry.extra);
  out.append(entry.comment);
}

}  // namespace detail
}  // namespace vwheel::zip
