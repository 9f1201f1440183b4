#pragma once
// Libraries loaded at run time (libcrypto, libcurl, ISA-L, the GPU drivers' libraries): their file
// names on each system, opening them (dlopen, or LoadLibraryW on Windows), and their functions
// copied into typed function pointers.

#ifdef _WIN32
#include <windows.h>
#else
#include <dlfcn.h>
#endif

#include <cstring>
#include <string>
#include <string_view>

namespace vwheel::detail {

/// The systems whose library names differ.
enum class Os { linux, macos, windows };

/// The system this build runs on.
#if defined(_WIN32)
inline constexpr Os kHostOs = Os::windows;
#elif defined(__APPLE__)
inline constexpr Os kHostOs = Os::macos;
#else
inline constexpr Os kHostOs = Os::linux;
#endif

/// The libraries vwheel loads when it needs them.
enum class RuntimeLibrary { curl, crypto, isal, nvml, level_zero };

/// The file name the loader is given for `library` on `os`: the ABI-versioned name each system's
/// packages install (Debian's `libcurl.so.4`, Homebrew's and macOS's `libcurl.4.dylib`, the
/// driver's `nvml.dll` in System32, OpenSSL 3's `libcrypto-3-x64.dll`). Empty where the system
/// has no such library (NVML and Level Zero on macOS).
[[nodiscard]] constexpr std::string_view runtime_library_name(RuntimeLibrary library, Os os = kHostOs) {
  switch (library) {
    case RuntimeLibrary::curl:
      return os == Os::linux ? "libcurl.so.4" : os == Os::macos ? "libcurl.4.dylib" : "libcurl-x64.dll";
    case RuntimeLibrary::crypto:
      return os == Os::linux ? "libcrypto.so.3" : os == Os::macos ? "libcrypto.3.dylib" : "libcrypto-3-x64.dll";
    case RuntimeLibrary::isal:
      return os == Os::linux ? "libisal.so.2" : os == Os::macos ? "libisal.2.dylib" : "isa-l.dll";
    case RuntimeLibrary::nvml:
      return os == Os::linux ? "libnvidia-ml.so.1" : os == Os::macos ? "" : "nvml.dll";
    case RuntimeLibrary::level_zero:
      return os == Os::linux ? "libze_loader.so.1" : os == Os::macos ? "" : "ze_loader.dll";
  }
  return "";
}

/// Opens the library `name` (a file name searched as the system does, or a path), its symbols
/// local to it; nullptr when it cannot be loaded (dl_error() says why).
inline void* dl_open(const std::string& name) noexcept {
#ifdef _WIN32
  const int n = MultiByteToWideChar(CP_UTF8, 0, name.c_str(), -1, nullptr, 0);
  if (n <= 0) return nullptr;
  std::wstring wide(static_cast<std::size_t>(n), L'\0');
  MultiByteToWideChar(CP_UTF8, 0, name.c_str(), -1, wide.data(), n);
  return reinterpret_cast<void*>(LoadLibraryW(wide.c_str()));
#else
  dlerror();
  return dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
#endif
}

/// Why the last dl_open failed (one line), or "not found".
inline std::string dl_error() {
#ifdef _WIN32
  return "Windows error " + std::to_string(GetLastError());
#else
  const char* e = dlerror();
  return e != nullptr ? std::string(e) : std::string("not found");
#endif
}

/// Unloads a library dl_open returned.
inline void dl_close(void* lib) noexcept {
#ifdef _WIN32
  FreeLibrary(reinterpret_cast<HMODULE>(lib));
#else
  dlclose(lib);
#endif
}

/// Sets `fn` to the function `name` of `lib` (a dl_open handle); false, `fn` unchanged, when the
/// library does not export it.
template <class Fn>
bool dl_function(void* lib, const char* name, Fn& fn) noexcept {
#ifdef _WIN32
  void* sym = reinterpret_cast<void*>(GetProcAddress(reinterpret_cast<HMODULE>(lib), name));
#else
  void* sym = dlsym(lib, name);
#endif
  if (sym == nullptr) return false;
  static_assert(sizeof(fn) == sizeof(sym), "a function pointer the size of void*");
  std::memcpy(&fn, &sym, sizeof fn);
  return true;
}

}  // namespace vwheel::detail
