#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libdeflate.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <new>

#include <fmt/format.h>

#include "vwheel/core/fs.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/zip/zip.hpp"
#include "zip/format.hpp"

namespace vwheel::zip {

using namespace detail;

namespace {

constexpr std::size_t buffer_size = std::size_t{1} << 20;

// The archive being written: a temporary file next to the output, removed unless committed.
class Output {
 public:
  static Result<std::unique_ptr<Output>> create(const std::filesystem::path& output) {
    auto out = std::unique_ptr<Output>(new Output(output));
    const std::filesystem::path dir = output.has_parent_path() ? output.parent_path() : std::filesystem::path(".");
    for (int attempt = 0;; ++attempt) {
      out->temp_ = dir / fmt::format(".{}.{}.tmp", output.filename().string(), unique_token());
      // Created with mode 0644 so that the umask applies as for any new file.
      out->fd_ = UniqueFd(::open(out->temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
      if (out->fd_.get() >= 0) break;
      if (errno != EEXIST || attempt == 100) {
        return fail(fmt::format("{}: cannot create a temporary file in {}: {}", out->name_, dir.string(),
                                errno_text(errno)));
      }
    }
    out->buffer_.reserve(buffer_size);
    return out;
  }

  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;
  ~Output() {
    if (fd_.get() >= 0) fd_.reset();
    if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
  }

  [[nodiscard]] std::uint64_t position() const noexcept { return written_ + buffer_.size(); }
  [[nodiscard]] const std::string& name() const noexcept { return name_; }

  // Headers and the central directory are appended here, then flushed by `maybe_flush`.
  std::string& buffer() noexcept { return buffer_; }
  [[nodiscard]] Result<void> maybe_flush() { return buffer_.size() >= buffer_size ? flush() : Result<void>{}; }

  [[nodiscard]] Result<void> flush() {
    if (buffer_.empty()) return {};
    if (write_all(fd_.get(), buffer_) != 0) return write_error();
    written_ += buffer_.size();
    buffer_.clear();
    return {};
  }

  [[nodiscard]] Result<void> write(std::string_view data) {
    if (buffer_.size() + data.size() <= buffer_size) {
      buffer_.append(data);
      return {};
    }
    if (auto r = flush(); !r) return r;
    if (write_all(fd_.get(), data) != 0) return write_error();
    written_ += data.size();
    return {};
  }

  // Appends the bytes [offset, offset + len) of `source` (in the kernel when it can).
  [[nodiscard]] Result<void> copy(const Archive& source, std::uint64_t offset, std::uint64_t len) {
    if (auto r = flush(); !r) return r;
    const int in = ArchiveAccess::fd(source);
    auto in_offset = static_cast<loff_t>(offset);
    while (len > 0 && copy_file_range_works_) {
      const auto chunk = static_cast<std::size_t>(std::min<std::uint64_t>(len, std::uint64_t{1} << 30));
      const ssize_t n = ::copy_file_range(in, &in_offset, fd_.get(), nullptr, chunk, 0);
      if (n > 0) {
        len -= static_cast<std::uint64_t>(n);
        written_ += static_cast<std::uint64_t>(n);
        ArchiveAccess::count_read(source, static_cast<std::uint64_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n == 0 || errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP || errno == EPERM ||
          errno == EBADF) {
        // Not supported between these files (or an early end, which the plain copy reports).
        copy_file_range_works_ = false;
        break;
      }
      return write_error();
    }
    if (len == 0) return {};
    std::unique_ptr<char[]> chunk(new char[buffer_size]);
    auto at = static_cast<std::uint64_t>(in_offset);
    while (len > 0) {
      const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(len, buffer_size));
      const long long n = pread_all(in, chunk.get(), want, at);
      if (n < 0) {
        return fail(fmt::format("{}: read error at offset {}: {}", source.path().string(), at, errno_text(errno)));
      }
      ArchiveAccess::count_read(source, static_cast<std::uint64_t>(n));
      if (static_cast<std::size_t>(n) != want) {
        return fail(fmt::format("{}: the file shrank while being copied (it ends at offset {}, the archive said {})",
                                source.path().string(), at + static_cast<std::uint64_t>(n), at + len));
      }
      if (write_all(fd_.get(), {chunk.get(), want}) != 0) return write_error();
      written_ += want;
      at += want;
      len -= want;
    }
    return {};
  }

  // Flushes, closes and renames the temporary file over the output.
  [[nodiscard]] Result<void> commit() {
    if (auto r = flush(); !r) return r;
    if (::close(fd_.release()) != 0) return write_error();
    if (::rename(temp_.c_str(), output_.c_str()) != 0) {
      return fail(fmt::format("{}: cannot rename {} into place: {}", name_, temp_.string(), errno_text(errno)));
    }
    committed_ = true;
    return {};
  }

 private:
  explicit Output(const std::filesystem::path& output) : output_(output), name_(output.string()) {}

  [[nodiscard]] tl::unexpected<Error> write_error() const {
    return fail(fmt::format("{}: write error: {}", name_, errno_text(errno)));
  }

  std::filesystem::path output_;
  std::string name_;
  std::filesystem::path temp_;
  UniqueFd fd_;
  std::string buffer_;
  std::uint64_t written_ = 0;
  bool copy_file_range_works_ = true;
  bool committed_ = false;
};

struct CompressorDeleter {
  void operator()(libdeflate_compressor* c) const noexcept { libdeflate_free_compressor(c); }
};

// A member of the new central directory: the entry (the source's, or one made for a new member)
// and where its local header now is.
struct Placed {
  const Entry* entry;
  std::uint64_t offset;
};

bool is_ascii(std::string_view s) noexcept {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

// Duplicate names, bad indices, fields too long for their 16-bit lengths: checked before anything
// is written. The source's names are unique already, so only a member planned twice and new names
// need a look.
Result<void> check_plan(const Archive* source, const WritePlan& plan, const std::string& name) {
  std::vector<bool> planned(source != nullptr ? source->entries().size() : 0);
  std::vector<std::string_view> new_names;
  for (const PlannedMember& member : plan.members) {
    if (const auto* index = std::get_if<std::size_t>(&member)) {
      if (source == nullptr) {
        return fail(fmt::format("{}: the plan copies member {} but there is no source archive", name, *index));
      }
      if (*index >= planned.size()) {
        return fail(fmt::format("{}: the plan copies member {} but {} has {} members", name, *index,
                                source->path().string(), planned.size()));
      }
      if (planned[*index]) {
        return fail(fmt::format("{}: member name `{}` appears twice in the archive to write", name,
                                printable(source->entries()[*index].name)));
      }
      planned[*index] = true;
    } else {
      const auto& added = std::get<NewMember>(member);
      if (added.name.empty() || added.name.size() > max16) {
        return fail(fmt::format("{}: new member name of {} bytes (expected 1 to 65535)", name, added.name.size()));
      }
      if (added.method != Method::Store && added.method != Method::Deflate) {
        return fail(fmt::format("{}: new member `{}`: compression method {} not supported (expected 0 or 8)", name,
                                printable(added.name), static_cast<unsigned>(added.method)));
      }
      new_names.push_back(added.name);
    }
  }
  std::sort(new_names.begin(), new_names.end());
  if (const auto dup = std::adjacent_find(new_names.begin(), new_names.end()); dup != new_names.end()) {
    return fail(fmt::format("{}: member name `{}` appears twice in the archive to write", name, printable(*dup)));
  }
  if (source != nullptr) {
    for (const std::string_view added : new_names) {
      const Entry* same = source->find(added);
      if (same != nullptr && planned[static_cast<std::size_t>(same - source->entries().data())]) {
        return fail(fmt::format("{}: member name `{}` appears twice in the archive to write", name, printable(added)));
      }
    }
  }
  const std::size_t comment = plan.comment ? plan.comment->size() : source ? source->comment().size() : 0;
  if (comment > max_comment_size) {
    return fail(fmt::format("{}: archive comment of {} bytes (expected at most 65535)", name, comment));
  }
  return {};
}

// Writes the local header and the data of a new member; returns its central-directory entry.
Result<Entry> write_new_member(Output& out, const NewMember& member,
                               std::unique_ptr<libdeflate_compressor, CompressorDeleter>& compressor) {
  Entry entry;
  entry.name = member.name;
  entry.version_made_by = 0x031E;  // Unix, zip 3.0
  entry.flags = is_ascii(member.name) ? 0 : flag_utf8;
  entry.method = static_cast<std::uint16_t>(member.method);
  entry.dos_time = member.dos_time;
  entry.dos_date = member.dos_date != 0 ? member.dos_date : 0x21;  // 0 is no date: 1980-01-01
  entry.crc32 = crc32(member.data);
  entry.uncompressed_size = member.data.size();
  entry.external_attributes = (member.unix_mode & 0xFFFF) << 16;
  if (entry.is_directory()) entry.external_attributes |= 0x10;  // MS-DOS directory attribute
  entry.local_header_offset = out.position();

  std::string compressed;
  std::string_view data = member.data;
  if (member.method == Method::Deflate) {
    if (!compressor) {
      compressor.reset(libdeflate_alloc_compressor(6));
      if (!compressor) throw std::bad_alloc();
    }
    compressed.resize(libdeflate_deflate_compress_bound(compressor.get(), member.data.size()));
    const std::size_t n = libdeflate_deflate_compress(compressor.get(), member.data.data(), member.data.size(),
                                                      compressed.data(), compressed.size());
    compressed.resize(n);
    data = compressed;
  }
  entry.compressed_size = data.size();
  const bool zip64_sizes = entry.compressed_size >= max32 || entry.uncompressed_size >= max32;
  entry.version_needed = needs_zip64(entry, entry.local_header_offset) ? 45 : 20;

  char h[local_header_size + 20];
  char* q = store32(h, local_header_signature);
  q = store16(q, entry.version_needed);
  q = store16(q, entry.flags);
  q = store16(q, entry.method);
  q = store16(q, entry.dos_time);
  q = store16(q, entry.dos_date);
  q = store32(q, entry.crc32);
  q = store32(q, zip64_sizes ? max32 : static_cast<std::uint32_t>(entry.compressed_size));
  q = store32(q, zip64_sizes ? max32 : static_cast<std::uint32_t>(entry.uncompressed_size));
  q = store16(q, static_cast<std::uint16_t>(entry.name.size()));
  q = store16(q, zip64_sizes ? 20 : 0);
  std::string& buffer = out.buffer();
  buffer.append(h, local_header_size);
  buffer.append(entry.name);
  if (zip64_sizes) {
    // In a local header the zip64 field holds both sizes.
    q = store16(h, zip64_extra_id);
    q = store16(q, 16);
    q = store64(q, entry.uncompressed_size);
    store64(q, entry.compressed_size);
    buffer.append(h, 20);
  }
  if (auto r = out.write(data); !r) return fail(r.error());
  if (auto r = out.maybe_flush(); !r) return fail(r.error());
  return entry;
}

Result<void> write_end_records(Output& out, std::uint64_t count, std::uint64_t cd_offset, std::uint64_t cd_size,
                               std::string_view comment) {
  std::string& buffer = out.buffer();
  char b[zip64_eocd_size];
  if (count >= max16 || cd_offset >= max32 || cd_size >= max32) {
    const std::uint64_t record_at = out.position();
    char* q = store32(b, zip64_eocd_signature);
    q = store64(q, zip64_eocd_size - 12);
    q = store16(q, 45);  // version made by
    q = store16(q, 45);  // version needed
    q = store32(q, 0);   // this disk
    q = store32(q, 0);   // disk of the central directory
    q = store64(q, count);
    q = store64(q, count);
    q = store64(q, cd_size);
    store64(q, cd_offset);
    buffer.append(b, zip64_eocd_size);
    q = store32(b, zip64_locator_signature);
    q = store32(q, 0);
    q = store64(q, record_at);
    store32(q, 1);  // total disks
    buffer.append(b, zip64_locator_size);
  }
  const auto count16 = static_cast<std::uint16_t>(std::min<std::uint64_t>(count, max16));
  char* q = store32(b, eocd_signature);
  q = store16(q, 0);
  q = store16(q, 0);
  q = store16(q, count16);
  q = store16(q, count16);
  q = store32(q, clamp32(cd_size));
  q = store32(q, clamp32(cd_offset));
  store16(q, static_cast<std::uint16_t>(comment.size()));
  buffer.append(b, eocd_size);
  buffer.append(comment);
  return out.flush();
}

}  // namespace

Result<void> write_archive(const Archive* source, const WritePlan& plan, const std::filesystem::path& output) {
  if (auto r = check_plan(source, plan, output.string()); !r) return r;
  auto created = Output::create(output);
  if (!created) return fail(created.error());
  Output& out = **created;

  std::size_t added = 0;
  for (const PlannedMember& member : plan.members) added += std::holds_alternative<NewMember>(member) ? 1 : 0;
  std::vector<Entry> new_entries;
  new_entries.reserve(added);  // stable addresses for `placed`
  std::vector<Placed> placed;
  placed.reserve(plan.members.size());
  std::unique_ptr<libdeflate_compressor, CompressorDeleter> compressor;

  // Consecutive copied members that are contiguous in the source are copied in one run.
  std::uint64_t run_begin = 0;
  std::uint64_t run_end = 0;
  std::uint64_t run_at = 0;  // where the run goes in the output
  const auto flush_run = [&]() -> Result<void> {
    if (run_end == run_begin) return {};
    auto r = out.copy(*source, run_begin, run_end - run_begin);
    run_begin = run_end = 0;
    return r;
  };
  for (const PlannedMember& member : plan.members) {
    if (const auto* index = std::get_if<std::size_t>(&member)) {
      const Entry& entry = source->entries()[*index];
      if (run_end == run_begin || entry.local_header_offset != run_end) {
        if (auto r = flush_run(); !r) return r;
        run_begin = entry.local_header_offset;
        run_at = out.position();
      }
      run_end = entry.span_end;
      placed.push_back({&entry, run_at + (entry.local_header_offset - run_begin)});
    } else {
      if (auto r = flush_run(); !r) return r;
      auto entry = write_new_member(out, std::get<NewMember>(member), compressor);
      if (!entry) return fail(entry.error());
      new_entries.push_back(std::move(*entry));
      placed.push_back({&new_entries.back(), new_entries.back().local_header_offset});
    }
  }
  if (auto r = flush_run(); !r) return r;

  const std::uint64_t cd_offset = out.position();
  for (const Placed& p : placed) {
    const std::size_t extra =
        central_record_size(*p.entry, p.offset) - central_header_size - p.entry->name.size() - p.entry->comment.size();
    if (extra > max16) {
      return fail(fmt::format("{}: member `{}`: no room for a zip64 field next to its {} bytes of extra fields",
                              out.name(), printable(p.entry->name), p.entry->extra.size()));
    }
    append_central_record(out.buffer(), *p.entry, p.offset);
    if (auto r = out.maybe_flush(); !r) return r;
  }
  const std::uint64_t cd_size = out.position() - cd_offset;
  const std::string_view comment = plan.comment ? std::string_view(*plan.comment)
                                   : source     ? std::string_view(source->comment())
                                                : std::string_view();
  if (auto r = write_end_records(out, placed.size(), cd_offset, cd_size, comment); !r) return r;
  return out.commit();
}

}  // namespace vwheel::zip
