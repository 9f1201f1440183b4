#pragma once
// `vwheel index serve --tls-cert FILE --tls-key FILE`: the OpenSSL server context, and TLS over
// one connection's non-blocking socket for ConnectionStream (src/server/connection.cpp), which
// keeps its deadlines and per-address caps for HTTPS too. (httplib's SSLServer would replace that
// connection loop with its own, without them.)

#include <chrono>
#include <filesystem>
#include <memory>

#include "vwheel/core/error.hpp"

using SSL = struct ssl_st;
using SSL_CTX = struct ssl_ctx_st;

namespace vwheel::server {

/// A certificate chain and its private key, loaded once.
class TlsContext {
 public:
  /// Loads both PEM files; one-line errors name the file that is missing, unreadable or not a
  /// certificate/key, or say that the key does not belong to the certificate.
  [[nodiscard]] static Result<std::shared_ptr<TlsContext>> load(const std::filesystem::path& cert,
                                                                const std::filesystem::path& key);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  /// A new TLS session over `sock` (set non-blocking here), not yet handshaken.
  [[nodiscard]] SSL* new_session(int sock) const;

 private:
  explicit TlsContext(SSL_CTX* ctx) : ctx_(ctx) {}
  SSL_CTX* ctx_;
};

/// What a TLS call on a non-blocking socket needs next.
enum class TlsWant { Done, Read, Write, Fail };

/// One step of the server handshake.
[[nodiscard]] TlsWant tls_accept(SSL* ssl);
/// Reads up to `size` bytes: `n` > 0 on success; otherwise what to wait for.
[[nodiscard]] TlsWant tls_read(SSL* ssl, char* buf, std::size_t size, std::size_t& n);
/// Writes up to `size` bytes (partial writes allowed).
[[nodiscard]] TlsWant tls_write(SSL* ssl, const char* buf, std::size_t size, std::size_t& n);
/// Bytes decrypted and not yet read.
[[nodiscard]] bool tls_pending(SSL* ssl);
/// Sends close_notify (without waiting for the peer's) and frees the session.
void tls_close(SSL* ssl);

}  // namespace vwheel::server
