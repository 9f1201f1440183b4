#pragma once
/// \file
/// Zip archives as wheels use them: read the central directory without touching member data,
/// read one member, and write a new archive that copies members of an existing one *raw*
/// (compressed bytes, local headers, timestamps and permissions untouched) around a few new or
/// replaced members.
///
/// Why not libzip here: libzip reads up to 64 KiB from the end of every archive it opens and
/// copies entries through its source layer at about 20 µs each; for `generate-index-json` over
/// many small wheels and for `make-variant` of multi-gigabyte wheels that is the bottleneck
/// (measured in `bench/`). The writer instead copies whole runs of consecutive members with
/// `copy_file_range` (in-kernel) and rewrites only the central directory. The test suite
/// checks every archive written here with libzip and Python's `zipfile`.
///
/// Zip64 is read and written (more than 65,535 members, sizes or offsets of 4 GiB or more).
/// Encrypted members and multi-disk archives are rejected. Member data is inflated with
/// libdeflate whole (`read`, fastest) or with zlib piece by piece (`read_streamed`, in bounded
/// memory whatever the member's size); stored and deflate methods only.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/core/growing_file.hpp"

namespace vwheel::zip {

/// Compression methods this component reads and writes.
enum class Method : std::uint16_t {
  Store = 0,
  Deflate = 8,
};

/// Receives a member's content piece by piece (`Archive::read_streamed`); an error stops the read.
using ChunkSink = std::function<Result<void>(std::string_view)>;

/// A member as the central directory describes it.
struct Entry {
  std::string name;                     ///< as stored (UTF-8 or CP437 bytes, `/`-separated)
  std::uint16_t version_made_by = 0;    ///< high byte: host system (3 = Unix)
  std::uint16_t version_needed = 0;
  std::uint16_t flags = 0;              ///< general purpose bit flag (bit 3: data descriptor)
  std::uint16_t method = 0;             ///< compression method as stored (see Method)
  std::uint16_t dos_time = 0;           ///< MS-DOS modification time
  std::uint16_t dos_date = 0;           ///< MS-DOS modification date
  std::uint32_t crc32 = 0;
  std::uint64_t compressed_size = 0;
  std::uint64_t uncompressed_size = 0;
  std::uint64_t local_header_offset = 0;
  std::uint16_t internal_attributes = 0;
  std::uint32_t external_attributes = 0;  ///< Unix mode in the high 16 bits when made on Unix
  std::string extra;                      ///< central-directory extra fields, zip64 field removed
  std::string comment;
  /// End of this member's bytes in the file (local header, data and data descriptor): the next
  /// member's local header offset in file order, or the start of the central directory.
  std::uint64_t span_end = 0;

  /// True for a name ending in `/`.
  [[nodiscard]] bool is_directory() const noexcept { return !name.empty() && name.back() == '/'; }
  /// The Unix mode bits (`external_attributes >> 16`) when the member was made on Unix, else 0.
  [[nodiscard]] std::uint32_t unix_mode() const noexcept;
};

/// An archive that is still being written front to back (a download), for reading it before it
/// is complete: its last bytes (the central directory, and in a wheel the `.dist-info` members)
/// fetched apart, the rest read from `path` once `growing` says the bytes are there.
struct Arriving {
  std::filesystem::path path;         ///< the file being written (a download's part file)
  std::filesystem::path final_path;   ///< where it is once complete (also the name in messages)
  std::uint64_t size = 0;             ///< the complete file's size
  std::string tail;                   ///< its last tail.size() bytes
  std::shared_ptr<const GrowingFile> growing;
};

/// What reading an archive from its last bytes needs (an arriving download's tail, fetched apart).
struct TailNeeds {
  std::uint64_t central_directory = 0;  ///< where the central directory starts
  /// Where the earliest member that `wanted` accepts starts (its local header), or the central
  /// directory's start when it is earlier or none is wanted; equal to `central_directory` while the
  /// tail does not hold the whole central directory (the members are not known yet).
  std::uint64_t wanted = 0;
};

/// For a zip of `size` bytes whose last bytes are `tail`: where its central directory starts and
/// from where the end of the file holds every member `wanted` accepts. nullopt when `tail` ends in
/// no end-of-central-directory record (or its zip64 records are not in `tail`), or the records
/// there do not parse: the caller then reads the archive the ordinary way, which names the fault.
/// Pure: reads nothing but `tail`; linear in its size.
[[nodiscard]] std::optional<TailNeeds> tail_needs(std::string_view tail, std::uint64_t size,
                                                  const std::function<bool(std::string_view name)>& wanted);

/// An open archive: the central directory in memory, the file kept open for member reads.
/// Every read is positioned (`pread`), so one Archive can be read from several threads.
class Archive {
 public:
  /// Opens `path` and reads its end-of-central-directory record(s) and central directory, and
  /// nothing else. Errors name the file and what is wrong: not a zip, truncated, multi-disk,
  /// a central directory entry pointing outside the file, overlapping members, an encrypted
  /// member, a duplicated member name.
  [[nodiscard]] static Result<Archive> open(const std::filesystem::path& path);
  /// Opens an archive still arriving: the same checks as open(), on the tail in memory; every
  /// read of the rest waits until the writer has put those bytes in the file, and fails when the
  /// writer failed or started the file again (GrowingFile::wait_for). The caller compares the tail
  /// with the complete file before trusting what it read (it came from another response).
  [[nodiscard]] static Result<Archive> open_arriving(std::shared_ptr<const Arriving> file);

