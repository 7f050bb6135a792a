# Precompiled headers (UISCOPE_PCH, on by default): the standard library,
# nlohmann/json and gtest are parsed in most translation units, which is a
# large share of the build. One precompiled header serves the libraries,
# benches and the CLI's code, another every test binary; each target reuses
# one of them (REUSE_FROM) instead of compiling its own.
#
# A reusing target must be compiled with the flags its header was: the
# headers' targets below carry no definitions of their own, and the targets
# given one are only those built with the project's common flags (no Qt or
# GTK fixture apps, no fuzz targets). Definitions a reusing target adds
# (fixture paths, httplib's options) are allowed by gcc and clang as long as
# the precompiled headers do not use them.

set(UISCOPE_PCH_HEADERS
  <algorithm> <array> <atomic> <chrono> <cstdint> <cstdio> <cstdlib> <cstring> <functional>
  <map> <memory> <mutex> <optional> <set> <sstream> <string> <string_view> <thread>
  <unordered_map> <utility> <variant> <vector>
  <nlohmann/json.hpp>)

# The targets defined in `dir` and below it.
function(uiscope_targets_below dir out)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    uiscope_targets_below("${sub}" below)
    list(APPEND targets ${below})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# Whether `target` compiles C++ (a library or executable with a .cpp source).
function(uiscope_compiles_cxx target out)
  set(${out} FALSE PARENT_SCOPE)
  get_target_property(type ${target} TYPE)
  if(NOT type MATCHES "^(STATIC_LIBRARY|EXECUTABLE|OBJECT_LIBRARY)$")
    return()
  endif()
  get_target_property(sources ${target} SOURCES)
  foreach(source IN LISTS sources)
    if(source MATCHES "\\.cpp$")
      set(${out} TRUE PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

# The targets defined under any of the source folders `prefixes` (relative
# to the project's root).
function(uiscope_targets_in out)
  uiscope_targets_below("${CMAKE_SOURCE_DIR}" all)
  set(found)
  foreach(target IN LISTS all)
    get_target_property(dir ${target} SOURCE_DIR)
    file(RELATIVE_PATH rel "${CMAKE_SOURCE_DIR}" "${dir}")
    foreach(prefix IN LISTS ARGN)
      if(rel STREQUAL prefix OR rel MATCHES "^${prefix}/")
        list(APPEND found ${target})
      endif()
    endforeach()
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

# The header the libraries and benches reuse, and the CLI's own (with
# CLI11, which only the CLI parses and which is its largest header).
function(uiscope_product_pch)
  add_library(uiscope_pch_product STATIC "${CMAKE_SOURCE_DIR}/cmake/pch_anchor.cpp")
  target_precompile_headers(uiscope_pch_product PRIVATE ${UISCOPE_PCH_HEADERS})
  uiscope_targets_in(targets src bench)
  foreach(target IN LISTS targets)
    uiscope_compiles_cxx(${target} cxx)
    if(cxx)
      target_precompile_headers(${target} REUSE_FROM uiscope_pch_product)
    endif()
  endforeach()
  target_precompile_headers(uiscope PRIVATE ${UISCOPE_PCH_HEADERS} <CLI/CLI.hpp>)
endfunction()

# The header every gtest binary (and the test support library) reuses;
# fixture apps are left alone.
function(uiscope_test_pch)
  add_library(uiscope_pch_tests STATIC "${CMAKE_SOURCE_DIR}/cmake/pch_anchor.cpp")
  target_link_libraries(uiscope_pch_tests PRIVATE GTest::gtest)
  target_precompile_headers(uiscope_pch_tests PRIVATE ${UISCOPE_PCH_HEADERS} <gtest/gtest.h>)
  uiscope_targets_in(targets tests)
  foreach(target IN LISTS targets)
    uiscope_compiles_cxx(${target} cxx)
    get_target_property(libraries ${target} LINK_LIBRARIES)
    if(cxx AND libraries MATCHES "GTest::")
      target_precompile_headers(${target} REUSE_FROM uiscope_pch_tests)
    endif()
  endforeach()
endfunction()
