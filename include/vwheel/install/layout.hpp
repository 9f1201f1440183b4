#pragma once
/// \file
/// The pure parts of installing a wheel (binary distribution format): which member names are
/// safe, where each member goes in an install scheme, `WHEEL` and `entry_points.txt` parsing,
/// shebang rewriting and entry-point launcher scripts. No I/O.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"

namespace vwheel::install {

/// Install scheme keys a member can be mapped to.
enum class SchemeKey { Purelib, Platlib, Scripts, Headers, Data };

/// `purelib`, `platlib`, `scripts`, `headers`, `data`.
[[nodiscard]] std::string_view to_string(SchemeKey key) noexcept;

/// Where each scheme key installs to (absolute directories).
struct Scheme {
  std::filesystem::path purelib;
  std::filesystem::path platlib;
  std::filesystem::path scripts;
  std::filesystem::path headers;  ///< already includes the distribution's own directory
  std::filesystem::path data;

  [[nodiscard]] const std::filesystem::path& dir(SchemeKey key) const noexcept;
};

/// Limits against zip bombs.
struct Limits {
  /// Largest total uncompressed size of all members.
  std::uint64_t max_total_size = std::uint64_t{8} << 30;
  /// Largest uncompressed:compressed ratio of one member larger than `ratio_min_size`.
  std::uint64_t max_ratio = 1000;
  std::uint64_t ratio_min_size = std::uint64_t{1} << 20;
};

/// Checks a member name: non-empty, relative, `/`-separated, no `\`, NUL or control byte, no
/// empty, `.` or `..` component (a trailing `/` marks a directory), no component vwheel reserves
/// (`.vwheel.lock`, `.vwheel-*`: its lock, journal and staging). The error names the member.
[[nodiscard]] Result<void> check_member_name(std::string_view name);

/// Checks the Unix mode of a member: regular files and directories only (symlinks, devices and
/// FIFOs are refused). `mode` is `Entry::unix_mode()` (0 when not made on Unix: accepted).
[[nodiscard]] Result<void> check_member_mode(std::string_view name, std::uint32_t mode);

/// Where one member goes: a scheme key and the path below that scheme directory.
struct Destination {
  SchemeKey key = SchemeKey::Purelib;
  std::string relative;  ///< `/`-separated, checked by check_member_name
};

/// Maps a (checked) member name of a wheel whose data directory is `data_dir`
/// (`{name}-{version}.data`) to its destination: members under `data_dir/KEY/` go to scheme KEY
/// (an unknown KEY is an error), every other member to purelib when `root_is_purelib` else
/// platlib. A member that is `data_dir/KEY` itself (no path below) is an error.
[[nodiscard]] Result<Destination> map_member(std::string_view name, std::string_view data_dir, bool root_is_purelib);

/// The `WHEEL` file's fields that matter for installing.
struct WheelInfo {
  int version_major = 1;
  int version_minor = 0;
  bool root_is_purelib = true;
};

/// Parses `WHEEL` (RFC 822 headers). Errors: no `Wheel-Version`, one that is not `X.Y`, a
/// major version above 1, a `Root-Is-Purelib` that is not `true`/`false`. `source` names the file.
[[nodiscard]] Result<WheelInfo> parse_wheel_info(std::string_view text, std::string_view source);

/// The `Name` and `Version` headers of a `METADATA` file (empty when absent).
struct NameVersion {
  std::string name;
  std::string version;
};
[[nodiscard]] NameVersion parse_metadata_name_version(std::string_view text);

/// The value of the first header `field` (case-insensitive) of an RFC 822 header block, or nullopt.
[[nodiscard]] std::optional<std::string> header_value(std::string_view text, std::string_view field);

/// One console or GUI script from `entry_points.txt`.
struct EntryPoint {
  std::string name;    ///< the script's file name
  std::string module;  ///< dotted module path
  std::string attr;    ///< dotted attribute path (may be empty: the module is called)
  bool gui = false;
};

/// The `[console_scripts]` and `[gui_scripts]` entries of an `entry_points.txt`. Names must be
/// plain file names and module/attribute dotted identifiers (they are written into a script);
/// anything else is an error naming the line.
[[nodiscard]] Result<std::vector<EntryPoint>> parse_entry_points(std::string_view text);

/// The console scripts as pip writes them for the Python `X.Y` running the install: a `pip`
/// entry point becomes `pip`, `pipX` and `pipX.Y`, and every other `pip`/`pipN`/`pipN.M` entry
/// (versioned for the Python the wheel was built with, e.g. `pip3.7`) is dropped; an
/// `easy_install` one becomes `easy_install` and `easy_install-X.Y`, dropping `easy_install-N.M`.
/// Without such an entry point, or with `python_version` empty, the list is returned unchanged.
[[nodiscard]] std::vector<EntryPoint> with_versioned_script_names(std::vector<EntryPoint> entry_points,
                                                                  std::string_view python_version);

/// The shebang line (with `\n`) that runs `python`: `#!PATH` or, when the path has a space or
/// is longer than 127 bytes, the `/bin/sh` exec trick pip uses.
[[nodiscard]] std::string shebang_for(const std::filesystem::path& python);

/// When `content` starts with `#!python` (or `#!pythonw`), the content with its first line
/// replaced by `shebang_for(python)`; else nullopt (the script is installed unchanged).
[[nodiscard]] std::optional<std::string> rewrite_shebang(std::string_view content, const std::filesystem::path& python);

/// The launcher script for an entry point (like pip's): the shebang, then
/// `import sys; from MODULE import HEAD; sys.exit(ATTR())`.
[[nodiscard]] std::string make_launcher(const EntryPoint& entry_point, const std::filesystem::path& python);

/// The `file://` URL of an absolute path, percent-encoding everything outside RFC 3986's
/// unreserved set and `/`.
[[nodiscard]] std::string file_url(const std::filesystem::path& absolute);

/// Where a distribution installed from a file or URL came from: PEP 610's `direct_url.json`.
struct DirectUrl {
  std::string url;  ///< `file://` or `https://`; any userinfo is left out of the JSON
  /// The archive's sha256 (lowercase hex): `archive_info`. nullopt: a local project directory
  /// (`dir_info`).
  std::optional<std::string> archive_sha256;
  /// A project directory installed editable (PEP 660): `dir_info` says `"editable": true`, which
  /// pip reads to list it with its `editable_project_location`.
  bool editable = false;
  /// A VCS checkout (`url` is the repository's, without `git+`): `vcs_info` in place of the others.
  struct Vcs {
    std::string vcs;                                ///< `git`
    std::string commit_id;                          ///< the full commit built
    std::optional<std::string> requested_revision;  ///< the `@REV` given, if any
  };
  std::optional<Vcs> vcs{};
  /// `#subdirectory=`: where the project is inside what `url` names.
  std::optional<std::string> subdirectory{};
};

/// The `direct_url.json` text: `{"url": ..., "dir_info": {}}` (`{"editable": true}` when
/// editable), `{"url": ..., "archive_info":
/// {"hashes": {"sha256": H}, "hash": "sha256=H"}}` (both the PEP 610 field and its legacy one,
/// which older pips read), or `{"url": ..., "vcs_info": {"vcs": "git", "requested_revision": R,
/// "commit_id": C}}`, with `"subdirectory"` after the URL when there is one (pip's order). The
/// URL's userinfo is left out (url_without_userinfo): PEP 610 keeps secrets out of the file, except
/// ssh's user `git` (`ssh://git@host/repo`), which is no secret and which the URL needs (as pip).
[[nodiscard]] std::string direct_url_json(const DirectUrl& direct);

/// `target` relative to `base` (both absolute and lexically normal), `/`-separated, with `..`
/// components as needed (`../../../bin/x`).
[[nodiscard]] std::string relative_path(const std::filesystem::path& target, const std::filesystem::path& base);

/// True when `path` (lexically normalized) is `dir` or below it.
[[nodiscard]] bool is_within(const std::filesystem::path& path, const std::filesystem::path& dir);

}  // namespace vwheel::install
