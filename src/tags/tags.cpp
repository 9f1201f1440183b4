#include "vwheel/tags/tags.hpp"

#include <cstdio>
#include <optional>
#include <utility>

#include <fmt/format.h>

namespace vwheel::tags {
namespace {

std::string arch_of(const std::string& platform) {
  const auto pos = platform.find('_');
  return pos == std::string::npos ? platform : platform.substr(pos + 1);
}

const char* legacy_manylinux(int major, int minor) {
  if (major != 2) return nullptr;
  switch (minor) {
    case 17: return "manylinux2014";
    case 12: return "manylinux2010";
    case 5: return "manylinux1";
    default: return nullptr;
  }
}

bool legacy_supports_arch(int minor, const std::string& arch) {
  if (minor == 17) {
    return arch == "x86_64" || arch == "i686" || arch == "aarch64" || arch == "armv7l" || arch == "ppc64" ||
           arch == "ppc64le" || arch == "s390x";
  }
  return arch == "x86_64" || arch == "i686";  // manylinux1 and manylinux2010
}

/// packaging's `_mac_binary_formats`: the binary formats a `version` on `arch` runs, the
/// architecture's own first, then the fat formats that include it.
std::vector<std::string> mac_binary_formats(std::pair<int, int> version, const std::string& arch) {
  std::vector<std::string> formats{arch};
  if (arch == "x86_64") {
    if (version < std::pair{10, 4}) return {};
    formats.insert(formats.end(), {"intel", "fat64", "fat32"});
  } else if (arch == "i386") {
    if (version < std::pair{10, 4}) return {};
    formats.insert(formats.end(), {"intel", "fat32", "fat"});
  } else if (arch == "ppc64") {
    if (version > std::pair{10, 5} || version < std::pair{10, 4}) return {};
    formats.emplace_back("fat64");
  } else if (arch == "ppc") {
    if (version > std::pair{10, 6}) return {};
    formats.insert(formats.end(), {"fat32", "fat"});
  }
  if (arch == "arm64" || arch == "x86_64") formats.emplace_back("universal2");
  if (arch == "x86_64" || arch == "i386" || arch == "ppc64" || arch == "ppc" || arch == "intel") {
    formats.emplace_back("universal");
  }
  return formats;
}

/// `macosx_14_0_arm64` → ((14, 0), "arm64"); the architecture may hold `_` (`x86_64`).
std::optional<std::pair<std::pair<int, int>, std::string>> parse_macosx(const std::string& platform) {
  int major = 0;
  int minor = 0;
  int used = 0;
  if (std::sscanf(platform.c_str(), "macosx_%d_%d_%n", &major, &minor, &used) != 2 || used == 0) return std::nullopt;
  if (static_cast<std::size_t>(used) >= platform.size()) return std::nullopt;
  return std::pair{std::pair{major, minor}, platform.substr(static_cast<std::size_t>(used))};
}

}  // namespace

std::vector<std::string> mac_platforms(std::pair<int, int> version, const std::string& arch) {
  std::vector<std::string> out;
  const auto add = [&](int major, int minor) {
    for (const auto& format : mac_binary_formats({major, minor}, arch)) {
      out.push_back(fmt::format("macosx_{}_{}_{}", major, minor, format));
    }
  };
  if (version >= std::pair{10, 0} && version < std::pair{11, 0}) {
    // Before macOS 11 each yearly release raised the minor version.
    for (int minor = version.second; minor >= 0; --minor) add(10, minor);
  }
  if (version >= std::pair{11, 0}) {
    // From macOS 11 each yearly release raises the major version; minors are mid-year updates.
    for (int major = version.first; major > 10; --major) add(major, 0);
    // x86_64 runs what earlier releases ran; arm64 (new in 11.0) only universal2 wheels whose
    // x86_64 half targets an earlier release.
    for (int minor = 16; minor > 3; --minor) {
      if (arch == "x86_64") {
        add(10, minor);
      } else {
        out.push_back(fmt::format("macosx_10_{}_universal2", minor));
      }
    }
  }
  return out;
}

std::vector<std::string> platform_tags(const InterpreterInfo& info) {
  if (const auto mac = parse_macosx(info.platform)) {
    auto out = mac_platforms(info.macos.value_or(mac->first), mac->second);
    if (out.empty()) out.push_back(info.platform);
    return out;
  }
  std::vector<std::string> out;
  const std::string arch = arch_of(info.platform);
  if (info.platform.rfind("linux_", 0) == 0) {
    if (info.glibc && info.glibc->first == 2) {
      const int oldest = (arch == "x86_64" || arch == "i686") ? 4 : 16;  // exclusive lower bound
      for (int minor = info.glibc->second; minor > oldest; --minor) {
        out.push_back(fmt::format("manylinux_2_{}_{}", minor, arch));
        if (const char* legacy = legacy_manylinux(2, minor); legacy && legacy_supports_arch(minor, arch)) {
          out.push_back(fmt::format("{}_{}", legacy, arch));
        }
      }
    }
    if (info.musl && info.musl->first == 1) {
      for (int minor = info.musl->second; minor >= 0; --minor) out.push_back(fmt::format("musllinux_1_{}_{}", minor, arch));
    }
  }
  out.push_back(info.platform);
  return out;
}

std::vector<std::string> supported_tags(const InterpreterInfo& info) {
  std::vector<std::string> out;
  const auto platforms = platform_tags(info);
  const std::string interpreter = fmt::format("{}{}{}", info.implementation, info.major, info.minor);
  // Tags specific to the interpreter's ABI.
  for (const auto& abi : info.abis) {
    for (const auto& p : platforms) out.push_back(fmt::format("{}-{}-{}", interpreter, abi, p));
  }
  const bool cpython = info.implementation == "cp";
  if (cpython && !info.free_threaded) {
    for (const auto& p : platforms) out.push_back(fmt::format("{}-abi3-{}", interpreter, p));
  }
  for (const auto& p : platforms) out.push_back(fmt::format("{}-none-{}", interpreter, p));
  if (cpython && !info.free_threaded && (info.major > 3 || (info.major == 3 && info.minor >= 2))) {
    for (int minor = info.minor - 1; minor >= 2; --minor) {
      for (const auto& p : platforms) out.push_back(fmt::format("cp{}{}-abi3-{}", info.major, minor, p));
    }
  }
  // Compatible tags: pyXY/pyX for the platforms, then the interpreter and pure-Python wheels.
  std::vector<std::string> versions{fmt::format("py{}{}", info.major, info.minor), fmt::format("py{}", info.major)};
  for (int minor = info.minor - 1; minor >= 0; --minor) versions.push_back(fmt::format("py{}{}", info.major, minor));
  for (const auto& v : versions) {
    for (const auto& p : platforms) out.push_back(fmt::format("{}-none-{}", v, p));
  }
  out.push_back(fmt::format("{}-none-any", interpreter));
  for (const auto& v : versions) out.push_back(fmt::format("{}-none-any", v));
  return out;
}

}  // namespace vwheel::tags
