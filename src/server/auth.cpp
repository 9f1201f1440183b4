#include "server/auth.hpp"

#include <crypt.h>
#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "server/http.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/text.hpp"

namespace vwheel::server {
namespace {

constexpr const char* kAccepted =
    "accepted: bcrypt (`htpasswd -B`) or SHA-256/SHA-512 crypt (`openssl passwd -5` or `-6`)";

bool is_crypt64(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '/';
}

bool all_crypt64(std::string_view text) noexcept { return std::all_of(text.begin(), text.end(), is_crypt64); }

// `$2y$10$` + 22 characters of salt and 31 of hash.
bool is_bcrypt(std::string_view h) noexcept {
  if (h.size() != 60 || !(h.starts_with("$2a$") || h.starts_with("$2b$") || h.starts_with("$2y$"))) return false;
  const auto cost = h.substr(4, 2);
  if (cost[0] < '0' || cost[0] > '3' || cost[1] < '0' || cost[1] > '9' || h[6] != '$') return false;
  const int value = (cost[0] - '0') * 10 + (cost[1] - '0');
  return value >= 4 && value <= 31 && all_crypt64(h.substr(7));
}

// `$5$[rounds=N$]SALT$HASH`: a salt of up to 16 characters, a hash of 43 (SHA-256) or 86 (SHA-512).
bool is_sha_crypt(std::string_view h) noexcept {
  const bool sha512 = h.starts_with("$6$");
  if (!sha512 && !h.starts_with("$5$")) return false;
  h.remove_prefix(3);
  if (h.starts_with("rounds=")) {
    const auto end = h.find('$');
    if (end == std::string_view::npos || end == 7) return false;
    const auto digits = h.substr(7, end - 7);
    if (digits.size() > 9 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return false;
    }
    h.remove_prefix(end + 1);
  }
  const auto dollar = h.find('$');
  if (dollar == std::string_view::npos || dollar > 16) return false;
  const auto salt = h.substr(0, dollar);
  if (salt.find_first_of(":\n\r\t ") != std::string_view::npos) return false;
  const auto hash = h.substr(dollar + 1);
  return hash.size() == (sha512 ? 86U : 43U) && all_crypt64(hash);
}

// What an unsupported hash looks like, for the message.
std::string_view describe_unsupported(std::string_view h) noexcept {
  if (h.starts_with("$apr1$")) return "an Apache MD5 (`$apr1$`) hash";
  if (h.starts_with("$1$")) return "an MD5-crypt (`$1$`) hash";
  if (h.starts_with("{SHA}")) return "a SHA-1 (`{SHA}`) hash";
  if (h.starts_with("$2") || h.starts_with("$5$") || h.starts_with("$6$")) return "a malformed hash";
  if (h.starts_with("$")) return "an unsupported crypt hash";
  return "plain text or a DES-crypt hash";
}

}  // namespace

Result<std::vector<HtpasswdEntry>> parse_htpasswd(std::string_view text, std::string_view file_name) {
  std::vector<HtpasswdEntry> entries;
  std::size_t number = 0;
  while (!text.empty()) {
    ++number;
    const auto newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (line.ends_with('\r')) line.remove_suffix(1);
    const auto trimmed = ascii_trim(line, is_space_or_tab);
    if (trimmed.empty() || trimmed.front() == '#') continue;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) {
      return fail(fmt::format("{}:{}: expected `user:hash`", file_name, number));
    }
    const auto user = line.substr(0, colon);
    const auto hash = line.substr(colon + 1);
    if (user.empty()) return fail(fmt::format("{}:{}: the user name is empty", file_name, number));
    if (!is_bcrypt(hash) && !is_sha_crypt(hash)) {
      return fail(fmt::format("{}:{}: user `{}`: {}; {}", file_name, number, printable(user),
                              describe_unsupported(hash), kAccepted));
    }
    const auto same = std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.user == user; });
    if (same != entries.end()) {
      return fail(fmt::format("{}:{}: user `{}` is also on line {}", file_name, number, printable(user), same->line));
    }
    entries.push_back({std::string(user), std::string(hash), number});
  }
  if (entries.empty()) return fail(fmt::format("{}: no `user:hash` line", file_name));
  return entries;
}

std::optional<BasicCredentials> basic_credentials(std::string_view header) {
  header = ascii_trim(header, is_space_or_tab);
  const auto space = header.find(' ');
  if (space == std::string_view::npos || !ascii_iequals(header.substr(0, space), "Basic")) return std::nullopt;
  auto decoded = http::base64_decode(ascii_trim(header.substr(space + 1), is_space_or_tab));
  if (!decoded) return std::nullopt;
  const auto colon = decoded->find(':');
  if (colon == std::string::npos) return std::nullopt;
  return BasicCredentials{decoded->substr(0, colon), decoded->substr(colon + 1)};
}

bool verify_crypt(std::string_view password, const std::string& stored) {
  const std::string phrase(password);
  // crypt_data is 32 KiB: kept off the worker's stack.
  auto data = std::make_unique<crypt_data>();
  std::memset(data.get(), 0, sizeof(crypt_data));
  const char* out = ::crypt_rn(phrase.c_str(), stored.c_str(), data.get(), sizeof(crypt_data));
  const bool ok = out != nullptr && out[0] != '*' && password.find('\0') == std::string_view::npos &&
                  http::constant_time_equal(out, stored);
  ::explicit_bzero(data.get(), sizeof(crypt_data));
  return ok;
}

Authenticator::Authenticator(std::vector<HtpasswdEntry> entries, bool cache) : use_cache_(cache) {
  if (entries.empty()) throw std::invalid_argument("Authenticator: no users");
  dummy_ = entries.front().hash;
  for (auto& e : entries) hashes_.emplace(std::move(e.user), std::move(e.hash));
  key_.resize(32);
  if (::getrandom(key_.data(), key_.size(), 0) != static_cast<ssize_t>(key_.size())) {
    throw std::runtime_error(fmt::format("getrandom: {}", std::strerror(errno)));
  }
}

Authenticator::Digest Authenticator::cache_key(std::string_view user, std::string_view password) const {
  std::string input;
  input.reserve(key_.size() + user.size() + password.size() + 1);
  input.append(key_).append(user).push_back('\0');
  input.append(password);
  const Digest digest = sha256(input);
  ::explicit_bzero(input.data(), input.size());
  return digest;
}

std::optional<std::string> Authenticator::check(std::string_view authorization) {
  auto credentials = basic_credentials(authorization);
  if (!credentials) return std::nullopt;
  const auto found = hashes_.find(credentials->user);
  std::optional<Digest> key;
  if (use_cache_ && found != hashes_.end()) {
    key = cache_key(credentials->user, credentials->password);
    std::lock_guard lock(mutex_);
    const auto hit = verified_.find(credentials->user);
    if (hit != verified_.end() &&
        http::constant_time_equal(std::string_view(reinterpret_cast<const char*>(hit->second.data()), 32),
                                  std::string_view(reinterpret_cast<const char*>(key->data()), 32))) {
      return std::move(credentials->user);
    }
  }
  // An unknown user costs one hash too, against a setting of the file's own algorithm and cost.
  const bool ok =
      verify_crypt(credentials->password, found != hashes_.end() ? found->second : dummy_) && found != hashes_.end();
  ::explicit_bzero(credentials->password.data(), credentials->password.size());
  if (!ok) return std::nullopt;
  if (key) {
    std::lock_guard lock(mutex_);
    verified_[credentials->user] = *key;
  }
  return std::move(credentials->user);
}

}  // namespace vwheel::server
