# CTest script: when every loss on rank 1 of 3 throws, every rank stops with one error naming
# rank 1 and its cause, and mpirun exits non-zero (no hang: the test's timeout would catch one).
# Run as cmake -DRANKS_FIT=<exe> -DMPIRUN=<mpirun command list> -DWORK=<dir>
# [-DMODE=--divide-data] -P <this file>; MODE=--divide-data runs it with the data divided across
# the ranks by row blocks (ranks_fit.cpp).
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

execute_process(COMMAND ${MPIRUN} --oversubscribe -np 3 "${RANKS_FIT}" ${MODE} --fail-rank 1
                        --out "${WORK}/out.txt"
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out TIMEOUT 120)
message(STATUS "mpirun exited with ${rc}; stderr:\n${err}")
if(rc EQUAL 0)
  message(FATAL_ERROR "mpirun exited with 0 although rank 1 failed")
endif()
foreach(rank 0 1 2)
  string(FIND "${err}" "ranks_fit (rank ${rank} of 3): ngvi::distributed: rank 1 failed: its data shard is unreadable" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "rank ${rank} did not report rank 1's failure with its cause")
  endif()
endforeach()
if(EXISTS "${WORK}/out.txt")
  message(FATAL_ERROR "rank 0 wrote results although the run failed")
endif()
