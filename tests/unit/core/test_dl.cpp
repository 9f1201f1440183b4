// Libraries loaded at run time: their names on each system, and opening them.

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "core/dl.hpp"

using vwheel::detail::Os;
using vwheel::detail::RuntimeLibrary;
using vwheel::detail::runtime_library_name;

TEST(RuntimeLibraries, NamesPerSystem) {
  EXPECT_EQ(runtime_library_name(RuntimeLibrary::curl, Os::linux), "libcurl.so.4");
  EXPECT_EQ(runtime_library_name(RuntimeLibrary::curl, Os::macos), "libcurl.4.dylib");
  EXPECT_EQ(runtime_library_name(RuntimeLibrary::curl, Os::windows), "libcurl-x64.dll");
  EXPECT_EQ(runtime_library_name(RuntimeLibrary::crypto, Os::macos), "libcrypto.3.dylib");
  EXPECT_EQ(runtime_library_name(RuntimeLibrary::crypto, Os::windows), "libcrypto-3-x64.dll");
  EXPECT_EQ(runtime_library_name(RuntimeLibrary::isal, Os::macos), "libisal.2.dylib");
  EXPECT_EQ(runtime_library_name(RuntimeLibrary::nvml, Os::linux), "libnvidia-ml.so.1");
  EXPECT_EQ(runtime_library_name(RuntimeLibrary::nvml, Os::windows), "nvml.dll");
  EXPECT_EQ(runtime_library_name(RuntimeLibrary::nvml, Os::macos), "");  // no NVIDIA driver on macOS
  EXPECT_EQ(runtime_library_name(RuntimeLibrary::level_zero, Os::windows), "ze_loader.dll");
  // This build's defaults are its system's.
  EXPECT_EQ(runtime_library_name(RuntimeLibrary::curl), runtime_library_name(RuntimeLibrary::curl, vwheel::detail::kHostOs));
}

#ifdef __linux__
TEST(RuntimeLibraries, OpenFindAndFail) {
  void* libc = vwheel::detail::dl_open("libc.so.6");
  ASSERT_NE(libc, nullptr) << vwheel::detail::dl_error();
  std::size_t (*length)(const char*) = nullptr;
  ASSERT_TRUE(vwheel::detail::dl_function(libc, "strlen", length));
  EXPECT_EQ(length("variant"), 7u);
  EXPECT_FALSE(vwheel::detail::dl_function(libc, "no_such_function_here", length));
  vwheel::detail::dl_close(libc);
  EXPECT_EQ(vwheel::detail::dl_open("libno-such-library.so.9"), nullptr);
  EXPECT_NE(vwheel::detail::dl_error().find("libno-such-library.so.9"), std::string::npos);
}
#endif
