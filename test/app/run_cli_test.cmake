# One end-to-end test of the ngvi executable, run by CTest as
#   cmake -DNGVI_EXE=<ngvi> -DWORK=<scratch dir> -DARGS=<a^^b^^c> -DEXIT=<code>
#         [-DSTDOUT=<regex^^...>] [-DSTDERR=<regex^^...>] [-DNOT_OUTPUT=<regex^^...>]
#         [-DFILES=<path^^regex^^path^^regex...>] [-DABSENT=<path^^...>] [-DENV=<NAME=value^^...>]
#         -P run_cli_test.cmake
#
# Lists are joined with "^^" (CTest would split ';'). In ARGS, FILES and ABSENT, @WORK@ stands
# for the scratch folder, which is emptied first and is the working directory of the run.
# Checks: the exit code equals EXIT; every STDOUT / STDERR regex matches that stream; no
# NOT_OUTPUT regex matches either stream; each FILES path exists and matches its regex; each
# ABSENT path does not exist (nothing half-written). ENV sets environment variables for the run.
# Prints the command, both streams and what failed.
cmake_minimum_required(VERSION 3.25)

foreach(_v NGVI_EXE WORK EXIT)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "run_cli_test.cmake: pass -D${_v}=...")
  endif()
endforeach()

function(_split out text)
  string(REPLACE "@WORK@" "${WORK}" text "${text}")
  string(REPLACE "^^" ";" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
_split(_args "${ARGS}")
set(_env "")
if(DEFINED ENV AND NOT "${ENV}" STREQUAL "")
  _split(_env_list "${ENV}")
  set(_env "${CMAKE_COMMAND}" -E env ${_env_list})
endif()
execute_process(COMMAND ${_env} "${NGVI_EXE}" ${_args}
                WORKING_DIRECTORY "${WORK}"
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err
                TIMEOUT 600)
message("command: ngvi ${_args}\nexit code: ${_rc}\n--- stdout ---\n${_out}\n--- stderr ---\n${_err}--------------")

set(_failures "")
if(NOT "${_rc}" STREQUAL "${EXIT}")
  list(APPEND _failures "exit code ${_rc}, expected ${EXIT}")
endif()
foreach(_stream STDOUT STDERR)
  if(DEFINED ${_stream} AND NOT "${${_stream}}" STREQUAL "")
    _split(_regexes "${${_stream}}")
    if(_stream STREQUAL "STDOUT")
      set(_text "${_out}")
    else()
      set(_text "${_err}")
    endif()
    foreach(_re IN LISTS _regexes)
      if(NOT _text MATCHES "${_re}")
        list(APPEND _failures "${_stream} does not match: ${_re}")
      endif()
    endforeach()
  endif()
endforeach()
if(DEFINED NOT_OUTPUT AND NOT "${NOT_OUTPUT}" STREQUAL "")
  _split(_regexes "${NOT_OUTPUT}")
  foreach(_re IN LISTS _regexes)
    if("${_out}${_err}" MATCHES "${_re}")
      list(APPEND _failures "output matches what it must not: ${_re}")
    endif()
  endforeach()
endif()
if(DEFINED FILES AND NOT "${FILES}" STREQUAL "")
  _split(_pairs "${FILES}")
  list(LENGTH _pairs _n)
  math(EXPR _last "${_n} - 1")
  foreach(_i RANGE 0 ${_last} 2)
    math(EXPR _j "${_i} + 1")
    list(GET _pairs ${_i} _path)
    list(GET _pairs ${_j} _re)
    if(NOT EXISTS "${_path}")
      list(APPEND _failures "file ${_path} was not written")
    else()
      file(READ "${_path}" _content)
      if(NOT _content MATCHES "${_re}")
        list(APPEND _failures "file ${_path} does not match: ${_re}")
      endif()
    endif()
  endforeach()
endif()
if(DEFINED ABSENT AND NOT "${ABSENT}" STREQUAL "")
  _split(_paths "${ABSENT}")
  foreach(_path IN LISTS _paths)
    if(EXISTS "${_path}")
      list(APPEND _failures "${_path} exists but must not")
    endif()
  endforeach()
endif()

if(_failures)
  list(JOIN _failures "\n  " _text)
  message(FATAL_ERROR "ngvi end-to-end test failed:\n  ${_text}")
endif()
