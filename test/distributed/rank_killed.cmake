# CTest script: when rank 1 of 3 is killed (SIGKILL) in the middle of the run, while the other
# ranks wait for its block sums, the job stops with an error naming rank 1 and a non-zero exit —
# no hang (the test's timeout would catch one) and no results written. The surviving ranks
# cannot report a peer's death themselves (MPI gives them no error for it): mpirun notices,
# stops them and names the killed rank.
# Run as cmake -DRANKS_FIT=<exe> -DMPIRUN=<mpirun command list> -DWORK=<dir>
# [-DMODE=--divide-data] -P <this file>; MODE=--divide-data runs it with the data divided across
# the ranks by row blocks (ranks_fit.cpp).
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

execute_process(COMMAND ${MPIRUN} --oversubscribe -np 3 "${RANKS_FIT}" ${MODE} --kill-rank 1
                        --out "${WORK}/out.txt"
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out TIMEOUT 120)
message(STATUS "mpirun exited with ${rc}; stdout:\n${out}\nstderr:\n${err}")
if(rc EQUAL 0 OR rc MATCHES "timeout")
  message(FATAL_ERROR "mpirun exited with '${rc}' although rank 1 was killed")
endif()
if(NOT "${out}${err}" MATCHES "process rank 1 [^\n]*signal 9")
  message(FATAL_ERROR "mpirun did not name the killed rank 1")
endif()
if(EXISTS "${WORK}/out.txt")
  message(FATAL_ERROR "rank 0 wrote results although the run failed")
endif()
