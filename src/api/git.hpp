#pragma once
// `git+` references (plan/sources.hpp): the repository fetched into the cache with the `git`
// command, and the revision checked out into a work folder, to be built as a project directory.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "vwheel/core/error.hpp"

namespace vwheel::api {

/// A checked-out revision.
struct GitCheckout {
  std::filesystem::path dir;  ///< the work tree (submodules included)
  std::string commit;         ///< the full commit id checked out
};

/// Fetches `url` (a repository URL as git takes it: `https://`, `ssh://`, `file://`; credentials
/// are used, never kept) into `<cache_root>/git/<sha256 of the URL without credentials>` (a bare
/// repository, shared by runs; with no `cache_root`, into `work`), and checks out `revision` (a
/// branch, else a tag, else a commit, as pip looks it up; nullopt: the remote's HEAD) into
/// `work/checkout`. A full commit id already in the cache is not fetched again. git runs without
/// a shell, never prompts (GIT_TERMINAL_PROMPT=0, ssh in batch mode) and runs no hooks. Errors are
/// one line naming `what` (the reference as written, credentials redacted) and git's last line
/// of standard error; a missing `git` is an environmental failure.
[[nodiscard]] Result<GitCheckout> checkout_git(const std::string& url, const std::optional<std::string>& revision,
                                               const std::optional<std::filesystem::path>& cache_root,
                                               const std::filesystem::path& work, std::string_view what);

}  // namespace vwheel::api
