#pragma once
// OpenSSL's libcrypto through dlopen("libcrypto.so.3"), as src/http loads libcurl: the few EVP
// digest functions are declared here and resolved with dlsym, so nothing links against OpenSSL
// (no headers, no start-up cost for commands that never hash much). Private to core.

#include <cstddef>

namespace vwheel::detail {

struct EvpMd;     // EVP_MD, opaque
struct EvpMdCtx;  // EVP_MD_CTX, opaque

struct Libcrypto {
  EvpMdCtx* (*ctx_new)() = nullptr;                                        // EVP_MD_CTX_new
  void (*ctx_free)(EvpMdCtx*) = nullptr;                                   // EVP_MD_CTX_free
  int (*digest_init)(EvpMdCtx*, const EvpMd*, const void*) = nullptr;      // EVP_DigestInit_ex2
  int (*digest_update)(EvpMdCtx*, const void*, std::size_t) = nullptr;     // EVP_DigestUpdate
  int (*digest_final)(EvpMdCtx*, unsigned char*, unsigned int*) = nullptr;  // EVP_DigestFinal_ex
  // Fetched once (EVP_MD_fetch): an implicit fetch at every EVP_DigestInit costs a lock and a
  // lookup per digest, which shows on small members.
  const EvpMd* sha256 = nullptr;
  const EvpMd* sha384 = nullptr;
  const EvpMd* sha512 = nullptr;
};

/// Loads libcrypto.so.3 once per process (thread-safe) and fetches the digests; null when the
/// library or one of its functions is missing (the callers fall back to the built-in code).
[[nodiscard]] const Libcrypto* load_libcrypto() noexcept;

/// Whether load_libcrypto() has already succeeded (no loading).
[[nodiscard]] bool libcrypto_loaded() noexcept;

}  // namespace vwheel::detail
