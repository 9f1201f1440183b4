#include "git.hpp"

#include <sys/file.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include <fmt/format.h>

#include "vwheel/core/cache_layout.hpp"
#include "vwheel/core/file_lock.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/process.hpp"
#include "vwheel/core/text.hpp"

namespace vwheel::api {
namespace fs = std::filesystem;

namespace {

/// The environment git runs in: ours without what would point it at another repository
/// (`GIT_DIR` of a hook that runs vwheel), and never asking for a password on the terminal.
std::vector<std::string> git_environment() {
  static constexpr std::string_view kDropped[] = {"GIT_DIR=",
                                                  "GIT_WORK_TREE=",
                                                  "GIT_INDEX_FILE=",
                                                  "GIT_OBJECT_DIRECTORY=",
                                                  "GIT_ALTERNATE_OBJECT_DIRECTORIES=",
                                                  "GIT_COMMON_DIR=",
                                                  "GIT_TERMINAL_PROMPT=",
                                                  "GIT_CONFIG_PARAMETERS="};
  std::vector<std::string> env;
  bool ssh_set = false;
  for (auto& e : current_environment()) {
    if (std::any_of(std::begin(kDropped), std::end(kDropped), [&](std::string_view d) { return e.starts_with(d); })) {
      continue;
    }
    ssh_set = ssh_set || e.starts_with("GIT_SSH=") || e.starts_with("GIT_SSH_COMMAND=");
    env.push_back(std::move(e));
  }
  env.emplace_back("GIT_TERMINAL_PROMPT=0");
  if (!ssh_set) env.emplace_back("GIT_SSH_COMMAND=ssh -o BatchMode=yes");
  return env;
}

class Git {
 public:
  Git(fs::path exe, std::string_view what) : exe_(std::move(exe)), what_(what), env_(git_environment()) {}

  /// Runs `git ARGS` in `cwd`; a failure to start it is an environmental error.
  Result<ProcessResult> run(const std::vector<std::string>& args, const fs::path& cwd = {}) const {
    ProcessRequest request;
    // No hooks: neither a repository's nor the user's own hooks path runs while vwheel fetches.
    request.argv = {exe_.string(), "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"};
    request.argv.insert(request.argv.end(), args.begin(), args.end());
    request.env = env_;
    request.cwd = cwd;
    request.timeout = std::chrono::minutes(30);
    auto done = run_process(request);
    if (!done) return fail(with_kind(done.error().with_context(fmt::format("`{}`", what_)), ErrorKind::environment));
    return done;
  }

  /// Runs `git ARGS`; a non-zero exit is an error saying `doing` and git's last line.
  Result<ProcessResult> must(const std::vector<std::string>& args, std::string_view doing,
                             const fs::path& cwd = {}) const {
    auto done = run(args, cwd);
    if (!done) return done;
    if (done->exit_code != 0) return fail(failure(doing, *done));
    return done;
  }

  [[nodiscard]] Error failure(std::string_view doing, const ProcessResult& done) const {
    auto line = redact_url(last_line(done.err));
    if (line.empty()) line = done.timed_out ? "timed out" : fmt::format("exit status {}", done.exit_code);
    return Error(fmt::format("`{}`: {} (git: {})", what_, doing, line));
  }

  /// The commit `rev` names in `repo`, or nullopt.
  Result<std::optional<std::string>> commit_of(const fs::path& repo, const std::string& rev) const {
    auto done =
        run({"--git-dir", repo.string(), "rev-parse", "--verify", "--quiet", "--end-of-options", rev + "^{commit}"});
    if (!done) return fail(done.error());
    if (done->exit_code != 0) return std::optional<std::string>();
    return std::optional<std::string>(std::string(ascii_trim(done->out)));
  }

