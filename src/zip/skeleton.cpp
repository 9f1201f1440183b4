// write_skeleton: a wheel's archive with only the bytes the installer reads to plan (its
// `.dist-info` and the central directory), the rest a hole.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "format.hpp"
#include "vwheel/zip/zip.hpp"

namespace vwheel::zip {

Result<void> write_skeleton(const Archive& archive, const std::function<bool(const Entry&)>& keep,
                            const std::filesystem::path& output) {
  // Byte ranges [from, to) to copy, merged where they touch (a wheel's .dist-info members are
  // next to each other and to the central directory: usually one range).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  for (const auto& e : archive.entries()) {
    if (keep(e)) ranges.emplace_back(e.local_header_offset, e.span_end);
  }
  ranges.emplace_back(archive.central_directory_offset(), archive.file_size());
  std::sort(ranges.begin(), ranges.end());
  std::vector<std::pair<std::uint64_t, std::uint64_t>> merged;
  for (const auto& r : ranges) {
    if (!merged.empty() && r.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, r.second);
    } else {
      merged.push_back(r);
    }
  }
  const std::string name = output.string();
  UniqueFd fd(::open(output.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0) return fail(fmt::format("{}: cannot create: {}", name, errno_text(errno)));
  bool done = false;
  struct RemoveUnlessDone {
    const std::filesystem::path& path;
    const bool& done;
    ~RemoveUnlessDone() {
      if (!done) (void)::unlink(path.c_str());
    }
  } guard{output, done};
  if (::ftruncate(fd.get(), static_cast<off_t>(archive.file_size())) != 0) {
    return fail(fmt::format("{}: cannot set its size: {}", name, errno_text(errno)));
  }
  const int in = ArchiveAccess::fd(archive);
  constexpr std::size_t kBuffer = std::size_t{1} << 20;
  std::unique_ptr<char[]> buffer(new char[kBuffer]);
  for (const auto& [from, to] : merged) {
    for (std::uint64_t at = from; at < to;) {
      const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(to - at, kBuffer));
      const long long n = pread_all(in, buffer.get(), want, at);
      if (n < 0) return fail(fmt::format("{}: read error at offset {}: {}", archive.path().string(), at, errno_text(errno)));
      if (static_cast<std::size_t>(n) != want) {
        return fail(fmt::format("{}: the file ends at offset {}, before its central directory said", archive.path().string(),
                                at + static_cast<std::uint64_t>(n)));
      }
      ArchiveAccess::count_read(archive, want);
      if (const int err = pwrite_all(fd.get(), {buffer.get(), want}, at); err != 0) {
        return fail(fmt::format("{}: write error: {}", name, errno_text(err)));
      }
      at += want;
    }
  }
  if (::close(fd.release()) != 0) return fail(fmt::format("{}: write error: {}", name, errno_text(errno)));
  done = true;
  return {};
}

}  // namespace vwheel::zip
