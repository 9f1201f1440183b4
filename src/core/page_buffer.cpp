#include "vwheel/core/page_buffer.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>

namespace vwheel {

namespace {

std::size_t page_size() noexcept {
  static const std::size_t size = [] {
    const long n = ::sysconf(_SC_PAGESIZE);
    return n > 0 ? static_cast<std::size_t>(n) : std::size_t{4096};
  }();
  return size;
}

void* map_anonymous(std::size_t size) {
  void* data = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (data == MAP_FAILED) throw std::bad_alloc();
  return data;
}

}  // namespace

void* map_pages(std::size_t size) {
  if (size < kHugePage) return map_anonymous(size);
  // A huge page can only back a range aligned on its size: map kHugePage more than asked, keep
  // the aligned part. (Linux aligns large anonymous mappings itself since 6.7, older kernels do not.)
  const std::size_t length = (size + page_size() - 1) / page_size() * page_size();
  auto* raw = static_cast<char*>(map_anonymous(length + kHugePage));
  const auto at = reinterpret_cast<std::uintptr_t>(raw);
  auto* aligned = reinterpret_cast<char*>((at + kHugePage - 1) / kHugePage * kHugePage);
  const std::size_t head = static_cast<std::size_t>(aligned - raw);
  if (head > 0) ::munmap(raw, head);
  ::munmap(aligned + length, kHugePage - head);
  // Advice only: a system with huge pages off (or where this fails) uses small pages.
  (void)::madvise(aligned, length, MADV_HUGEPAGE);
  return aligned;
}

void unmap_pages(void* data, std::size_t size) noexcept {
  if (data != nullptr && size > 0) ::munmap(data, size);
}

PageBuffer::PageBuffer(std::size_t capacity) : capacity_(capacity) {
  if (capacity > 0) data_ = static_cast<char*>(map_pages(capacity));
}

PageBuffer PageBuffer::copy_of(std::string_view bytes) {
  PageBuffer out(bytes.size());
  out.append(bytes);
  return out;
}

PageBuffer::~PageBuffer() { unmap_pages(data_, capacity_); }

PageBuffer::PageBuffer(PageBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      capacity_(std::exchange(other.capacity_, 0)) {}

PageBuffer& PageBuffer::operator=(PageBuffer&& other) noexcept {
  if (this != &other) {
    unmap_pages(data_, capacity_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
  }
  return *this;
}

std::size_t PageBuffer::append(std::string_view bytes) noexcept {
  const std::size_t n = std::min(bytes.size(), room());
  if (n > 0) std::memcpy(data_ + size_, bytes.data(), n);
  size_ += n;
  return n;
}

}  // namespace vwheel
