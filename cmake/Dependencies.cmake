# Every external dependency, in one place. All come from Debian 12 packages (scripts/bootstrap).
find_package(PkgConfig REQUIRED)
find_package(tl-expected REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)
find_package(tomlplusplus REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)
find_package(Threads REQUIRED)
# libdeflate linked statically, as zlib below: a shared libdeflate.so is one more library to map and
# relocate at every start of every command. Measured with hyperfine -N on bench/startup.sh's commands
# (median of 400 runs, /bin/true 0.65 ms): `vwheel label` 1.07 -> 1.01 ms, `vwheel rank` of torch's
# file 1.55 -> 1.44 ms.
find_path(VWHEEL_DEFLATE_INCLUDE libdeflate.h REQUIRED)
find_library(VWHEEL_DEFLATE_STATIC NAMES libdeflate.a REQUIRED)
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)
# Only vwheel-serve links these (through vwheel::server; the vwheel executable does not): OpenSSL
# for `index serve --tls-cert` (Debian's libcpp-httplib links it already), libxcrypt for the
# bcrypt/SHA-crypt hashes of `--read-auth`. Checked when they were added: build/vwheel stayed
# byte-for-byte the same file (`vwheel label` 1.9 ms mean under hyperfine -N --warmup 20, shared
# 2-core machine), while `ldd vwheel-serve` gained only libcrypt.so.1.
pkg_check_modules(OPENSSL REQUIRED IMPORTED_TARGET openssl)
pkg_check_modules(XCRYPT REQUIRED IMPORTED_TARGET libxcrypt)
# zlib's streaming inflate for members too large to inflate whole (src/zip/stream.cpp), linked
# statically: only inflate's few objects are pulled in, and no libz.so is loaded at every start.
# (zlib.h is in the default include path; the archive's full path is what the exported targets name.)
find_path(VWHEEL_ZLIB_INCLUDE zlib.h REQUIRED)
find_library(VWHEEL_ZLIB_STATIC NAMES libz.a REQUIRED)
# ISA-L's header only: src/zip loads libisal.so.2 with dlopen for its streaming inflate (zlib's
# where it is missing), so nothing links against it.
find_path(VWHEEL_ISAL_INCLUDE isa-l/igzip_lib.h REQUIRED)
add_library(vwheel_isal_headers INTERFACE)
add_library(vwheel::isal_headers ALIAS vwheel_isal_headers)
target_include_directories(vwheel_isal_headers SYSTEM INTERFACE ${VWHEEL_ISAL_INCLUDE})
# libcurl's headers only: src/http loads libcurl.so.4 with dlopen, so nothing links against it.
find_package(CURL REQUIRED)
add_library(vwheel_curl_headers INTERFACE)
add_library(vwheel::curl_headers ALIAS vwheel_curl_headers)
target_include_directories(vwheel_curl_headers SYSTEM INTERFACE ${CURL_INCLUDE_DIRS})

# toml++ and fmt are used header-only: their shared libraries (and, through them, a dynamically
# loaded libstdc++) cost milliseconds at every start of a short-lived command.
add_library(vwheel_toml INTERFACE)
add_library(vwheel::toml ALIAS vwheel_toml)
target_include_directories(vwheel_toml SYSTEM INTERFACE $<TARGET_PROPERTY:tomlplusplus::tomlplusplus,INTERFACE_INCLUDE_DIRECTORIES>)
target_compile_definitions(vwheel_toml INTERFACE TOML_HEADER_ONLY=1)
# Include it through src/core/toml.hpp, never directly.

# Header-only libraries the components use privately. vwheel_component() links them at build time
# only ($<BUILD_INTERFACE:...>): nothing of them is left to link, so the installed package config
# need not find them and a user of the installed library needs none of their headers.
set(VWHEEL_HEADER_ONLY_LIBS fmt::fmt-header-only nlohmann_json::nlohmann_json vwheel::toml vwheel::curl_headers
  vwheel::isal_headers)
