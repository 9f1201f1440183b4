# Every external dependency, in one place. All come from Debian 12 packages (scripts/bootstrap).
find_package(PkgConfig REQUIRED)
find_package(tl-expected REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)
find_package(tomlplusplus REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)
find_package(OpenSSL REQUIRED)
find_package(Threads REQUIRED)
