// `.dist-info` members of remote wheels read with HTTP range requests (Finder::remote_members):
// the tail of each wheel, then what more its central directory says is needed, each step for all
// the wheels of a call together, so that reading the metadata of fifteen wheels costs the round
// trips of one.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <iterator>

#include <fmt/format.h>

#include "kept_members.hpp"
#include "vwheel/core/cache_layout.hpp"
#include "vwheel/core/fd.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/finder/finder.hpp"
#include "vwheel/wheel/wheel.hpp"

namespace vwheel::finder {
namespace fs = std::filesystem;

namespace {

/// The last 64 KiB hold the central directory of most wheels.
constexpr std::uint64_t kTail = 64 * 1024;

std::uint32_t le32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return std::uint32_t{u[0]} | (std::uint32_t{u[1]} << 8) | (std::uint32_t{u[2]} << 16) | (std::uint32_t{u[3]} << 24);
}
std::uint64_t le64(const char* p) { return std::uint64_t{le32(p)} | (std::uint64_t{le32(p + 4)} << 32); }

/// The central directory's offset from the tail of a zip (`tail` ends the file of size `total`).
std::optional<std::uint64_t> central_directory_offset(std::string_view tail, std::uint64_t total) {
  if (tail.size() < 22) return std::nullopt;
  for (std::size_t i = tail.size() - 22 + 1; i-- > 0;) {
    if (std::memcmp(tail.data() + i, "PK\x05\x06", 4) != 0) continue;
    std::uint64_t cd = le32(tail.data() + i + 16);
    if (cd != 0xFFFFFFFFu) return cd;
    // zip64: the locator sits right before the EOCD and points at the zip64 EOCD record.
    if (i < 20 || std::memcmp(tail.data() + i - 20, "PK\x06\x07", 4) != 0) return std::nullopt;
    const std::uint64_t record = le64(tail.data() + i - 20 + 8);
    const std::uint64_t tail_start = total - tail.size();
    if (record < tail_start || record + 56 > total) return std::nullopt;
    const char* r = tail.data() + (record - tail_start);
    if (std::memcmp(r, "PK\x06\x06", 4) != 0) return std::nullopt;
    return le64(r + 48);
  }
  return std::nullopt;
}

/// A scratch file, named like the wheel (the wheel reader checks the name) in a directory of its
/// own; both are removed on destruction. The bytes fetched are written at their offsets in a
/// sparse file of the wheel's size, so the zip reader checks them as usual.
struct Scratch {
  fs::path dir;
  fs::path path;
  UniqueFd fd;
  Scratch() = default;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() {
    if (!dir.empty()) {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  }
  bool write_at(std::string_view data, std::uint64_t offset) const {
    return pwrite_all(fd.get(), data, offset) == 0;
  }
};

/// A Scratch with its directory only.
Result<std::unique_ptr<Scratch>> make_scratch_dir(const fs::path& parent) {
  std::error_code ec;
  fs::create_directories(parent, ec);
  auto s = std::make_unique<Scratch>();
  std::string templ = (parent / "remote-XXXXXX").string();
  if (::mkdtemp(templ.data()) == nullptr) {
    return fail(fmt::format("{}: cannot create a scratch directory: {}", parent.string(), errno_text(errno)));
  }
  s->dir = templ;
  return s;
}

Result<std::unique_ptr<Scratch>> make_scratch(const fs::path& parent, const std::string& filename, std::uint64_t size) {
  auto made = make_scratch_dir(parent);
  if (!made) return made;
  auto s = std::move(*made);
  s->path = s->dir / filename;
  s->fd.reset(::open(s->path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (!s->fd) {
    return fail(fmt::format("{}: cannot create a scratch file: {}", s->path.string(), errno_text(errno)));
  }
  if (::ftruncate(s->fd.get(), static_cast<off_t>(size)) != 0) {
    return fail(fmt::format("{}: cannot size a scratch file: {}", s->path.string(), errno_text(errno)));
  }
  return s;
}

/// FinderOptions::download's stand-in: the wheels written or downloaded into `dir`.
std::vector<Result<http::Downloaded>> to_scratch(http::Client& client, const fs::path& dir,
                                                 const std::vector<WholeWheel>& wheels) {
  std::vector<Result<http::Downloaded>> out(wheels.size(), fail("not downloaded"));
  std::vector<http::DownloadRequest> requests;
  std::vector<std::size_t> owners;
  for (std::size_t i = 0; i < wheels.size(); ++i) {
    const auto& [f, answer] = wheels[i];
    if (answer->too_large) {
      requests.emplace_back(f->url, dir / f->filename, f->sha256(), f->size);
      owners.push_back(i);
    } else if (auto ok = write_file_atomic(dir / f->filename, answer->body, Durability::none); !ok) {
      out[i] = fail(ok.error());
    } else {
      http::Downloaded d;
      d.path = dir / f->filename;
      d.size = answer->body.size();
      d.etag = answer->etag;
      d.last_modified = answer->last_modified;
      out[i] = std::move(d);
    }
  }
  auto got = client.download(requests);
  for (std::size_t k = 0; k < got.size(); ++k) out[owners[k]] = std::move(got[k]);
  return out;
}

/// One wheel's read, from step to step.
struct Reading {
  const File* file = nullptr;
  std::optional<Result<std::optional<std::string>>> result;  ///< set once the read is over
  http::RangeResponse tail;                                  ///< the first answer (its validators are kept)
  std::unique_ptr<Scratch> scratch;
  std::optional<wheel::Wheel> wheel;       ///< the scratch file opened, once its central directory is in
  std::optional<http::RangeRequest> more;  ///< the next range this wheel needs
};

}  // namespace

Result<std::optional<std::string>> detail::read_member(const fs::path& path, std::string_view suffix,
                                                       const std::string& context) {
  auto w = wheel::open_wheel(path);
  if (!w) return fail(w.error().with_context(context));
  const auto* entry = w->archive.find(fmt::format("{}/{}", w->dist_info, suffix));
  if (!entry) return std::optional<std::string>{};
  auto data = w->archive.read(*entry, kMaxMember);
  if (!data) return fail(data.error().with_context(context));
  return std::optional<std::string>(std::move(*data));
}

std::vector<Result<std::optional<std::string>>> Finder::remote_members(const std::vector<const File*>& files,
                                                                       std::string_view suffix) {
  // Memory stays bounded whatever the index lists: at most kGroup wheels are read at once, and
  // a server that ignores ranges sends whole wheels, taken up to kWholeBudget / (wheels read at
  // once) bytes each (64 MiB for one wheel alone; 1 MiB each in a full group). Those are put on
  // disk (options_.download: where the installer finds them), a larger one downloaded.
  constexpr std::size_t kGroup = 64;
  constexpr std::size_t kWholeBudget = std::size_t{64} << 20;
  if (files.size() > kGroup) {
    std::vector<Result<std::optional<std::string>>> out;
    out.reserve(files.size());
    for (std::size_t at = 0; at < files.size(); at += kGroup) {
      const std::vector<const File*> group(
          files.begin() + static_cast<std::ptrdiff_t>(at),
          files.begin() + static_cast<std::ptrdiff_t>(std::min(files.size(), at + kGroup)));
      auto part = remote_members(group, suffix);
      std::move(part.begin(), part.end(), std::back_inserter(out));
    }
    return out;
  }
  const std::size_t whole_limit = kWholeBudget / std::max<std::size_t>(files.size(), 1);
  std::vector<Reading> reads(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    reads[i].file = files[i];
    const auto& f = *files[i];
    std::error_code ec;
    if (f.filename.find('/') != std::string::npos || f.filename.starts_with(".")) {
      reads[i].result = fail(fmt::format("{}: unsafe file name `{}`", redact_url(f.url), f.filename));
    } else if (auto it = downloaded_.find(f.url); it != downloaded_.end() && fs::is_regular_file(it->second, ec)) {
      reads[i].result = detail::read_member(it->second, suffix, f.url);  // downloaded by an earlier call
    } else {
      reads[i].more = http::RangeRequest{f.url, std::nullopt, kTail};
    }
  }
  // Fetches the range each unfinished read asks for, all together; `on_answer` takes each answer.
  auto fetch = [&](auto&& on_answer) {
    std::vector<http::RangeRequest> batch;
    std::vector<Reading*> asking;
    for (auto& r : reads) {
      if (r.result || !r.more) continue;
      batch.push_back(std::move(*r.more));
      r.more.reset();
      asking.push_back(&r);
    }
    if (batch.empty()) return;
    requests_ += batch.size();
    auto answers = client_.get_ranges(batch, whole_limit);
    for (std::size_t k = 0; k < asking.size(); ++k) {
      auto& r = *asking[k];
      if (!answers[k]) {
        r.result = fail(answers[k].error());
      } else if (!r.scratch || r.scratch->write_at(answers[k]->body, answers[k]->whole ? 0 : answers[k]->offset)) {
        on_answer(r, std::move(*answers[k]));
      } else {
        r.result = fail(fmt::format("{}: cannot write", r.scratch->path.string()));
      }
    }
  };
  // 1. The tail: (most often) the central directory, and the end of the central directory, which
  //    says where the directory starts; or the whole wheel when the server ignores the range.
  fetch([&](Reading& r, http::RangeResponse answer) {
    const auto& f = *r.file;
    if (answer.whole) {  // put on disk below
      r.tail = std::move(answer);
      return;
    }
    const std::uint64_t total = answer.total_size.value_or(0);
    if (total == 0) {
      r.result = fail(fmt::format("{}: the server did not say the file's size", redact_url(f.url)));
      return;
    }
    auto scratch = make_scratch(CacheLayout(options_.cache_dir).area(CacheArea::tmp), f.filename, total);
    if (!scratch) {
      r.result = fail(scratch.error());
      return;
    }
    r.scratch = std::move(*scratch);
    if (!r.scratch->write_at(answer.body, answer.offset)) {
      r.result = fail(fmt::format("{}: cannot write", r.scratch->path.string()));
      return;
    }
    auto cd = central_directory_offset(answer.body, total);
    if (!cd || *cd > total) {
      r.result = fail(fmt::format("{}: not a zip file (no end of central directory)", redact_url(f.url)));
      return;
    }
    if (*cd < answer.offset) r.more = http::RangeRequest{f.url, *cd, answer.offset - *cd};
    answer.body.clear();  // only its validators are kept
    r.tail = std::move(answer);
  });
  // 1b. Wheels from a server that ignores ranges: put on disk (written, or downloaded when they
  //     were too large to take into memory), all at once, and read there.
  std::vector<Reading*> whole;
  for (auto& r : reads) {
    if (!r.result && r.tail.whole) whole.push_back(&r);
  }
  if (!whole.empty()) {
    std::vector<WholeWheel> wanted;
    for (const auto* r : whole) {
      wanted.push_back({r->file, &r->tail});
      requests_ += r->tail.too_large ? 1 : 0;
    }
    std::unique_ptr<Scratch> scratch;  // without options_.download: removed with what it holds
    std::vector<Result<http::Downloaded>> got;
    if (options_.download) {
      got = options_.download(client_, wanted);
    } else if (auto dir = make_scratch_dir(CacheLayout(options_.cache_dir).area(CacheArea::tmp)); !dir) {
      got.assign(wanted.size(), tl::unexpected(dir.error()));
    } else {
      scratch = std::move(*dir);
      got = to_scratch(client_, scratch->dir, wanted);
    }
    for (std::size_t k = 0; k < whole.size(); ++k) {
      auto& r = *whole[k];
      if (k >= got.size() || !got[k]) {
        r.result = fail(k < got.size() ? got[k].error() : Error(fmt::format("{}: not downloaded", redact_url(r.file->url))));
        continue;
      }
      const auto& d = *got[k];
      if (options_.download) downloaded_.insert_or_assign(r.file->url, d.path);
      // What the download's answer said of the file: kept with the member, and the answer a HEAD
      // request would give now (the installer then takes the download without asking again).
      http::RangeResponse answer;
      answer.whole = true;
      answer.total_size = d.size;
      answer.etag = d.etag;
      answer.last_modified = d.last_modified;
      if (detail::kept_by_url(*r.file)) {
        http::Response head;
        head.status = 200;
        head.url = r.file->url;
        head.etag = d.etag;
        head.last_modified = d.last_modified;
        head.content_length = d.size;
        heads_.insert_or_assign(r.file->url, std::move(head));
      }
      auto content = detail::read_member(d.path, suffix, r.file->url);
      if (content) keep_member(*r.file, suffix, *content, answer);
      r.result = std::move(content);
    }
    for (auto* r : whole) r->tail.body = std::string();  // only its validators are kept
  }
  // 2. The rest of a central directory that the tail did not hold.
  fetch([](Reading&, const http::RangeResponse&) {});
  // 3. The member, where the tail did not hold it.
  for (auto& r : reads) {
    if (r.result) continue;
    auto w = wheel::open_wheel(r.scratch->path);
    if (!w) {
      r.result = fail(w.error().with_context(redact_url(r.file->url)));
      continue;
    }
    const auto member = fmt::format("{}/{}", w->dist_info, suffix);
    const auto* entry = w->archive.find(member);
    if (!entry) {
      keep_member(*r.file, suffix, std::nullopt, r.tail);
      r.result = std::optional<std::string>{};
    } else if (!r.tail.whole && entry->local_header_offset < r.tail.offset) {
      if (entry->span_end - entry->local_header_offset > detail::kMaxMember) {
        r.result = fail(fmt::format("{}: `{}` is larger than {} bytes", redact_url(r.file->url), member, detail::kMaxMember));
      } else {
        r.more =
            http::RangeRequest{r.file->url, entry->local_header_offset, entry->span_end - entry->local_header_offset};
      }
    }
    r.wheel.emplace(std::move(*w));
  }
  fetch([](Reading&, const http::RangeResponse&) {});
  // 4. The member's bytes, checked by the zip reader (sizes, CRC-32).
  std::vector<Result<std::optional<std::string>>> out;
  out.reserve(reads.size());
  for (auto& r : reads) {
    if (!r.result) {
      const auto* entry = r.wheel->archive.find(fmt::format("{}/{}", r.wheel->dist_info, suffix));
      auto data = r.wheel->archive.read(*entry, detail::kMaxMember);
      if (!data) {
        r.result = fail(data.error().with_context(redact_url(r.file->url)));
      } else {
        std::optional<std::string> content(std::move(*data));
        keep_member(*r.file, suffix, content, r.tail);
        r.result = std::move(content);
      }
    }
    out.push_back(std::move(*r.result));
  }
  return out;
}

}  // namespace vwheel::finder
