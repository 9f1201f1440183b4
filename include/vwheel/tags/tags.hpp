#pragma once
/// \file
/// Wheel compatibility tags (PEP 425, manylinux PEP 600, musllinux PEP 656, macOS's
/// `macosx_X_Y_ARCH`, Windows' `win_amd64`/`win_arm64`/`win32`) that an interpreter supports, most
/// preferred first, computed the way `packaging.tags.sys_tags()` does.

#include <optional>
#include <string>
#include <vector>

namespace vwheel::tags {

/// What tag generation needs to know about an interpreter and its platform.
struct InterpreterInfo {
  std::string implementation = "cp";  ///< `cp`, `pp`, ... (interpreter tag prefix)
  int major = 3;
  int minor = 0;
  /// ABI tags of the interpreter itself, most specific first (e.g. `cp312`, `cp313t`).
  std::vector<std::string> abis;
  bool free_threaded = false;
  /// `linux_x86_64`-style platform (from `sysconfig.get_platform()`, `-`/`.` as `_`).
  std::string platform;
  /// glibc version (major, minor) when linked against glibc.
  std::optional<std::pair<int, int>> glibc;
  /// musl version (major, minor) when linked against musl.
  std::optional<std::pair<int, int>> musl;
  /// The running macOS version (`platform.mac_ver()`), which may be newer than the one in
  /// `platform` (the deployment target CPython was built for); unset: the one in `platform`.
  std::optional<std::pair<int, int>> macos;
};

/// Platform tags, best first: manylinux/musllinux for the libc, then the plain platform; on
/// macOS (`platform` `macosx_X_Y_ARCH`) what `mac_platforms` gives; elsewhere (`win_amd64`, ...)
/// the platform alone.
[[nodiscard]] std::vector<std::string> platform_tags(const InterpreterInfo& info);

/// `packaging.tags.mac_platforms(version, arch)`: the `macosx_*` tags a macOS `version` on `arch`
/// (`arm64`, `x86_64`, `i386`, `ppc`, `ppc64`, `universal2`...) runs, best first. Since macOS 11
/// only the major version counts (`macosx_14_0_arm64`), and arm64 machines also run `universal2`
/// wheels built for 10.4 to 10.16.
[[nodiscard]] std::vector<std::string> mac_platforms(std::pair<int, int> version, const std::string& arch);

/// Every supported `python-abi-platform` tag, most preferred first.
[[nodiscard]] std::vector<std::string> supported_tags(const InterpreterInfo& info);

}  // namespace vwheel::tags
