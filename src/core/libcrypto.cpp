#include "core/libcrypto.hpp"


#include <atomic>
#include <cstdint>
#include <mutex>

#include "core/dl.hpp"

namespace vwheel::detail {
namespace {

// OPENSSL_init_crypto options (openssl/crypto.h, stable ABI since 1.1.0): no openssl.cnf (a file
// read and parsed at every load, nothing of it matters for a digest) and no atexit handler (which
// would tear the library down while a worker thread may still be hashing at exit).
constexpr std::uint64_t kInitNoLoadConfig = 0x00000080ULL;
constexpr std::uint64_t kInitNoAtexit = 0x00080000ULL;

std::atomic<bool> g_loaded{false};

const Libcrypto* load_once() noexcept {
  static Libcrypto api;
  void* lib = dl_open(std::string(runtime_library_name(RuntimeLibrary::crypto)));
  if (lib == nullptr) return nullptr;
  int (*init)(std::uint64_t, const void*) = nullptr;
  const EvpMd* (*fetch)(void*, const char*, const char*) = nullptr;
  const bool ok = dl_function(lib, "OPENSSL_init_crypto", init) && dl_function(lib, "EVP_MD_fetch", fetch) &&
                  dl_function(lib, "EVP_MD_CTX_new", api.ctx_new) &&
                  dl_function(lib, "EVP_MD_CTX_free", api.ctx_free) &&
                  dl_function(lib, "EVP_DigestInit_ex2", api.digest_init) &&
                  dl_function(lib, "EVP_DigestUpdate", api.digest_update) &&
                  dl_function(lib, "EVP_DigestFinal_ex", api.digest_final);
  if (!ok || init(kInitNoLoadConfig | kInitNoAtexit, nullptr) != 1) {
    dl_close(lib);
    return nullptr;
  }
  api.sha256 = fetch(nullptr, "SHA2-256", nullptr);
  api.sha384 = fetch(nullptr, "SHA2-384", nullptr);
  api.sha512 = fetch(nullptr, "SHA2-512", nullptr);
  // The library stays loaded (and the fetched digests referenced) for the life of the process.
  if (api.sha256 == nullptr || api.sha384 == nullptr || api.sha512 == nullptr) return nullptr;
  g_loaded.store(true, std::memory_order_release);
  return &api;
}

}  // namespace

const Libcrypto* load_libcrypto() noexcept {
  static std::once_flag once;
  static const Libcrypto* loaded = nullptr;
  std::call_once(once, [] { loaded = load_once(); });
  return loaded;
}

bool libcrypto_loaded() noexcept { return g_loaded.load(std::memory_order_acquire); }

}  // namespace vwheel::detail
