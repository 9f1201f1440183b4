#pragma once
/// \file
/// Credentials for package indexes, kept in memory for the run and never at rest.
///
/// They come, in this order (pip's and uv's), from: the userinfo of the index URL
/// (`--index-url https://alice:s3cret@host/simple/`, a lock's `url`); a `.netrc` file (`$NETRC`,
/// else `~/.netrc`); a keyring (`--keyring-provider subprocess`: `keyring get URL USERNAME`, the
/// `keyring` executable on $PATH, without a shell); the variables `VWHEEL_INDEX_<NAME>_USERNAME`
/// and `_PASSWORD` of an index named with `--index NAME=URL`.
///
/// The Client remembers a URL's userinfo for its origin (scheme, host, port) and sends it with
/// every request to that origin (the index's pages and the files it links on the same host, whose
/// URLs, resolved against the answer's URL without userinfo, have none). The other sources are
/// consulted, once per run, only for the origins of the indexes given (`CredentialSettings`):
/// never for a file host on another origin an index links or redirects to. What the Client stores
/// (cache keys and files) and the URLs it answers (Response::url) are without credentials and
/// its messages show them redacted (`redact_url`). Process-wide and thread-safe: the clients of one
/// run share what any of them learnt.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/http/netrc.hpp"

namespace vwheel::http {

/// Which keyring is asked for an index's password.
enum class KeyringProvider {
  disabled,    ///< none (the default)
  subprocess,  ///< `keyring get URL USERNAME`, the `keyring` executable on $PATH
};

/// An index whose origin credentials are looked up for.
struct IndexAuth {
  std::string url;   ///< may carry userinfo
  std::string name;  ///< `--index NAME=URL`; empty for an unnamed index
};

/// Where credentials are looked for, for the indexes of a run.
struct CredentialSettings {
  std::vector<IndexAuth> indexes;
  KeyringProvider keyring = KeyringProvider::disabled;
};

/// The prefix of a named index's variables: `VWHEEL_INDEX_<NAME>_`, NAME upper-cased with every
/// character other than a letter or digit as `_` (`my-index` -> `VWHEEL_INDEX_MY_INDEX_`).
[[nodiscard]] std::string index_env_prefix(std::string_view name);

/// What one lookup found in each source, before choosing (the keyring is asked last, and only
/// when it is needed: see `choose_credentials`).
struct CredentialCandidates {
  std::string url_username;                 ///< from the index URL's userinfo (percent-decoded)
  std::optional<std::string> url_password;  ///< from the index URL's userinfo, when it has a `:`
  std::optional<NetrcEntry> netrc;          ///< the `.netrc` entry for the host
  std::optional<std::string> env_username;  ///< VWHEEL_INDEX_<NAME>_USERNAME
  std::optional<std::string> env_password;  ///< VWHEEL_INDEX_<NAME>_PASSWORD
};

/// Credentials chosen, and the source they came from ("the URL", "netrc", "keyring", "environment").
struct Credentials {
  std::string username;
  std::string password;
  std::string source;
};

/// Asks a keyring for the password of `username`; nullopt when it has none.
using KeyringLookup = std::function<std::optional<std::string>(const std::string& username)>;

/// The credentials to send, in the order of lookup: a URL with a password; the `.netrc` entry
/// (its login, else the URL's username); the keyring (`keyring`, when given), asked for the URL's
/// username, else the environment's, only when there is one; the environment's username and
/// password (either may be missing; the username defaults to the URL's); a URL with a username
/// alone (sent without a password, as curl does). nullopt when there is nothing to send.
[[nodiscard]] std::optional<Credentials> choose_credentials(const CredentialCandidates& candidates,
                                                            const KeyringLookup& keyring);

/// Registers the indexes of `settings` for lookups (an origin registered before keeps its first
/// index) and remembers their URLs' userinfo. Called by Client::create with its options'.
void use_credential_settings(const CredentialSettings& settings);

/// Remembers the userinfo of `url`, when it has one, for the URL's origin (a later one for the
/// same origin replaces it). The Client calls it for every URL it is asked for, answered from the
/// cache or not.
void remember_credentials(std::string_view url);

/// `url` with the credentials for its origin, for the request alone (never to be shown or stored):
/// the userinfo remembered for the origin, else, for a registered index's origin, what the other
/// sources give (looked up once per origin per run); `url` as it is when it has userinfo already
/// or there is none.
[[nodiscard]] std::string with_credentials(std::string_view url);

/// For a 401/403 message about `url`: `credentials looked for in: the URL, ~/.netrc, keyring:
/// disabled, VWHEEL_INDEX_PRIVATE_USERNAME` for an index's origin, or a hint that credentials are
/// looked for only for the indexes given.
[[nodiscard]] std::string credentials_hint(std::string_view url);

}  // namespace vwheel::http
