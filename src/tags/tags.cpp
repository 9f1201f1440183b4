#include "vwheel/tags/tags.hpp"

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

}  // namespace

std::vector<std::string> platform_tags(const InterpreterInfo& info) {
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
