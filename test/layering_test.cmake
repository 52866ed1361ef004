# Layering check, run by CTest as `cmake -DNGVI_ROOT=<repo> -P layering_test.cmake`.
#
# The project is layered autodiff → nn → inference → io → app (the command-line tool), with
# distributed above inference and below app: a module may include only modules before it (and
# distributed/ and io/ not each other). This scans every source file under autodiff/, nn/,
# inference/, io/ and distributed/ for #include <...> or "..." lines that reach a later module, prints each offence as
# file:line: text, and fails if there is any.
cmake_minimum_required(VERSION 3.25)

if(NOT NGVI_ROOT)
  message(FATAL_ERROR "layering_test.cmake: pass -DNGVI_ROOT=<repository root>")
endif()

# module → modules it must not include
set(_forbidden_autodiff nn inference io distributed app)
set(_forbidden_nn inference io distributed app)
set(_forbidden_inference io distributed app)
set(_forbidden_io distributed app)
set(_forbidden_distributed io app)

set(_offences 0)
set(_scanned 0)
foreach(_module autodiff nn inference io distributed)
  if(NOT IS_DIRECTORY "${NGVI_ROOT}/${_module}")
    continue()
  endif()
  list(JOIN _forbidden_${_module} "|" _alternatives)
  set(_pattern "^[ \t]*#[ \t]*include[ \t]*[<\"](${_alternatives})/")
  file(GLOB_RECURSE _files RELATIVE "${NGVI_ROOT}"
       "${NGVI_ROOT}/${_module}/*.hpp" "${NGVI_ROOT}/${_module}/*.h"
       "${NGVI_ROOT}/${_module}/*.ipp" "${NGVI_ROOT}/${_module}/*.inl"
       "${NGVI_ROOT}/${_module}/*.cpp")
  foreach(_file IN LISTS _files)
    math(EXPR _scanned "${_scanned} + 1")
    file(READ "${NGVI_ROOT}/${_file}" _text)
    if(NOT _text MATCHES "include[ \t]*[<\"](${_alternatives})/")
      continue()  # fast path: nothing that could match
    endif()
    # Turn the file into a list of lines without letting ';', '[' or ']' confuse CMake's lists.
    string(REPLACE ";" "<semicolon>" _text "${_text}")
    string(REPLACE "[" "<lbracket>" _text "${_text}")
    string(REPLACE "]" "<rbracket>" _text "${_text}")
    string(REPLACE "\r" "" _text "${_text}")
    string(REPLACE "\n" ";" _lines "${_text}")
    set(_line_no 0)
    foreach(_line IN LISTS _lines)
      math(EXPR _line_no "${_line_no} + 1")
      if(_line MATCHES "${_pattern}")
        string(REPLACE "<semicolon>" ";" _line "${_line}")
        string(REPLACE "<lbracket>" "[" _line "${_line}")
        string(REPLACE "<rbracket>" "]" _line "${_line}")
        string(STRIP "${_line}" _line)
        message("${_file}:${_line_no}: ${_module}/ must not include ${CMAKE_MATCH_1}/: ${_line}")
        math(EXPR _offences "${_offences} + 1")
      endif()
    endforeach()
  endforeach()
endforeach()

if(_offences GREATER 0)
  message(FATAL_ERROR "layering: ${_offences} include(s) break autodiff → nn → inference → io/distributed → app")
endif()
message(STATUS "layering: ${_scanned} file(s) under autodiff/, nn/, inference/, io/ and distributed/ checked, no violations")
