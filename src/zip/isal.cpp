#include "zip/isal.hpp"

#include <dlfcn.h>

#include <mutex>

#include "core/dl.hpp"

namespace vwheel::zip::detail {
namespace {

const Isal* load_once() noexcept {
  static Isal api;
  void* lib = dlopen("libisal.so.2", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return nullptr;
  if (!vwheel::detail::dl_function(lib, "isal_inflate_init", api.inflate_init) ||
      !vwheel::detail::dl_function(lib, "isal_inflate", api.inflate)) {
    dlclose(lib);
    return nullptr;
  }
  return &api;  // loaded for the life of the process
}

}  // namespace

const Isal* load_isal() noexcept {
  static std::once_flag once;
  static const Isal* loaded = nullptr;
  std::call_once(once, [] { loaded = load_once(); });
  return loaded;
}

}  // namespace vwheel::zip::detail
