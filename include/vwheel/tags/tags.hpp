#pragma once
/// \file
/// Wheel compatibility tags (PEP 425, manylinux PEP 600, musllinux PEP 656) that an interpreter
/// supports, most preferred first, computed the way `packaging.tags.sys_tags()` does.

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
};

/// Platform tags, best first: manylinux/musllinux for the libc, then the plain platform.
[[nodiscard]] std::vector<std::string> platform_tags(const InterpreterInfo& info);

/// Every supported `python-abi-platform` tag, most preferred first.
[[nodiscard]] std::vector<std::string> supported_tags(const InterpreterInfo& info);

}  // namespace vwheel::tags
