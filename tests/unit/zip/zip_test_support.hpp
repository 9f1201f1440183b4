#pragma once
// Helpers of the zip tests: a scratch directory, archives made with libzip (the oracle) or byte by
// byte (for hostile and unusual archives), and a libzip reader.

#include <gtest/gtest.h>
#include <libdeflate.h>
#include <stdlib.h>
#include <zip.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/zip/zip.hpp"

namespace vwheel::zip::testing {

namespace fs = std::filesystem;

// A fresh directory under the system's temporary directory, removed with its content.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "vwheel-zip-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  [[nodiscard]] const fs::path& path() const { return path_; }
  [[nodiscard]] fs::path operator/(std::string_view name) const { return path_ / name; }
  // The names in the directory, sorted.
  [[nodiscard]] std::vector<std::string> listing() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(path_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  fs::path path_;
};

inline void write_bytes(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Deterministic bytes that do not compress.
inline std::string noise(std::size_t size, std::uint32_t seed) {
  std::string out(size, '\0');
  std::uint32_t x = seed * 2654435761U + 1;
  for (auto& c : out) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    c = static_cast<char>(x & 0xFF);
  }
  return out;
}

// Text that compresses well.
inline std::string text(std::size_t lines, std::string_view word) {
  std::string out;
  for (std::size_t i = 0; i < lines; ++i) out += std::string(word) + " line " + std::to_string(i) + "\n";
  return out;
}

// The archive `bytes` (without a comment) with `comment` (libzip refuses comments that are not text).
inline std::string with_comment(std::string bytes, std::string_view comment) {
  bytes.resize(bytes.size() - 2);  // the comment length, 0
  bytes.push_back(static_cast<char>(comment.size() & 0xFF));
  bytes.push_back(static_cast<char>(comment.size() >> 8));
  bytes.append(comment);
  return bytes;
}

inline void use_utc() {
  ::setenv("TZ", "UTC", 1);
  ::tzset();
}

// ---- libzip ----

struct LibzipMember {
  std::string name;
  std::string data;
  bool deflate = true;
  std::uint32_t mode = 0100644;
  std::time_t mtime = 1700000000;  // 2023-11-14T22:13:20Z
};

// Writes an archive with libzip; a name ending in `/` is a directory.
inline void make_libzip_archive(const fs::path& path, const std::vector<LibzipMember>& members,
                                const std::string& comment = {}) {
  int error = 0;
  zip_t* za = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  ASSERT_NE(za, nullptr) << "zip_open: " << error;
  for (const auto& m : members) {
    zip_int64_t index = 0;
    if (!m.name.empty() && m.name.back() == '/') {
      index = zip_dir_add(za, m.name.c_str(), ZIP_FL_ENC_UTF_8);
    } else {
      zip_source_t* source = zip_source_buffer(za, m.data.data(), m.data.size(), 0);
      ASSERT_NE(source, nullptr);
      index = zip_file_add(za, m.name.c_str(), source, ZIP_FL_ENC_UTF_8);
    }
    ASSERT_GE(index, 0) << zip_strerror(za);
    const auto i = static_cast<zip_uint64_t>(index);
    ASSERT_EQ(zip_set_file_compression(za, i, m.deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0), 0);
    ASSERT_EQ(zip_file_set_external_attributes(za, i, 0, ZIP_OPSYS_UNIX, m.mode << 16), 0);
    ASSERT_EQ(zip_file_set_mtime(za, i, m.mtime, 0), 0);
  }
  if (!comment.empty()) {
    ASSERT_EQ(zip_set_archive_comment(za, comment.data(), static_cast<zip_uint16_t>(comment.size())), 0);
  }
  ASSERT_EQ(zip_close(za), 0) << zip_strerror(za);
}

// An archive opened by libzip with its consistency checks (every local header against the central
// directory).
class LibzipReader {
 public:
  explicit LibzipReader(const fs::path& path) {
    int error = 0;
    za_ = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &error);
    error_ = error;
  }
  LibzipReader(const LibzipReader&) = delete;
  LibzipReader& operator=(const LibzipReader&) = delete;
  ~LibzipReader() {
    if (za_ != nullptr) zip_discard(za_);
  }
  [[nodiscard]] bool ok() const { return za_ != nullptr; }
  [[nodiscard]] int error() const { return error_; }
  [[nodiscard]] zip_int64_t size() const { return zip_get_num_entries(za_, 0); }
  [[nodiscard]] std::string name(zip_uint64_t i) const {
    const char* n = zip_get_name(za_, i, ZIP_FL_ENC_RAW);
    return n == nullptr ? std::string() : std::string(n);
  }
  [[nodiscard]] zip_stat_t stat(zip_uint64_t i) const {
    zip_stat_t st;
    zip_stat_init(&st);
    EXPECT_EQ(zip_stat_index(za_, i, 0, &st), 0);
    return st;
  }
  [[nodiscard]] std::uint32_t external_attributes(zip_uint64_t i, std::uint8_t* opsys = nullptr) const {
    zip_uint8_t os = 0;
    zip_uint32_t attributes = 0;
    EXPECT_EQ(zip_file_get_external_attributes(za_, i, 0, &os, &attributes), 0);
    if (opsys != nullptr) *opsys = os;
    return attributes;
  }
  [[nodiscard]] std::string comment() const {
    int len = 0;
    const char* c = zip_get_archive_comment(za_, &len, ZIP_FL_ENC_RAW);
    return c == nullptr ? std::string() : std::string(c, static_cast<std::size_t>(len));
  }
  // The member's content, or nullopt when libzip fails to read it (bad CRC, ...).
  [[nodiscard]] std::optional<std::string> read(zip_uint64_t i) const {
    const zip_stat_t st = stat(i);
    zip_file_t* f = zip_fopen_index(za_, i, 0);
    if (f == nullptr) return std::nullopt;
    std::string out(static_cast<std::size_t>(st.size), '\0');
    const zip_int64_t n = zip_fread(f, out.data(), out.size());
    char extra = 0;
    const zip_int64_t more = zip_fread(f, &extra, 1);
    const int closed = zip_fclose(f);
    if (n != static_cast<zip_int64_t>(out.size()) || more != 0 || closed != 0) return std::nullopt;
    return out;
  }

