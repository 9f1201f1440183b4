#pragma once
// Private to the plan component: the sha256 a lock needs of wheels that their index gives none
// for (a find-links page such as a web server's directory listing, an index without hashes).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "origin.hpp"
#include "vwheel/plan/plan.hpp"

namespace vwheel::plan::detail {

/// What a lock records of a wheel: its sha256 (lowercase hex) and size.
struct WheelDigest {
  std::string sha256;
  std::uint64_t size = 0;
};

/// The digest of each wheel, by URL. PEP 751 requires a hash for every wheel of a lock, so, as
/// `pip lock` and pip-tools do, each wheel is downloaded and hashed, all at once, streamed
/// through the hash (memory does not grow with the wheel). What the installer recorded of an
/// earlier download (origin.hpp) saves the transfer while the server says the file is unchanged
/// (one HEAD request each, unless `answered` by URL, as the resolution asked); a new download leaves such a record too
/// and stays in the archive cache under its sha256, where the `vwheel sync` of the lock finds it (as does an earlier
/// download still there whose bytes match its record). Offline, only recorded wheels have a
/// digest: the error names the first other one.
[[nodiscard]] Result<std::map<std::string, WheelDigest>> hash_hashless(const std::vector<Hashless>& wheels,
                                                                        const Settings& settings, http::Client& client,
                                                                        const std::map<std::string, http::Response, std::less<>>& answered,
                                                                        bool quiet);

}  // namespace vwheel::plan::detail
