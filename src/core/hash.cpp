#include "vwheel/core/hash.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include <fmt/format.h>

#include "core/libcrypto.hpp"
#include "vwheel/core/fs.hpp"

namespace vwheel {
namespace {

// SHA-256 (FIPS 180-4), built in: OpenSSL's libcrypto is loaded (see libcrypto.hpp) only when
// there is enough to hash to pay for its loading; short commands (`label`, `rank`) hash a few
// hundred bytes and never load it. The thresholds and the measurements behind them are below.
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

// SHA-512 and SHA-384 (FIPS 180-4): 64-bit words, 80 rounds, 128-byte blocks.
constexpr std::uint64_t kK512[80] = {
    0x428a2f98d728ae22ULL, 0x7137449123ef65cdULL, 0xb5c0fbcfec4d3b2fULL, 0xe9b5dba58189dbbcULL,
    0x3956c25bf348b538ULL, 0x59f111f1b605d019ULL, 0x923f82a4af194f9bULL, 0xab1c5ed5da6d8118ULL,
    0xd807aa98a3030242ULL, 0x12835b0145706fbeULL, 0x243185be4ee4b28cULL, 0x550c7dc3d5ffb4e2ULL,
    0x72be5d74f27b896fULL, 0x80deb1fe3b1696b1ULL, 0x9bdc06a725c71235ULL, 0xc19bf174cf692694ULL,
    0xe49b69c19ef14ad2ULL, 0xefbe4786384f25e3ULL, 0x0fc19dc68b8cd5b5ULL, 0x240ca1cc77ac9c65ULL,
    0x2de92c6f592b0275ULL, 0x4a7484aa6ea6e483ULL, 0x5cb0a9dcbd41fbd4ULL, 0x76f988da831153b5ULL,
    0x983e5152ee66dfabULL, 0xa831c66d2db43210ULL, 0xb00327c898fb213fULL, 0xbf597fc7beef0ee4ULL,
    0xc6e00bf33da88fc2ULL, 0xd5a79147930aa725ULL, 0x06ca6351e003826fULL, 0x142929670a0e6e70ULL,
    0x27b70a8546d22ffcULL, 0x2e1b21385c26c926ULL, 0x4d2c6dfc5ac42aedULL, 0x53380d139d95b3dfULL,
    0x650a73548baf63deULL, 0x766a0abb3c77b2a8ULL, 0x81c2c92e47edaee6ULL, 0x92722c851482353bULL,
    0xa2bfe8a14cf10364ULL, 0xa81a664bbc423001ULL, 0xc24b8b70d0f89791ULL, 0xc76c51a30654be30ULL,
    0xd192e819d6ef5218ULL, 0xd69906245565a910ULL, 0xf40e35855771202aULL, 0x106aa07032bbd1b8ULL,
    0x19a4c116b8d2d0c8ULL, 0x1e376c085141ab53ULL, 0x2748774cdf8eeb99ULL, 0x34b0bcb5e19b48a8ULL,
    0x391c0cb3c5c95a63ULL, 0x4ed8aa4ae3418acbULL, 0x5b9cca4f7763e373ULL, 0x682e6ff3d6b2b8a3ULL,
    0x748f82ee5defb2fcULL, 0x78a5636f43172f60ULL, 0x84c87814a1f0ab72ULL, 0x8cc702081a6439ecULL,
    0x90befffa23631e28ULL, 0xa4506cebde82bde9ULL, 0xbef9a3f7b2c67915ULL, 0xc67178f2e372532bULL,
    0xca273eceea26619cULL, 0xd186b8c721c0c207ULL, 0xeada7dd6cde0eb1eULL, 0xf57d4f7fee6ed178ULL,
    0x06f067aa72176fbaULL, 0x0a637dc5a2c898a6ULL, 0x113f9804bef90daeULL, 0x1b710b35131c471bULL,
    0x28db77f523047d84ULL, 0x32caab7b40c72493ULL, 0x3c9ebe0a15c9bebcULL, 0x431d67c49c100d4cULL,
    0x4cc5d4becb3e42b6ULL, 0x597f299cfc657e2aULL, 0x5fcb6fab3ad6faecULL, 0x6c44198c4a475817ULL,
};
constexpr std::uint64_t kH512[8] = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
    0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL,
};
constexpr std::uint64_t kH384[8] = {
    0xcbbb9d5dc1059ed8ULL, 0x629a292a367cd507ULL, 0x9159015a3070dd17ULL, 0x152fecd8f70e5939ULL,
    0x67332667ffc00b31ULL, 0x8eb44a8768581511ULL, 0xdb0c2e0d64f98fa7ULL, 0x47b5481dbefa4fa4ULL,
};

constexpr std::uint64_t rotr64(std::uint64_t x, unsigned n) { return (x >> n) | (x << (64U - n)); }

template <std::size_t N>
std::string hex_of(const std::array<std::uint8_t, N>& digest) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(N * 2, '0');
  for (std::size_t i = 0; i < N; ++i) {
    out[2 * i] = kHex[digest[i] >> 4U];
    out[2 * i + 1] = kHex[digest[i] & 0x0fU];
  }
  return out;
}