 private:
  fs::path exe_;
  std::string what_;
  std::vector<std::string> env_;
};

bool is_full_commit(std::string_view rev) {
  return rev.size() == 40 && std::all_of(rev.begin(), rev.end(), is_ascii_hex_digit);
}

bool looks_like_commit(std::string_view rev) {
  return rev.size() >= 7 && rev.size() <= 40 && std::all_of(rev.begin(), rev.end(), is_ascii_hex_digit);
}

/// The commit of `revision` in `repo`: a branch first, then a tag, then anything git names so.
Result<std::optional<std::string>> resolve_revision(const Git& git, const fs::path& repo,
                                                    const std::optional<std::string>& revision) {
  if (!revision) return git.commit_of(repo, "refs/vwheel/HEAD");
  for (const auto& ref : {"refs/heads/" + *revision, "refs/tags/" + *revision, *revision}) {
    auto commit = git.commit_of(repo, ref);
    if (!commit || *commit) return commit;
  }
  return std::optional<std::string>();
}

}  // namespace

Result<GitCheckout> checkout_git(const std::string& url, const std::optional<std::string>& revision,
                                 const std::optional<fs::path>& cache_root, const fs::path& work,
                                 std::string_view what) {
  const char* path_env = std::getenv("PATH");
  auto exe = find_executable("git", path_env != nullptr ? path_env : "/usr/bin:/bin");
  if (!exe) {
    return fail(with_kind(Error(fmt::format("`{}`: the `git` command is needed and not found in $PATH", what)),
                          ErrorKind::environment));
  }
  const Git git(*exe, what);
  const auto repo = cache_root ? CacheLayout(*cache_root).entry(CacheArea::git, sha256_hex(url_without_userinfo(url)))
                               : work / "repository";
  std::error_code ec;
  fs::create_directories(repo.parent_path(), ec);
  if (ec)
    return fail(
        with_kind(Error(fmt::format("{}: {}", repo.parent_path().string(), ec.message())), ErrorKind::environment));
  // One run at a time fetches into a cached repository (git's own ref locks would fail the other).
  auto held = lock_file(repo.string() + ".lock", LOCK_EX, true);
  if (!held) return fail(with_kind(held.error(), ErrorKind::environment));
  if (!fs::exists(repo / "HEAD", ec)) {
    fs::remove_all(repo, ec);
    if (auto ok = git.must({"init", "--quiet", "--bare", "--template=", repo.string()}, "cannot create a repository");
        !ok) {
      return fail(with_kind(ok.error(), ErrorKind::environment));
    }
  }
  std::optional<std::string> commit;
  if (revision && is_full_commit(*revision)) {
    auto known = git.commit_of(repo, *revision);
    if (!known) return fail(known.error());
    commit = *known;
  }
  if (!commit) {
    // Branches and tags as the remote has them now, and its HEAD (the default revision). The URL
    // is given each time rather than kept in the repository's config: its credentials stay out.
    if (auto ok = git.must(
            {"--git-dir", repo.string(), "fetch", "--quiet", "--force", "--no-write-fetch-head", "--end-of-options",
             url, "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*", "+HEAD:refs/vwheel/HEAD"},
            "cannot fetch the repository");
        !ok) {
      return fail(ok.error());
    }
    auto found = resolve_revision(git, repo, revision);
    if (!found) return fail(found.error());
    commit = *found;
    if (!commit && revision && looks_like_commit(*revision)) {
      // A commit on no branch or tag: servers hand out a full commit id asked for by name.
      auto fetched = git.run({"--git-dir", repo.string(), "fetch", "--quiet", "--no-write-fetch-head",
                              "--end-of-options", url, *revision});
      if (!fetched) return fail(fetched.error());
      auto again = git.commit_of(repo, *revision);
      if (!again) return fail(again.error());
      commit = *again;
    }
    if (!commit) {
      auto why = git.run({"--git-dir", repo.string(), "rev-parse", "--verify", "--end-of-options",
                          revision.value_or("HEAD") + "^{commit}"});
      if (!why) return fail(why.error());
      return fail(git.failure(revision ? fmt::format("no branch, tag or commit `{}` in the repository", *revision)
                                       : std::string("the repository has no HEAD to check out"),
                              *why));
    }
  }
  const auto checkout = work / "checkout";
  if (auto ok =
          git.must({"clone", "--quiet", "--no-checkout", "--shared", "--template=", repo.string(), checkout.string()},
                   "cannot make a work tree");
      !ok) {
    return fail(with_kind(ok.error(), ErrorKind::environment));
  }
  if (auto ok = git.must({"-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", *commit},
                         fmt::format("cannot check out {}", *commit), checkout);
      !ok) {
    return fail(ok.error());
  }
  if (fs::exists(checkout / ".gitmodules", ec)) {
    if (auto ok = git.must({"submodule", "update", "--quiet", "--init", "--recursive"},
                           "cannot check out the submodules", checkout);
        !ok) {
      return fail(ok.error());
    }
  }
  return GitCheckout{checkout, *commit};
}

}  // namespace vwheel::api
