#pragma once
// `vwheel sync` of lock entries installed from a source (plan::LockedSource, PEP 751
// "Installation"): an sdist, an archive, a directory or a vcs commit, each fetched, checked and
// built into the wheel that the plan then installs.

#include <filesystem>

#include "vwheel/api/install.hpp"
#include "vwheel/core/error.hpp"
#include "vwheel/install/install.hpp"
#include "vwheel/plan/plan.hpp"

namespace vwheel::api {

/// For each planned package with a `source`, unless the environment has its version already
/// (a source tree without a version is always built): gets the file (downloaded into `work`, or
/// at its path), checks its `size` and its hashes (a sha256 is required; sha384 and sha512 are
/// checked too when listed), unpacks an archive whose `subdirectory` is given, clones a git
/// repository and checks out `commit-id`, and builds what is not a wheel with the PEP 517 frontend (prepare_sources:
/// `python` runs the backend; an editable directory with PEP 660). The package's `wheel` then names the built wheel,
/// its `version` the wheel's (which must be the entry's when it has one), and its `origin` what PEP 610's
/// direct_url.json says (none for an sdist, as for a wheel from an index). Errors are one line naming the entry
/// (`pylock.toml packages[N].archive (name version)`); nothing is installed here.
[[nodiscard]] Result<void> prepare_lock_sources(plan::Plan& plan, const install::Environment& env,
                                                const SyncRequest& request, const std::filesystem::path& work);

}  // namespace vwheel::api
