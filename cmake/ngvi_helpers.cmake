# Build helpers for ngvi's own targets (tests, examples, benchmarks).
#
# The flags set here are our choices for our programs — warnings, -march=native, -Werror — and
# are always PRIVATE, so nothing here leaks into the exported ngvi::* targets or into consumers.
# This file is not installed.
include_guard(GLOBAL)

# ngvi_configure_target(<target> [PORTABLE])
#   Warnings (-Wall -Wextra -Wpedantic), -march=native when NGVI_NATIVE, -Werror when NGVI_WERROR,
#   minus the GCC 12 false positives described below. PORTABLE: never -march=native — for the
#   compiled library ngvi_instances, which is installed, and for the programs that link it, whose
#   Eigen alignment must match the library's (inference/instances.hpp).
function(ngvi_configure_target target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "PORTABLE" "" "")
  set(_native ${NGVI_NATIVE})
  if(ARG_PORTABLE)
    set(_native OFF)
  endif()
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
    if(NGVI_WERROR)
      target_compile_options(${target} PRIVATE -Werror)
    endif()
    if(_native)
      target_compile_options(${target} PRIVATE -march=native)
    endif()
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
      # GCC 12's -O2/-O3 -Wmaybe-uninitialized fires by the thousand inside Eigen, Boost.Math
      # (autodiff fvar) and libstdc++ once they are inlined into our code: false positives in
      # system headers that drown real diagnostics.
      target_compile_options(${target} PRIVATE -Wno-maybe-uninitialized)
      # Likewise -Wrestrict on `"literal" + std::string&&` at -O3 (GCC PR 105651): a bogus
      # memcpy-overlap report from inside libstdc++'s basic_string.
      target_compile_options(${target} PRIVATE -Wno-restrict)
      if(_native)
        # GCC 12's AVX-512 headers initialise _mm512_undefined_*() results with themselves
        # (`__m512d __Y = __Y;`), which -Wuninitialized reports in every Eigen reduction
        # (GCC PR 105593, fixed in GCC 13). The debug and asan presets build without
        # -march=native and keep this warning.
        target_compile_options(${target} PRIVATE -Wno-uninitialized)
      endif()
    endif()
  elseif(MSVC)
    target_compile_options(${target} PRIVATE /W4 /permissive-)
    if(NGVI_WERROR)
      target_compile_options(${target} PRIVATE /WX)
    endif()
  endif()
endfunction()

# ngvi_add_header_check(<target> MODULES <dir>... LIBS <target>... [EXCLUDE <header>...])
#   One translation unit per public header (*.hpp under each module directory) that includes
#   only that header, compiled into an OBJECT library: a header that forgets one of its own
#   includes fails here. The header list is globbed on purpose (every header must pass), and
#   CONFIGURE_DEPENDS makes a new header show up without re-running cmake by hand. EXCLUDE
#   names headers (relative to the source root) whose dependency this tree lacks (the GoogleTest
#   macros without GoogleTest).
function(ngvi_add_header_check target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "MODULES;LIBS;EXCLUDE")
  set(_sources "")
  foreach(_module IN LISTS ARG_MODULES)
    file(GLOB_RECURSE _headers CONFIGURE_DEPENDS
         RELATIVE "${PROJECT_SOURCE_DIR}" "${PROJECT_SOURCE_DIR}/${_module}/*.hpp")
    foreach(_header IN LISTS _headers)
      if(_header IN_LIST ARG_EXCLUDE)
        continue()
      endif()
      string(REGEX REPLACE "[/.]" "_" _stem "${_header}")
      set(_tu "${CMAKE_CURRENT_BINARY_DIR}/header_check/${_stem}.cpp")
      set(_content "// Generated: checks that <${_header}> compiles on its own.\n#include <${_header}>\n")
      if(EXISTS "${_tu}")
        file(READ "${_tu}" _old)
      else()
        set(_old "")
      endif()
      if(NOT _old STREQUAL _content)
        file(WRITE "${_tu}" "${_content}")
      endif()
      list(APPEND _sources "${_tu}")
    endforeach()
  endforeach()
  if(NOT _sources)
    message(STATUS "ngvi: no headers to check yet")
    return()
  endif()
  add_library(${target} OBJECT ${_sources})
  target_link_libraries(${target} PRIVATE ${ARG_LIBS})
  ngvi_configure_target(${target})
endfunction()
