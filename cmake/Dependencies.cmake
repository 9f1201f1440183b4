# Every external dependency, in one place. All come from Debian 12 packages (scripts/bootstrap).
find_package(PkgConfig REQUIRED)
find_package(tl-expected REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)
find_package(tomlplusplus REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)
find_package(Threads REQUIRED)
pkg_check_modules(LIBDEFLATE REQUIRED IMPORTED_TARGET libdeflate)
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)

# toml++ and fmt are used header-only: their shared libraries (and, through them, a dynamically
# loaded libstdc++) cost milliseconds at every start of a short-lived command.
add_library(vwheel_toml INTERFACE)
add_library(vwheel::toml ALIAS vwheel_toml)
target_include_directories(vwheel_toml SYSTEM INTERFACE $<TARGET_PROPERTY:tomlplusplus::tomlplusplus,INTERFACE_INCLUDE_DIRECTORIES>)
target_compile_definitions(vwheel_toml INTERFACE TOML_HEADER_ONLY=1)
# Include it through src/core/toml.hpp, never directly.
