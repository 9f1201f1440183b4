#pragma once
/// \file
/// `.netrc` files (as curl, ftp and Python's netrc read them), parsed without I/O: `machine NAME`,
/// `default`, `login`, `password` and `account` tokens separated by white space, values optionally
/// in double quotes (where `\` escapes the next character), `macdef NAME` skipping its body up to
/// the next empty line, and `#` starting a comment at the start of a token. vwheel parses the file
/// itself instead of handing it to libcurl (CURLOPT_NETRC) because it must decide per index which
/// host gets the credentials found (the index's origin only, never a file host it links to), say
/// where it looked in a 401 message, and look in the file before the keyring and the environment.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vwheel::http {

/// One `machine` (or `default`) entry.
struct NetrcEntry {
  std::string machine;  ///< empty for `default`
  std::string login;
  std::string password;
  bool is_default = false;
};

/// The entries of a `.netrc` text, in file order. Unknown tokens are skipped; a file that ends
/// in the middle of an entry gives what was read of it.
[[nodiscard]] std::vector<NetrcEntry> parse_netrc(std::string_view text);

/// The entry for `host` (compared without regard to case): the first `machine` naming it, else the
/// `default` entry, else nullopt. An entry with neither login nor password does not count.
[[nodiscard]] std::optional<NetrcEntry> netrc_lookup(const std::vector<NetrcEntry>& entries, std::string_view host);

}  // namespace vwheel::http
