#pragma once
// `vwheel install` of local projects, archives and direct references (plan/sources.hpp): each
// becomes one wheel file to install as given, with the PEP 610 origin its direct_url.json names.

#include <filesystem>
#include <vector>

#include "vwheel/api/install.hpp"
#include "vwheel/core/error.hpp"
#include "vwheel/install/install.hpp"
#include "vwheel/plan/plan.hpp"
#include "vwheel/plan/sources.hpp"

namespace vwheel::api {

/// Downloads the URLs (checking `#sha256=`), hashes the local archives (checking it too), checks
/// out `git+` references (checkout_git, into the cache's bare clone), builds project directories,
/// checkouts and sdists with the PEP 517 frontend (backend run by `python`, build
/// requirements installed from `request.sources` unless `request.no_build_isolation`), all under
/// `work` (which the caller removes), and checks that a `name @` reference's distribution has that
/// name. The errors are one line naming the requirement as written; a failed build's names the
/// backend's last output line.
[[nodiscard]] Result<std::vector<install::WheelRequest>> prepare_sources(const std::vector<plan::SourceRef>& sources,
                                                                         const InstallRequest& request,
                                                                         const std::filesystem::path& python,
                                                                         const std::filesystem::path& work);

/// The prepared wheels as the resolver's fixed candidates (plan::LocalWheel), their METADATA read.
/// Two of the same project are an error naming both.
[[nodiscard]] Result<std::vector<plan::LocalWheel>> local_wheels(const std::vector<install::WheelRequest>& wheels);

}  // namespace vwheel::api
