#pragma once
// `vwheel index serve --read-auth FILE`: the htpasswd file (parsed without I/O) and the check of
// each request's HTTP Basic credentials against it (libxcrypt's bcrypt and SHA-crypt).

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/core/hash.hpp"

namespace vwheel::server {

/// One `user:hash` line of an htpasswd file.
struct HtpasswdEntry {
  std::string user;
  std::string hash;  ///< a bcrypt (`$2y$`, `$2b$`, `$2a$`) or SHA-crypt (`$5$`, `$6$`) string
  std::size_t line = 0;
};

/// Parses an htpasswd file's text: `user:hash` per line, `#` comments and blank lines skipped.
/// Only hashes that are slow on purpose are accepted (bcrypt from `htpasswd -B`, SHA-256/512
/// crypt from `openssl passwd -5`/`-6`); anything else (plain text, `$apr1$` MD5, `{SHA}`, crypt
/// DES), a line without a colon, an empty user and a user listed twice are one-line errors naming
/// `file_name`, the line number and the user. The messages never quote a hash or a line's text,
/// which may be a password.
[[nodiscard]] Result<std::vector<HtpasswdEntry>> parse_htpasswd(std::string_view text, std::string_view file_name);

/// User name and password of an `Authorization: Basic` header; nullopt for another scheme or a
/// malformed value.
struct BasicCredentials {
  std::string user;
  std::string password;
};
[[nodiscard]] std::optional<BasicCredentials> basic_credentials(std::string_view header);

/// Whether `password` hashes to `stored` (a crypt string), compared in constant time. False when
/// libxcrypt refuses the setting or the password holds a NUL byte.
[[nodiscard]] bool verify_crypt(std::string_view password, const std::string& stored);

/// Checks Basic credentials against the users of an htpasswd file. Thread-safe.
///
/// Timing: an unknown user's password is still hashed, with the first entry's setting (same
/// algorithm and cost), so a failure takes as long for a user that does not exist.
///
/// Cache: pip and vwheel send the credentials with every request, and a bcrypt check of cost 10
/// takes 50-200 ms of a worker's CPU time. After a successful check, a keyed SHA-256 of user and
/// password (the key random per process, so the memory holds no plain fast hash of the password)
/// is kept per user; a request with the same credentials is then compared against it in constant
/// time instead of hashed again. Only successes are kept, one per user, so the cache cannot grow
/// past the file's user count.
/// Measured with `wrk -t2 -c8 -d5s -H 'Authorization: Basic ...'` on a 3-byte /simple/ page over
/// plain HTTP, a cost-10 bcrypt entry (`htpasswd -B -C 10`), 2 shared cores: without the cache 12
/// requests/s (every request hashes), with it 43 400 requests/s; without --read-auth 45 000-48 800.
class Authenticator {
 public:
  /// `entries` must not be empty.
  explicit Authenticator(std::vector<HtpasswdEntry> entries, bool cache = true);

  /// The user an `Authorization` header proves to be; nullopt when absent, malformed or wrong.
  [[nodiscard]] std::optional<std::string> check(std::string_view authorization);

 private:
  using Digest = Sha256Digest;
  [[nodiscard]] Digest cache_key(std::string_view user, std::string_view password) const;

  std::unordered_map<std::string, std::string> hashes_;  // user -> crypt string
  std::string dummy_;                                    // the setting hashed for unknown users
  bool use_cache_;
  std::string key_;  // random, per process
  std::mutex mutex_;
  std::unordered_map<std::string, Digest> verified_;  // user -> cache_key of the last good password
};

}  // namespace vwheel::server
