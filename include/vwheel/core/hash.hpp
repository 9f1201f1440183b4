#pragma once
/// \file
/// SHA-256, one-shot and streaming, and its hex form (variant labels, cache keys, RECORD files).

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace vwheel {

using Sha256Digest = std::array<std::uint8_t, 32>;

/// SHA-256 of `data`.
[[nodiscard]] Sha256Digest sha256(std::string_view data);

/// Lowercase hex of a digest (64 characters).
[[nodiscard]] std::string to_hex(const Sha256Digest& digest);

/// Lowercase hex SHA-256 of `data`.
[[nodiscard]] std::string sha256_hex(std::string_view data);

/// Incremental SHA-256, for data that arrives in pieces (downloads, zip members).
class Sha256 {
 public:
  Sha256();
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

}  // namespace vwheel