struct Builtin256 {
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

void builtin_update(Builtin256& s, std::string_view data) {
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

Sha256Digest builtin_finish(Builtin256& s) {
  const std::uint64_t bits = s.total * 8;
  const std::uint8_t pad = 0x80;
  builtin_update(s, std::string_view(reinterpret_cast<const char*>(&pad), 1));
  const std::uint8_t zero[64] = {};
  const std::size_t fill = s.block_len <= 56 ? 56 - s.block_len : 120 - s.block_len;
  builtin_update(s, std::string_view(reinterpret_cast<const char*>(zero), fill));
  std::uint8_t len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<std::uint8_t>(bits >> (56U - 8U * static_cast<unsigned>(i)));
  builtin_update(s, std::string_view(reinterpret_cast<const char*>(len), 8));
  Sha256Digest out{};
  for (int i = 0; i < 8; ++i) {
    out[4 * i] = static_cast<std::uint8_t>(s.h[i] >> 24U);
    out[4 * i + 1] = static_cast<std::uint8_t>(s.h[i] >> 16U);
    out[4 * i + 2] = static_cast<std::uint8_t>(s.h[i] >> 8U);
    out[4 * i + 3] = static_cast<std::uint8_t>(s.h[i]);
  }
  s = Builtin256{};
  return out;
}


struct Builtin512 {
  bool is384 = false;
  std::uint64_t h[8] = {};
  std::uint8_t block[128] = {};
  std::size_t block_len = 0;
  std::uint64_t total = 0;  // bytes; messages of 2^61 bytes and more are out of scope

  explicit Builtin512(bool sha384) : is384(sha384) { std::copy(std::begin(sha384 ? kH384 : kH512), std::end(sha384 ? kH384 : kH512), h); }

  void compress(const std::uint8_t* p) {
    std::uint64_t w[80];
    for (int i = 0; i < 16; ++i) {
      std::uint64_t v = 0;
      for (int j = 0; j < 8; ++j) v = (v << 8U) | p[8 * i + j];
      w[i] = v;
    }
    for (int i = 16; i < 80; ++i) {
      const std::uint64_t s0 = rotr64(w[i - 15], 1) ^ rotr64(w[i - 15], 8) ^ (w[i - 15] >> 7U);
      const std::uint64_t s1 = rotr64(w[i - 2], 19) ^ rotr64(w[i - 2], 61) ^ (w[i - 2] >> 6U);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    std::uint64_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int i = 0; i < 80; ++i) {
      const std::uint64_t t1 =
          k + (rotr64(e, 14) ^ rotr64(e, 18) ^ rotr64(e, 41)) + ((e & f) ^ (~e & g)) + kK512[i] + w[i];
      const std::uint64_t t2 = (rotr64(a, 28) ^ rotr64(a, 34) ^ rotr64(a, 39)) + ((a & b) ^ (a & c) ^ (b & c));
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

  void update(const std::uint8_t* p, std::size_t n) {
    total += n;
    if (block_len > 0) {
      const std::size_t take = std::min(n, 128 - block_len);
      std::memcpy(block + block_len, p, take);
      block_len += take;
      p += take;
      n -= take;
      if (block_len < 128) return;
      compress(block);
      block_len = 0;
    }
    for (; n >= 128; n -= 128, p += 128) compress(p);
    if (n > 0) std::memcpy(block, p, n);
    block_len = n;
  }

  /// Pads (a 128-bit big-endian bit count; the high 64 bits are the top of `total * 8`) and
  /// writes the first `out_len` bytes of the state, then resets.
  void finish(std::uint8_t* out, std::size_t out_len) {
    const std::uint64_t bits_lo = total << 3U;
    const std::uint64_t bits_hi = total >> 61U;
    const std::uint8_t pad = 0x80;
    update(&pad, 1);
    const std::uint8_t zero[128] = {};
    const std::size_t fill = block_len <= 112 ? 112 - block_len : 240 - block_len;
    update(zero, fill);
    std::uint8_t len[16];
    for (int i = 0; i < 8; ++i) {
      len[i] = static_cast<std::uint8_t>(bits_hi >> (56U - 8U * static_cast<unsigned>(i)));
      len[8 + i] = static_cast<std::uint8_t>(bits_lo >> (56U - 8U * static_cast<unsigned>(i)));
    }
    update(len, 16);
    for (std::size_t i = 0; i < out_len; ++i) out[i] = static_cast<std::uint8_t>(h[i / 8] >> (56U - 8U * (i % 8)));
    *this = Builtin512(is384);
  }
};


// When libcrypto is worth it (bench/bench_hash.cpp, one run, CPU time, 2-vCPU Xeon VM with SHA-NI
// under load; OpenSSL 3.0 from Debian 12):
//   SHA-256 MB/s     64 B   1 KiB   64 KiB   64 MiB
//   built-in          130     274      296      290
//   libcrypto         543    1555     1800     1114
//   SHA-512 MB/s             1 KiB   64 KiB   64 MiB
//   built-in                   332      391      388
//   libcrypto                  681      809      803
//   loading libcrypto.so.3 (dlopen, init without openssl.cnf, 3 fetches): 1.6 ms, once per process
// Once loaded, libcrypto wins at every size, so it takes everything. Loading it pays off from
// about 1.6 ms x 290 MB/s = 460 KB of input: a one-shot input of kLoadMinSize bytes or more loads
// it. A stream (download, zip member) buffers its first kStreamPending bytes while the library is
// not loaded, and loads it when there is more (a stream that long is a file, and files are big).
constexpr std::size_t kLoadMinSize = std::size_t{512} << 10;
constexpr std::size_t kStreamPending = std::size_t{64} << 10;

/// The libcrypto to use for `size` bytes under `engine`, or null for the built-in code.
const detail::Libcrypto* choose(HashEngine engine, std::size_t size) noexcept {
  switch (engine) {
    case HashEngine::builtin:
      return nullptr;
    case HashEngine::libcrypto:
      return detail::load_libcrypto();
    case HashEngine::automatic:
      break;
  }
  if (size >= kLoadMinSize || detail::libcrypto_loaded()) return detail::load_libcrypto();
  return nullptr;
}

/// An EVP digest context; its errors (allocation, a provider failure) are std::bad_alloc, like
/// those of the built-in state's allocation.
class Evp {
 public:
  Evp(const detail::Libcrypto& api, const detail::EvpMd* md) : api_(&api), md_(md), ctx_(api.ctx_new()) {
    if (ctx_ == nullptr || api_->digest_init(ctx_, md_, nullptr) != 1) {
      if (ctx_ != nullptr) api_->ctx_free(ctx_);
      throw std::bad_alloc();
    }
  }
  Evp(const Evp&) = delete;
  Evp& operator=(const Evp&) = delete;
  ~Evp() { api_->ctx_free(ctx_); }
  void update(std::string_view data) {
    if (!data.empty() && api_->digest_update(ctx_, data.data(), data.size()) != 1) throw std::bad_alloc();
  }
  /// Writes the digest (its full length) and makes the context ready for a new message.
  void finish(std::uint8_t* out) {
    unsigned int len = 0;
    if (api_->digest_final(ctx_, out, &len) != 1 || api_->digest_init(ctx_, md_, nullptr) != 1) throw std::bad_alloc();
  }

 private:
  const detail::Libcrypto* api_;
  const detail::EvpMd* md_;
  detail::EvpMdCtx* ctx_;
};

/// A streaming digest that picks its engine once it knows enough of the input (see choose()):
/// `Builtin` is Builtin256 or Builtin512, `Md` selects the EVP digest.
template <class Builtin, std::size_t DigestSize>
class Chooser {
 public:
  Chooser(HashEngine engine, Builtin builtin, const detail::EvpMd* detail::Libcrypto::*md)
      : engine_(engine), initial_(builtin), builtin_(builtin), md_(md) {}

  void update(std::string_view data) {
    if (!decided_) {
      if (engine_ == HashEngine::automatic && !detail::libcrypto_loaded() &&
          pending_.size() + data.size() < kStreamPending) {
        pending_.append(data);
        return;
      }
      decide(pending_.size() + data.size() >= kStreamPending ? kLoadMinSize : 0);
    }
    if (evp_) {
      evp_->update(data);
    } else {
      builtin_.update(data);
    }
  }

  std::array<std::uint8_t, DigestSize> finish(std::size_t out_len) {
    if (!decided_) decide(pending_.size());
    std::array<std::uint8_t, DigestSize> out{};
    if (evp_) {
      evp_->finish(out.data());
    } else {
      builtin_.finish(out.data(), out_len);
      builtin_ = initial_;
    }
    decided_ = false;
    return out;
  }

 private:
  // `size`: how much the choice is for (a stream past kStreamPending counts as large).
  void decide(std::size_t size) {
    decided_ = true;
    if (const auto* api = choose(engine_, size)) {
      if (!evp_) evp_ = std::make_unique<Evp>(*api, api->*md_);
    } else {
      evp_.reset();
    }
    const std::string_view pending = pending_;
    if (evp_) {
      evp_->update(pending);
    } else {
      builtin_.update(pending);
    }
    pending_.clear();
  }

  HashEngine engine_;
  Builtin initial_;
  Builtin builtin_;
  const detail::EvpMd* detail::Libcrypto::*md_;
  std::unique_ptr<Evp> evp_;
  std::string pending_;
  bool decided_ = false;
};

/// Builtin256 with the interface Chooser expects.
struct Builtin256Engine {
  Builtin256 state;
  void update(std::string_view data) { builtin_update(state, data); }
  void finish(std::uint8_t* out, std::size_t /*out_len*/) {
    const auto d = builtin_finish(state);
    std::memcpy(out, d.data(), d.size());
  }
};

/// Builtin512 with the interface Chooser expects.
struct Builtin512Engine {
  Builtin512 state;
  void update(std::string_view data) { state.update(reinterpret_cast<const std::uint8_t*>(data.data()), data.size()); }
  void finish(std::uint8_t* out, std::size_t out_len) { state.finish(out, out_len); }
};

template <std::size_t N, class Builtin>
std::array<std::uint8_t, N> one_shot(std::string_view data, Builtin builtin, const detail::EvpMd* detail::Libcrypto::*md) {
  std::array<std::uint8_t, N> out{};
  if (const auto* api = choose(HashEngine::automatic, data.size())) {
    Evp evp(*api, api->*md);
    evp.update(data);
    std::uint8_t full[64];
    evp.finish(full);
    std::memcpy(out.data(), full, N);
  } else {
    builtin.update(data);
    builtin.finish(out.data(), N);
  }
  return out;
}

}  // namespace

bool libcrypto_available() noexcept { return detail::load_libcrypto() != nullptr; }

struct Sha256::State : Chooser<Builtin256Engine, 32> {
  using Chooser::Chooser;
};

Sha256::Sha256(HashEngine engine)
    : state_(std::make_unique<State>(engine, Builtin256Engine{}, &detail::Libcrypto::sha256)) {}
Sha256::~Sha256() = default;
Sha256::Sha256(Sha256&&) noexcept = default;
Sha256& Sha256::operator=(Sha256&&) noexcept = default;

void Sha256::update(std::string_view data) { state_->update(data); }
Sha256Digest Sha256::finish() { return state_->finish(32); }

Sha256Digest sha256(std::string_view data) {
  return one_shot<32>(data, Builtin256Engine{}, &detail::Libcrypto::sha256);
}

std::string to_hex(const Sha256Digest& digest) { return hex_of(digest); }

bool is_sha256_hex(std::string_view text) noexcept {
  return text.size() == 64 && text.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

std::string sha256_hex(std::string_view data) { return to_hex(sha256(data)); }

Result<FileDigest> sha256_file(const std::filesystem::path& path) {
  auto opened = open_regular_file(path);  // never blocks: a FIFO is refused, not waited on
  if (!opened) return fail(opened.error());
  const int fd = opened->fd.get();
  const struct stat& st = opened->info;
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  // A small file gets a small buffer (the index builder hashes thousands of them); a large one
  // 1 MiB, enough for read(2) calls to cost little next to the hashing.
  constexpr std::size_t kMaxChunk = std::size_t{1} << 20;
  const auto chunk = std::clamp<std::size_t>(static_cast<std::size_t>(st.st_size) + 1, 4096, kMaxChunk);
  const auto buffer = std::make_unique_for_overwrite<char[]>(chunk);
  Sha256 h;
  FileDigest out;
  for (;;) {
    const ssize_t n = ::read(fd, buffer.get(), chunk);
    if (n == 0) break;
    if (n < 0) {
      const int err = errno;
      if (err == EINTR) continue;
      return fail(fmt::format("{}: read error: {}", path.string(), std::strerror(err)));
    }
    h.update(std::string_view(buffer.get(), static_cast<std::size_t>(n)));
    out.size += static_cast<std::uint64_t>(n);
  }
  out.sha256 = to_hex(h.finish());
  out.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  out.inode = static_cast<std::uint64_t>(st.st_ino);
  out.device = static_cast<std::uint64_t>(st.st_dev);
  return out;
}

struct Sha512::State : Chooser<Builtin512Engine, 64> {
  using Chooser::Chooser;
  bool is384 = false;
};

Sha512::Sha512(bool sha384, HashEngine engine)
    : state_(std::make_unique<State>(engine, Builtin512Engine{Builtin512(sha384)},
                                     sha384 ? &detail::Libcrypto::sha384 : &detail::Libcrypto::sha512)) {
  state_->is384 = sha384;
}
Sha512::~Sha512() = default;
Sha512::Sha512(Sha512&&) noexcept = default;
Sha512& Sha512::operator=(Sha512&&) noexcept = default;

void Sha512::update(std::string_view data) { state_->update(data); }

Sha512Digest Sha512::finish() { return state_->finish(64); }

Sha384Digest Sha512::finish384() {
  const auto full = state_->finish(48);
  Sha384Digest out{};
  std::memcpy(out.data(), full.data(), out.size());
  return out;
}

Sha384Digest sha384(std::string_view data) {
  return one_shot<48>(data, Builtin512Engine{Builtin512(true)}, &detail::Libcrypto::sha384);
}

Sha512Digest sha512(std::string_view data) {
  return one_shot<64>(data, Builtin512Engine{Builtin512(false)}, &detail::Libcrypto::sha512);
}

std::string to_hex(const Sha384Digest& digest) { return hex_of(digest); }
std::string to_hex(const Sha512Digest& digest) { return hex_of(digest); }
std::string sha384_hex(std::string_view data) { return to_hex(sha384(data)); }
std::string sha512_hex(std::string_view data) { return to_hex(sha512(data)); }

}  // namespace vwheel
