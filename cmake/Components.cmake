# libvwheel is split into components, one folder each: include/vwheel/<name>/ (public headers,
# documented) and src/<name>/ (sources, private headers). Each component is a static library
# `vwheel_<name>` that links only the components it builds on; `libvwheel` links them all.
# Parsing components do no I/O.
#
# DEPS must match the includes: every component a file includes is reachable through DEPS (directly
# or transitively), every DEP is included directly, and each third-party header's library is in
# LIBS. scripts/check_components.py checks this (scripts/test runs it before the build).

set(VWHEEL_COMPONENT_TARGETS "")

# vwheel_component(NAME [DEPS comp...] [LIBS target...])
function(vwheel_component name)
  cmake_parse_arguments(ARG "" "" "DEPS;LIBS" ${ARGN})
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${name}/*.cpp)
  if(sources)
    add_library(vwheel_${name} STATIC ${sources})
    set(scope PUBLIC)
  else()
    add_library(vwheel_${name} INTERFACE)
    set(scope INTERFACE)
  endif()
  target_include_directories(vwheel_${name} ${scope}
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(vwheel_${name} ${scope} tl::expected)
  foreach(dep ${ARG_DEPS})
    target_link_libraries(vwheel_${name} ${scope} vwheel_${dep})
  endforeach()
  if(sources)
    set_target_properties(vwheel_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    target_include_directories(vwheel_${name} PRIVATE ${PROJECT_SOURCE_DIR}/src)
    target_compile_definitions(vwheel_${name} PRIVATE
      VWHEEL_VERSION="${PROJECT_VERSION}" VWHEEL_DATADIR="${CMAKE_INSTALL_FULL_DATADIR}/vwheel")
    foreach(lib fmt::fmt-header-only ${ARG_LIBS})
      if(lib IN_LIST VWHEEL_HEADER_ONLY_LIBS)
        set(lib $<BUILD_INTERFACE:${lib}>)
      endif()
      target_link_libraries(vwheel_${name} PRIVATE ${lib})
    endforeach()
    vwheel_set_warnings(vwheel_${name})
  endif()
  # vwheel::<name> both in this tree and from the installed package (find_package(vwheel)).
  add_library(vwheel::${name} ALIAS vwheel_${name})
  set_target_properties(vwheel_${name} PROPERTIES EXPORT_NAME ${name})
  set(VWHEEL_COMPONENT_TARGETS ${VWHEEL_COMPONENT_TARGETS} vwheel_${name} PARENT_SCOPE)
endfunction()

vwheel_component(core LIBS vwheel::toml nlohmann_json::nlohmann_json Threads::Threads ${CMAKE_DL_LIBS})
vwheel_component(pep440 DEPS core)
vwheel_component(markers DEPS pep440)
vwheel_component(wheel_name DEPS core)
vwheel_component(variant DEPS markers)
vwheel_component(toml_edit DEPS core)
vwheel_component(metadata DEPS variant toml_edit wheel_name LIBS nlohmann_json::nlohmann_json vwheel::toml)
vwheel_component(target DEPS variant LIBS nlohmann_json::nlohmann_json)
vwheel_component(config DEPS variant LIBS vwheel::toml)
vwheel_component(provider DEPS variant python LIBS nlohmann_json::nlohmann_json ${CMAKE_DL_LIBS} Threads::Threads)
vwheel_component(tags)
vwheel_component(zip DEPS core LIBS ${VWHEEL_DEFLATE_STATIC} ${VWHEEL_ZLIB_STATIC} vwheel::isal_headers ${CMAKE_DL_LIBS})
vwheel_component(wheel DEPS zip metadata wheel_name)
vwheel_component(simple DEPS markers LIBS nlohmann_json::nlohmann_json)
vwheel_component(index DEPS wheel wheel_name simple)
vwheel_component(server DEPS index http LIBS PkgConfig::HTTPLIB PkgConfig::OPENSSL PkgConfig::XCRYPT Threads::Threads)
vwheel_component(python DEPS tags core LIBS nlohmann_json::nlohmann_json)
vwheel_component(lock DEPS metadata markers wheel_name LIBS vwheel::toml nlohmann_json::nlohmann_json)
vwheel_component(http DEPS core LIBS vwheel::curl_headers nlohmann_json::nlohmann_json ${CMAKE_DL_LIBS} Threads::Threads)
vwheel_component(resolve DEPS markers wheel_name)
vwheel_component(selection DEPS variant markers wheel_name pep440)

vwheel_component(install DEPS selection wheel python LIBS nlohmann_json::nlohmann_json Threads::Threads)
vwheel_component(finder DEPS http simple wheel LIBS nlohmann_json::nlohmann_json)
vwheel_component(build DEPS provider metadata markers install wheel LIBS nlohmann_json::nlohmann_json vwheel::toml)
vwheel_component(plan DEPS finder resolve lock install selection simple zip LIBS nlohmann_json::nlohmann_json Threads::Threads)
vwheel_component(api DEPS metadata target config variant provider python wheel selection install build plan index LIBS nlohmann_json::nlohmann_json Threads::Threads)

add_library(libvwheel INTERFACE)
add_library(vwheel::libvwheel ALIAS libvwheel)
set_target_properties(libvwheel PROPERTIES EXPORT_NAME libvwheel)
foreach(t ${VWHEEL_COMPONENT_TARGETS})
  target_link_libraries(libvwheel INTERFACE ${t})
endforeach()
