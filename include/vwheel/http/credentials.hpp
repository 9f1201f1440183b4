#pragma once
/// \file
/// Credentials given in URLs (`--index-url https://alice:s3cret@host/simple/`, a lock's `url`),
/// kept in memory for the run and never at rest: the Client remembers a URL's userinfo for its
/// origin (scheme, host, port) and sends it with every request to that origin (the index's pages
/// and the files it links on the same host, whose URLs, resolved against the answer's URL without
/// userinfo, have none), while what it stores (cache keys and files) and the URLs it answers
/// (Response::url) are without it and its messages show it redacted (`redact_url`).
/// Process-wide and thread-safe: the clients of one run share what any of them learnt.

#include <string>
#include <string_view>

namespace vwheel::http {

/// Remembers the userinfo of `url`, when it has one, for the URL's origin (a later one for the
/// same origin replaces it). The Client calls it for every URL it is asked for, answered from the
/// cache or not.
void remember_credentials(std::string_view url);

/// `url` with the userinfo remembered for its origin, for the request alone (never to be shown
/// or stored); `url` as it is when it has userinfo already or none is remembered for its origin.
[[nodiscard]] std::string with_credentials(std::string_view url);

}  // namespace vwheel::http
