// Credentials from URLs, per origin, for the run (see credentials.hpp). A URL that is not
// `scheme://authority...` has no origin: nothing is remembered or added for it.

#include "vwheel/http/credentials.hpp"

#include <map>
#include <mutex>
#include <optional>

#include "vwheel/core/text.hpp"

namespace vwheel::http {

namespace {

/// `scheme://host:port` of `url` (without userinfo), lower case, with the scheme's default port
/// spelled out so that `https://h/` and `https://h:443/` are one origin; nullopt without one.
std::optional<std::string> origin_of(std::string_view url) {
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
  return scheme + "://" + ascii_lower(host) + ":" + std::string(port);
}

struct Store {
  std::mutex mutex;
  std::map<std::string, std::string> userinfo;  // by origin
};

Store& store() {
  static Store s;
  return s;
}

}  // namespace

void remember_credentials(std::string_view url) {
  const auto userinfo = url_userinfo(url);
  if (userinfo.empty()) return;
  if (auto origin = origin_of(url_without_userinfo(url))) {
    auto& s = store();
    const std::lock_guard lock(s.mutex);
    s.userinfo.insert_or_assign(std::move(*origin), std::string(userinfo));
  }
}

std::string with_credentials(std::string_view url) {
  if (!url_userinfo(url).empty()) return std::string(url);
  const auto origin = origin_of(url);
  if (!origin) return std::string(url);
  std::string userinfo;
  {
    auto& s = store();
    const std::lock_guard lock(s.mutex);
    const auto it = s.userinfo.find(*origin);
    if (it == s.userinfo.end()) return std::string(url);
    userinfo = it->second;
  }
  const auto at = url.find("://") + 3;
  std::string out(url.substr(0, at));
  out.append(userinfo).append("@").append(url.substr(at));
  return out;
}

}  // namespace vwheel::http