 private:
  zip_t* za_ = nullptr;
  int error_ = 0;
};

// ---- archives byte by byte ----

inline void put16(std::string& s, std::uint32_t v) {
  s.push_back(static_cast<char>(v & 0xFF));
  s.push_back(static_cast<char>((v >> 8) & 0xFF));
}
inline void put32(std::string& s, std::uint32_t v) {
  put16(s, v & 0xFFFF);
  put16(s, v >> 16);
}
inline void put64(std::string& s, std::uint64_t v) {
  put32(s, static_cast<std::uint32_t>(v & 0xFFFFFFFF));
  put32(s, static_cast<std::uint32_t>(v >> 32));
}
inline std::uint16_t get16(std::string_view s, std::size_t at) {
  return static_cast<std::uint16_t>(static_cast<unsigned char>(s[at]) | (static_cast<unsigned char>(s[at + 1]) << 8));
}
inline std::uint32_t get32(std::string_view s, std::size_t at) {
  return std::uint32_t{get16(s, at)} | (std::uint32_t{get16(s, at + 2)} << 16);
}
inline void set32(std::string& s, std::size_t at, std::uint32_t v) {
  std::string b;
  put32(b, v);
  s.replace(at, 4, b);
}
inline void set16(std::string& s, std::size_t at, std::uint16_t v) {
  std::string b;
  put16(b, v);
  s.replace(at, 2, b);
}

struct RawMember {
  std::string name;
  std::string stored;  // the bytes as stored (deflated for method 8)
  std::uint16_t method = 0;
  std::uint32_t crc = 0;
  std::uint64_t size = 0;  // uncompressed
  std::uint16_t flags = 0;
  bool data_descriptor = false;  // flag bit 3: zeros in the local header, a signed descriptor after the data
  std::string local_extra;
  std::string central_extra;
  std::optional<std::string> local_name;        // a different name in the local header
  std::optional<std::uint64_t> central_offset;  // a different local header offset in the central directory
  std::uint16_t version_made_by = 0x0314;       // Unix, 2.0
  std::uint32_t external = 0100644U << 16;
  std::uint16_t dos_time = 0x6000;
  std::uint16_t dos_date = 0x5821;
};

