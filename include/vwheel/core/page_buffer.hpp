#pragma once
/// \file
/// Large buffers mapped from the kernel directly, in transparent huge pages where they are large
/// enough: a download's buffers (held in memory while the installer unpacks them) and the
/// installer's inflate buffers.
///
/// Why: every first touch of a 4 KiB page is a page fault, and on the paravirtualized 2-core VM
/// of issue 17 each one traps to the host. There, touching 256 MiB took 0.72 s in 4 KiB pages
/// (11 us a fault, whether or not the host had backed the memory already) and 0.016-0.46 s in
/// 2 MiB pages (pages freed a moment ago, and pages the host had to back), one run of each in
/// turn. An empty-cache install of the torch-shaped wheel (bench/install_torch.sh) took 55,000
/// page faults: 71% filling the download's 1 MiB buffers (malloc'd strings) and 16% inflating
/// members into the installer's blocks.

#include <cstddef>
#include <string_view>

namespace vwheel {

/// The size and alignment of a transparent huge page on x86-64 and on aarch64 with 4 KiB pages.
inline constexpr std::size_t kHugePage = std::size_t{2} << 20;

/// Maps `size` bytes (> 0) of zeroed, private, read-write memory. A mapping of at least
/// kHugePage bytes starts on a kHugePage boundary and is advised for transparent huge pages
/// (MADV_HUGEPAGE: used when the system allows them in advised ranges, its default on Debian).
/// Throws std::bad_alloc when the system has no memory to map.
[[nodiscard]] void* map_pages(std::size_t size);
/// Unmaps what map_pages(size) returned.
void unmap_pages(void* data, std::size_t size) noexcept;

/// Bytes in memory from map_pages: a buffer filled up to a capacity fixed when it is made.
class PageBuffer {
 public:
  PageBuffer() noexcept = default;
  /// Room for `capacity` bytes, none used (no memory mapped for 0).
  explicit PageBuffer(std::size_t capacity);
  /// A buffer holding a copy of `bytes`, exactly as large.
  [[nodiscard]] static PageBuffer copy_of(std::string_view bytes);
  ~PageBuffer();
  /// A buffer moved from is empty and maps nothing.
  PageBuffer(PageBuffer&& other) noexcept;
  PageBuffer& operator=(PageBuffer&& other) noexcept;
  PageBuffer(const PageBuffer&) = delete;
  PageBuffer& operator=(const PageBuffer&) = delete;

  [[nodiscard]] const char* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] std::string_view view() const noexcept { return {data_, size_}; }
  /// Room left after the bytes used.
  [[nodiscard]] std::size_t room() const noexcept { return capacity_ - size_; }

  /// Adds the first room() bytes of `bytes` at most; returns how many were added.
  std::size_t append(std::string_view bytes) noexcept;
  /// Forgets the bytes (the memory stays mapped for the next fill).
  void clear() noexcept { size_ = 0; }

 private:
  char* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace vwheel
