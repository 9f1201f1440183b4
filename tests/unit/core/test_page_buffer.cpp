#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "vwheel/core/page_buffer.hpp"

namespace {

using vwheel::kHugePage;
using vwheel::PageBuffer;

// The VmFlags of the mapping holding `address` in /proc/self/smaps ("" when not found).
std::string vm_flags_of(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t from = 0;
    std::uintptr_t to = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> from >> dash >> to && dash == '-') {
      inside = from <= at && at < to;
    } else if (inside && line.starts_with("VmFlags:")) {
      return line;
    }
  }
  return {};
}

bool huge_pages_allowed() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode;
  std::getline(in, mode);
  return !mode.empty() && mode.find("[never]") == std::string::npos;
}

TEST(MapPages, LargeMappingsAreAlignedOnAHugePageAndAdvisedForThem) {
  const std::size_t size = kHugePage + kHugePage / 2;
  auto* data = static_cast<unsigned char*>(vwheel::map_pages(size));
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(data) % kHugePage, 0u);
  // Zeroed and writable to the last byte.
  EXPECT_EQ(data[0], 0);
  EXPECT_EQ(data[size - 1], 0);
  data[size - 1] = 7;
  EXPECT_EQ(data[size - 1], 7);
  if (huge_pages_allowed()) {
    EXPECT_NE(vm_flags_of(data).find(" hg"), std::string::npos) << vm_flags_of(data);
  } else {
    GTEST_LOG_(INFO) << "transparent huge pages are off here: the advice is not checked";
  }
  vwheel::unmap_pages(data, size);
}

TEST(MapPages, SmallMappingsAreOrdinaryPages) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  auto* data = static_cast<char*>(vwheel::map_pages(3 * page));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(data) % page, 0u);
  EXPECT_EQ(vm_flags_of(data).find(" hg"), std::string::npos) << vm_flags_of(data);
  data[3 * page - 1] = 1;
  vwheel::unmap_pages(data, 3 * page);
}

TEST(PageBuffer, FillsUpToItsCapacity) {
  PageBuffer buffer(10);
  EXPECT_TRUE(buffer.empty());
  EXPECT_EQ(buffer.capacity(), 10u);
  EXPECT_EQ(buffer.append("abcdef"), 6u);
  EXPECT_EQ(buffer.room(), 4u);
  EXPECT_EQ(buffer.append("ghijkl"), 4u);  // what fits; the caller goes on with the rest
  EXPECT_EQ(buffer.view(), "abcdefghij");
  EXPECT_EQ(buffer.append("x"), 0u);
  buffer.clear();
  EXPECT_TRUE(buffer.empty());
  EXPECT_EQ(buffer.capacity(), 10u);
  EXPECT_EQ(buffer.append("z"), 1u);
  EXPECT_EQ(buffer.view(), "z");
}

TEST(PageBuffer, CopiesAreExactlyAsLargeAndMovesTakeTheMemory) {
  const auto copy = PageBuffer::copy_of("held bytes");
  EXPECT_EQ(copy.view(), "held bytes");
  EXPECT_EQ(copy.capacity(), copy.size());

  PageBuffer a(kHugePage);
  a.append("first");
  const char* memory = a.data();
  PageBuffer b(std::move(a));
  EXPECT_EQ(b.data(), memory);
  EXPECT_EQ(b.view(), "first");
  EXPECT_EQ(a.capacity(), 0u);  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  PageBuffer c(4);
  c = std::move(b);
  EXPECT_EQ(c.data(), memory);
  EXPECT_EQ(c.capacity(), kHugePage);
  EXPECT_TRUE(PageBuffer().view().empty());
  EXPECT_TRUE(PageBuffer::copy_of("").empty());
}

}  // namespace