inline RawMember stored_member(std::string name, std::string content) {
  RawMember m;
  m.name = std::move(name);
  m.crc = libdeflate_crc32(0, content.data(), content.size());
  m.size = content.size();
  m.stored = std::move(content);
  return m;
}

inline RawMember deflated_member(std::string name, const std::string& content) {
  RawMember m;
  m.name = std::move(name);
  m.method = 8;
  m.crc = libdeflate_crc32(0, content.data(), content.size());
  m.size = content.size();
  libdeflate_compressor* c = libdeflate_alloc_compressor(6);
  m.stored.resize(libdeflate_deflate_compress_bound(c, content.size()));
  m.stored.resize(libdeflate_deflate_compress(c, content.data(), content.size(), m.stored.data(), m.stored.size()));
  libdeflate_free_compressor(c);
  return m;
}

struct RawOptions {
  bool zip64 = false;  // every size and offset in zip64 extra fields, zip64 end records
  std::string comment;
  std::string prefix;  // bytes before the archive, offsets not adjusted
  std::uint16_t eocd_disk = 0;
};

inline std::string build_raw(const std::vector<RawMember>& members, const RawOptions& options = {}) {
  std::string out = options.prefix;
  const std::size_t base = out.size();
  std::vector<std::uint64_t> offsets;
  for (const auto& m : members) {
    offsets.push_back(out.size() - base);
    const std::string& local_name = m.local_name ? *m.local_name : m.name;
    std::string extra = m.local_extra;
    if (options.zip64) {
      put16(extra, 1);
      put16(extra, 16);
      put64(extra, m.data_descriptor ? 0 : m.size);
      put64(extra, m.data_descriptor ? 0 : m.stored.size());
    }
    put32(out, 0x04034b50);
    put16(out, options.zip64 ? 45 : 20);
    put16(out, m.flags | (m.data_descriptor ? 8 : 0));
    put16(out, m.method);
    put16(out, m.dos_time);
    put16(out, m.dos_date);
    put32(out, m.data_descriptor ? 0 : m.crc);
    put32(out, options.zip64 ? 0xFFFFFFFF : m.data_descriptor ? 0 : static_cast<std::uint32_t>(m.stored.size()));
    put32(out, options.zip64 ? 0xFFFFFFFF : m.data_descriptor ? 0 : static_cast<std::uint32_t>(m.size));
    put16(out, static_cast<std::uint32_t>(local_name.size()));
    put16(out, static_cast<std::uint32_t>(extra.size()));
    out += local_name;
    out += extra;
    out += m.stored;
    if (m.data_descriptor) {
      put32(out, 0x08074b50);
      put32(out, m.crc);
      if (options.zip64) {
        put64(out, m.stored.size());
        put64(out, m.size);
      } else {
        put32(out, static_cast<std::uint32_t>(m.stored.size()));
        put32(out, static_cast<std::uint32_t>(m.size));
      }
    }
  }
  const std::uint64_t cd_offset = out.size() - base;
  for (std::size_t i = 0; i < members.size(); ++i) {
    const auto& m = members[i];
    const std::uint64_t offset = m.central_offset ? *m.central_offset : offsets[i];
    std::string extra = m.central_extra;
    if (options.zip64) {  // after the other fields, to check that it is cut out of the middle
      std::string z;
      put16(z, 1);
      put16(z, 24);
      put64(z, m.size);
      put64(z, m.stored.size());
      put64(z, offset);
      extra = extra + z;
    }
    put32(out, 0x02014b50);
    put16(out, m.version_made_by);
    put16(out, options.zip64 ? 45 : 20);
    put16(out, m.flags | (m.data_descriptor ? 8 : 0));
    put16(out, m.method);
    put16(out, m.dos_time);
    put16(out, m.dos_date);
    put32(out, m.crc);
    put32(out, options.zip64 ? 0xFFFFFFFF : static_cast<std::uint32_t>(m.stored.size()));
    put32(out, options.zip64 ? 0xFFFFFFFF : static_cast<std::uint32_t>(m.size));
    put16(out, static_cast<std::uint32_t>(m.name.size()));
    put16(out, static_cast<std::uint32_t>(extra.size()));
    put16(out, 0);  // comment
    put16(out, 0);  // disk
    put16(out, 0);  // internal attributes
    put32(out, m.external);
    put32(out, options.zip64 ? 0xFFFFFFFF : static_cast<std::uint32_t>(offset));
    out += m.name;
    out += extra;
  }
  const std::uint64_t cd_size = out.size() - base - cd_offset;
  if (options.zip64) {
    const std::uint64_t record = out.size() - base;
    put32(out, 0x06064b50);
    put64(out, 44);
    put16(out, 45);
    put16(out, 45);
    put32(out, 0);
    put32(out, 0);
    put64(out, members.size());
    put64(out, members.size());
    put64(out, cd_size);
    put64(out, cd_offset);
    put32(out, 0x07064b50);
    put32(out, 0);
    put64(out, record);
    put32(out, 1);
  }
  put32(out, 0x06054b50);
  put16(out, options.eocd_disk);
  put16(out, options.eocd_disk);
  put16(out, options.zip64 ? 0xFFFF : static_cast<std::uint32_t>(members.size()));
  put16(out, options.zip64 ? 0xFFFF : static_cast<std::uint32_t>(members.size()));
  put32(out, options.zip64 ? 0xFFFFFFFF : static_cast<std::uint32_t>(cd_size));
  put32(out, options.zip64 ? 0xFFFFFFFF : static_cast<std::uint32_t>(cd_offset));
  put16(out, static_cast<std::uint32_t>(options.comment.size()));
  out += options.comment;
  return out;
}

