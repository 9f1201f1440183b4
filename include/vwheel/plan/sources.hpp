#pragma once
/// \file
/// The requirement forms that name one distribution's files rather than a project on an index, as
/// pip accepts them: a local project directory or archive (`.`, `./proj`, `/abs/x-1.0.tar.gz`,
/// `dist/x-1.0-py3-none-any.whl`) and a PEP 508 direct reference (`name @ file:///path`,
/// `name @ https://host/x.whl#sha256=HEX`, `name @ git+https://host/repo.git@v1.0#subdirectory=pkg`).
/// Pure: whether a path is a directory is the caller's
/// question.

#include <optional>
#include <string>
#include <string_view>

#include "vwheel/core/error.hpp"

namespace vwheel::plan {

/// One such requirement.
struct SourceRef {
  std::string text;                 ///< as written, for messages
  std::optional<std::string> name;  ///< the name before `@`; nullopt for a bare path
  /// A local path (a `file:` URL decoded), else nullopt.
  std::optional<std::string> path;
  /// The `https://` or `http://` URL without its fragment, else empty.
  std::string url;
  /// The `#sha256=` fragment, lowercase hex.
  std::optional<std::string> sha256;
  /// `-e PATH` / `--editable PATH`: a project directory built with PEP 660's `build_editable`.
  bool editable = false;
  /// A `git+` reference: the repository's URL without `git+`, `@REV` and the fragment
  /// (`https://host/repo.git`, `file:///srv/repo`, `ssh://git@host/repo`), as git is given it
  /// (credentials included); else empty.
  std::string git_url;
  /// The `@REV` of a `git+` URL: a branch, a tag or a commit; nullopt: the remote's HEAD.
  std::optional<std::string> revision;
  /// `#subdirectory=`: the project's folder inside a `git+` reference's checkout (relative, no
  /// `..`).
  std::optional<std::string> subdirectory;
  /// From a `-c` file (`name @ URL` only, as pip takes them): what its project resolves to when
  /// something requires it; not installed otherwise.
  bool constraint = false;
};

/// Whether `text` (trimmed) is written as a path rather than a requirement: it starts with `.`,
/// `/` or `~`, contains a `/`, or ends with `.whl`, `.tar.gz` or `.zip`.
[[nodiscard]] bool looks_like_path(std::string_view text);

/// `text` as a `SourceRef`, or nullopt when it is a requirement by name (for the index). A direct
/// reference with a scheme other than `file`, `https`, `http` and `git+` one of `https`, `http`,
/// `ssh`, `git` and `file`, a fragment other than `sha256=` (not for `git+`), `subdirectory=`
/// (only for `git+`) and pip's `egg=` (ignored), a hash that is not 64 hex digits, an empty
/// `@REV` or a subdirectory that leaves the checkout is an error naming it.
[[nodiscard]] Result<std::optional<SourceRef>> parse_source(std::string_view text);

/// The `SourceRef` of a git repository at a commit, as a lock records one (PEP 751's
/// `[packages.vcs]`: `url`, `commit-id`, `subdirectory`): what
/// `name @ git+URL@COMMIT#subdirectory=DIR` parses to, with that text. `url` is the repository's
/// URL without `git+`; api's `prepare_sources` checks it out and builds it.
[[nodiscard]] SourceRef git_source(std::string name, std::string url, std::string commit,
                                   std::optional<std::string> subdirectory);

/// The path of `-e PATH` / `--editable PATH` as an editable `SourceRef` (its text `-e PATH`). Any
/// word is a path here (`-e proj` is the folder `proj`, as for pip); a URL or a `name @` reference
/// is an error naming it.
[[nodiscard]] Result<SourceRef> parse_editable(std::string_view text);

}  // namespace vwheel::plan
