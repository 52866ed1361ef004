# Test-listing check, run by CTest as
#   cmake -DNGVI_TEST_ROOT=<repo>/test -DNGVI_LISTED=<build>/test/listed_test_sources.txt
#         [-DNGVI_UNBUILT_DIRS=<test folders or files switched off in this tree>] -P listing_test.cmake
#
# Test sources are listed by hand in test/**/CMakeLists.txt (no globbing in the build). This
# check globs instead, and fails naming every *_test.cpp under test/ that no
# ngvi_add_test_executable() call lists — a test that is never built is a test that cannot fail.
cmake_minimum_required(VERSION 3.25)

if(NOT NGVI_TEST_ROOT OR NOT NGVI_LISTED)
  message(FATAL_ERROR "listing_test.cmake: pass -DNGVI_TEST_ROOT=... and -DNGVI_LISTED=...")
endif()

file(STRINGS "${NGVI_LISTED}" _listed)
file(GLOB_RECURSE _present RELATIVE "${NGVI_TEST_ROOT}" "${NGVI_TEST_ROOT}/*_test.cpp")

# NGVI_UNBUILT_DIRS: folders of test/ (and single files) that this build tree leaves out on
# purpose (test/app/ when the tool is not built, inference/instances_test.cpp without the compiled
# library); their files are reported, not counted as missing.
set(_missing 0)
foreach(_file IN LISTS _present)
  set(_unbuilt "")
  foreach(_off IN LISTS NGVI_UNBUILT_DIRS)
    string(LENGTH "${_off}/" _off_length)
    string(SUBSTRING "${_file}" 0 ${_off_length} _head)
    if(_file STREQUAL _off OR _head STREQUAL "${_off}/")
      set(_unbuilt "${_off}")
    endif()
  endforeach()
  if(_unbuilt)
    message(STATUS "test/${_file}: not built in this tree (test/${_unbuilt} is switched off)")
    continue()
  endif()
  if(NOT _file IN_LIST _listed)
    message("test/${_file}: not listed in any ngvi_add_test_executable() SOURCES "
            "(add it to the CMakeLists.txt of its directory tree and re-run cmake)")
    math(EXPR _missing "${_missing} + 1")
  endif()
endforeach()

if(_missing GREATER 0)
  message(FATAL_ERROR "test listing: ${_missing} test file(s) are not built")
endif()
list(LENGTH _present _count)
message(STATUS "test listing: all ${_count} *_test.cpp file(s) are built and registered")