// The raw central-directory records of an archive (found by walking from its recorded offset).
inline std::vector<std::string> central_records(std::string_view bytes, std::uint64_t cd_offset, std::size_t count) {
  std::vector<std::string> records;
  std::size_t at = static_cast<std::size_t>(cd_offset);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t len = 46 + get16(bytes, at + 28) + get16(bytes, at + 30) + get16(bytes, at + 32);
    records.emplace_back(bytes.substr(at, len));
    at += len;
  }
  return records;
}

// The Python interpreter itself (not a version manager's shim, which can take most of a second to
// start), or "" when there is none.
inline const std::string& python_executable() {
  static const std::string path = [] {
    std::string out;
    FILE* pipe = ::popen("python3 -I -S -c 'import sys; print(sys.executable)' 2>/dev/null", "r");
    if (pipe == nullptr) return out;
    char buf[4096];
    while (std::fgets(buf, sizeof buf, pipe) != nullptr) out += buf;
    if (::pclose(pipe) != 0) return std::string();
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    return out;
  }();
  return path;
}

// Runs Python's zipfile over an archive: `testzip` (every CRC) and the member count. Returns
// nullopt when python3 is not available.
inline std::optional<bool> python_zipfile_ok(const fs::path& path, std::size_t count) {
  if (python_executable().empty()) return std::nullopt;
  const std::string command = "'" + python_executable() +
                              "' -I -S -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); "
                              "sys.exit(0 if z.testzip() is None and len(z.infolist()) == int(sys.argv[2]) else 1)' '" +
                              path.string() + "' " + std::to_string(count);
  return std::system(command.c_str()) == 0;
}

// Expects Python's zipfile to accept the archive (when python3 is available).
inline void expect_python_accepts(const fs::path& path, std::size_t count) {
  const auto ok = python_zipfile_ok(path, count);
  if (!ok) return;
  EXPECT_TRUE(*ok) << "Python's zipfile rejects " << path.string();
}

}  // namespace vwheel::zip::testing
