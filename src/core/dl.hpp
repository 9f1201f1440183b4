#pragma once
// Functions of a library opened with dlopen (libcrypto, libcurl, ISA-L, the GPU drivers'
// libraries): dlsym's `void*` copied into a typed function pointer.

#include <dlfcn.h>

#include <cstring>

namespace vwheel::detail {

/// Sets `fn` to the function `name` of `lib` (a dlopen handle); false, `fn` unchanged, when the
/// library does not export it.
template <class Fn>
bool dl_function(void* lib, const char* name, Fn& fn) noexcept {
  void* sym = dlsym(lib, name);
  if (sym == nullptr) return false;
  static_assert(sizeof(fn) == sizeof(sym), "a function pointer the size of void*");
  std::memcpy(&fn, &sym, sizeof fn);
  return true;
}

}  // namespace vwheel::detail