  Archive(Archive&&) noexcept;
  Archive& operator=(Archive&&) noexcept;
  ~Archive();

  [[nodiscard]] const std::filesystem::path& path() const noexcept;
  [[nodiscard]] std::uint64_t file_size() const noexcept;
  /// Members in central-directory order.
  [[nodiscard]] const std::vector<Entry>& entries() const noexcept;
  /// The member with exactly this name, or null.
  [[nodiscard]] const Entry* find(std::string_view name) const noexcept;
  /// The archive comment.
  [[nodiscard]] const std::string& comment() const noexcept;
  /// Offset of the central directory (the end of the last member's span).
  [[nodiscard]] std::uint64_t central_directory_offset() const noexcept;

  /// The member's uncompressed content. Checks the local header against the central directory,
  /// the CRC-32 and the size. Fails for a member larger than `max_size` (zip bombs) or with an
  /// unsupported method.
  [[nodiscard]] Result<std::string> read(const Entry& entry,
                                         std::uint64_t max_size = std::uint64_t{1} << 30) const;
  /// The member's uncompressed content passed to `sink` in pieces of at most `chunk` bytes, the
  /// compressed data read in pieces of the same size: about 2 x `chunk` of memory (and zlib's
  /// 32 KiB window) whatever the member's size. The same checks as `read`; the CRC-32 and the size
  /// are known only at the end, so on any error `sink` may have received part of the content.
  /// When `scratch` holds at least 2 x `chunk` bytes, both pieces are kept there instead.
  [[nodiscard]] Result<void> read_streamed(const Entry& entry, const ChunkSink& sink,
                                           std::size_t chunk = std::size_t{1} << 20,
                                           std::uint64_t max_size = std::uint64_t{1} << 40,
                                           std::span<char> scratch = {}) const;
  /// `read` into the caller's memory, which must hold scratch_size(entry) bytes: the compressed
  /// bytes and the content, which the answer views (valid while `scratch` is). For callers that
  /// reuse buffers (the installer's workers): no allocation per member.
  [[nodiscard]] Result<std::string_view> read_into(const Entry& entry, std::span<char> scratch,
                                                   std::uint64_t max_size = std::uint64_t{1} << 30) const;
  /// The memory read_into needs for `entry`: the local header with the longest extra field a zip
  /// allows, the compressed bytes and, unless stored, the content.
  [[nodiscard]] static std::uint64_t scratch_size(const Entry& entry) noexcept;
  /// The member's compressed bytes exactly as stored (no local header, no data descriptor).
  [[nodiscard]] Result<std::string> read_raw(const Entry& entry) const;

  /// Bytes read from the file so far by this Archive (open included): lets tests and benchmarks
  /// prove that a command reads only what it needs.
  [[nodiscard]] std::uint64_t bytes_read() const noexcept;

