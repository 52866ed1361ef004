# Determinism check of `ngvi study`, run by CTest as
#   cmake -DNGVI_EXE=<ngvi> -DWORK=<scratch dir> -DARGS=<a^^b^^...> -DREFERENCE=<results.json>
#         -P same_results.cmake
# Runs `ngvi ARGS... --out <WORK>/s` and requires its results.json to be byte-identical to
# REFERENCE, the file of a run with the same seed and options but another thread count
# (--no-timing leaves the wall times, the only figures allowed to differ, out of both).
cmake_minimum_required(VERSION 3.25)

foreach(_v NGVI_EXE WORK ARGS REFERENCE)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "same_results.cmake: pass -D${_v}=...")
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
include("${CMAKE_CURRENT_LIST_DIR}/../run_ngvi.cmake")
ngvi_run_out("${WORK}/s")
if(NOT EXISTS "${REFERENCE}")
  message(FATAL_ERROR "the reference ${REFERENCE} does not exist (its fixture did not run)")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${WORK}/s/results.json" "${REFERENCE}"
                RESULT_VARIABLE _same)
if(NOT _same EQUAL 0)
  string(REPLACE "^^" " " _shown "${ARGS}")
  message(FATAL_ERROR "results.json of `ngvi ${_shown}` differs from ${REFERENCE}: the study is not "
                      "deterministic across thread counts (diff the two files)")
endif()
message(STATUS "results.json is byte-identical to the run with another thread count")
