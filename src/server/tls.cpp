#include "server/tls.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include <fmt/format.h>

#include "vwheel/core/fd.hpp"

namespace vwheel::server {
namespace {

// An unreadable file is named with the system's reason, before OpenSSL's less precise one.
Result<void> readable(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(fmt::format("{}: {}", path.string(), errno_text(errno)));
  ::close(fd);
  return {};
}

// Never prompt on the terminal for the pass phrase of an encrypted key: it is refused.
int no_pass_phrase(char*, int, int, void*) { return 0; }

TlsWant want(SSL* ssl, int ret) {
  switch (SSL_get_error(ssl, ret)) {
    case SSL_ERROR_WANT_READ:
      return TlsWant::Read;
    case SSL_ERROR_WANT_WRITE:
      return TlsWant::Write;
    default:
      ERR_clear_error();  // the queue is per thread: no stale error for the next connection
      return TlsWant::Fail;
  }
}

}  // namespace

Result<std::shared_ptr<TlsContext>> TlsContext::load(const std::filesystem::path& cert,
                                                     const std::filesystem::path& key) {
  if (auto ok = readable(cert); !ok) return fail(ok.error());
  if (auto ok = readable(key); !ok) return fail(ok.error());
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr) return fail("cannot create an OpenSSL context");
  std::shared_ptr<TlsContext> context(new TlsContext(ctx));
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_default_passwd_cb(ctx, no_pass_phrase);
  const auto failed = [](std::string message) {
    ERR_clear_error();
    return fail(std::move(message));
  };
  if (SSL_CTX_use_certificate_chain_file(ctx, cert.c_str()) != 1) {
    return failed(fmt::format("{}: not a PEM certificate (--tls-cert)", cert.string()));
  }
  // Read first, so that a key that is no key is told from one of another certificate (which
  // SSL_CTX_use_PrivateKey refuses).
  EVP_PKEY* pkey = nullptr;
  if (BIO* bio = BIO_new_file(key.c_str(), "r"); bio != nullptr) {
    pkey = PEM_read_bio_PrivateKey(bio, nullptr, no_pass_phrase, nullptr);
    BIO_free(bio);
  }
  if (pkey == nullptr) return failed(fmt::format("{}: not an unencrypted PEM private key (--tls-key)", key.string()));
  const bool used = SSL_CTX_use_PrivateKey(ctx, pkey) == 1;
  EVP_PKEY_free(pkey);
  if (!used || SSL_CTX_check_private_key(ctx) != 1) {
    return failed(fmt::format("{}: the key does not belong to the certificate {}", key.string(), cert.string()));
  }
  return context;
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

SSL* TlsContext::new_session(int sock) const {
  const int flags = ::fcntl(sock, F_GETFL);
  if (flags < 0 || ::fcntl(sock, F_SETFL, flags | O_NONBLOCK) != 0) return nullptr;
  SSL* ssl = SSL_new(ctx_);
  if (ssl != nullptr && SSL_set_fd(ssl, sock) != 1) {
    SSL_free(ssl);
    return nullptr;
  }
  return ssl;
}

TlsWant tls_accept(SSL* ssl) {
  const int r = SSL_accept(ssl);
  return r == 1 ? TlsWant::Done : want(ssl, r);
}

TlsWant tls_read(SSL* ssl, char* buf, std::size_t size, std::size_t& n) {
  n = 0;
  const int r = SSL_read_ex(ssl, buf, size, &n) == 1 ? 1 : 0;
  return r == 1 ? TlsWant::Done : want(ssl, r);
}

TlsWant tls_write(SSL* ssl, const char* buf, std::size_t size, std::size_t& n) {
  n = 0;
  const int r = SSL_write_ex(ssl, buf, size, &n) == 1 ? 1 : 0;
  return r == 1 ? TlsWant::Done : want(ssl, r);
}

bool tls_pending(SSL* ssl) { return SSL_pending(ssl) > 0; }

void tls_close(SSL* ssl) {
  if (ssl == nullptr) return;
  (void)SSL_shutdown(ssl);
  ERR_clear_error();
  SSL_free(ssl);
}

}  // namespace vwheel::server