  /// For an archive opened with open_arriving() only: gives back the file's blocks, and their
  /// page-cache pages, under the member's bytes (the whole 4 KiB blocks inside its span, short of
  /// the tail fetched apart; the file keeps its size). Made for a download that is unpacked once,
  /// as it arrives, and then dropped. The member cannot be read again: its bytes read as zeros.
  /// False when nothing was given back (another kind of archive, a span within one block, a file
  /// system without holes).
  bool punch_out(const Entry& entry) const noexcept;

  /// For an archive opened with open_arriving() only: every member is read once, and the file is
  /// not kept, except members `keep` selects (read again later, e.g. copied into a cache). The
  /// writer may then keep bytes that arrive in memory until they are read, instead of writing
  /// them (GrowingFile::read_once); read_streamed gives back each piece of a member it read, and
  /// release() the whole member. Call done_reading() when nothing more will be read.
  void read_once(std::function<bool(const Entry&)> keep);
  /// After read_once(): the member's bytes will not be read again (short of the tail fetched
  /// apart; nothing for a member `keep` selects).
  void release(const Entry& entry) const;
  /// After read_once(): no member will be read any more.
  void done_reading() const;
  /// Whether bytes given back were never written to the file (it has holes: it cannot be read
  /// again whole, or kept).
  [[nodiscard]] bool dropped() const;

 private:
  friend struct ArchiveAccess;  // src/zip: lets write_archive copy from the open file descriptor
  struct Impl;
  explicit Archive(std::unique_ptr<Impl> impl);
  [[nodiscard]] static Result<Archive> open_impl(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// A member to write that is not copied from an archive.
struct NewMember {
  std::string name;
  std::string data;                  ///< uncompressed content
  Method method = Method::Deflate;   ///< deflated with libdeflate at level 6 when Deflate
  std::uint32_t unix_mode = 0100644; ///< full st_mode (file type and permission bits)
  std::uint16_t dos_time = 0;        ///< MS-DOS time; with dos_date 0 means 1980-01-01 00:00
  std::uint16_t dos_date = (0 << 9) | (1 << 5) | 1;
};

/// One member of the archive to write: a member of the source archive (copied raw, by index into
/// `source->entries()`), or a new one.
using PlannedMember = std::variant<std::size_t, NewMember>;

/// What `write_archive` writes, in this order.
struct WritePlan {
  std::vector<PlannedMember> members;
  /// The archive comment; the source's comment when absent.
  std::optional<std::string> comment;
};

/// Writes a new archive at `output`: members in plan order, copied members byte for byte
/// (consecutive ones in one `copy_file_range` run), then a new central directory (each copied
/// member's record is the source's with only its offset changed), zip64 records when needed.
/// `source` may be null when every member is new. The file is written to a temporary name in
/// the same directory and renamed over `output` at the end; on any failure nothing is left.
/// Fails on a duplicate member name in the plan.
[[nodiscard]] Result<void> write_archive(const Archive* source, const WritePlan& plan,
                                         const std::filesystem::path& output);

/// Writes `output` (a new file: fails when it exists) as a sparse copy of `archive`, the same
/// size, holding only the members `keep` selects (local header, data, descriptor), the central
/// directory and the end records; the rest is a hole. Archive::open reads it like the original,
/// and a read of any other member fails (its local header is zeros). On file systems with holes
/// (ext4, XFS, btrfs, tmpfs) it takes the disk space of the kept bytes only: the unpacked-wheel
/// cache keeps a wheel's `.dist-info` this way, to plan an install without the archive. On any
/// failure nothing is left at `output`.
[[nodiscard]] Result<void> write_skeleton(const Archive& archive, const std::function<bool(const Entry&)>& keep,
                                          const std::filesystem::path& output);

/// The MS-DOS time and date of a Unix timestamp (UTC), clamped to 1980..2107.
[[nodiscard]] std::pair<std::uint16_t, std::uint16_t> dos_time_date(std::int64_t unix_seconds) noexcept;

/// CRC-32 (as in zip) of `data`.
[[nodiscard]] std::uint32_t crc32(std::string_view data) noexcept;

}  // namespace vwheel::zip
