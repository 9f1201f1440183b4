# `cpack -G DEB` (from the build tree: `cpack -G DEB --config build/CPackConfig.cmake`): two Debian
# packages, as Debian splits a tool from its library:
#   vwheel          the CLI (vwheel, vwheel-serve, the man page); its Depends come from
#                   dpkg-shlibdeps on the binaries (libc6 only: libstdc++, libdeflate and zlib are
#                   linked statically), and the libraries it loads at run time with dlopen are
#                   Recommends (libcurl for http(s) indexes, libcrypto for fast hashes, ISA-L for
#                   fast inflate): vwheel works without them, as the code falls back.
#   libvwheel-dev   the static libraries, headers and CMake package (find_package(vwheel)); it
#                   depends on the -dev packages its exported targets and public headers name.
# tests/package/run --deb builds both, checks their fields, asks apt whether they install here, and
# uses the unpacked packages as a downstream project would.
set(CPACK_PACKAGE_NAME vwheel)
set(CPACK_PACKAGE_VENDOR "vwheel developers")
set(CPACK_PACKAGE_CONTACT "vwheel developers <vwheel@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Wheel Variants (PEP 825/817): installer, index tools and build frontend")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_CLI_PACKAGE_NAME vwheel)
set(CPACK_DEBIAN_CLI_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_CLI_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_CLI_PACKAGE_RECOMMENDS "libcurl4, ca-certificates, libssl3, libisal2, git")
set(CPACK_DEBIAN_CLI_DESCRIPTION
  "vwheel chooses, installs, locks, builds and indexes wheel variants:\none package version shipped as several wheels for specific hardware\n(CUDA, GPU architectures, x86-64 levels), chosen automatically.")
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libvwheel-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libexpected-dev, libcpp-httplib-dev, libssl-dev, libcrypt-dev, libdeflate-dev, zlib1g-dev, pkg-config, cmake (>= 3.25)")
set(CPACK_DEBIAN_DEV_DESCRIPTION
  "Wheel Variants (PEP 825/817) C++ library: static libraries and headers\nlibvwheel is the engine of the vwheel tool: variant.json, ordering,\nproviders, wheels, indexes, resolver and installer. Use it from CMake\nwith find_package(vwheel).")
include(CPack)
