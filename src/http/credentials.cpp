// Credentials per origin, for the run (see credentials.hpp). A URL that is not
// `scheme://authority...` has no origin: nothing is remembered, looked up or added for it.

#include "vwheel/http/credentials.hpp"

#include <cstdlib>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "vwheel/core/fs.hpp"
#include "vwheel/core/process.hpp"
#include "vwheel/core/text.hpp"

namespace vwheel::http {

namespace {

struct Origin {
  std::string key;   ///< `scheme://host:port`, lower case, the default port spelled out
  std::string host;  ///< lower case, as `.netrc` names it (an IPv6 literal with its brackets)
};

/// The origin of `url` (without userinfo), so that `https://h/` and `https://h:443/` are one;
/// nullopt without one.
std::optional<Origin> origin_of(std::string_view url) {
  const auto sep = url.find("://");
  if (sep == std::string_view::npos || sep == 0) return std::nullopt;
  const auto scheme = ascii_lower(url.substr(0, sep));
  auto authority = url.substr(sep + 3);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (authority.empty()) return std::nullopt;
  std::string_view host = authority;
  std::string_view port;
  // The port follows the last `:`, unless that is inside an IPv6 literal (`[::1]`).
  if (const auto colon = authority.rfind(':');
      colon != std::string_view::npos && authority.find(']', colon) == std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (port.empty()) port = scheme == "https" ? "443" : scheme == "http" ? "80" : "";
  auto h = ascii_lower(host);
  return Origin{scheme + "://" + h + ":" + std::string(port), h};
}

std::string percent_decode(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      const int hi = hex_digit_value(text[i + 1]);
      const int lo = hex_digit_value(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

/// The userinfo curl is given for `c`: both parts percent-encoded (a password may hold `@` or `:`).
std::string userinfo_of(const Credentials& c) {
  if (c.password.empty() && c.source == "the URL") return percent_encode(c.username);
  return percent_encode(c.username) + ":" + percent_encode(c.password);
}

std::optional<std::string> env_value(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

/// `$NETRC`, else `~/.netrc`, and how a message names it.
std::pair<std::string, std::string> netrc_file() {
  if (auto v = env_value("NETRC"); v && !v->empty()) return {*v, fmt::format("$NETRC ({})", *v)};
  if (auto home = env_value("HOME"); home && !home->empty()) return {*home + "/.netrc", "~/.netrc"};
  return {"", "~/.netrc"};
}

/// `keyring get URL USERNAME`, without a shell; the password is its first line of output.
std::optional<std::string> ask_keyring(const std::string& url, const std::string& username) {
  const auto path = env_value("PATH");
  const auto keyring = find_executable("keyring", path ? *path : "");
  if (!keyring) return std::nullopt;
  ProcessRequest request;
  request.argv = {keyring->string(), "get", url, username};
  request.env = current_environment();
  request.timeout = std::chrono::milliseconds(60000);
  auto ran = run_process(request);
  if (!ran || ran->exit_code != 0) return std::nullopt;
  std::string out = ran->out.substr(0, ran->out.find('\n'));
  if (!out.empty() && out.back() == '\r') out.pop_back();
  if (out.empty()) return std::nullopt;
  return out;
}

struct Entry {
  std::string url_userinfo;  ///< remembered from a URL (percent-encoded); empty: none
  std::string found;         ///< found by the lookup, as userinfo; empty: none
  // For an index's origin:
  bool index = false;
  bool looked_up = false;
  std::string index_url;  ///< without userinfo, as the keyring is asked
  std::string name;
  KeyringProvider keyring = KeyringProvider::disabled;
};

struct Store {
  std::mutex mutex;
  std::map<std::string, Entry> by_origin;
};

Store& store() {
  static Store s;
  return s;
}

void remember_locked(Store& s, std::string_view url) {
  const auto userinfo = url_userinfo(url);
  if (userinfo.empty()) return;
  if (auto origin = origin_of(url_without_userinfo(url))) {
    auto& e = s.by_origin[origin->key];
    if (e.url_userinfo == userinfo) return;
    e.url_userinfo = std::string(userinfo);
    e.looked_up = false;  // another username may find another password
    e.found.clear();
  }
}

/// Looks the credentials of an index's origin up (once), with the store locked.
void look_up(Entry& e, const Origin& origin) {
  e.looked_up = true;
  CredentialCandidates c;
  if (!e.url_userinfo.empty()) {
    const auto colon = e.url_userinfo.find(':');
    c.url_username = percent_decode(e.url_userinfo.substr(0, colon));
    if (colon != std::string::npos) c.url_password = percent_decode(e.url_userinfo.substr(colon + 1));
  }
  const auto [netrc_path, netrc_label] = netrc_file();
  if (!netrc_path.empty()) {
    if (auto text = read_file(netrc_path)) c.netrc = netrc_lookup(parse_netrc(*text), origin.host);
  }
  if (!e.name.empty()) {
    const auto prefix = index_env_prefix(e.name);
    c.env_username = env_value(prefix + "USERNAME");
    c.env_password = env_value(prefix + "PASSWORD");
  }
  KeyringLookup keyring;
  if (e.keyring == KeyringProvider::subprocess) {
    keyring = [url = e.index_url](const std::string& username) { return ask_keyring(url, username); };
  }
  if (auto chosen = choose_credentials(c, keyring)) e.found = userinfo_of(*chosen);
}

}  // namespace

std::string index_env_prefix(std::string_view name) {
  std::string out = "VWHEEL_INDEX_";
  for (const char ch : name) {
    out.push_back(is_ascii_alnum(ch) ? static_cast<char>(ch >= 'a' && ch <= 'z' ? ch - 'a' + 'A' : ch) : '_');
  }
  out.push_back('_');
  return out;
}

std::optional<Credentials> choose_credentials(const CredentialCandidates& c, const KeyringLookup& keyring) {
  if (c.url_password) return Credentials{c.url_username, *c.url_password, "the URL"};
  if (c.netrc) {
    return Credentials{c.netrc->login.empty() ? c.url_username : c.netrc->login, c.netrc->password, "netrc"};
  }
  const std::string username = !c.url_username.empty() ? c.url_username : c.env_username.value_or("");
  if (keyring && !username.empty()) {
    if (auto password = keyring(username)) return Credentials{username, *password, "keyring"};
  }
  if (c.env_username || c.env_password) {
    return Credentials{c.env_username.value_or(c.url_username), c.env_password.value_or(""), "environment"};
  }
  if (!c.url_username.empty()) return Credentials{c.url_username, "", "the URL"};
  return std::nullopt;
}

void use_credential_settings(const CredentialSettings& settings) {
  auto& s = store();
  const std::lock_guard lock(s.mutex);
  for (const auto& index : settings.indexes) {
    const auto plain = url_without_userinfo(index.url);
    const auto origin = origin_of(plain);
    if (!origin) continue;
    auto& e = s.by_origin[origin->key];
    if (!e.index) {
      e.index = true;
      e.index_url = plain;
      e.name = index.name;
      e.keyring = settings.keyring;
    }
    remember_locked(s, index.url);
  }
}

void remember_credentials(std::string_view url) {
  auto& s = store();
  const std::lock_guard lock(s.mutex);
  remember_locked(s, url);
}

std::string with_credentials(std::string_view url) {
  if (!url_userinfo(url).empty()) return std::string(url);
  const auto origin = origin_of(url);
  if (!origin) return std::string(url);
  std::string userinfo;
  {
    auto& s = store();
    const std::lock_guard lock(s.mutex);
    const auto it = s.by_origin.find(origin->key);
    if (it == s.by_origin.end()) return std::string(url);
    auto& e = it->second;
    // A URL's password comes first; a username alone may get its password from the other sources.
    const bool url_password = e.url_userinfo.find(':') != std::string::npos;
    if (e.index && !e.looked_up && !url_password) look_up(e, *origin);
    userinfo = !url_password && !e.found.empty() ? e.found : e.url_userinfo;
  }
  if (userinfo.empty()) return std::string(url);
  const auto at = url.find("://") + 3;
  std::string out(url.substr(0, at));
  out.append(userinfo).append("@").append(url.substr(at));
  return out;
}

std::string credentials_hint(std::string_view url) {
  const auto origin = origin_of(url_without_userinfo(url));
  if (!origin) return {};
  auto& s = store();
  const std::lock_guard lock(s.mutex);
  const auto it = s.by_origin.find(origin->key);
  if (it == s.by_origin.end() || !it->second.index) {
    return "no index given for this host: credentials are looked up only for the hosts of --index-url, "
           "--extra-index-url and --index NAME=URL";
  }
  const auto& e = it->second;
  std::string keyring = "disabled";
  if (e.keyring == KeyringProvider::subprocess) {
    const auto path = env_value("PATH");
    keyring = find_executable("keyring", path ? *path : "") ? "subprocess" : "subprocess, but no `keyring` on PATH";
  }
  std::string where = "credentials looked for in: the URL, " + netrc_file().second + ", keyring: " + keyring;
  if (!e.name.empty()) where += ", " + index_env_prefix(e.name) + "USERNAME";
  return where;
}

}  // namespace vwheel::http
