#pragma once
/// \file
/// SHA-256, one-shot and streaming, and its hex form (variant labels, cache keys, RECORD files);
/// SHA-384 and SHA-512 (FIPS 180-4) for RECORD rows that use them.
///
/// Large inputs are hashed by OpenSSL's libcrypto (libcrypto.so.3, loaded with dlopen on first
/// need: SHA-NI/AVX2 code, several times the built-in code's speed); small ones, and every input
/// when the library is absent, by built-in code, so that short commands never load it.

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "vwheel/core/error.hpp"

namespace vwheel {

using Sha256Digest = std::array<std::uint8_t, 32>;
using Sha384Digest = std::array<std::uint8_t, 48>;
using Sha512Digest = std::array<std::uint8_t, 64>;

/// Which code computes a digest.
enum class HashEngine : unsigned char {
  automatic,  ///< built-in for small inputs, libcrypto for large ones (thresholds in hash.cpp)
  builtin,    ///< always the built-in code
  libcrypto,  ///< libcrypto for every input (the built-in code when it cannot be loaded)
};

/// Whether libcrypto.so.3 can be loaded (loads it on the first call).
[[nodiscard]] bool libcrypto_available() noexcept;

/// SHA-256 of `data`.
[[nodiscard]] Sha256Digest sha256(std::string_view data);

/// Lowercase hex of a digest (64 characters).
[[nodiscard]] std::string to_hex(const Sha256Digest& digest);

/// Lowercase hex SHA-256 of `data`.
[[nodiscard]] std::string sha256_hex(std::string_view data);

/// Whether `text` is a lowercase hex SHA-256 (64 characters of 0-9a-f): safe as a file name.
[[nodiscard]] bool is_sha256_hex(std::string_view text) noexcept;

/// What sha256_file() read: the SHA-256 of a file and how many bytes it covers, with the
/// identity of the file as opened (fstat(2) before reading), so that a caller can key a cache by
/// what was hashed.
struct FileDigest {
  std::string sha256;          ///< lowercase hex, 64 characters
  std::uint64_t size = 0;      ///< bytes read and hashed
  std::int64_t mtime_ns = 0;   ///< modification time, nanoseconds since the epoch
  std::uint64_t inode = 0;
  std::uint64_t device = 0;
};

/// SHA-256 of a regular file, read in pieces of at most 1 MiB: memory does not grow with the file
/// (a 2 GB wheel is hashed in a fixed buffer, not read whole nor mapped, whose pages would count
/// in the resident set). Opened with open_regular_file() (core/fs.hpp): a FIFO or a device is
/// refused at once, never waited on. The error is one line naming the file: it cannot be opened,
/// is not a regular file (and what it is instead), or a read failed.
[[nodiscard]] Result<FileDigest> sha256_file(const std::filesystem::path& path);

/// SHA-384 of `data`.
[[nodiscard]] Sha384Digest sha384(std::string_view data);
/// SHA-512 of `data`.
[[nodiscard]] Sha512Digest sha512(std::string_view data);
/// Lowercase hex of a SHA-384 digest (96 characters).
[[nodiscard]] std::string to_hex(const Sha384Digest& digest);
/// Lowercase hex of a SHA-512 digest (128 characters).
[[nodiscard]] std::string to_hex(const Sha512Digest& digest);
/// Lowercase hex SHA-384 of `data`.
[[nodiscard]] std::string sha384_hex(std::string_view data);
/// Lowercase hex SHA-512 of `data`.
[[nodiscard]] std::string sha512_hex(std::string_view data);

/// Incremental SHA-256, for data that arrives in pieces (downloads, zip members).
class Sha256 {
 public:
  explicit Sha256(HashEngine engine = HashEngine::automatic);
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  Sha256(Sha256&&) noexcept;
  Sha256& operator=(Sha256&&) noexcept;

  void update(std::string_view data);
  /// The digest of everything passed to `update`; the object is then reset.
  [[nodiscard]] Sha256Digest finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Incremental SHA-512, or SHA-384 (the same function with other initial values, truncated).
class Sha512 {
 public:
  /// `sha384`: compute SHA-384 instead (`finish384`).
  explicit Sha512(bool sha384 = false, HashEngine engine = HashEngine::automatic);
  ~Sha512();
  Sha512(const Sha512&) = delete;
  Sha512& operator=(const Sha512&) = delete;
  Sha512(Sha512&&) noexcept;
  Sha512& operator=(Sha512&&) noexcept;

  void update(std::string_view data);
  /// The SHA-512 digest of everything passed to `update` (constructed with `sha384 = false`);
  /// the object is then reset.
  [[nodiscard]] Sha512Digest finish();
  /// The SHA-384 digest (constructed with `sha384 = true`); the object is then reset.
  [[nodiscard]] Sha384Digest finish384();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace vwheel
