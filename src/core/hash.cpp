#include "vwheel/core/hash.hpp"

#include <cstring>

namespace vwheel {
namespace {

// SHA-256 (FIPS 180-4). Written here rather than taken from OpenSSL because the library's
// loading and initialisation cost about 3 ms per process on the reference VM, most of the
// latency budget of `vwheel label`/`rank`; bulk hashing of large files can still use OpenSSL.
constexpr std::uint32_t kK[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr std::uint32_t rotr(std::uint32_t x, unsigned n) { return (x >> n) | (x << (32U - n)); }

}  // namespace

struct Sha256::State {
  std::uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::uint8_t block[64] = {};
  std::size_t block_len = 0;
  std::uint64_t total = 0;

  void compress(const std::uint8_t* p) {
    std::uint32_t w[64];
    for (int i = 0; i < 16; ++i) {
      w[i] = (std::uint32_t{p[4 * i]} << 24U) | (std::uint32_t{p[4 * i + 1]} << 16U) |
             (std::uint32_t{p[4 * i + 2]} << 8U) | std::uint32_t{p[4 * i + 3]};
    }
    for (int i = 16; i < 64; ++i) {
      const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3U);
      const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10U);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int i = 0; i < 64; ++i) {
      const std::uint32_t t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kK[i] + w[i];
      const std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      k = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += k;
  }
};

Sha256::Sha256() : state_(std::make_unique<State>()) {}
Sha256::~Sha256() = default;
Sha256::Sha256(Sha256&&) noexcept = default;
Sha256& Sha256::operator=(Sha256&&) noexcept = default;

void Sha256::update(std::string_view data) {
  auto& s = *state_;
  const auto* p = reinterpret_cast<const std::uint8_t*>(data.data());
  std::size_t n = data.size();
  s.total += n;
  if (s.block_len > 0) {
    const std::size_t take = std::min(n, 64 - s.block_len);
    std::memcpy(s.block + s.block_len, p, take);
    s.block_len += take;
    p += take;
    n -= take;
    if (s.block_len < 64) return;
    s.compress(s.block);
    s.block_len = 0;
  }
  for (; n >= 64; n -= 64, p += 64) s.compress(p);
  std::memcpy(s.block, p, n);
  s.block_len = n;
}

Sha256Digest Sha256::finish() {
  auto& s = *state_;
  const std::uint64_t bits = s.total * 8;
  const std::uint8_t pad = 0x80;
  update(std::string_view(reinterpret_cast<const char*>(&pad), 1));
  const std::uint8_t zero[64] = {};
  const std::size_t fill = s.block_len <= 56 ? 56 - s.block_len : 120 - s.block_len;
  update(std::string_view(reinterpret_cast<const char*>(zero), fill));
  std::uint8_t len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<std::uint8_t>(bits >> (56U - 8U * static_cast<unsigned>(i)));
  update(std::string_view(reinterpret_cast<const char*>(len), 8));
  Sha256Digest out{};
  for (int i = 0; i < 8; ++i) {
    out[4 * i] = static_cast<std::uint8_t>(s.h[i] >> 24U);
    out[4 * i + 1] = static_cast<std::uint8_t>(s.h[i] >> 16U);
    out[4 * i + 2] = static_cast<std::uint8_t>(s.h[i] >> 8U);
    out[4 * i + 3] = static_cast<std::uint8_t>(s.h[i]);
  }
  *state_ = State{};
  return out;
}

Sha256Digest sha256(std::string_view data) {
  Sha256 h;
  h.update(data);
  return h.finish();
}

std::string to_hex(const Sha256Digest& digest) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(digest.size() * 2, '0');
  for (std::size_t i = 0; i < digest.size(); ++i) {
    out[2 * i] = kHex[digest[i] >> 4U];
    out[2 * i + 1] = kHex[digest[i] & 0x0fU];
  }
  return out;
}

std::string sha256_hex(std::string_view data) { return to_hex(sha256(data)); }

}  // namespace vwheel
