#pragma once
// Private to the zip component: the state of an open archive, shared by the code that finds and
// checks its central directory (central_directory.cpp) and the code that reads its members
// (archive.cpp).

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/growing_file.hpp"
#include "vwheel/zip/zip.hpp"
#include "zip/format.hpp"

namespace vwheel::zip {

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
  [[nodiscard]] Result<void> read_at(char* buf, std::size_t len, std::uint64_t offset) const;
  [[nodiscard]] Result<void> read_file(char* buf, std::size_t len, std::uint64_t offset) const;

  // Opening (central_directory.cpp).
  [[nodiscard]] Result<void> load(std::string_view tail, std::uint64_t tail_start, std::size_t eocd_index);
  class CentralDirectoryReader;
  [[nodiscard]] Result<void> parse_central_directory(CentralDirectoryReader& reader, std::uint64_t count);
  [[nodiscard]] Result<void> index_names();
  [[nodiscard]] const Entry* find(std::string_view key) const noexcept;
  [[nodiscard]] Result<void> check_spans();

  // Reading members (archive.cpp).
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

}  // namespace vwheel::zip
