#include "zip/isal.hpp"

#include <mutex>

#include "core/dl.hpp"

namespace vwheel::zip::detail {
namespace {

const Isal* load_once() noexcept {
  static Isal api;
  void* lib = vwheel::detail::dl_open(
      std::string(vwheel::detail::runtime_library_name(vwheel::detail::RuntimeLibrary::isal)));
  if (lib == nullptr) return nullptr;
  if (!vwheel::detail::dl_function(lib, "isal_inflate_init", api.inflate_init) ||
      !vwheel::detail::dl_function(lib, "isal_inflate", api.inflate)) {
    vwheel::detail::dl_close(lib);
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
