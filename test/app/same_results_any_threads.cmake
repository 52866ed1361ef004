# Runs `ngvi ARGS... --threads 1 --json <work>/t1.json` and the same with --threads 2, and fails
# unless the two JSON files are identical once their wall-time fields ("seconds") are dropped:
# the tool's results must be bitwise identical for any number of threads (CONTRIBUTING.md).
#   cmake -DNGVI_EXE=<ngvi> -DWORK=<scratch dir> -DARGS=<a^^b^^c> -P same_results_any_threads.cmake
cmake_minimum_required(VERSION 3.25)

foreach(_v NGVI_EXE WORK ARGS)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "same_results_any_threads.cmake: pass -D${_v}=...")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
string(REPLACE "^^" ";" _args "${ARGS}")

set(_texts "")
foreach(_threads 1 2)
  execute_process(COMMAND "${NGVI_EXE}" ${_args} --threads ${_threads} --json "${WORK}/t${_threads}.json"
                  WORKING_DIRECTORY "${WORK}" RESULT_VARIABLE _rc OUTPUT_VARIABLE _out
                  ERROR_VARIABLE _err TIMEOUT 600)
  message("ngvi ${_args} --threads ${_threads}: exit code ${_rc}\n${_out}${_err}")
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "the run with --threads ${_threads} failed")
  endif()
  file(STRINGS "${WORK}/t${_threads}.json" _lines)
  list(FILTER _lines EXCLUDE REGEX "\"seconds\"")
  list(JOIN _lines "\n" _text)
  list(APPEND _texts "${_text}")
endforeach()
list(GET _texts 0 _one)
list(GET _texts 1 _two)
string(LENGTH "${_one}" _length)
if(_length LESS 200)
  message(FATAL_ERROR "the results file is too short to be a real comparison:\n${_one}")
endif()
if(NOT _one STREQUAL _two)
  message(FATAL_ERROR "the results differ between --threads 1 and --threads 2:\n--- 1 ---\n${_one}\n--- 2 ---\n${_two}")
endif()
